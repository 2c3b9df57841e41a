//! Shared text for the records: [`ArcStr`] (one pointer, reference-counted) instead of
//! `String`, and an [`Interner`] that makes equal texts one allocation.
//!
//! A million contracts repeat a few hundred organs, units, modalities and legal bases and a
//! few thousand suppliers; keeping each as its own `String` cost about 1 KB per contract.
//! Records hold `ArcStr`, the demo generator builds them from shared values, and data read
//! from the upstream goes through [`crate::Dataset::share_text`] once it is assembled.

use std::collections::HashSet;

pub use arcstr::ArcStr;

/// A set of texts handed out as shared [`ArcStr`]s: equal texts come back as clones of one.
#[derive(Debug, Default)]
pub struct Interner {
    seen: HashSet<ArcStr>,
}

impl Interner {
    /// An empty interner.
    pub fn new() -> Self {
        Self::default()
    }

    /// The shared copy of `text` (stored on first sight).
    pub fn get(&mut self, text: &str) -> ArcStr {
        if let Some(known) = self.seen.get(text) {
            return known.clone();
        }
        let value = ArcStr::from(text);
        self.seen.insert(value.clone());
        value
    }

    /// The shared copy of `text` if it is held (no allocation either way).
    pub fn lookup(&self, text: &str) -> Option<ArcStr> {
        self.seen.get(text).cloned()
    }

    /// Replaces `value` by the shared copy of its text (keeping it when it is the first).
    pub fn share(&mut self, value: &mut ArcStr) {
        if value.is_empty() {
            *value = ArcStr::new();
        } else if let Some(known) = self.seen.get(value.as_str()) {
            *value = known.clone();
        } else {
            self.seen.insert(value.clone());
        }
    }

    /// How many distinct texts it holds.
    pub fn len(&self) -> usize {
        self.seen.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.seen.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_texts_come_back_as_one_allocation() {
        let mut interner = Interner::new();
        let a = interner.get("Ministério da Saúde");
        let mut b = ArcStr::from(String::from("Ministério da Saúde"));
        assert!(!ArcStr::ptr_eq(&a, &b));
        interner.share(&mut b);
        assert!(ArcStr::ptr_eq(&a, &b));
        assert_eq!(interner.len(), 1);
        let mut empty = ArcStr::from("");
        interner.share(&mut empty);
        assert_eq!((empty.as_str(), interner.len()), ("", 1));
    }
}
