//! The check that keeps a language model from adding figures: every number it writes must be
//! one the [`AnswerFacts`] hold, in any of the ways a reader writes it (`1.234,56`,
//! `1,234.56`, `1234.56`, `R$ 1,2 mi` for an amount rounded at the written precision; years,
//! codes and ids, a number glued into a token only when the token is part of an id; the
//! numbers inside the detectors' descriptions, which is how percentages pass). [`FigureGuard`] runs the check on a streamed text, holding back a
//! number until it is complete; [`invented_figures`] runs it on a whole text.

use std::collections::HashSet;

use crate::conversation::{AnswerFacts, Language};
use crate::model::cnpj::format_cnpj;

/// Difference under which two values are the same figure (half a centavo).
const SAME: f64 = 0.005;

/// Bytes of a glued token kept from the text already shown (ids are far shorter).
const HEAD_MAX: usize = 256;

/// What the facts hold: the digit strings written in them, the value of every count and
/// number, the money amounts (which may also be written rounded), and the ids (`inv-7f3a`,
/// `CT-2024-001`): a number glued into a token passes when the token is part of one of them.
#[derive(Debug, Clone, Default)]
pub struct KnownFigures {
    texts: HashSet<String>,
    values: Vec<f64>,
    amounts: Vec<f64>,
    /// Lower-cased.
    ids: Vec<String>,
}

impl KnownFigures {
    /// Every figure of `f`: counts, money, ids, codes, the period, the status lines and the
    /// figures inside the detectors' own descriptions (and their English explanations).
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
            texts.extend([Language::Pt.brl(*v), Language::En.brl(*v)]);
        }
        let mut ids: Vec<String> = f.investigation_id.iter().cloned().collect();
        for a in &f.anomalies {
            texts.push(a.description.clone());
            texts.extend(a.description_en.clone());
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
        // An id that is all one number (a contract's `100002476`) is written alone.
        texts.extend(ids.iter().filter(|id| spans(id) == [(0, id.len())]).cloned());
        let texts: HashSet<String> =
            texts.iter().flat_map(|t| spans(t).into_iter().map(|(a, b)| t[a..b].to_string())).collect();
        let ids = ids.iter().map(|i| i.to_lowercase()).collect();
        let mut values: Vec<f64> = texts.iter().flat_map(|t| readings(t)).map(|(v, _)| v).collect();
        values.extend(amounts.iter().copied());
        KnownFigures { texts, values, amounts, ids }
    }

    /// Whether `number` (digits with `.` and `,`), followed by a scale word worth `scale`
    /// (`mil`, `mi`, `bilhões`, `million`, ...) if any, is a figure of the facts; `token` is
    /// the id-like token it is glued into (letters, digits, `-_/`), if it is.
    pub fn allows(&self, number: &str, scale: Option<f64>, token: Option<&str>) -> bool {
        if scale.is_none() && self.texts.contains(number) {
            return true;
        }
        if let Some(t) = token
            && self.ids.iter().any(|id| id.contains(t))
        {
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

/// A character that binds a number into an id-like token.
fn glue(c: char) -> bool {
    c.is_alphanumeric() || "-_/".contains(c)
}

/// The lower-cased id-like token (`inv-7f3a`, `CT-2024-001`) the number at `a..b` of `text`
/// is glued into, `head` being the glued end of the text before `text`; `None` when the number
/// stands alone or is followed by a scale word (`10k`, `1,2mi`).
fn token_of(head: &str, text: &str, a: usize, b: usize) -> Option<String> {
    let start = text[..a].char_indices().rev().take_while(|(_, c)| glue(*c)).last().map_or(a, |(i, _)| i);
    let end = b + text[b..].chars().take_while(|c| glue(*c)).map(char::len_utf8).sum::<usize>();
    if (start, end) == (a, b) || scale_after(&text[b..]).is_some() {
        return None;
    }
    let head = if start == 0 { head } else { "" };
    Some(format!("{head}{}", &text[start..end]).to_lowercase())
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
        .filter(|&(a, b)| !known.allows(&text[a..b], scale_after(&text[b..]), token_of("", text, a, b).as_deref()))
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
    /// The glued end of the text shown (the start of a token `pending` may continue).
    head: String,
}

impl FigureGuard {
    /// A guard for an answer about `facts`.
    pub fn new(facts: &AnswerFacts) -> FigureGuard {
        FigureGuard { known: KnownFigures::of(facts), pending: String::new(), head: String::new() }
    }

    /// Adds a piece of the text; returns what may be shown now (possibly empty), or the first
    /// figure the facts do not hold.
    pub fn push(&mut self, piece: &str) -> Result<String, String> {
        self.pending.push_str(piece);
        let cut = self.checked(false)?;
        let shown: String = self.pending.drain(..cut).collect();
        let glued = shown.len() - shown.chars().rev().take_while(|c| glue(*c)).map(char::len_utf8).sum::<usize>();
        if glued > 0 {
            self.head.clear();
        }
        self.head.push_str(&shown[glued..]);
        // No id is this long: a runaway token need not be remembered whole.
        if self.head.len() > HEAD_MAX {
            let keep = self.head.char_indices().rev().nth(HEAD_MAX / 4).map_or(0, |(i, _)| i);
            self.head.drain(..keep);
        }
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
            if !self.known.allows(&text[a..b], scale_after(tail), token_of(&self.head, text, a, b).as_deref()) {
                return Err(text[a..b].to_string());
            }
        }
        Ok(text.len())
    }
}

#[cfg(test)]
#[path = "figures_tests.rs"]
mod tests;
