//! What a contract's texts say it buys, as the learned peer groups ([`super::peer_groups`])
//! and the duplicate search read them: the content words of the object and of the item
//! descriptions (catalogue texts such as CATMAT/CATSER are the sharpest signal), hashed, and
//! the texts that say nothing about the purchase (empty, "não se aplica", the secret-information
//! notice of classified contracts).
//!
//! Numbers, words shorter than three letters and Portuguese function words are left out:
//! quantities, lot numbers, dates and references differ between purchases of the same thing.

use std::collections::HashMap;
use std::hash::Hasher;

use rustc_hash::FxHasher;

use super::common::FxBuild;
use crate::model::contract::Contract;
use crate::text::{fold_char, for_each_word_bytes, is_stopword_bytes};

/// Most terms kept per contract: long objects repeat their boilerplate, and the first words of
/// the object and of the items name what is bought.
pub const MAX_TERMS: usize = 32;
/// Most terms kept from the object text.
pub const MAX_OBJECT_TERMS: usize = 24;

/// The hash of one folded word.
pub fn term_hash(word: &[u8]) -> u64 {
    let mut h = FxHasher::default();
    h.write(word);
    h.finish()
}

/// Whether a folded word is a term: at least three characters, no digit, not a function word.
fn is_term(w: &[u8]) -> bool {
    w.len() >= 3 && !w.iter().any(u8::is_ascii_digit) && !is_stopword_bytes(w)
}

/// Calls `f` with each term of `text` (folded bytes), in order.
pub fn for_each_term(text: &str, mut f: impl FnMut(&[u8])) {
    for_each_word_bytes(text, |w| {
        if is_term(w) {
            f(w);
        }
        true
    });
}

/// Calls `f` with the terms of `text` (folded bytes), in order, while it returns `true`.
fn for_each_term_while(text: &str, mut f: impl FnMut(&[u8]) -> bool) {
    for_each_word_bytes(text, |w| !is_term(w) || f(w));
}

/// `buf` becomes [`crate::text::fold`] of `s`: runs of ASCII are copied and lower-cased at once (what
/// `fold_char` does to them), other characters folded one by one.
pub fn fold_into(s: &str, buf: &mut String) {
    buf.clear();
    buf.reserve(s.len());
    let mut rest = s;
    while !rest.is_empty() {
        let ascii = rest.bytes().position(|b| !b.is_ascii()).unwrap_or(rest.len());
        let start = buf.len();
        buf.push_str(&rest[..ascii]);
        buf[start..].make_ascii_lowercase();
        rest = &rest[ascii..];
        if let Some(c) = rest.chars().next() {
            buf.push(fold_char(c));
            rest = &rest[c.len_utf8()..];
        }
    }
}

/// Whether an object text says nothing about the purchase: empty or punctuation only, "não se
/// aplica" / "undefined", or the notice that replaces the object of a classified contract
/// ("Informação protegida por sigilo nos termos da legislação vigente"). Such objects have no
/// peer group and are never evidence of a duplicate.
pub fn is_uninformative(text: &str) -> bool {
    // One scratch buffer per thread: this runs on every object and item description.
    thread_local! {
        static CORE: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
        static ASCII: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    if text.is_ascii() {
        // What the general path below does to ASCII (folding is lower-casing there), byte by
        // byte instead of char by char.
        return ASCII.with_borrow_mut(|core| {
            core.clear();
            core.extend(
                text.bytes().filter(|b| b.is_ascii_alphanumeric() || *b == b' ').map(|b| b.to_ascii_lowercase()),
            );
            std::str::from_utf8(core).is_ok_and(says_nothing)
        });
    }
    CORE.with_borrow_mut(|core| {
        core.clear();
        core.extend(text.chars().map(fold_char).filter(|c| c.is_alphanumeric() || *c == ' '));
        says_nothing(core)
    })
}

/// [`is_uninformative`] of a text already folded with only its letters, digits and spaces.
fn says_nothing(core: &str) -> bool {
    let core = core.trim().trim_start_matches("objeto").trim();
    core.is_empty()
        || matches!(core, "nao se aplica" | "undefined" | "sem informacao" | "nao informado")
        || core.contains("protegida por sigilo")
        || core.starts_with("sigiloso")
}

/// Whether a text is short enough to be checked with [`is_uninformative`] (the notices it
/// recognises are short; longer texts always say something).
pub fn may_be_uninformative(text: &str) -> bool {
    text.len() < 120 && is_uninformative(text)
}

/// The distinct term hashes of a contract (object, then item descriptions), in order of first
/// appearance, at most [`MAX_TERMS`], appended to `out`; returns how many came from the object.
/// An uninformative object contributes nothing (its items still do).
pub fn contract_terms(c: &Contract, out: &mut Vec<u64>) -> usize {
    contract_terms_with(c, out, &mut ItemTerms::default())
}

/// The terms of each item description met so far (catalogue texts repeat across contracts:
/// each distinct one is read once per cache).
#[derive(Default)]
pub struct ItemTerms<'a> {
    /// Per description: where its terms are in `terms`.
    seen: HashMap<&'a str, (u32, u32), FxBuild>,
    /// The term hashes of every description met, in text order, back to back.
    terms: Vec<u64>,
}

