//! Interpreting a natural-language query ("contratos do Ministério da Saúde acima de R$ 1
//! milhão em dezembro de 2024") into the filters an investigation can apply. Pure: no I/O.

use serde::{Deserialize, Serialize};

use crate::organs::organs_in_text;
use crate::text::{MONTHS_PT, fold, folds_to};

/// What a query asks for.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct QueryIntent {
    /// SIAFI codes of the organs mentioned, in order of mention.
    pub organ_codes: Vec<String>,
    /// A year 2000-2099, if one is mentioned.
    pub year: Option<i32>,
    /// A month 1-12, if a Portuguese month name is mentioned.
    pub month: Option<u32>,
    /// A minimum value in R$ ("acima de R$ 1 milhão").
    pub min_value: Option<f64>,
}

const ABOVE: [&str; 6] = ["acima de", "maior que", "maiores que", "superior a", "superiores a", "mais de"];

/// Interprets a query. Unknown parts are ignored; nothing here fails.
pub fn interpret(query: &str) -> QueryIntent {
    let folded = fold(query);
    let min_value = min_value(&folded);
    let words: Vec<&str> =
        folded.split(|c: char| !(c.is_alphanumeric() || c == '$')).filter(|w| !w.is_empty()).collect();
    let year = words
        .iter()
        .enumerate()
        .filter(|(i, w)| w.len() == 4 && w.bytes().all(|b| b.is_ascii_digit()) && !after_money(&words, *i))
        .filter_map(|(_, w)| w.parse::<i32>().ok())
        .find(|y| (2000..=2099).contains(y));
    let month = words.iter().find_map(|w| MONTHS_PT.iter().position(|m| folds_to(m, w))).map(|i| i as u32 + 1);
    QueryIntent {
        organ_codes: organs_in_text(query).iter().map(|o| o.code.to_string()).collect(),
        year,
        month,
        min_value,
    }
}

/// Whether the word at `i` follows `r$` (an amount, not a year).
fn after_money(words: &[&str], i: usize) -> bool {
    i > 0 && (words[i - 1] == "r$" || words[i - 1] == "$")
}

/// The amount after "acima de" and similar phrases, with `mil`, `milhao`, `bilhao` multipliers.
fn min_value(folded: &str) -> Option<f64> {
    ABOVE.iter().filter_map(|p| folded.find(p).map(|i| i + p.len())).min().and_then(|start| {
        let rest = folded[start..].trim_start();
        let rest = rest.strip_prefix("r$").unwrap_or(rest).trim_start();
        let end = rest.find(|c: char| !(c.is_ascii_digit() || c == '.' || c == ',')).unwrap_or(rest.len());
        let number = parse_amount(rest[..end].trim_end_matches(['.', ',']))?;
        let unit = rest[end..].split_whitespace().next().unwrap_or("");
        let unit = unit.trim_matches(|c: char| !c.is_alphanumeric());
        let factor = match unit {
            "mil" => 1e3,
            "milhao" | "milhoes" | "mi" => 1e6,
            "bilhao" | "bilhoes" | "bi" => 1e9,
            _ => 1.0,
        };
        Some(number * factor)
    })
}

/// `100.000,00` (pt-BR), `1,5`, `1.5`, `500`.
fn parse_amount(s: &str) -> Option<f64> {
    if s.is_empty() {
        return None;
    }
    let normal: String = if s.contains(',') {
        s.replace('.', "").replace(',', ".")
    } else if s.split('.').skip(1).all(|g| g.len() == 3) && s.contains('.') {
        s.replace('.', "")
    } else {
        s.to_string()
    };
    normal.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_organ_named_in_the_query_becomes_its_siafi_code() {
        assert_eq!(interpret("contratos do Ministério da Saúde").organ_codes, vec!["36000"]);
        assert_eq!(interpret("gastos da educação").organ_codes, vec!["26000"]);
    }

    #[test]
    fn a_four_digit_year_is_read_but_an_amount_is_not_a_year() {
        assert_eq!(interpret("contratos de 2024").year, Some(2024));
        assert_eq!(interpret("contratos de 1999").year, None);
        assert_eq!(interpret("acima de R$ 2000 em 2023").year, Some(2023));
    }

    #[test]
    fn portuguese_month_names_are_months() {
        assert_eq!(interpret("gastos em dezembro de 2024").month, Some(12));
        assert_eq!(interpret("compras de março").month, Some(3));
        assert_eq!(interpret("compras de Janeiro").month, Some(1));
        assert_eq!(interpret("compras").month, None);
    }

    #[test]
    fn minimum_values_accept_millions_thousands_and_full_amounts() {
        assert_eq!(interpret("contratos acima de R$ 1 milhão").min_value, Some(1e6));
        assert_eq!(interpret("acima de 500 mil").min_value, Some(500_000.0));
        assert_eq!(interpret("acima de R$ 100.000,00 na saúde").min_value, Some(100_000.0));
        assert_eq!(interpret("contratos maiores que 1,5 milhões").min_value, Some(1_500_000.0));
        assert_eq!(interpret("contratos da saúde").min_value, None);
    }

    #[test]
    fn a_full_query_fills_every_field() {
        let q = interpret("Contratos do Ministério da Saúde acima de R$ 1 milhão em dezembro de 2024");
        assert_eq!(
            q,
            QueryIntent { organ_codes: vec!["36000".into()], year: Some(2024), month: Some(12), min_value: Some(1e6) }
        );
    }
}
