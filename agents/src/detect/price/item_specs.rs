//! Which priced items carry a specification their catalogue peers do not share.
//!
//! The Portal's `ItemCompra` groups items under a catalogue description ("VEÍCULO TRANSPORTE
//! PESSOAL") and puts the specification in the complementary description ("..., TIPO ÔNIBUS,
//! CAPACIDADE 44 PASSAGEIROS"). An item whose complement names something no other item of its
//! description names is another product sold under the same class: a bus among cars, an
//! armoured car among sedans. Its unit price says nothing about overpricing against the class,
//! however far it stands (see [`crate::detect::price::price_items`]). A specification word is a folded word of
//! the complement of at least three letters, not a Portuguese function word and not a word of
//! the description itself; it is shared when the complements of at least [`MIN_SHARED`] other
//! items of the group name it. Linear in the complements' words.

use std::collections::HashMap;

use crate::detect::common::FxBuild;
use crate::model::amendment::ContractItem;
use crate::text::{for_each_word_hash, is_stopword};

/// Fewest other items of the same description that must name a specification word for it to
/// be the group's own.
pub const MIN_SHARED: u32 = 2;

/// The specification words of an item: words of its complement beyond its description.
pub fn spec_words(item: &ContractItem) -> Vec<u64> {
    if item.complement.trim().is_empty() {
        return Vec::new();
    }
    let mut own = Vec::new();
    for_each_word_hash(&item.description, |h| own.push(h));
    let mut out = Vec::new();
    let mut accepted = Vec::new();
    crate::text::for_each_word(&item.complement, |w| {
        if w.chars().filter(|c| c.is_alphabetic()).count() >= 3 && !is_stopword(w) {
            accepted.push(w.to_string());
        }
        true
    });
    for w in accepted {
        let mut h = 0;
        for_each_word_hash(&w, |x| h = x);
        if !own.contains(&h) && !out.contains(&h) {
            out.push(h);
        }
    }
    out
}

/// Per catalogue group: in how many contracts each specification word appears.
#[derive(Debug, Default)]
pub struct SpecCounts {
    counts: Vec<HashMap<u64, u32, FxBuild>>,
}

impl SpecCounts {
    /// Counts the words of `words`, the specification words of one item of group `group`.
    pub fn add(&mut self, group: usize, words: &[u64]) {
        if words.is_empty() {
            return;
        }
        if self.counts.len() <= group {
            self.counts.resize_with(group + 1, HashMap::default);
        }
        for w in words {
            *self.counts[group].entry(*w).or_insert(0) += 1;
        }
    }

    /// Whether every specification word of `words` (an item of group `group`) is named by at
    /// least [`MIN_SHARED`] other items of the group.
    pub fn shared(&self, group: usize, words: &[u64]) -> bool {
        let Some(counts) = self.counts.get(group) else { return words.is_empty() };
        words.iter().all(|w| counts.get(w).is_some_and(|&n| n > MIN_SHARED))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(description: &str, complement: &str) -> ContractItem {
        ContractItem {
            code: arcstr::ArcStr::new(),
            description: description.into(),
            complement: complement.into(),
            quantity: 1.0,
            value: 1.0,
        }
    }

    #[test]
    fn a_complement_repeating_the_description_names_no_specification() {
        assert!(spec_words(&item("VEÍCULO TRANSPORTE PESSOAL", "VEÍCULO TRANSPORTE PESSOAL")).is_empty());
        assert!(spec_words(&item("FRUTA", "")).is_empty());
    }

    #[test]
    fn a_bus_among_cars_is_a_specification_the_group_does_not_share() {
        let bus =
            spec_words(&item("VEÍCULO TRANSPORTE PESSOAL", "VEÍCULO TRANSPORTE PESSOAL, TIPO ÔNIBUS, 44 LUGARES"));
        let car = spec_words(&item("VEÍCULO TRANSPORTE PESSOAL", "VEÍCULO TRANSPORTE PESSOAL, TIPO SEDAN"));
        let mut counts = SpecCounts::default();
        for _ in 0..5 {
            counts.add(0, &car);
        }
        counts.add(0, &bus);
        assert!(counts.shared(0, &car));
        assert!(!counts.shared(0, &bus));
        assert!(counts.shared(0, &[]));
    }
}
