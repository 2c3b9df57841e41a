//! `exclusivity_contradicted`: an inexigibilidade that claims an exclusive supplier (Lei
//! 14.133/2021 art. 74, I; Lei 8.666/1993 art. 25, I; Lei 13.303/2016 art. 30, I) for goods the
//! data shows many firms sell in competition.
//!
//! Art. 74, I allows a purchase without bidding only when the object "só possa ser fornecido
//! por produtor, empresa ou representante comercial exclusivos", shown by an attestation (§1º),
//! and forbids preferring a brand. A claim is judged against the *other purchases of the same
//! goods* in the dataset: the other contracts listing one of its items (the same catalogue
//! description, `Descrição Item Compra`) or, when it lists none, the other members of its
//! learned object group ([`crate::detect::peer_groups`]: the lexicon decides nothing), when that
//! group is coherent ([`MIN_COHERENCE`]). The claim
//! is contradicted when those purchases come from at least [`MIN_SUPPLIERS`] other suppliers
//! and exclusivity is claimed (an inexigibilidade) in significantly fewer than one in
//! [`1 / R0`](R0) of them: the one-sided binomial probability of seeing so few claims among so
//! many purchases, were exclusivity claimed for these goods at rate [`R0`], is at most 1%. Goods
//! for which buyers do claim exclusivity now and then (a model only its maker supplies, within a
//! catalogue class many firms sell) keep claims among their purchases and are not contradicted;
//! goods nobody else buys from an exclusive supplier (stationery, food, fuel) are.
//!
//! Not judged: a claim whose object itself states what makes the supplier exclusive (a maker,
//! brand or model, a licence or subscription of its owner, a court order, the exclusivity
//! itself: [`states_exclusivity`]), which is for the purchase file's attestation to prove; and a
//! contract whose object or supplier shows another non-value ground
//! ([`crate::detect::legal_grounds::inferred_ground`]: utilities, leases, public bodies).
//!
//! Confidence: `0.82` at probability 1% rising to `0.88` at 0.001% (`ramp` of `-log10 p` over 2 to
//! 5), shifted with sensitivity like every detector's ([`adjust_confidence`]); it stays below
//! the 0.9 a critical finding needs: the data shows a competitive market, not the missing
//! attestation.
//!
//! Complexity: the claims are found in the main pass; their item descriptions are indexed with
//! one pass over every item of the data (at most [`MAX_OTHERS`] contracts kept per
//! description), and each distinct set of goods claimed has its purchases counted once (a stamp
//! array marks them): O(items + sets x `MAX_OTHERS`) time, O(n) memory.

use std::collections::HashMap;

use crate::cancel::{AnalysisError, CancelFlag};
use crate::detect::common::{FxBuild, adjust_confidence, ramp};
use crate::detect::legal::{self, Modality};
use crate::detect::legal_basis::{Law, LegalBasis};
use crate::detect::peer_groups::NO_GROUP;
use crate::detect::shared::{NONE, Shared};
use crate::model::contract::Contract;
use crate::text::{fold, format_brl};

use super::Breach;

/// The rule's name (`technical_details.rule`).
pub const RULE: &str = "exclusivity_contradicted";
/// The rate of exclusivity claims the other purchases are tested against: goods a buyer may
/// legitimately need from one maker see such claims in at least one purchase in twenty.
pub const R0: f64 = 0.05;
/// The least number of other suppliers selling the goods for the market to count as
/// competitive.
pub const MIN_SUPPLIERS: usize = 5;
/// The least mean cosine of a learned group's members to its leader for the group to stand for
/// "the same goods" when a claim lists no items: a looser group gathers texts that share
/// boilerplate ("o objeto do presente instrumento é a contratação de ...") more than goods.
pub const MIN_COHERENCE: f64 = 0.7;
/// Most contracts of one item description the index keeps (the test is decided long before).
pub const MAX_OTHERS: usize = 2_000;

/// Whether a parsed legal basis claims an exclusive supplier: Lei 14.133 art. 74, I; Lei 8.666
/// art. 25, I; Lei 13.303 art. 30, I.
pub fn claims_exclusive_supplier(basis: &LegalBasis) -> bool {
    basis.citations.iter().any(|c| {
        c.inciso == Some(1)
            && matches!((&c.law, c.article), (Law::L14133, Some(74)) | (Law::L8666, Some(25)) | (Law::L13303, Some(30)))
    })
}

/// Phrases of an object (folded) that name what makes a supplier exclusive: a maker, brand or
/// model, an owner's licence or subscription, a court order, or the exclusivity itself.
const EXCLUSIVITY_WORDS: &[&str] = &[
    "exclusiv",
    "fabricante",
    "fabricacao",
    "fabricado",
    "marca ",
    "marca:",
    "modelo ",
    "modelo:",
    "licenc",
    "subscric",
    "assinatura",
    "patente",
    "proprietari",
    "representante",
    "distribuidor",
    "decisao judicial",
    "ordem judicial",
    "mandado judicial",
    "fornecedor unico",
    "unico fornecedor",
    "inviabilidade de competicao",
    "atestado",
];

