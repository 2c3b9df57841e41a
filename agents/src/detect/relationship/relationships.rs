//! `relationship_network`: suppliers tied by the registry (a shared partner, phone, address or
//! CNPJ root) that compete against each other, and servants who are partners of suppliers of
//! their own organ.
//!
//! Networks: every supplier profile is a node; suppliers that share an attribute value are
//! joined (petgraph's union-find), attribute by attribute through hash maps of value -> members,
//! never all pairs (a value joins at most `M` suppliers, so its pairs are few). Co-bidding
//! counts between two members that share an attribute directly. A value shared by more than `M` suppliers joins nobody (an accounting
//! office or a coworking address hosts dozens of unrelated firms): `M` is 4 at sensitivity 0.7
//! and below, 8 from 0.85, 20 at 1.0. A connected group is reported when two or more of its
//! members bid in the same bidding (in at least 2 biddings below sensitivity 0.85, 1 from 0.85);
//! from sensitivity 0.85 also when two members sell by dispensa to the same organ within 30
//! days (splitting across related firms). Family groups sharing a partner across trades never
//! meet in a bid and are not reported. Confidence: 0.92 for a shared CNPJ root, 0.90 a partner,
//! 0.88 a phone, 0.86 an address (the strongest link in the group), +0.02 per further shared
//! bidding (up to 3), then shifted with the sensitivity.
//!
//! Servants: a servant's CPF (six visible digits) and name equal to a partner's, in a supplier
//! that has contracts with the servant's organ (same SIAFI family, see
//! [`crate::model::servant::organ_family`]); confidence 0.9, shifted with the sensitivity.
//!
//! Complexity: O(P + B k + n) for P profiles, B biddings of k bidders and n contracts and
//! expenses, with hash maps; union-find is near-linear.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use petgraph::unionfind::UnionFind;
use serde_json::json;

use crate::cancel::{AnalysisError, CancelFlag};
use crate::detect::Detector;
use crate::detect::common::{FxBuild, adjust_confidence, round2};
use crate::detect::finding::{Finding, bidding_ref, pattern, point, profile_ref};
use crate::detect::legal::{self, Modality};
use crate::detect::shared::Shared;
use crate::model::anomaly::{Anomaly, AnomalyType, EntityRef};
use crate::model::dataset::Dataset;
use crate::model::params::DetectionParams;

/// Detector name.
pub const NAME: &str = "relationship_network";

/// The relationship network detector.
#[derive(Debug, Clone, Copy, Default)]
pub struct RelationshipNetwork;

/// Largest number of suppliers a shared value may join at this sensitivity.
pub fn max_share(s: f64) -> usize {
    if s >= 1.0 {
        20
    } else if s >= 0.85 {
        8
    } else {
        4
    }
}

/// The kinds of shared attribute, strongest first, with their base confidence.
pub const LINKS: [(&str, f64); 4] = [("cnpj_root", 0.92), ("partner", 0.90), ("phone", 0.88), ("address", 0.86)];

impl Detector for RelationshipNetwork {
    fn name(&self) -> &'static str {
        NAME
    }
    fn kind(&self) -> AnomalyType {
        AnomalyType::RelationshipAnomaly
    }
    fn run_shared(
        &self,
        sh: &Shared<'_>,
        p: &DetectionParams,
        cancel: &CancelFlag,
    ) -> Result<Vec<Anomaly>, AnalysisError> {
        let ds = sh.dataset();
        let mut out = networks(ds, p, cancel)?;
        out.extend(servant_links::servants(ds, p, cancel)?);
        Ok(out)
    }
}

/// A direct purchase by a group member: date, supplier, record id.
type Event<'a> = (chrono::NaiveDate, &'a str, String);

/// One shared value: its kind and the profiles that share it.
type Link = (usize, String, Vec<usize>);

