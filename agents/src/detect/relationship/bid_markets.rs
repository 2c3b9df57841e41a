//! The markets of `bid_rigging`'s recurring-set test: biddings grouped by object category,
//! how often each bidder takes part, the chance that independent bidders form a given set,
//! and the Poisson tail that judges a recurrence (also used by the lockstep screen).

use std::collections::HashMap;

use crate::detect::category::{Category, categorise};
use crate::detect::common::FxBuild;

/// The category of object texts, cached by their first 64 bytes when those alone decide it
/// (templated objects share their opening words; the keyword search stops at the first hit).
#[derive(Default)]
pub(super) struct MarketCache<'a> {
    by_prefix: HashMap<&'a str, Category, FxBuild>,
}

impl<'a> MarketCache<'a> {
    pub(super) fn of(&mut self, object: &'a str) -> Category {
        let mut end = object.len().min(64);
        while !object.is_char_boundary(end) {
            end -= 1;
        }
        let prefix = &object[..end];
        if let Some(c) = self.by_prefix.get(prefix) {
            return *c;
        }
        let c = categorise(prefix);
        if c == Category::Outros {
            return categorise(object);
        }
        self.by_prefix.insert(prefix, c);
        c
    }
}

/// Participation in each market (object category): bidder slots, biddings per size and per
/// bidder, for the chance that independent bidders form a given set.
#[derive(Default)]
pub(super) struct Market<'a> {
    slots: HashMap<Category, f64, FxBuild>,
    sizes: HashMap<(Category, usize), f64, FxBuild>,
    pub(super) bidders: HashMap<(Category, &'a str), f64, FxBuild>,
}

impl<'a> Market<'a> {
    pub(super) fn add(&mut self, cat: Category, docs: &[&'a str]) {
        *self.slots.entry(cat).or_default() += docs.len() as f64;
        *self.sizes.entry((cat, docs.len())).or_default() += 1.0;
        for d in docs {
            *self.bidders.entry((cat, *d)).or_default() += 1.0;
        }
    }
    /// Expected biddings with exactly this set if bidders joined independently in proportion to
    /// their participation: `N_k * k! * prod(c_i / C)`.
    pub(super) fn expected(&self, cat: Category, set: &[&str]) -> f64 {
        let total = self.slots.get(&cat).copied().unwrap_or(0.0).max(1.0);
        let n_k = self.sizes.get(&(cat, set.len())).copied().unwrap_or(0.0);
        let mut e = n_k;
        for (i, d) in set.iter().enumerate() {
            e *= (i + 1) as f64 * self.bidders.get(&(cat, *d)).copied().unwrap_or(0.0) / total;
        }
        e
    }
}

/// `P(X >= k)` for `X ~ Poisson(mean)`, computed in log space (1 for k = 0).
pub fn poisson_upper(k: usize, mean: f64) -> f64 {
    if k == 0 {
        return 1.0;
    }
    if mean <= 0.0 {
        return 0.0;
    }
    // Sum the upper tail directly from k while terms matter (stable when the mean is small).
    let mut log_term = -mean + k as f64 * mean.ln() - (1..=k).map(|j| (j as f64).ln()).sum::<f64>();
    let mut total = 0.0;
    for j in k..k + 400 {
        total += log_term.exp();
        log_term += mean.ln() - ((j + 1) as f64).ln();
        if log_term < -745.0 || (j as f64 > mean && log_term.exp() < total * 1e-12) {
            break;
        }
    }
    total.min(1.0)
}
