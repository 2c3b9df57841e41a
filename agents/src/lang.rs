//! Texts in two languages: the English forms of the numbers [`crate::text`] formats the
//! Brazilian way, and [`Lang`], by which an agent that writes its insights in Portuguese and in
//! English writes each text once.

use crate::text::{count_of, format_brl, format_decimal, format_pct};

/// Formats an amount of money for an English reader: `R$ 1,234,567.89` (the Brazilian format
/// with its separators swapped).
pub fn format_brl_en(value: f64) -> String {
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
pub fn format_pct_en(fraction: f64) -> String {
    format!("{:.1}%", fraction * 100.0)
}

/// How a text is written: Portuguese or English words and numbers (agents that write their
/// insights in both languages write each text once, by a function of this).
#[derive(Clone, Copy)]
pub struct Lang {
    /// English; else Portuguese.
    pub en: bool,
}

/// Portuguese.
pub const PT: Lang = Lang { en: false };
/// English.
pub const EN: Lang = Lang { en: true };

impl Lang {
    /// The Portuguese or the English of a word.
    pub fn pick<'a>(self, pt: &'a str, en: &'a str) -> &'a str {
        if self.en { en } else { pt }
    }
    /// Money.
    pub fn brl(self, v: f64) -> String {
        if self.en { format_brl_en(v) } else { format_brl(v) }
    }
    /// A fraction as a percentage with one decimal.
    pub fn pct(self, f: f64) -> String {
        if self.en { format_pct_en(f) } else { format_pct(f) }
    }
    /// A number with `places` decimals.
    pub fn dec(self, x: f64, places: usize) -> String {
        if self.en { format!("{x:.places$}") } else { format_decimal(x, places) }
    }
    /// `n` and its noun, singular or plural.
    pub fn count(self, n: usize, pt: (&str, &str), en: (&str, &str)) -> String {
        let (one, many) = if self.en { en } else { pt };
        count_of(n, one, many)
    }
    /// A region's name (IBGE's acronyms: `N`, `NE`, `CO`, `SE`, `S`).
    pub fn region(self, code: &str, name: &'static str) -> &'static str {
        if !self.en {
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
        assert_eq!((EN.dec(1.25, 1), PT.dec(1.25, 1)), ("1.2".to_string(), "1,2".to_string()));
    }

    #[test]
    fn each_language_has_its_words_counts_and_region_names() {
        assert_eq!(PT.count(1, ("mês", "meses"), ("month", "months")), "1 mês");
        assert_eq!(EN.count(3, ("mês", "meses"), ("month", "months")), "3 months");
        assert_eq!(
            (PT.region("CO", "Centro-Oeste"), EN.region("CO", "Centro-Oeste")),
            ("Centro-Oeste", "Central-West")
        );
        assert_eq!(EN.brl(10.0), "R$ 10.00");
        assert_eq!(PT.brl(10.0), "R$ 10,00");
    }
}
