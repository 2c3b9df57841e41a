//! Text helpers shared by the parsers, detectors and agents: accent and case folding, word
//! splitting, and pt-BR formatting of money and percentages; word hashes and stopwords are in
//! the `word_hash` submodule (re-exported here).

mod word_hash;
mod word_set;

pub use word_hash::{for_each_word_hash, is_stopword, is_stopword_bytes};
pub use word_set::WordSet;

/// Folds one character to lower-case ASCII where Portuguese accents are concerned
/// (`Ç` -> `c`, `Ã` -> `a`); other characters are lower-cased.
pub fn fold_char(c: char) -> char {
    if c.is_ascii() {
        return c.to_ascii_lowercase();
    }
    match c {
        'á' | 'à' | 'â' | 'ã' | 'ä' | 'Á' | 'À' | 'Â' | 'Ã' | 'Ä' => 'a',
        'é' | 'è' | 'ê' | 'ë' | 'É' | 'È' | 'Ê' | 'Ë' => 'e',
        'í' | 'ì' | 'î' | 'ï' | 'Í' | 'Ì' | 'Î' | 'Ï' => 'i',
        'ó' | 'ò' | 'ô' | 'õ' | 'ö' | 'Ó' | 'Ò' | 'Ô' | 'Õ' | 'Ö' => 'o',
        'ú' | 'ù' | 'û' | 'ü' | 'Ú' | 'Ù' | 'Û' | 'Ü' => 'u',
        'ç' | 'Ç' => 'c',
        'ñ' | 'Ñ' => 'n',
        'º' | 'ª' => ' ',
        c => c.to_lowercase().next().unwrap_or(c),
    }
}

/// The whole string folded with [`fold_char`].
pub fn fold(s: &str) -> String {
    s.chars().map(fold_char).collect()
}

/// Whether `s` folded with [`fold_char`] is `folded` (without building the folded string).
pub fn folds_to(s: &str, folded: &str) -> bool {
    s.chars().map(fold_char).eq(folded.chars())
}

/// Calls `f` with each folded alphanumeric word of `s`, in order, reusing one buffer.
/// Stops early when `f` returns `false`.
pub fn for_each_word(s: &str, mut f: impl FnMut(&str) -> bool) {
    let mut word = String::with_capacity(32);
    let bytes = s.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        // ASCII (nearly every character of upstream texts) by table: `fold_char` lower-cases
        // it and it is alphanumeric exactly when it is an ASCII letter or digit.
        let b = bytes[i];
        let lower = ASCII_WORD[usize::from(b)];
        if lower != 0 {
            word.push(char::from(lower));
            i += 1;
            continue;
        }
        if b < 0x80 {
            i += 1;
        } else {
            let c = s[i..].chars().next().unwrap_or(' ');
            i += c.len_utf8();
            let c = fold_char(c);
            if c.is_alphanumeric() {
                word.push(c);
                continue;
            }
        }
        if !word.is_empty() {
            if !f(&word) {
                return;
            }
            word.clear();
        }
    }
    if !word.is_empty() {
        f(&word);
    }
}

/// The folded words of `s`, in order.
pub fn words(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    for_each_word(s, |w| {
        out.push(w.to_string());
        true
    });
    out
}

/// Folds the second byte of a two-byte UTF-8 sequence starting with `0xC3` (U+00C0 to U+00FF)
/// to an ASCII lower-case letter, or 0 when it is not a letter.
fn fold_latin1(b: u8) -> u8 {
    match b | 0x20 {
        0xA0..=0xA5 => b'a',
        0xA7 => b'c',
        0xA8..=0xAB => b'e',
        0xAC..=0xAF => b'i',
        0xB1 => b'n',
        0xB2..=0xB6 => b'o',
        0xB9..=0xBC => b'u',
        0xBD | 0xBF => b'y',
        _ => 0,
    }
}

/// Longest word kept whole by [`for_each_word_bytes`]; longer words are cut.
pub const MAX_WORD: usize = 48;

/// Per byte: its lower-case form when it is an ASCII letter or digit, else 0 (every byte of a
/// multi-byte character is 0 here).
pub(crate) static ASCII_WORD: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 128 {
        let c = b as u8;
        if c.is_ascii_alphanumeric() {
            t[b] = c.to_ascii_lowercase();
        }
        b += 1;
    }
    t
};

