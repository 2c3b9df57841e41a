//! The check that keeps a language model from adding figures: every number it writes must be
//! one the [`AnswerFacts`] hold, in any of the ways a reader writes it (`1.234,56`,
//! `1,234.56`, `1234.56`, `R$ 1,2 mi` for an amount rounded at the written precision, the
//! digits of ids, years and codes, the numbers inside the detectors' descriptions, which is
//! how percentages pass). [`FigureGuard`] runs the check on a streamed text, holding back a
//! number until it is complete; [`invented_figures`] runs it on a whole text.

use std::collections::HashSet;

use crate::conversation::phrases::money;
use crate::conversation::{AnswerFacts, Language};
use crate::model::cnpj::format_cnpj;

/// Difference under which two values are the same figure (half a centavo).
const SAME: f64 = 0.005;

/// What the facts hold: the digit strings written in them, the value of every count and
/// number, the money amounts (which may also be written rounded), and the digit runs inside
/// ids (`inv-7f3a`, `CT-2024-001`), which pass only inside a token, never as a figure alone.
#[derive(Debug, Clone, Default)]
pub struct KnownFigures {
    texts: HashSet<String>,
    values: Vec<f64>,
    amounts: Vec<f64>,
    id_parts: HashSet<String>,
}

impl KnownFigures {
    /// Every figure of `f`: counts, money, ids, codes, the period, the status lines and the
    /// figures inside the detectors' own descriptions.
    pub fn of(f: &AnswerFacts) -> KnownFigures {
        let s = f.by_severity;
        let counts = [f.records_analysed, f.total_anomalies, s.critical, s.high, s.medium, s.low];
        let mut texts: Vec<String> = counts.iter().map(ToString::to_string).collect();
        let mut amounts = vec![f.money_at_stake];
        amounts.extend(f.top_suppliers.iter().map(|(_, v)| *v));
        amounts.extend(f.anomalies.iter().filter_map(|a| a.value));
        amounts.extend(f.entities.min_value);
        amounts.extend(f.entities.max_value);
        amounts.retain(|v| v.is_finite());
        for v in &amounts {
            texts.extend([money(*v, Language::Pt), money(*v, Language::En)]);
        }
        let mut ids: Vec<String> = f.investigation_id.iter().cloned().collect();
        for a in &f.anomalies {
            texts.push(a.description.clone());
            ids.push(a.id.clone());
            ids.extend(a.contract_id.clone());
            texts.extend(a.supplier.clone());
        }
        texts.extend(f.top_suppliers.iter().map(|(n, _)| n.clone()));
        texts.extend(f.entities.organ_codes.clone());
        texts.extend(f.entities.year.map(|y| y.to_string()));
        texts.extend(f.entities.month.map(|m| m.to_string()));
        texts.extend(f.entities.supplier.clone());
        texts.extend(f.entities.cnpj.iter().flat_map(|c| [c.clone(), format_cnpj(c)]));
        texts.extend(f.status_lines.clone());
        let numbers = |texts: &[String]| -> HashSet<String> {
            texts.iter().flat_map(|t| spans(t).into_iter().map(|(a, b)| t[a..b].to_string())).collect()
        };
        // An id that is all one number (a contract's `100002476`) is written alone.
        texts.extend(ids.iter().filter(|id| spans(id) == [(0, id.len())]).cloned());
        let texts = numbers(&texts);
        let id_parts = numbers(&ids);
        let mut values: Vec<f64> = texts.iter().flat_map(|t| readings(t)).map(|(v, _)| v).collect();
        values.extend(amounts.iter().copied());
        KnownFigures { texts, values, amounts, id_parts }
    }

    /// Whether `number` (digits with `.` and `,`), followed by a scale word worth `scale`
    /// (`mil`, `mi`, `bilhões`, `million`, ...) if any, is a figure of the facts; `in_token`
    /// when it is glued to letters or `-_/` (part of an id rather than a figure alone).
    pub fn allows(&self, number: &str, scale: Option<f64>, in_token: bool) -> bool {
        if scale.is_none() && (self.texts.contains(number) || (in_token && self.id_parts.contains(number))) {
            return true;
        }
        readings(number).into_iter().any(|(v, decimals)| {
            let exact = scale.is_none() && self.values.iter().any(|k| (k - v).abs() < SAME);
            let unit = scale.unwrap_or(1.0);
            let at = 10f64.powi(decimals as i32);
            let rounded = self.amounts.iter().any(|a| (a / unit * at).round() == (v * at).round());
            exact || rounded
        })
    }
}

/// The byte ranges of the numbers of a text: runs of ASCII digits with the `.` and `,`
/// between them.
fn spans(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if !b[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len()
            && (b[i].is_ascii_digit()
                || ((b[i] == b'.' || b[i] == b',') && b.get(i + 1).is_some_and(u8::is_ascii_digit)))
        {
            i += 1;
        }
        out.push((start, i));
    }
    out
}

/// The values a written number can mean, with the decimals written: Brazilian (`.` groups
/// thousands, `,` is the decimal mark) and English (the other way round); plain digits both.
fn readings(number: &str) -> Vec<(f64, u32)> {
    let mut out: Vec<(f64, u32)> = [read(number, '.', ','), read(number, ',', '.')].into_iter().flatten().collect();
    out.dedup_by(|a, b| (a.0 - b.0).abs() < f64::EPSILON && a.1 == b.1);
    out
}

