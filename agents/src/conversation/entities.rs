//! Entity extraction for senna: organs (by name, acronym or SIAFI code, through
//! [`organs_in_text`]), a year, a month (Portuguese or English name), a value range, a CNPJ
//! with valid check digits and a supplier's name. Everything works on tokens of the folded
//! text, so matches respect word boundaries ("mil" inside "família" is no amount).

use super::{Entities, Language};
use crate::model::cnpj::{cnpj_is_valid, digits_only};
use crate::organs::{OrganInfo, organ_by_code, organs_in_text};
use crate::text::{MONTHS_EN, MONTHS_PT, fold_char, folds_to};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Word,
    Number,
    Money,
    Punct,
}

/// A token: the text as typed and folded (accent-free, lower-case).
#[derive(Debug, Clone)]
struct Token {
    raw: String,
    low: String,
    kind: Kind,
}

/// Splits a message into words, numbers (digits with inner `.` `,` `/` `-`), currency marks
/// (`R$`, `$`) and punctuation.
fn tokens(message: &str) -> Vec<Token> {
    let chars: Vec<char> = message.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let push = |out: &mut Vec<Token>, raw: String, kind| {
        let low = raw.chars().map(fold_char).collect();
        out.push(Token { raw, low, kind });
    };
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if (c == 'R' || c == 'r') && next == Some('$') {
            push(&mut out, "R$".into(), Kind::Money);
            i += 2;
        } else if c == '$' {
            push(&mut out, "$".into(), Kind::Money);
            i += 1;
        } else if c.is_ascii_digit() {
            let start = i;
            while i < chars.len()
                && (chars[i].is_ascii_digit()
                    || (".,/-".contains(chars[i]) && chars.get(i + 1).is_some_and(char::is_ascii_digit)))
            {
                i += 1;
            }
            push(&mut out, chars[start..i].iter().collect(), Kind::Number);
        } else if c.is_alphanumeric() {
            let start = i;
            while i < chars.len() && chars[i].is_alphanumeric() {
                i += 1;
            }
            push(&mut out, chars[start..i].iter().collect(), Kind::Word);
        } else {
            if !c.is_whitespace() {
                push(&mut out, c.to_string(), Kind::Punct);
            }
            i += 1;
        }
    }
    out
}

/// Reads a number written the Brazilian way (`1.000.000,00`, `1,5`) or the English way
/// (`1,000,000.00`, `2.5`). With both separators, the last one is the decimal mark; with one
/// kind only, repeated or followed by exactly three digits it groups thousands (a lone `1.500`
/// is 1500 in Portuguese, `1,500` is 1500 in English), otherwise it is the decimal mark.
pub fn parse_number(s: &str, lang: Language) -> Option<f64> {
    let (dot, comma) = (s.rfind('.'), s.rfind(','));
    let groups = |sep: char| {
        let parts: Vec<&str> = s.split(sep).collect();
        parts.len() > 2 || parts.last().is_some_and(|p| p.len() == 3)
    };
    let normal = match (dot, comma) {
        (Some(d), Some(c)) if c > d => s.replace('.', "").replace(',', "."),
        (Some(_), Some(_)) => s.replace(',', ""),
        (None, Some(_)) if groups(',') && (lang == Language::En || s.matches(',').count() > 1) => s.replace(',', ""),
        (None, Some(_)) => s.replace(',', "."),
        (Some(_), None) if groups('.') && (lang == Language::Pt || s.matches('.').count() > 1) => s.replace('.', ""),
        _ => s.to_string(),
    };
    if normal.contains(['/', '-']) {
        return None;
    }
    normal.parse().ok()
}

fn multiplier(word: &str) -> Option<f64> {
    match word {
        "mil" | "thousand" | "k" => Some(1e3),
        "milhao" | "milhoes" | "mi" | "million" | "millions" | "mn" => Some(1e6),
        "bilhao" | "bilhoes" | "bi" | "billion" | "billions" | "bn" => Some(1e9),
        _ => None,
    }
}

const ABOVE: &[&str] = &[
    "acima de",
    "mais de",
    "maior que",
    "maiores que",
    "superior a",
    "superiores a",
    "a partir de",
    "pelo menos",
    "no minimo",
    "minimo de",
    "above",
    "over",
    "more than",
    "greater than",
    "at least",
    "exceeding",
];
const BELOW: &[&str] = &[
    "abaixo de",
    "menos de",
    "menor que",
    "menores que",
    "inferior a",
    "inferiores a",
    "ate",
    "no maximo",
    "maximo de",
    "below",
    "under",
    "less than",
    "up to",
    "at most",
];
/// The words that open a range ("entre 1 e 2 milhões") and the ones that close it.
const RANGE_FROM: &[&str] = &["entre", "between", "from"];
const RANGE_TO: &[&str] = &["e", "and", "to"];