/// The character at byte `i` of `s` (not ASCII), folded: `(next, bytes, n)`, the position
/// after it and its first `n` folded bytes, `n` being 0 when it is not a letter or digit (a
/// Latin-1 accented letter folds to one ASCII letter; other letters keep their UTF-8 bytes).
pub(crate) fn fold_at(s: &str, i: usize) -> (usize, [u8; 4], usize) {
    let bytes = s.as_bytes();
    let mut out = [0u8; 4];
    let folded = if bytes[i] == 0xC3 && i + 1 < bytes.len() { fold_latin1(bytes[i + 1]) } else { 0 };
    if folded != 0 {
        out[0] = folded;
        return (i + 2, out, 1);
    }
    let ch = s[i..].chars().next().unwrap_or(' ');
    let c = fold_char(ch);
    let n = if c.is_alphanumeric() { c.encode_utf8(&mut out).len() } else { 0 };
    (i + ch.len_utf8(), out, n)
}

/// Fast byte-level version of [`for_each_word`]: calls `f` with each folded word as ASCII
/// bytes (Latin-1 accents folded, other non-ASCII characters kept as raw bytes). Stops early
/// when `f` returns `false`. A run of ASCII letters and digits (nearly every word of upstream
/// texts) is found with one table lookup per byte and copied lower-cased at once.
pub fn for_each_word_bytes(s: &str, mut f: impl FnMut(&[u8]) -> bool) {
    let bytes = s.as_bytes();
    let n = bytes.len();
    let mut buf = [0u8; MAX_WORD];
    let mut len = 0usize;
    let mut i = 0;
    while i < n {
        let b = bytes[i];
        let lower = ASCII_WORD[usize::from(b)];
        if lower != 0 {
            i += 1;
            if len < MAX_WORD {
                buf[len] = lower;
                len += 1;
            }
            continue;
        }
        if b < 0x80 {
            i += 1;
        } else {
            let (next, folded, k) = fold_at(s, i);
            i = next;
            if k > 0 {
                for &byte in &folded[..k] {
                    if len < MAX_WORD {
                        buf[len] = byte;
                        len += 1;
                    }
                }
                continue;
            }
        }
        if len > 0 {
            if !f(&buf[..len]) {
                return;
            }
            len = 0;
        }
    }
    if len > 0 {
        f(&buf[..len]);
    }
}

/// Portuguese month names, January first.
pub const MONTHS_PT: [&str; 12] = [
    "janeiro",
    "fevereiro",
    "março",
    "abril",
    "maio",
    "junho",
    "julho",
    "agosto",
    "setembro",
    "outubro",
    "novembro",
    "dezembro",
];

/// English month names, January first.
pub const MONTHS_EN: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// Formats an amount of money the Brazilian way: `R$ 1.234.567,89`.
pub fn format_brl(value: f64) -> String {
    let negative = value < 0.0;
    let cents = (value.abs() * 100.0).round();
    let whole = (cents / 100.0).trunc() as u64;
    let frac = (cents - whole as f64 * 100.0).round() as u64;
    let digits = whole.to_string();
    let mut grouped = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            grouped.push('.');
        }
        grouped.push(ch);
    }
    format!("{}R$ {},{:02}", if negative { "-" } else { "" }, grouped, frac.min(99))
}

/// Formats a number with `places` decimals and a decimal comma: `17.44` -> `17,4` (one place).
pub fn format_decimal(x: f64, places: usize) -> String {
    format!("{x:.places$}").replace('.', ",")
}

/// `"1 caso"`, `"3 casos"`: a count with the singular or plural noun.
pub fn count_of(n: usize, singular: &str, plural: &str) -> String {
    format!("{n} {}", if n == 1 { singular } else { plural })
}

