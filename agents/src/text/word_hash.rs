//! Word hashes and stopwords for the similarity and text detectors: each folded word of a
//! text hashed without building a string (ASCII and Latin-1 accents folded on the fly), and
//! the Portuguese function words that carry no meaning, as strings and as folded bytes.

use super::{ASCII_WORD, fold_at};

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
        let h = finish(mix(self.h, self.pending), self.len);
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
        if ASCII_WORD[usize::from(b)] == 0 {
            if b < 0x80 {
                i += 1;
            } else {
                i = folded_word_hash(s, i, &mut f);
            }
            continue;
        }
        // An ASCII word, hashed as it is read: eight lower-cased bytes at a time, the first
        // four kept for the stopword test.
        let start = i;
        let (mut h, mut pending, mut fill) = (0u64, 0u64, 0u32);
        let mut head = 0u32;
        while i < n {
            let lower = ASCII_WORD[usize::from(bytes[i])];
            if lower == 0 {
                break;
            }
            if i - start < 4 {
                head |= u32::from(lower) << (8 * (i - start));
            }
            pending |= u64::from(lower) << (8 * fill);
            fill += 1;
            if fill == 8 {
                h = mix(h, pending);
                pending = 0;
                fill = 0;
            }
            i += 1;
        }
        if i < n && bytes[i] >= 0x80 {
            // The word goes on with an accent: read it again, folding.
            i = folded_word_hash(s, start, &mut f);
            continue;
        }
        let len = i - start;
        if len <= 4 && STOPWORDS_PACKED.contains(&head) {
            continue;
        }
        f(finish(mix(h, pending), len));
    }
}

/// The end of a word's hash: its length mixed in, then the bits spread.
fn finish(h: u64, len: usize) -> u64 {
    let mut h = mix(h, len as u64);
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^ (h >> 33)
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
            let (next, folded, k) = fold_at(s, i);
            i = next;
            if k > 0 {
                folded[..k].iter().for_each(|&byte| w.push(byte));
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The hashes [`for_each_word_hash`] must give: each word of [`crate::text::for_each_word_bytes`]
    /// (the same words, while none is cut) through [`WordHash`] byte by byte, stopwords left out.
    fn reference_hashes(s: &str) -> Vec<u64> {
        let mut out = Vec::new();
        crate::text::for_each_word_bytes(s, |word| {
            let mut w = WordHash::default();
            word.iter().for_each(|&b| w.push(b));
            out.extend(w.finish());
            true
        });
        out
    }

    proptest::proptest! {
        #[test]
        fn word_hashes_are_those_of_the_folded_words_byte_by_byte(s in "([A-Za-z0-9 .,/-]|Ç|ã|É|ü|ß|Ω|º|ĳ| ){0,160}") {
            let mut longest = 0;
            crate::text::for_each_word_bytes(&s, |w| { longest = longest.max(w.len()); true });
            proptest::prop_assume!(longest < crate::text::MAX_WORD, "a cut word hashes differently");
            let mut fast = Vec::new();
            for_each_word_hash(&s, |h| fast.push(h));
            proptest::prop_assert_eq!(fast, reference_hashes(&s));
        }
    }

    #[test]
    fn word_hashes_skip_stopwords_and_ignore_case_and_accents() {
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
}