/// Whether the words before token `i` (at most three) end with one of `phrases`, whole words.
fn preceded_by(toks: &[Token], i: usize, phrases: &[&str]) -> bool {
    let before = &toks[i.saturating_sub(3)..i];
    phrases.iter().any(|p| {
        let words = p.split(' ');
        let n = words.clone().count();
        n <= before.len() && before[before.len() - n..].iter().map(|t| t.low.as_str()).eq(words)
    })
}

/// Years and amounts, each number token used once: an amount is never also a year. A plain
/// four-digit number 2000-2099 is a year unless a comparator or a currency mark makes it money.
fn period_and_values(toks: &[Token], lang: Language, e: &mut Entities) {
    // The unit multiplier of an open range's first bound and the token it ended at.
    let mut open_range: Option<(Option<f64>, usize)> = None;
    let mut i = 0;
    while i < toks.len() {
        let t = &toks[i];
        if t.kind != Kind::Number {
            i += 1;
            continue;
        }
        let digits = digits_only(&t.raw);
        if digits.len() == 14 && cnpj_is_valid(&digits) {
            i += 1;
            continue;
        }
        let money_before = i > 0 && toks[i - 1].kind == Kind::Money;
        let unit = toks.get(i + 1).and_then(|n| multiplier(&n.low));
        let reais_after = toks.get(i + 1 + usize::from(unit.is_some())).is_some_and(|n| n.low == "reais");
        let look = if money_before { i - 1 } else { i };
        let (above, below) = (preceded_by(toks, look, ABOVE), preceded_by(toks, look, BELOW));
        let closes_range = open_range.is_some_and(|(_, end)| look <= end + 2) && preceded_by(toks, look, RANGE_TO);
        let opens_range = preceded_by(toks, look, RANGE_FROM) && !closes_range;
        let year = digits.parse::<i32>().ok().filter(|y| t.raw.len() == 4 && (2000..=2099).contains(y));
        let plain = !money_before && unit.is_none() && !reais_after && !above && !below;
        if let (Some(y), true) = (year, plain) {
            e.year.get_or_insert(y);
            i += 1;
            continue;
        }
        let grouped = t.raw.contains(['.', ',']) && digits.len() >= 4;
        let is_amount = !plain || grouped || closes_range || opens_range;
        let end = i + usize::from(unit.is_some());
        if let (true, Some(n)) = (is_amount, parse_number(&t.raw, lang)) {
            let v = n * unit.unwrap_or(1.0);
            if below || closes_range {
                e.max_value.get_or_insert(v);
                // "entre 1 e 2 milhões": the second bound's unit applies to the first too.
                if let (Some((None, _)), Some(u), Some(lo)) = (open_range, unit, e.min_value) {
                    e.min_value = Some(lo * u);
                }
                open_range = None;
            } else {
                e.min_value.get_or_insert(v);
                open_range = opens_range.then_some((unit, end));
            }
        }
        i = end + 1;
    }
    e.month = month(toks);
}

/// The first month named. English "may" counts only next to "in" or a number ("may I ask").
fn month(toks: &[Token]) -> Option<u32> {
    toks.iter().enumerate().find_map(|(i, t)| {
        let pos = MONTHS_PT.iter().position(|m| folds_to(m, &t.low)).or_else(|| {
            let p = MONTHS_EN.iter().position(|m| folds_to(m, &t.low))?;
            let beside_number = toks.get(i + 1).is_some_and(|n| n.kind == Kind::Number);
            let after_in = i > 0 && toks[i - 1].low == "in";
            (t.low != "may" || beside_number || after_in).then_some(p)
        })?;
        Some(pos as u32 + 1)
    })
}

/// The first number token that is a CNPJ with valid check digits, as 14 digits.
fn cnpj(toks: &[Token]) -> Option<String> {
    toks.iter()
        .filter(|t| t.kind == Kind::Number)
        .map(|t| digits_only(&t.raw))
        .find(|d| d.len() == 14 && cnpj_is_valid(d))
}

const SUPPLIER_WORDS: &[&str] =
    &["fornecedor", "fornecedora", "empresa", "contratada", "supplier", "company", "firm", "vendor", "contractor"];