/// Whether an object states what makes its supplier exclusive (see [`EXCLUSIVITY_WORDS`];
/// "dedicação exclusiva de mão de obra", outsourced staff, says nothing of it).
pub fn states_exclusivity(object: &str) -> bool {
    let o = fold(object).replace("dedicacao exclusiva", "dedicacao");
    EXCLUSIVITY_WORDS.iter().any(|w| o.contains(w))
}

/// The one-sided binomial probability `P(X <= k)` for `X ~ Bin(n, r)`, in log space.
pub fn binomial_cdf(k: usize, n: usize, r: f64) -> f64 {
    if k >= n {
        return 1.0;
    }
    let (lr, lq) = (r.ln(), (1.0 - r).ln());
    let mut log_term = n as f64 * lq;
    let mut total = log_term.exp();
    for j in 1..=k {
        log_term += ((n - j + 1) as f64 / j as f64).ln() + lr - lq;
        total += log_term.exp();
    }
    total.min(1.0)
}

/// The other purchases of a claim's goods.
#[derive(Debug, Clone, PartialEq)]
pub struct Market {
    /// Other contracts buying the same goods.
    pub others: usize,
    /// Of them, inexigibilidades (exclusivity claimed).
    pub claims: usize,
    /// Distinct suppliers of the others, the claim's own left out.
    pub suppliers: usize,
    /// What the goods were matched by: the item descriptions, or the learned group's terms.
    pub goods: String,
    /// Whether the goods were matched by item descriptions (else by the learned group).
    pub by_items: bool,
}

/// One purchase in an index list: contract, supplier id, whether it is an inexigibilidade.
type Entry = (u32, u32, bool);

/// The union of some purchase lists: how many contracts, how many inexigibilidades, and the
/// distinct suppliers (sorted).
struct Union {
    contracts: usize,
    claims: usize,
    suppliers: Vec<u32>,
}

/// Counts the union of `lists` (each sorted by contract), marking contracts in `seen` with
/// `stamp`.
fn union(lists: &[&Vec<Entry>], seen: &mut [u32], stamp: u32) -> Union {
    let mut u = Union { contracts: 0, claims: 0, suppliers: Vec::new() };
    for list in lists {
        for &(j, supplier, inexigible) in list.iter() {
            if std::mem::replace(&mut seen[j as usize], stamp) == stamp {
                continue;
            }
            u.contracts += 1;
            u.claims += usize::from(inexigible);
            if supplier != NONE {
                u.suppliers.push(supplier);
            }
        }
    }
    u.suppliers.sort_unstable();
    u.suppliers.dedup();
    u
}

/// The market of claim `i` from the union of its goods' lists: the claim itself and its own
/// supplier left out.
fn market_of(u: &Union, lists: &[&Vec<Entry>], i: usize, own: u32, goods: String, by_items: bool) -> Market {
    let inside = lists.iter().any(|l| l.binary_search_by_key(&(i as u32), |e| e.0).is_ok());
    let own_inside = own != NONE && u.suppliers.binary_search(&own).is_ok();
    Market {
        others: u.contracts - usize::from(inside),
        claims: u.claims - usize::from(inside),
        suppliers: u.suppliers.len() - usize::from(own_inside),
        goods,
        by_items,
    }
}

