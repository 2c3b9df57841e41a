//! Texts in two languages: the [`Language`] a user writes in (answers follow it), the English
//! forms of the numbers [`crate::text`] formats the Brazilian way, and the words and numbers of
//! each language, by which an agent that writes its insights in Portuguese and in English
//! writes each text once.

use serde::{Deserialize, Serialize};

use crate::text::{count_of, format_brl, format_decimal, format_pct};

/// Formats an amount of money for an English reader: `R$ 1,234,567.89` (the Brazilian format
/// with its separators swapped).
fn format_brl_en(value: f64) -> String {
    format_brl(value)
        .chars()
        .map(|c| match c {
            '.' => ',',
            ',' => '.',
            c => c,
        })
        .collect()
}

/// Formats a fraction as a percentage with one decimal and a point: `0.4237` -> `42.4%`.
fn format_pct_en(fraction: f64) -> String {
    format!("{:.1}%", fraction * 100.0)
}

/// The language a user writes in; answers follow it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Language {
    /// Portuguese, the default.
    #[default]
    Pt,
    /// English.
    En,
}

impl Language {
    /// `pt` or `en`.
    pub fn as_str(self) -> &'static str {
        match self {
            Language::Pt => "pt",
            Language::En => "en",
        }
    }

    /// Whether it is English.
    pub fn is_en(self) -> bool {
        self == Language::En
    }

    /// The Portuguese or the English of a word.
    pub fn pick<'a>(self, pt: &'a str, en: &'a str) -> &'a str {
        if self.is_en() { en } else { pt }
    }
    /// Money.
    pub fn brl(self, v: f64) -> String {
        if self.is_en() { format_brl_en(v) } else { format_brl(v) }
    }
    /// A fraction as a percentage with one decimal.
    pub fn pct(self, f: f64) -> String {
        if self.is_en() { format_pct_en(f) } else { format_pct(f) }
    }
    /// A number with `places` decimals.
    pub fn dec(self, x: f64, places: usize) -> String {
        if self.is_en() { format!("{x:.places$}") } else { format_decimal(x, places) }
    }
    /// `n` and its noun, singular or plural.
    pub fn count(self, n: usize, pt: (&str, &str), en: (&str, &str)) -> String {
        let (one, many) = if self.is_en() { en } else { pt };
        count_of(n, one, many)
    }
    /// A region's name (IBGE's acronyms: `N`, `NE`, `CO`, `SE`, `S`).
    pub fn region(self, code: &str, name: &'static str) -> &'static str {
        if !self.is_en() {
            return name;
        }
        match code {
            "N" => "North",
            "NE" => "Northeast",
            "CO" => "Central-West",
            "SE" => "Southeast",
            "S" => "South",
            _ => name,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn english_numbers_swap_the_brazilian_separators() {
        assert_eq!(format_brl_en(1_234_567.891), "R$ 1,234,567.89");
        assert_eq!(format_brl_en(-0.5), "-R$ 0.50");
        assert_eq!(format_pct_en(0.4237), "42.4%");
        assert_eq!((Language::En.dec(1.25, 1), Language::Pt.dec(1.25, 1)), ("1.2".to_string(), "1,2".to_string()));
    }

    #[test]
    fn each_language_has_its_words_counts_and_region_names() {
        assert_eq!(Language::Pt.count(1, ("mês", "meses"), ("month", "months")), "1 mês");
        assert_eq!(Language::En.count(3, ("mês", "meses"), ("month", "months")), "3 months");
        assert_eq!(
            (Language::Pt.region("CO", "Centro-Oeste"), Language::En.region("CO", "Centro-Oeste")),
            ("Centro-Oeste", "Central-West")
        );
        assert_eq!(Language::En.brl(10.0), "R$ 10.00");
        assert_eq!(Language::Pt.brl(10.0), "R$ 10,00");
    }
}
