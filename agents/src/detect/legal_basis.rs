//! Reading a contract's legal basis (`fundamentoLegal` of the Portal, `amparo_legal` of
//! Contratos.gov.br) into citations of (law, article, inciso, paragraph), and what a citation
//! means for a direct purchase: a value-based dispensa (Lei 8.666/1993 art. 24 I/II, Lei
//! 14.133/2021 art. 75 I/II, Lei 13.303/2016 art. 29 I/II), another legal ground, or an
//! inexigibilidade (Lei 8.666 art. 25, Lei 14.133 art. 74, Lei 13.303 art. 30).
//!
//! Real texts are messy and come in two orders: law first (`"LEI 14.133/2021 - Artigo: 75 -
//! Inciso: II"`, `"8666/93 - 24 - XXII"`) or article first (`"Art. 24, inciso II da Lei
//! 8666/93"`, `"ARTIGO 30, INCISO II DA LEI 13303/16"`). The order of the first law and the
//! first article decides which law each article belongs to.

use crate::text::fold;

/// A law a legal basis can cite.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Law {
    /// Lei 8.666/1993 (licitações; revoked on 30/12/2023).
    L8666,
    /// Lei 14.133/2021 (the new procurement law).
    L14133,
    /// Lei 13.303/2016 (state companies).
    L13303,
    /// Lei 10.520/2002 (pregão).
    L10520,
    /// Another law or provisional measure (special dispensa grounds: calamities, Covid-19),
    /// as `"14981/2024"`.
    OtherLaw(String),
    /// A decree (regulates a law; never a dispensa ground by itself).
    Decree(String),
}

impl Law {
    /// How the evidence names the law.
    pub fn label(&self) -> String {
        match self {
            Law::L8666 => "Lei 8.666/1993".into(),
            Law::L14133 => "Lei 14.133/2021".into(),
            Law::L13303 => "Lei 13.303/2016".into(),
            Law::L10520 => "Lei 10.520/2002".into(),
            Law::OtherLaw(n) => format!("Lei/MP {n}"),
            Law::Decree(n) => format!("Decreto {n}"),
        }
    }
}

/// One citation: a law with, when given, its article, inciso and paragraph.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Citation {
    /// The law.
    pub law: Law,
    /// Article number.
    pub article: Option<u32>,
    /// Inciso (from its roman numeral).
    pub inciso: Option<u32>,
    /// Paragraph (`§ 3º`, "parágrafo terceiro"; 0 for "parágrafo único").
    pub paragraph: Option<u32>,
}

impl Citation {
    /// `"Lei 8.666/1993, art. 24, XXII"`.
    pub fn label(&self) -> String {
        let mut s = self.law.label();
        if let Some(a) = self.article {
            s.push_str(&format!(", art. {a}"));
        }
        if let Some(p) = self.paragraph {
            s.push_str(&if p == 0 { ", parágrafo único".to_string() } else { format!(", § {p}º") });
        }
        if let Some(i) = self.inciso {
            s.push_str(&format!(", {}", to_roman(i)));
        }
        s
    }
}

/// A parsed legal basis: its citations in text order (an article with no law named is kept
/// with the law the text implies, or dropped when it names none).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LegalBasis {
    /// The citations.
    pub citations: Vec<Citation>,
    /// Whether the field is empty or a placeholder ("NÃO SE APLICA", "Sem informação").
    pub missing: bool,
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Word(String),
    /// Digits with dots removed, and the part after a slash (a year) when present.
    Num(String, Option<String>),
    Section,
}

fn tokens(text: &str) -> Vec<Token> {
    let f = fold(text);
    let chars: Vec<char> = f.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_ascii_digit() {
            let (mut num, mut year, mut in_year) = (String::new(), String::new(), false);
            while i < chars.len() {
                let d = chars[i];
                let next_digit = chars.get(i + 1).is_some_and(char::is_ascii_digit);
                if d.is_ascii_digit() {
                    if in_year { year.push(d) } else { num.push(d) }
                } else if d == '.' && next_digit && !in_year {
                    // thousands separator ("8.666", "13..303")
                } else if d == '.' && chars.get(i + 1) == Some(&'.') && !in_year {
                } else if d == '/' && next_digit && !in_year {
                    in_year = true;
                } else {
                    break;
                }
                i += 1;
            }
            out.push(Token::Num(num, (!year.is_empty()).then_some(year)));
        } else if c.is_alphabetic() {
            let mut w = String::new();
            while i < chars.len() && chars[i].is_alphabetic() {
                w.push(chars[i]);
                i += 1;
            }
            out.push(Token::Word(w));
        } else {
            if c == '§' {
                out.push(Token::Section);
            }
            i += 1;
        }
    }
    out
}

/// The value of a roman numeral of up to `xxxix` (incisos), or `None`.
pub fn roman(s: &str) -> Option<u32> {
    if s.is_empty() || s.len() > 7 || !s.chars().all(|c| matches!(c, 'i' | 'v' | 'x' | 'l')) {
        return None;
    }
    let val = |c: char| match c {
        'i' => 1,
        'v' => 5,
        'x' => 10,
        _ => 50,
    };
    let v: Vec<i64> = s.chars().map(val).collect();
    let total: i64 = v.iter().enumerate().map(|(k, x)| if v.get(k + 1).is_some_and(|n| n > x) { -x } else { *x }).sum();
    u32::try_from(total).ok().filter(|t| *t > 0)
}