/// The markets of the claims (contract indices), in order; `None` where nothing is known.
/// Claims of the same goods (the same item descriptions, or the same learned group) share one
/// union of their purchases.
pub(super) fn markets(
    sh: &Shared<'_>,
    claims: &[usize],
    cancel: &CancelFlag,
) -> Result<Vec<Option<Market>>, AnalysisError> {
    let cs = &sh.dataset().contracts;
    let suppliers = &sh.suppliers().ids;
    let supplier = |i: usize| suppliers.get(i).copied().unwrap_or(NONE);
    let inexigible = |i: usize| legal::modality(&cs[i].modality) == Modality::Inexigibilidade;
    let mut index: HashMap<&str, Vec<Entry>, FxBuild> = HashMap::default();
    for &i in claims {
        for it in cs[i].items.iter().filter(|it| !it.description.trim().is_empty()) {
            index.entry(it.description.as_str()).or_default();
        }
    }
    if !index.is_empty() {
        for (i, c) in cs.iter().enumerate() {
            if i % 65_536 == 0 {
                cancel.check()?;
            }
            for it in &c.items {
                if let Some(list) = index.get_mut(it.description.as_str())
                    && list.len() < MAX_OTHERS
                    && list.last().is_none_or(|e| e.0 != i as u32)
                {
                    list.push((i as u32, supplier(i), inexigible(i)));
                }
            }
        }
    }
    let groups = if claims.iter().any(|&i| cs[i].items.is_empty()) { Some(sh.object_groups(cancel)?) } else { None };
    let mut members: HashMap<u32, Vec<Entry>, FxBuild> = HashMap::default();
    if let Some(g) = groups {
        for &i in claims.iter().filter(|&&i| cs[i].items.is_empty()) {
            let k = g.group_of[i];
            if g.groups.get(k as usize).is_some_and(|x| x.coherence >= MIN_COHERENCE) {
                members.entry(k).or_default();
            }
        }
        for (i, k) in g.group_of.iter().enumerate() {
            if let Some(list) = members.get_mut(k).filter(|l| l.len() < MAX_OTHERS) {
                list.push((i as u32, supplier(i), inexigible(i)));
            }
        }
    }
    let mut seen = vec![u32::MAX; cs.len()];
    let mut unions: HashMap<Vec<&str>, Union, FxBuild> = HashMap::default();
    let mut group_unions: HashMap<u32, Union, FxBuild> = HashMap::default();
    let mut stamp = 0u32;
    let mut out = Vec::with_capacity(claims.len());
    for &i in claims {
        let c = &cs[i];
        if c.items.is_empty() {
            let k = groups.map_or(NO_GROUP, |g| g.group_of[i]);
            let (Some(g), Some(list)) = (groups, members.get(&k)) else {
                out.push(None);
                continue;
            };
            let lists = [list];
            let u = group_unions.entry(k).or_insert_with(|| {
                stamp += 1;
                union(&lists, &mut seen, stamp)
            });
            let terms = g.groups[k as usize].terms.iter().take(4).cloned().collect::<Vec<_>>().join(" ");
            out.push(Some(market_of(u, &lists, i, supplier(i), format!("grupo aprendido \"{terms}\""), false)));
            continue;
        }
        let mut names: Vec<&str> =
            c.items.iter().map(|it| it.description.as_str()).filter(|d| !d.trim().is_empty()).collect();
        names.sort_unstable();
        names.dedup();
        let lists: Vec<&Vec<Entry>> = names.iter().filter_map(|d| index.get(d)).collect();
        let goods = names.iter().map(|d| format!("\"{d}\"")).collect::<Vec<_>>().join(", ");
        let u = unions.entry(names).or_insert_with(|| {
            stamp += 1;
            union(&lists, &mut seen, stamp)
        });
        out.push(Some(market_of(u, &lists, i, supplier(i), goods, true)));
    }
    Ok(out)
}

/// The breach of a claim whose market contradicts it, at sensitivity `s`.
pub(super) fn breach(c: &Contract, m: &Market, s: f64) -> Option<Breach<'static>> {
    if m.suppliers < MIN_SUPPLIERS {
        return None;
    }
    let p = binomial_cdf(m.claims, m.others, R0);
    let evidence = -p.max(1e-300).log10();
    if evidence < 2.0 {
        return None;
    }
    let value = c.value();
    let number = if c.number.is_empty() { c.id.as_str() } else { c.number.as_str() };
    let what = if m.by_items {
        format!("os mesmos itens ({})", m.goods)
    } else {
        format!("o mesmo tipo de objeto ({})", m.goods)
    };
    Some(Breach {
        rule: RULE,
        confidence: adjust_confidence(ramp(evidence, 2.0, 0.82, 5.0, 0.88), s),
        at_stake: value,
        threshold: R0,
        observed: m.claims as f64 / m.others.max(1) as f64,
        law: "Lei 14.133/2021, art. 74, I e §1º; Lei 8.666/1993, art. 25, I".into(),
        pt: format!(
            "O contrato {} ({}) foi feito por inexigibilidade alegando fornecedor exclusivo ('{}'), mas {} foram comprados em {} outros contratos, de {} fornecedores diferentes, e só {} deles alegaram exclusividade: o mercado mostra concorrência, e o objeto não diz o que tornaria {} o único fornecedor. Vale pedir o atestado de exclusividade (art. 74, §1º).",
            number,
            format_brl(value),
            c.legal_basis,
            what,
            m.others,
            m.suppliers,
            m.claims,
            c.supplier.name
        ),
        en: format!(
            "Contract {} ({}) skipped bidding claiming an exclusive supplier, but the same goods were bought in {} other contracts from {} different suppliers, only {} of them claiming exclusivity.",
            number,
            format_brl(value),
            m.others,
            m.suppliers,
            m.claims
        ),
        technical: format!(
            "basis '{}' claims an exclusive supplier; other purchases of the goods ({}): {}, from {} other suppliers, {} inexigibilidades; P(X <= {} | Bin({}, {R0})) = {:.2e} <= 0.01",
            c.legal_basis,
            if m.by_items { "by item description" } else { "by learned object group" },
            m.others,
            m.suppliers,
            m.claims,
            m.claims,
            m.others,
            p
        ),
        sanction: None,
    })
}

/// Whether a contract is a claim this rule judges: an inexigibilidade citing an exclusive
/// supplier whose object does not state what makes it exclusive, and whose object and supplier
/// show no other ground.
pub(super) fn is_claim(c: &Contract, basis: &LegalBasis, public_supplier: bool) -> bool {
    claims_exclusive_supplier(basis)
        && !states_exclusivity(&c.object)
        && crate::detect::legal_grounds::inferred_ground(&c.object, &c.supplier.name, public_supplier).is_none()
}

#[cfg(test)]
#[path = "exclusivity_rule_tests.rs"]
mod tests;
