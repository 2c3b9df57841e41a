//! Fixed word lists looked up in constant time. The text detectors test every word of every
//! object text against lists of brands, exclusivity words and the like; a linear scan of a
//! list of fifty words per word was a tenth of a small investigation's analysis.

use std::sync::OnceLock;

use rustc_hash::FxHashSet;

/// A `&'static` word list with a hashed index built on first use.
pub struct WordSet {
    words: &'static [&'static str],
    index: OnceLock<FxHashSet<&'static str>>,
}

impl WordSet {
    /// The set of `words` (indexed lazily, so it can be a `static`).
    pub const fn new(words: &'static [&'static str]) -> Self {
        WordSet { words, index: OnceLock::new() }
    }

    /// Whether `w` is one of the words.
    pub fn contains(&self, w: &str) -> bool {
        self.index.get_or_init(|| self.words.iter().copied().collect()).contains(w)
    }

    /// The words, in their list order.
    pub fn words(&self) -> &'static [&'static str] {
        self.words
    }
}

#[cfg(test)]
mod tests {
    use super::WordSet;

    static SET: WordSet = WordSet::new(&["dell", "hp", "lenovo"]);

    #[test]
    fn a_word_set_finds_exactly_its_words() {
        assert!(SET.contains("hp") && SET.contains("lenovo"));
        assert!(!SET.contains("h") && !SET.contains("dells") && !SET.contains(""));
        assert_eq!(SET.words().len(), 3);
    }
}