fn networks(ds: &Dataset, p: &DetectionParams, cancel: &CancelFlag) -> Result<Vec<Anomaly>, AnalysisError> {
    let profiles = &ds.suppliers;
    let m = max_share(p.sensitivity);
    let mut by_value: [HashMap<String, Vec<usize>, FxBuild>; 4] = Default::default();
    for (k, pr) in profiles.iter().enumerate() {
        if k % 8192 == 0 {
            cancel.check()?;
        }
        // A profile without a CNPJ names no entity and would join every other one by root.
        if pr.cnpj.is_empty() {
            continue;
        }
        by_value[0].entry(pr.root().to_string()).or_default().push(k);
        let mut seen = BTreeSet::new();
        for partner in &pr.partners {
            if let Some(key) = partner.key().filter(|key| seen.insert(key.clone())) {
                by_value[1].entry(key).or_default().push(k);
            }
        }
        if let Some(ph) = pr.phone_key() {
            by_value[2].entry(ph.to_string()).or_default().push(k);
        }
        if let Some(a) = pr.address.key() {
            by_value[3].entry(a).or_default().push(k);
        }
    }
    let mut uf: UnionFind<usize> = UnionFind::new(profiles.len());
    let mut links: Vec<Link> = Vec::new();
    for (kind, map) in by_value.iter_mut().enumerate() {
        for (value, members) in map.drain() {
            if members.len() < 2 || members.len() > m {
                continue;
            }
            for w in members.windows(2) {
                uf.union(w[0], w[1]);
            }
            links.push((kind, value, members));
        }
    }
    cancel.check()?;
    let labels = uf.into_labeling();
    let mut size: HashMap<usize, usize, FxBuild> = HashMap::default();
    for l in &labels {
        *size.entry(*l).or_default() += 1;
    }
    // Only members of groups of two or more: a small, cache-resident map.
    let index: HashMap<&str, (usize, usize), FxBuild> = profiles
        .iter()
        .enumerate()
        .filter(|(k, _)| size[&labels[*k]] >= 2)
        .map(|(k, pr)| (pr.cnpj.as_str(), (labels[k], k)))
        .collect();
    let group_of = |doc: &str| index.get(doc).map(|x| x.0);
    // Pairs that share an attribute directly: co-bidding counts only between them, not between
    // two firms joined through a third (a family group spanning trades).
    let mut direct: HashSet<(usize, usize), FxBuild> = HashSet::default();
    for (_, _, members) in &links {
        for (i, a) in members.iter().enumerate() {
            for b in &members[i + 1..] {
                direct.insert(((*a).min(*b), (*a).max(*b)));
            }
        }
    }
    // Biddings where two directly linked members of one group meet.
    let mut met: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (b, bid) in ds.biddings.iter().enumerate() {
        if b % 8192 == 0 {
            cancel.check()?;
        }
        let mut seen: Vec<(usize, usize)> = Vec::new();
        for x in &bid.participants {
            if let Some(&(g, k)) = index.get(x.bidder.document.as_str()) {
                seen.push((g, k));
            }
        }
        if seen.len() < 2 {
            continue;
        }
        seen.sort_unstable();
        seen.dedup();
        let mut groups: Vec<usize> = Vec::new();
        for (i, a) in seen.iter().enumerate() {
            for c in &seen[i + 1..] {
                if a.0 == c.0 && direct.contains(&(a.1.min(c.1), a.1.max(c.1))) {
                    groups.push(a.0);
                }
            }
        }
        groups.dedup();
        for g in groups {
            met.entry(g).or_default().push(b);
        }
    }
    // From sensitivity 0.85: direct purchases by two members from one organ within 30 days.
    let mut split: BTreeMap<usize, Vec<(String, String)>> = BTreeMap::new();
    if p.sensitivity >= 0.85 {
        let mut events: HashMap<(usize, &str), Vec<Event<'_>>, FxBuild> = HashMap::default();
        for c in &ds.contracts {
            if legal::modality(&c.modality) == Modality::Dispensa
                && let (Some(g), Some(d)) = (group_of(&c.supplier.document), c.signed_on)
            {
                events.entry((g, c.organ.code.as_str())).or_default().push((
                    d,
                    c.supplier.document.as_str(),
                    c.id.clone().to_string(),
                ));
            }
        }
        for e in ds.expenses.iter().filter(|e| e.is_commitment() && e.is_dispensa()) {
            if let (Some(g), Some(d)) = (group_of(&e.payee.document), e.date) {
                events.entry((g, e.organ.code.as_str())).or_default().push((
                    d,
                    e.payee.document.as_str(),
                    e.id.clone().to_string(),
                ));
            }
        }
        for ((g, _), mut ev) in events {
            ev.sort();
            for w in ev.windows(2) {
                if w[0].1 != w[1].1 && (w[1].0 - w[0].0).num_days() <= 30 {
                    split.entry(g).or_default().push((w[0].2.clone(), w[1].2.clone()));
                }
            }
        }
    }
    let need = if p.sensitivity >= 0.85 { 1 } else { 2 };
    let mut group_links: BTreeMap<usize, Vec<&Link>> = BTreeMap::new();
    for l in &links {
        group_links.entry(labels[l.2[0]]).or_default().push(l);
    }
    // Members of every group of two or more, in one pass (never one scan per group).
    let mut group_members: HashMap<usize, Vec<usize>, FxBuild> = HashMap::default();
    for (k, l) in labels.iter().enumerate() {
        if size[l] >= 2 {
            group_members.entry(*l).or_default().push(k);
        }
    }
    let mut out = Vec::new();
    for (g, gl) in &group_links {
        let bids = met.get(g).map_or(0, Vec::len);
        let splits = split.get(g).map_or(0, Vec::len);
        if bids < need && splits == 0 {
            continue;
        }
        let strongest = gl.iter().map(|l| l.0).min().unwrap_or(3);
        let base = LINKS[strongest].1 + 0.02 * (bids.saturating_sub(1).min(3)) as f64;
        let confidence = adjust_confidence(base, p.sensitivity);
        if confidence < p.confidence_threshold {
            continue;
        }
        let members: &[usize] = group_members.get(g).map_or(&[][..], Vec::as_slice);
        out.push(network_anomaly(
            ds,
            members,
            gl,
            met.get(g).map_or(&[][..], Vec::as_slice),
            split.get(g).map_or(&[][..], Vec::as_slice),
            confidence,
            m,
        ));
    }
    Ok(out)
}