const NAME_STOPS: &[&str] = &[
    "em",
    "no",
    "na",
    "nos",
    "nas",
    "com",
    "que",
    "acima",
    "abaixo",
    "ate",
    "entre",
    "para",
    "por",
    "e",
    "ou",
    "tem",
    "teve",
    "recebeu",
    "foi",
    "ja",
    "mais",
    "maior",
    "menor",
    "contratos",
    "contrato",
    "in",
    "on",
    "at",
    "for",
    "with",
    "during",
    "above",
    "below",
    "over",
    "under",
    "between",
    "and",
    "or",
    "from",
    "since",
    "has",
    "have",
    "had",
    "received",
    "contracts",
    "contract",
    "is",
    "are",
    "was",
    "biggest",
    "largest",
    "top",
    "that",
    "which",
    "who",
    "of",
    "de",
    "do",
    "da",
    "dos",
    "das",
    "the",
    "a",
    "o",
    "os",
    "as",
    "this",
    "esse",
    "essa",
    "desta",
    "deste",
    "dessa",
    "desse",
    "suspeita",
    "suspeitos",
    "suspicious",
    "fachada",
    "shell",
    "se",
    "if",
];

/// A supplier's name after "fornecedor", "empresa", "supplier" and the like: the words that
/// follow (articles skipped) up to punctuation, a number, a function word or an organ.
fn supplier(toks: &[Token]) -> Option<String> {
    let at = toks.iter().position(|t| SUPPLIER_WORDS.contains(&t.low.as_str()))?;
    let mut rest = toks[at + 1..].iter().peekable();
    while rest.peek().is_some_and(|t| ["a", "o", "the"].contains(&t.low.as_str())) {
        rest.next();
    }
    let mut name: Vec<&str> = Vec::new();
    for t in rest {
        let stop = t.kind != Kind::Word || NAME_STOPS.contains(&t.low.as_str()) || !organs_in_text(&t.raw).is_empty();
        if stop || name.len() == 6 {
            break;
        }
        name.push(&t.raw);
    }
    (!name.is_empty()).then(|| name.join(" "))
}

/// English names of the organs (the organ table knows the Portuguese ones), as folded
/// phrases with the SIAFI code they name.
const ENGLISH_ORGANS: &[(&str, &str)] = &[
    ("science and technology", "24000"),
    ("science ministry", "24000"),
    ("finance", "25000"),
    ("treasury", "25000"),
    ("economy ministry", "25000"),
    ("education", "26000"),
    ("justice", "30000"),
    ("public security", "30000"),
    ("federal police", "30000"),
    ("mines and energy", "32000"),
    ("energy ministry", "32000"),
    ("social security", "33000"),
    ("pensions", "33000"),
    ("health", "36000"),
    ("public management", "46000"),
    ("defense", "52000"),
    ("defence", "52000"),
    ("armed forces", "52000"),
    ("regional development", "53000"),
    ("cities ministry", "56000"),
    ("ministry of cities", "56000"),
];

/// [`ENGLISH_ORGANS`]' phrases between spaces (whole words), in one automaton.
static ENGLISH_PHRASES: std::sync::LazyLock<aho_corasick::AhoCorasick> = std::sync::LazyLock::new(|| {
    let padded = ENGLISH_ORGANS.iter().map(|(phrase, _)| format!(" {phrase} "));
    aho_corasick::AhoCorasick::new(padded).expect("the English organ phrases build an automaton")
});

/// The organs a message names, Portuguese or English, in order of first mention, each once.
fn organs(toks: &[Token], message: &str) -> Vec<&'static OrganInfo> {
    let words: Vec<&str> = toks.iter().filter(|t| t.kind != Kind::Punct).map(|t| t.low.as_str()).collect();
    let padded = format!(" {} ", words.join(" "));
    // Each phrase's first place in the words, all phrases in one pass.
    let mut first: Vec<Option<usize>> = vec![None; ENGLISH_ORGANS.len()];
    for m in ENGLISH_PHRASES.find_overlapping_iter(&padded) {
        first[m.pattern().as_usize()].get_or_insert(m.start());
    }
    let mut english: Vec<(usize, &'static OrganInfo)> =
        ENGLISH_ORGANS.iter().zip(first).filter_map(|((_, code), pos)| Some((pos?, organ_by_code(code)?))).collect();
    english.sort_by_key(|(pos, o)| (*pos, o.code));
    let mut found = organs_in_text(message);
    for (_, o) in english {
        if !found.iter().any(|f| f.code == o.code) {
            found.push(o);
        }
    }
    found
}

/// Every entity of a message.
pub fn extract(message: &str, lang: Language) -> Entities {
    let toks = tokens(message);
    let organs = organs(&toks, message);
    let mut e = Entities {
        organ_codes: organs.iter().map(|o| o.code.to_string()).collect(),
        organ_names: organs.iter().map(|o| o.name.to_string()).collect(),
        cnpj: cnpj(&toks),
        supplier: supplier(&toks),
        ..Entities::default()
    };
    period_and_values(&toks, lang, &mut e);
    e
}

#[cfg(test)]
#[path = "entities_tests.rs"]
mod tests;
