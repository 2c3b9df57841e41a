//! Text helpers shared by the parsers, detectors and agents: accent and case folding, word
//! splitting, and pt-BR formatting of money and percentages.

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

/// Calls `f` with each folded alphanumeric word of `s`, in order, reusing one buffer.
/// Stops early when `f` returns `false`.
pub fn for_each_word(s: &str, mut f: impl FnMut(&str) -> bool) {
    let mut word = String::with_capacity(32);
    for c in s.chars() {
        let c = fold_char(c);
        if c.is_alphanumeric() {
            word.push(c);
        } else if !word.is_empty() {
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

/// Fast byte-level version of [`for_each_word`]: calls `f` with each folded word as ASCII
/// bytes (Latin-1 accents folded, other non-ASCII characters kept as raw bytes). Stops early
/// when `f` returns `false`.
pub fn for_each_word_bytes(s: &str, mut f: impl FnMut(&[u8]) -> bool) {
    let bytes = s.as_bytes();
    let mut buf = [0u8; MAX_WORD];
    let mut len = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b < 0x80 {
            i += 1;
            if b.is_ascii_alphanumeric() {
                if len < MAX_WORD {
                    buf[len] = b.to_ascii_lowercase();
                    len += 1;
                }
                continue;
            }
        } else {
            let folded = if b == 0xC3 && i + 1 < bytes.len() { fold_latin1(bytes[i + 1]) } else { 0 };
            if folded != 0 {
                i += 2;
                if len < MAX_WORD {
                    buf[len] = folded;
                    len += 1;
                }
                continue;
            }
            let ch = s[i..].chars().next().unwrap_or(' ');
            i += ch.len_utf8();
            let c = fold_char(ch);
            if c.is_alphanumeric() {
                let mut utf8 = [0u8; 4];
                for &byte in c.encode_utf8(&mut utf8).as_bytes() {
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

/// Packs up to four bytes little-endian (for comparing short words as integers).
const fn pack(w: &[u8]) -> u32 {
    let mut v = 0u32;
    let mut i = 0;
    while i < w.len() && i < 4 {
        v |= (w[i] as u32) << (8 * i);
        i += 1;
    }
    v
}

/// [`is_stopword`] words, packed with [`pack`].
const STOPWORDS_PACKED: [u32; 25] = [
    pack(b"a"),
    pack(b"o"),
    pack(b"e"),
    pack(b"n"),
    pack(b"as"),
    pack(b"os"),
    pack(b"de"),
    pack(b"da"),
    pack(b"do"),
    pack(b"em"),
    pack(b"na"),
    pack(b"no"),
    pack(b"ao"),
    pack(b"um"),
    pack(b"se"),
    pack(b"das"),
    pack(b"dos"),
    pack(b"nas"),
    pack(b"nos"),
    pack(b"por"),
    pack(b"com"),
    pack(b"aos"),
    pack(b"uma"),
    pack(b"que"),
    pack(b"para"),
];

const HASH_SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

fn mix(h: u64, w: u64) -> u64 {
    (h.rotate_left(5) ^ w).wrapping_mul(HASH_SEED)
}

/// Streaming state of one word: its hash so far, pending bytes, length, first four bytes.
#[derive(Default)]
struct WordHash {
    h: u64,
    pending: u64,
    fill: u32,
    len: usize,
    head: u32,
}

impl WordHash {
    fn push(&mut self, b: u8) {
        if self.len < 4 {
            self.head |= u32::from(b) << (8 * self.len);
        }
        self.len += 1;
        self.pending |= u64::from(b) << (8 * self.fill);
        self.fill += 1;
        if self.fill == 8 {
            self.h = mix(self.h, self.pending);
            self.pending = 0;
            self.fill = 0;
        }
    }
    /// The word's hash, or `None` for a stopword; resets the state.
    fn finish(&mut self) -> Option<u64> {
        let stop = self.len <= 4 && STOPWORDS_PACKED.contains(&self.head);
        let mut h = mix(self.h, self.pending);
        h = mix(h, self.len as u64);
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        *self = WordHash::default();
        (!stop).then_some(h)
    }
}

/// Calls `f` with a 64-bit hash of each folded word of `s` that is not a stopword, in order,
/// without building the words (the hash of a word is the same wherever it appears).
///
/// Pure-ASCII words (nearly all words of upstream objects) are hashed straight from the text,
/// eight bytes at a time; words with accents or other non-ASCII letters go through the
/// byte-by-byte folding path, which gives the same hash for the same folded word.
pub fn for_each_word_hash(s: &str, mut f: impl FnMut(u64)) {
    let bytes = s.as_bytes();
    let n = bytes.len();
    let mut i = 0;
    while i < n {
        let b = bytes[i];
        if b < 0x80 && !b.is_ascii_alphanumeric() {
            i += 1;
            continue;
        }
        let mut j = i;
        while j < n && bytes[j].is_ascii_alphanumeric() {
            j += 1;
        }
        if j > i && (j == n || bytes[j] < 0x80) {
            if let Some(h) = ascii_word_hash(&bytes[i..j]) {
                f(h);
            }
            i = j;
        } else {
            i = folded_word_hash(s, i, &mut f);
        }
    }
}

/// The [`WordHash`] of an ASCII alphanumeric word, or `None` for a stopword.
fn ascii_word_hash(w: &[u8]) -> Option<u64> {
    const LOWER: u64 = 0x2020_2020_2020_2020;
    let len = w.len();
    if len <= 4 {
        let mut head = 0u32;
        for (k, b) in w.iter().enumerate() {
            head |= u32::from(b | 0x20) << (8 * k);
        }
        if STOPWORDS_PACKED.contains(&head) {
            return None;
        }
    }
    let mut h = 0u64;
    let mut chunks = w.chunks_exact(8);
    for c in &mut chunks {
        let mut buf = [0u8; 8];
        buf.copy_from_slice(c);
        h = mix(h, u64::from_le_bytes(buf) | LOWER);
    }
    let mut pending = 0u64;
    for (k, b) in chunks.remainder().iter().enumerate() {
        pending |= u64::from(b | 0x20) << (8 * k);
    }
    h = mix(h, pending);
    h = mix(h, len as u64);
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    Some(h)
}

/// Hashes the word starting at byte `start` by folding it byte by byte, calls `f` unless it is
/// a stopword, and returns the position after the separator that ends it.
fn folded_word_hash(s: &str, start: usize, f: &mut impl FnMut(u64)) -> usize {
    let bytes = s.as_bytes();
    let mut w = WordHash::default();
    let mut i = start;
    while i < bytes.len() {
        let b = bytes[i];
        if b < 0x80 {
            i += 1;
            if b.is_ascii_alphanumeric() {
                w.push(b.to_ascii_lowercase());
                continue;
            }
        } else {
            let folded = if b == 0xC3 && i + 1 < bytes.len() { fold_latin1(bytes[i + 1]) } else { 0 };
            if folded != 0 {
                i += 2;
                w.push(folded);
                continue;
            }
            let ch = s[i..].chars().next().unwrap_or(' ');
            i += ch.len_utf8();
            let c = fold_char(ch);
            if c.is_alphanumeric() {
                let mut utf8 = [0u8; 4];
                for &byte in c.encode_utf8(&mut utf8).as_bytes() {
                    w.push(byte);
                }
                continue;
            }
        }
        break;
    }
    if w.len > 0
        && let Some(h) = w.finish()
    {
        f(h);
    }
    i
}

/// [`is_stopword`] for folded bytes.
pub fn is_stopword_bytes(w: &[u8]) -> bool {
    match w.len() {
        1 => matches!(w[0], b'a' | b'o' | b'e' | b'n'),
        2 => matches!(w, b"as" | b"os" | b"de" | b"da" | b"do" | b"em" | b"na" | b"no" | b"ao" | b"um" | b"se"),
        3 => matches!(w, b"das" | b"dos" | b"nas" | b"nos" | b"por" | b"com" | b"aos" | b"uma" | b"que"),
        4 => w == b"para",
        _ => false,
    }
}

/// Portuguese function words that carry no meaning for similarity.
pub fn is_stopword(w: &str) -> bool {
    matches!(
        w,
        "a" | "o"
            | "as"
            | "os"
            | "e"
            | "de"
            | "da"
            | "do"
            | "das"
            | "dos"
            | "em"
            | "na"
            | "no"
            | "nas"
            | "nos"
            | "para"
            | "por"
            | "com"
            | "ao"
            | "aos"
            | "um"
            | "uma"
            | "que"
            | "se"
            | "n"
    )
}

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
        assert!(is_stopword_bytes(b"de") && !is_stopword_bytes(b"obra"));
        let mut hashes = Vec::new();
        for_each_word_hash("Obra DE reforma; OBRA", |h| hashes.push(h));
        assert_eq!(hashes.len(), 3, "the stopword is skipped");
        assert_eq!(hashes[0], hashes[2], "case does not matter");
        assert_ne!(hashes[0], hashes[1]);
        let mut long = Vec::new();
        for_each_word_hash("ESPECIALIZADAS especializada", |h| long.push(h));
        assert_ne!(long[0], long[1]);
        let mut folded = Vec::new();
        for_each_word_hash("AQUISIÇÃO aquisicao Aquisicao2 ÓLEO oleo — PARA ÇA ca", |h| folded.push(h));
        assert_eq!(folded.len(), 7, "{folded:?}");
        assert_eq!(folded[0], folded[1], "accents fold to the ASCII word");
        assert_ne!(folded[1], folded[2]);
        assert_eq!(folded[3], folded[4]);
        assert_eq!(folded[5], folded[6]);
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