impl<'a> ItemTerms<'a> {
    /// The term hashes of `description` in text order (none for an uninformative one).
    fn of(&mut self, description: &'a str) -> &[u64] {
        let (from, to) = match self.seen.get(description) {
            Some(&range) => range,
            None => {
                let from = self.terms.len();
                if !may_be_uninformative(description) {
                    for_each_term(description, |w| self.terms.push(term_hash(w)));
                }
                let range = (from as u32, self.terms.len() as u32);
                self.seen.insert(description, range);
                range
            }
        };
        &self.terms[from as usize..to as usize]
    }
}

/// [`contract_terms`], the item descriptions' terms read through `items`.
pub fn contract_terms_with<'a>(c: &'a Contract, out: &mut Vec<u64>, items: &mut ItemTerms<'a>) -> usize {
    let first = out.len();
    // One bit per value of a term's top 6 hash bits: a term whose bit is clear is new, so
    // only the others are looked for among the terms already kept.
    let mut bits = 0u64;
    // Adds a term unless already there; says whether there is room for more.
    let mut push = |out: &mut Vec<u64>, h: u64, cap: usize| {
        let bit = 1u64 << (h >> 58);
        if out.len() - first < cap && (bits & bit == 0 || !out[first..].contains(&h)) {
            out.push(h);
            bits |= bit;
        }
        out.len() - first < cap
    };
    if !may_be_uninformative(&c.object) {
        // Objects name what is bought first; the tail (places, units, references) is not
        // read past the first MAX_OBJECT_TERMS terms.
        for_each_term_while(&c.object, |w| push(out, term_hash(w), MAX_OBJECT_TERMS));
    }
    let object_terms = out.len() - first;
    for item in &c.items {
        for &h in items.of(&item.description) {
            if !push(out, h, MAX_TERMS) {
                break;
            }
        }
    }
    object_terms
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::contract;

    #[test]
    fn the_secret_notice_and_placeholders_say_nothing_about_the_purchase() {
        assert!(is_uninformative("Informação protegida por sigilo nos termos da legislação vigente"));
        assert!(is_uninformative("Objeto: ."));
        assert!(is_uninformative("Não se aplica"));
        assert!(is_uninformative(""));
        assert!(!is_uninformative("Objeto: AQUISIÇÃO DE GÊNEROS ALIMENTÍCIOS DA AGRICULTURA FAMILIAR"));
    }

    #[test]
    fn folding_into_a_buffer_is_folding() {
        let mut buf = String::from("old");
        for s in ["", "LOCAÇÃO DE IMÓVEL", "Água ÆØ ß º ª Ⱥ x", "plain ascii", "ÇÃ"] {
            fold_into(s, &mut buf);
            assert_eq!(buf, crate::text::fold(s), "{s}");
        }
    }

    #[test]
    fn terms_leave_out_numbers_short_words_and_repeats() {
        let c =
            contract("1", "AQUISIÇÃO DE 200 RESMAS DE PAPEL A4, PAPEL RECICLADO - LOTE 3", "S", "1", 1.0, (2024, 1, 1));
        let mut t = Vec::new();
        contract_terms(&c, &mut t);
        let expected: Vec<u64> =
            ["aquisicao", "resmas", "papel", "reciclado", "lote"].iter().map(|w| term_hash(w.as_bytes())).collect();
        assert_eq!(t, expected);
    }
}