/// Formats a fraction as a percentage with one decimal and a comma: `0.4237` -> `42,4%`.
pub fn format_pct(fraction: f64) -> String {
    format!("{:.1}%", fraction * 100.0).replace('.', ",")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The words [`for_each_word_bytes`] must give, character by character: ASCII letters and
    /// digits lower-cased, other characters through [`fold_at`], words cut at [`MAX_WORD`].
    fn reference_words(s: &str) -> Vec<Vec<u8>> {
        let mut words = vec![Vec::new()];
        for (i, c) in s.char_indices() {
            let folded: Vec<u8> = if c.is_ascii() {
                if c.is_ascii_alphanumeric() { vec![c.to_ascii_lowercase() as u8] } else { Vec::new() }
            } else {
                let (_, bytes, n) = fold_at(s, i);
                bytes[..n].to_vec()
            };
            let word = words.last_mut().expect("one word at least");
            if folded.is_empty() {
                if !word.is_empty() {
                    words.push(Vec::new());
                }
            } else {
                word.extend(folded);
            }
        }
        words.retain(|w| !w.is_empty());
        words.iter_mut().for_each(|w| w.truncate(MAX_WORD));
        words
    }

    proptest::proptest! {
        #[test]
        fn words_are_the_runs_of_folded_alphanumeric_characters(s in "([A-Za-z0-9 .,/-]|Ç|ã|É|ü|ß|Ω|º|ĳ|ǅ){0,120}") {
            let mut fast = Vec::new();
            for_each_word(&s, |w| { fast.push(w.to_string()); true });
            let folded: String = s.chars().map(fold_char).collect();
            let slow: Vec<String> = folded
                .split(|c: char| !c.is_alphanumeric())
                .filter(|w| !w.is_empty())
                .map(str::to_string)
                .collect();
            proptest::prop_assert_eq!(fast, slow);
        }

        #[test]
        fn word_bytes_are_the_folded_words_character_by_character(s in "([A-Za-z0-9 .,/-]|Ç|ã|É|ü|ß|Ω|º|\\u{00A0}|ĳ){0,160}") {
            let mut fast = Vec::new();
            for_each_word_bytes(&s, |w| { fast.push(w.to_vec()); true });
            proptest::prop_assert_eq!(fast, reference_words(&s));
        }
    }

    #[test]
    fn long_words_are_cut_and_a_stop_is_honoured() {
        let long = "A".repeat(60) + "ÇÃO b";
        let mut words = Vec::new();
        for_each_word_bytes(&long, |w| {
            words.push(w.to_vec());
            true
        });
        assert_eq!(words, vec![vec![b'a'; MAX_WORD], b"b".to_vec()]);
        let mut first = Vec::new();
        for_each_word_bytes("um dois tres", |w| {
            first.push(w.to_vec());
            false
        });
        assert_eq!(first, vec![b"um".to_vec()]);
    }

    #[test]
    fn folding_removes_portuguese_accents_and_case() {
        assert_eq!(fold("AQUISIÇÃO de Medicamentos - SAÚDE"), "aquisicao de medicamentos - saude");
    }

    #[test]
    fn words_are_split_on_punctuation_and_folded() {
        assert_eq!(words("Nº 123/2024, LIMPEZA."), vec!["n", "123", "2024", "limpeza"]);
    }

    #[test]
    fn the_byte_level_word_splitter_agrees_with_the_char_level_one() {
        let text = "AQUISIÇÃO DE MEDICAMENTOS (DIPIRONA 500 MG), Nº 12/2024 — SÃO PAULO; ÓLEO ñandu º";
        let mut fast = Vec::new();
        for_each_word_bytes(text, |w| {
            fast.push(String::from_utf8_lossy(w).into_owned());
            true
        });
        assert_eq!(fast, words(text));
    }

    #[test]
    fn money_is_formatted_with_dots_for_thousands_and_a_decimal_comma() {
        assert_eq!(format_brl(1_234_567.891), "R$ 1.234.567,89");
        assert_eq!(format_brl(0.5), "R$ 0,50");
        assert_eq!(format_brl(999.0), "R$ 999,00");
        assert_eq!(format_pct(0.4237), "42,4%");
        assert_eq!(format_decimal(17.44, 1), "17,4");
        assert_eq!(count_of(1, "caso", "casos"), "1 caso");
        assert_eq!(count_of(2, "caso", "casos"), "2 casos");
    }
}