fn to_roman(mut n: u32) -> String {
    let mut s = String::new();
    for (v, r) in [(50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")] {
        while n >= v {
            s.push_str(r);
            n -= v;
        }
    }
    s
}

const ORDINALS: [&str; 10] =
    ["primeiro", "segundo", "terceiro", "quarto", "quinto", "sexto", "setimo", "oitavo", "nono", "decimo"];

fn law_of(num: &str, year: Option<&str>, keyword: Option<&str>) -> Option<Law> {
    let with_year = || format!("{num}/{}", year.unwrap_or(""));
    match num {
        "8666" => Some(Law::L8666),
        "14133" => Some(Law::L14133),
        "13303" => Some(Law::L13303),
        "10520" => Some(Law::L10520),
        _ => match keyword {
            Some("decreto" | "dec" | "decr" | "dc") => Some(Law::Decree(with_year())),
            Some("lei" | "mp" | "provisoria" | "lc" | "complementar") if year.is_some() => {
                Some(Law::OtherLaw(with_year()))
            }
            _ => None,
        },
    }
}

#[derive(Default, Clone, Copy)]
struct ArticleRef {
    article: u32,
    inciso: Option<u32>,
    paragraph: Option<u32>,
    at: usize,
}

/// Parses a legal basis text (see the module doc).
pub fn parse(text: &str) -> LegalBasis {
    let t = tokens(text);
    let folded = fold(text);
    let trimmed = folded.trim().trim_start_matches("fundamento legal:").trim();
    let placeholder = ["", "-", "nao se aplica", "sem informacao", "nao informado", "null"].contains(&trimmed);
    let mut laws: Vec<(usize, Law)> = Vec::new();
    let mut arts: Vec<ArticleRef> = Vec::new();
    let mut keyword: Option<&str> = None;
    let word = |k: usize| match t.get(k) {
        Some(Token::Word(w)) => Some(w.as_str()),
        _ => None,
    };
    let mut k = 0;
    while k < t.len() {
        match &t[k] {
            Token::Word(w) => {
                let w = w.as_str();
                if ["lei", "mp", "provisoria", "decreto", "dec", "decr", "dc", "lc", "complementar"].contains(&w) {
                    keyword = Some(match w {
                        "lei" => "lei",
                        "mp" | "provisoria" => "mp",
                        "lc" | "complementar" => "lc",
                        _ => "decreto",
                    });
                } else if matches!(w, "art" | "artigo" | "arts" | "artigos")
                    && let Some(Token::Num(n, None)) = t.get(k + 1)
                    && let Ok(a) = n.parse()
                {
                    arts.push(ArticleRef { article: a, at: k, ..Default::default() });
                    k += 2;
                    continue;
                } else if matches!(w, "inciso" | "inc" | "incisos")
                    && let Some(i) = word(k + 1).and_then(roman)
                    && let Some(a) = arts.last_mut()
                {
                    a.inciso.get_or_insert(i);
                    k += 2;
                    continue;
                } else if matches!(w, "paragrafo" | "par") {
                    let p = match t.get(k + 1) {
                        Some(Token::Num(n, None)) => n.parse().ok(),
                        Some(Token::Word(o)) if o == "unico" => Some(0),
                        Some(Token::Word(o)) => ORDINALS.iter().position(|x| o.starts_with(x)).map(|p| p as u32 + 1),
                        _ => None,
                    };
                    if let (Some(p), Some(a)) = (p, arts.last_mut()) {
                        a.paragraph.get_or_insert(p);
                    }
                } else if let (Some(i), Some(a)) = (roman(w), arts.last_mut())
                    && a.inciso.is_none()
                    && k == a.at + 2
                {
                    // "art. 75, II": a numeral right after the article number is its inciso.
                    a.inciso = Some(i);
                }
            }
            Token::Section => {
                if let (Some(Token::Num(n, None)), Some(a)) = (t.get(k + 1), arts.last_mut()) {
                    a.paragraph = n.parse().ok();
                }
            }
            Token::Num(n, year) => {
                if let Some(law) = law_of(n, year.as_deref(), keyword) {
                    laws.push((k, law));
                    keyword = None;
                    // "8666/93 - 24 - XXII": a bare number after the law is its article.
                    if let Some(Token::Num(a, None)) = t.get(k + 1)
                        && let Ok(a) = a.parse::<u32>()
                        && a < 400
                    {
                        arts.push(ArticleRef {
                            article: a,
                            inciso: word(k + 2).and_then(roman),
                            paragraph: None,
                            at: k + 1,
                        });
                        k += 2;
                        continue;
                    }
                } else {
                    keyword = None;
                }
            }
        }
        k += 1;
    }
    let mut citations = Vec::new();
    let law_first = match (laws.first(), arts.first()) {
        (Some(l), Some(a)) => l.0 < a.at,
        _ => true,
    };
    let mut used = vec![false; laws.len()];
    for a in &arts {
        let pick = if law_first {
            laws.iter().rposition(|(at, _)| *at < a.at)
        } else {
            laws.iter().position(|(at, _)| *at > a.at)
        }
        .or_else(|| (laws.len() == 1).then_some(0));
        if let Some(p) = pick {
            used[p] = true;
            citations.push(Citation {
                law: laws[p].1.clone(),
                article: Some(a.article),
                inciso: a.inciso,
                paragraph: a.paragraph,
            });
        }
    }
    for (p, (_, law)) in laws.iter().enumerate() {
        if !used[p] {
            citations.push(Citation { law: law.clone(), article: None, inciso: None, paragraph: None });
        }
    }
    LegalBasis { missing: placeholder && citations.is_empty(), citations }
}

#[cfg(test)]
#[path = "legal_basis_tests.rs"]
mod tests;