/// `number` read with `group` between thousands and `decimal` before the fraction; `None`
/// when it is not written that way (groups of other than three digits, two decimal marks).
fn read(number: &str, group: char, decimal: char) -> Option<(f64, u32)> {
    let (int, frac) = match number.split_once(decimal) {
        Some((i, f)) => (i, f),
        None => (number, ""),
    };
    if frac.contains([group, decimal]) {
        return None;
    }
    let groups: Vec<&str> = int.split(group).collect();
    if groups.len() > 1 && (groups[0].is_empty() || groups[0].len() > 3 || groups[1..].iter().any(|g| g.len() != 3)) {
        return None;
    }
    let digits = groups.concat();
    let text = if frac.is_empty() { digits } else { format!("{digits}.{frac}") };
    text.parse().ok().map(|v| (v, frac.len() as u32))
}

/// The worth of the word right after a number (`R$ 1,2 mi`), if it is a scale word.
fn scale_after(tail: &str) -> Option<f64> {
    let t = tail.trim_start_matches([' ', '\u{a0}']);
    let word: String = t.chars().take_while(|c| c.is_alphabetic()).collect::<String>().to_lowercase();
    match word.as_str() {
        "mil" | "k" | "thousand" => Some(1e3),
        "mi" | "mn" | "milhão" | "milhao" | "milhões" | "milhoes" | "million" | "millions" => Some(1e6),
        "bi" | "bn" | "bilhão" | "bilhao" | "bilhões" | "bilhoes" | "billion" | "billions" => Some(1e9),
        _ => None,
    }
}

/// Whether the number between `before` (the character before it) and `tail` is glued to an
/// id-like token (`inv-7f3a`, `CT-2024-001`) rather than standing alone.
fn in_token(before: Option<char>, tail: &str) -> bool {
    let glue = |c: char| c.is_alphanumeric() || "-_/".contains(c);
    let next = tail.chars().next();
    before.is_some_and(glue)
        || next.is_some_and(|c| "-_/".contains(c))
        || (next.is_some_and(char::is_alphabetic) && scale_after(tail).is_none())
}

/// Whether more text could still change the number before `tail`: nothing after it yet, a
/// lone `.` or `,` (a fraction may follow), or a word still being written (a scale word?).
fn tail_open(tail: &str) -> bool {
    if tail.is_empty() || tail == "." || tail == "," {
        return true;
    }
    let t = tail.strip_prefix([' ', '\u{a0}']).unwrap_or(tail);
    t.chars().all(char::is_alphabetic)
}

/// The numbers of `text` that the facts do not hold (empty when every figure comes from them).
pub fn invented_figures(text: &str, facts: &AnswerFacts) -> Vec<String> {
    let known = KnownFigures::of(facts);
    spans(text)
        .into_iter()
        .filter(|&(a, b)| {
            let (before, tail) = (text[..a].chars().next_back(), &text[b..]);
            !known.allows(&text[a..b], scale_after(tail), in_token(before, tail))
        })
        .map(|(a, b)| text[a..b].to_string())
        .collect()
}

/// Checks a text as it streams: what [`FigureGuard::push`] returns may be shown at once; a
/// number (and the word after it) is held back until it is complete and checked, so a figure
/// the facts do not hold is never let through, not even in part.
#[derive(Debug, Clone)]
pub struct FigureGuard {
    known: KnownFigures,
    pending: String,
    /// The last character shown (the one before `pending`).
    before: Option<char>,
}

impl FigureGuard {
    /// A guard for an answer about `facts`.
    pub fn new(facts: &AnswerFacts) -> FigureGuard {
        FigureGuard { known: KnownFigures::of(facts), pending: String::new(), before: None }
    }

    /// Adds a piece of the text; returns what may be shown now (possibly empty), or the first
    /// figure the facts do not hold.
    pub fn push(&mut self, piece: &str) -> Result<String, String> {
        self.pending.push_str(piece);
        let cut = self.checked(false)?;
        let shown: String = self.pending.drain(..cut).collect();
        self.before = shown.chars().next_back().or(self.before);
        Ok(shown)
    }

    /// The end of the text: checks and returns what was held back.
    pub fn finish(&mut self) -> Result<String, String> {
        self.checked(true)?;
        Ok(std::mem::take(&mut self.pending))
    }

    /// Checks every number of the pending text whose end is known; the length that may be
    /// shown (up to the number still open).
    fn checked(&self, at_end: bool) -> Result<usize, String> {
        let text = &self.pending;
        for (a, b) in spans(text) {
            let tail = &text[b..];
            if !at_end && tail_open(tail) {
                return Ok(a);
            }
            let before = if a == 0 { self.before } else { text[..a].chars().next_back() };
            if !self.known.allows(&text[a..b], scale_after(tail), in_token(before, tail)) {
                return Err(text[a..b].to_string());
            }
        }
        Ok(text.len())
    }
}

#[cfg(test)]
#[path = "figures_tests.rs"]
mod tests;