fn network_anomaly(
    ds: &Dataset,
    members: &[usize],
    links: &[&Link],
    met: &[usize],
    split: &[(String, String)],
    confidence: f64,
    m: usize,
) -> Anomaly {
    let profiles: Vec<_> = members.iter().map(|&k| &ds.suppliers[k]).collect();
    let at_stake: f64 = met.iter().filter_map(|&b| ds.biddings[b].winner().and_then(|w| w.value)).sum();
    let names: Vec<&str> = profiles.iter().map(|p| p.name.as_str()).collect();
    let shared: Vec<String> = links.iter().map(|l| format!("{} {}", LINKS[l.0].0, l.1)).collect();
    let kinds_pt: BTreeSet<&str> = links
        .iter()
        .map(|l| match l.0 {
            0 => "a mesma raiz de CNPJ",
            1 => "sócio em comum",
            2 => "o mesmo telefone",
            _ => "o mesmo endereço",
        })
        .collect();
    let kinds_pt: Vec<&str> = kinds_pt.into_iter().collect();
    let mut related: Vec<EntityRef> = profiles.iter().skip(1).map(|p| profile_ref(p)).collect();
    related.extend(met.iter().map(|&b| bidding_ref(&ds.biddings[b])));
    let pt = format!(
        "As empresas {} têm {} e, mesmo assim, disputaram {} licitações umas contra as outras{}. Empresas ligadas que concorrem entre si simulam competição.",
        names.join("; "),
        kinds_pt.join(", "),
        met.len(),
        if split.is_empty() {
            String::new()
        } else {
            format!(" e dividiram {} compras diretas do mesmo órgão", split.len())
        }
    );
    let en = format!(
        "The companies {} share {} in the company registry, yet bid against each other in {} biddings: related firms competing simulate competition.",
        names.join("; "),
        links.iter().map(|l| LINKS[l.0].0).collect::<BTreeSet<_>>().into_iter().collect::<Vec<_>>().join(", "),
        met.len()
    );
    let mut data_points =
        vec![point("members", profiles.len() as f64, None), point("shared_biddings", met.len() as f64, None)];
    data_points.extend(met.iter().filter_map(|&b| {
        let bid = &ds.biddings[b];
        bid.winner()
            .and_then(|w| w.value)
            .map(|v| point("winning_bid", v, bid.opened_on.map(|d| d.format("%Y-%m-%d").to_string())))
    }));
    Finding {
        detector: NAME,
        kind: AnomalyType::RelationshipAnomaly,
        key: format!("network-{}", profiles[0].cnpj),
        confidence,
        at_stake,
        threshold: m as f64,
        description: format!("{} empresas ligadas ({}) concorreram entre si em {} licitações", profiles.len(), kinds_pt.join(", "), met.len()),
        human_pt: pt,
        human_en: en,
        technical: format!(
            "connected component (union-find over shared registry attributes, values shared by at most {} suppliers) of {} suppliers; links: {}; co-bidding in {} biddings; dispensa pairs within 30 days: {}",
            m, profiles.len(), shared.join("; "), met.len(), split.len()
        ),
        primary: profile_ref(profiles[0]),
        related,
        data_points,
        patterns: links
            .iter()
            .map(|l| pattern(&format!("shared_{}", LINKS[l.0].0), format!("{} suppliers share {}", l.2.len(), l.1), json!({"suppliers": l.2.iter().map(|&k| ds.suppliers[k].cnpj.clone()).collect::<Vec<_>>()})))
            .collect(),
        method: "connected_components_shared_attributes",
        score: met.len() as f64,
        contamination: 0.0,
        peer: Some(json!({"group": "suppliers joined by shared registry attributes", "max_share": m, "members": profiles.iter().map(|p| p.cnpj.clone()).collect::<Vec<_>>()})),
        regulatory: Some(json!({"rule": "Lei 14.133/2021, art. 14, IV e art. 155, IV; Código Penal, art. 337-F", "note": "empresas do mesmo grupo em disputa simulada"})),
        factors: vec![
            ("shared_attributes".into(), 0.6, shared.join("; ")),
            ("co_bidding".into(), 0.3, format!("{} biddings with two or more members", met.len())),
            ("split_purchases".into(), 0.1, format!("{} pairs of direct purchases within 30 days", split.len())),
        ],
        details: vec![
            ("rule", json!("shared_attributes")),
            ("members", json!(profiles.iter().map(|p| p.cnpj.clone()).collect::<Vec<_>>())),
            ("shared", json!(shared)),
            ("shared_biddings", json!(met.len())),
            ("supplier", json!(profiles[0].cnpj)),
            ("value_bid", json!(round2(at_stake))),
        ],
    }
    .build()
}

#[path = "servant_links.rs"]
mod servant_links;

#[cfg(test)]
#[path = "relationships_tests.rs"]
mod tests;
