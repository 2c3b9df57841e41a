//! The entities a contract's text names: CNPJs, money amounts (`R$ ...`), the brands of
//! [`super::contract_text::BRANDS`] and laws or decrees by number. One pass over the bytes for
//! CNPJs and amounts, one over the words for brands and laws.

use super::contract_text::BRAND_SET;
use crate::text::for_each_word;

/// Entities named in a text: CNPJs (formatted or 14 digits), money amounts (`R$ ...`), brands
/// and laws (`LEI 14.133`, `DECRETO 11.871`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TextEntities {
    /// CNPJs as 14 digits.
    pub cnpjs: Vec<String>,
    /// Amounts in R$.
    pub amounts: Vec<f64>,
    /// Brands (folded).
    pub brands: Vec<String>,
    /// Laws and decrees, as "lei 14133".
    pub laws: Vec<String>,
}

/// Extracts the entities of a text.
pub fn entities(text: &str) -> TextEntities {
    let mut e = TextEntities::default();
    let bytes = text.as_bytes();
    // CNPJs: runs of digits and separators with exactly 14 digits.
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_digit() {
            let start = i;
            let mut digits = String::new();
            while i < bytes.len() && (bytes[i].is_ascii_digit() || matches!(bytes[i], b'.' | b'/' | b'-')) {
                if bytes[i].is_ascii_digit() {
                    digits.push(bytes[i] as char);
                }
                i += 1;
            }
            let run = &text[start..i];
            if digits.len() == 14 && (run.contains('/') || run.len() == 14) {
                e.cnpjs.push(digits);
            }
        } else {
            i += 1;
        }
    }
    // Amounts: "R$" followed by a pt-BR number.
    let mut rest = text;
    while let Some(k) = rest.find("R$") {
        rest = &rest[k + 2..];
        let num: String =
            rest.trim_start().chars().take_while(|c| c.is_ascii_digit() || *c == '.' || *c == ',').collect();
        let normalised = num.trim_end_matches(['.', ',']).replace('.', "").replace(',', ".");
        if let Ok(v) = normalised.parse::<f64>() {
            e.amounts.push(v);
        }
    }
    let mut prev = String::new();
    let mut pending: Option<usize> = None;
    for_each_word(text, |w| {
        if BRAND_SET.contains(w) && !e.brands.iter().any(|b| b == w) {
            e.brands.push(w.to_string());
        }
        let numeric = w.bytes().all(|b| b.is_ascii_digit());
        // "14.133" splits into "14" and "133": join them.
        let joined = match pending.take() {
            Some(k) if numeric && w.len() == 3 && e.laws[k].len() <= "decreto 999".len() => {
                e.laws[k].push_str(w);
                true
            }
            _ => false,
        };
        if !joined && numeric && matches!(prev.as_str(), "lei" | "decreto") {
            e.laws.push(format!("{prev} {w}"));
            pending = Some(e.laws.len() - 1);
        }
        prev.clear();
        prev.push_str(w);
        true
    });
    let mut seen = Vec::new();
    e.laws.retain(|l| {
        let new = !seen.contains(l);
        seen.push(l.clone());
        new
    });
    e
}
