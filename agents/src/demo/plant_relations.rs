//! Relationship plants of the demo data, labelled with what was planted, and the legitimate
//! noise around them.
//!
//! Plants, per contracts of the data (at least one each from 200 contracts on):
//! - one cartel per 2,500: 3-4 suppliers of one trade take turns winning 5-7 biddings of one
//!   organ in rotation, always bidding together and nobody else, the losers placing cover bids
//!   in lockstep, a fixed ladder 2-4% apart above the winner (the label names the biddings);
//! - one related group per 2,500: 2-3 suppliers of one trade that share a partner, a phone, an
//!   address or a CNPJ root (a branch) and bid against each other in 2-3 biddings, among other
//!   bidders (the label names the suppliers);
//! - one servant per 2,500 who is a partner of a supplier of the servant's own organ
//!   (the label names the servant and the supplier);
//! - one pair of phantom suppliers per 4,000: companies opened 15-110 days before their first
//!   contract, with no partners on record, sharing a phone and an accounting office's address,
//!   that win 2-4 contracts each (one label per company).
//!
//! Plants leave alone the contracts of planted concentrated suppliers and those used by other
//! plants. Noise: as many servants who are partners of suppliers that never contracted with their
//! organ, and homonyms of servants (same name, other CPF) among partners.

use std::collections::{HashMap, HashSet};

use chrono::Days;
use rand::Rng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

use super::edit::reassign;
use super::labels::{Planted, Scheme, label};
use super::law;
use super::plant::Field;
use super::records::bidding_for;
use super::registry::{address, cpf_middle, partner, person_name, receita_mask};
use crate::model::anomaly::AnomalyType;
use crate::model::bidding::{Bid, Bidding};
use crate::model::cnpj::cnpj_from_parts;
use crate::model::contract::Party;
use crate::model::fields::cpf_key;
use crate::model::registry_facts::SupplierProfile;
use crate::model::servant::{Servant, organ_family, same_family};
use rustc_hash::FxBuildHasher as FxBuild;

/// What the contract step decided for the bidding step.
#[derive(Debug, Default)]
pub struct Plants {
    /// Contracts whose biddings the cartel plant writes (the generic step skips them).
    pub own_biddings: HashSet<usize>,
    /// Per cartel: its contracts and its members.
    pub cartels: Vec<(Vec<usize>, Vec<Party>)>,
}

fn per(n: usize, every: f64) -> usize {
    ((n as f64 / every).round() as usize).max(usize::from(n >= 200))
}

fn free(f: &Field<'_>, reserved: &HashSet<usize>, i: usize) -> bool {
    !f.used.contains(&i) && !reserved.contains(&i) && f.contracts[i].signed_on.is_some()
}

/// Phantom suppliers and cartels: the contract side.
pub fn contracts(
    f: &mut Field<'_>,
    reserved: &HashSet<usize>,
    profiles: &mut Vec<SupplierProfile>,
    rel: &mut Plants,
    rng: &mut ChaCha8Rng,
) -> Vec<Planted> {
    let n = f.contracts.len();
    let mut out = Vec::new();
    if n == 0 {
        return out;
    }
    let mut roots: HashSet<String> = profiles.iter().map(|p| p.root().to_string()).collect();
    let mut fresh_cnpj = |rng: &mut ChaCha8Rng| loop {
        let r: u32 = rng.gen_range(1_000_000..99_999_999);
        let c = cnpj_from_parts(r, 1);
        if roots.insert(c[..8].to_string()) {
            break c;
        }
    };
    // The most shared address of the registry (an accounting office).
    let mut counts: HashMap<String, (usize, usize)> = HashMap::new();
    for (k, p) in profiles.iter().enumerate() {
        if let Some(key) = p.address.key() {
            counts.entry(key).or_insert((0, k)).0 += 1;
        }
    }
    let hub =
        counts.values().max_by_key(|(c, k)| (*c, std::cmp::Reverse(*k))).map(|(_, k)| profiles[*k].address.clone());
    let hub = hub.unwrap_or_else(|| address("BRASILIA", rng));
    for _ in 0..per(n, 4000.0) {
        let phone = format!("61{}", rng.gen_range(90_000_000..99_999_999));
        for _ in 0..2 {
            let cnpj = fresh_cnpj(rng);
            let name = format!(
                "{} {} COMERCIO E SERVICOS LTDA",
                super::registry::SURNAMES[rng.gen_range(0..35)],
                ["BRASIL", "NACIONAL", "CENTRAL", "UNIAO"][rng.gen_range(0..4)]
            );
            let party = Party { name: name.clone().into(), document: cnpj.clone().into() };
            let mut first = None;
            for _ in 0..rng.gen_range(2..=4) {
                let start = rng.gen_range(0..n);
                let Some(i) = (0..n).map(|k| (start + k) % n).find(|&i| free(f, reserved, i)) else { break };
                f.used.insert(i);
                f.contracts[i].supplier = party.clone();
                let d = f.contracts[i].signed_on;
                first = first.min(d).or(d);
            }
            let Some(first) = first else { continue };
            let age = rng.gen_range(15..110u64);
            profiles.push(SupplierProfile {
                cnpj: cnpj.clone(),
                name,
                opened_on: Some(first - Days::new(age)),
                status: "ATIVA".into(),
                cnae: "4789099".into(),
                address: hub.clone(),
                phone: phone.clone(),
                partners: Vec::new(),
            });
            let what = format!(
                "company {cnpj} opened {age} days before its first contract, no partners on record, at an accounting \
                 office's address, sharing phone {phone} with another such company"
            );
            out.push(label(
                Scheme::PhantomSupplier,
                AnomalyType::RelationshipAnomaly,
                vec![cnpj.clone()],
                Some(cnpj),
                what,
            ));
        }
    }
    // Cartels.
    let mut by_organ_cat: HashMap<(usize, usize), Vec<usize>> = HashMap::new();
    let mut by_cat: HashMap<usize, Vec<usize>> = HashMap::new();
    for i in 0..n {
        if law::is_competitive(&f.contracts[i].modality) {
            by_organ_cat.entry((f.metas[i].organ, f.metas[i].cat)).or_default().push(i);
            by_cat.entry(f.metas[i].cat).or_default().push(i);
        }
    }
    let mut keys: Vec<(usize, usize)> = by_organ_cat.keys().copied().collect();
    keys.sort_unstable();
    for _ in 0..per(n, 2500.0) {
        let Some(&key) = keys.choose(rng) else { break };
        let mut cands: Vec<usize> = by_organ_cat[&key].iter().copied().filter(|&i| free(f, reserved, i)).collect();
        if cands.len() < 5 {
            cands = by_cat[&key.1].iter().copied().filter(|&i| free(f, reserved, i)).collect();
        }
        cands.shuffle(rng);
        cands.truncate(rng.gen_range(5..=7));
        if cands.len() < 4 {
            continue;
        }
        let pool = &f.world.pools[key.1];
        let mut members: Vec<usize> = (2.min(pool.suppliers.len() - 1)..pool.suppliers.len()).collect();
        members.shuffle(rng);
        members.truncate(rng.gen_range(3..=4));
        let parties: Vec<Party> = members.iter().map(|&s| pool.suppliers[s].party()).collect();
        for (j, &i) in cands.iter().enumerate() {
            f.used.insert(i);
            rel.own_biddings.insert(i);
            reassign(&mut f.contracts[i], &mut f.metas[i], f.world, key.1, members[j % members.len()]);
        }
        rel.cartels.push((cands, parties));
    }
    out
}

/// The cartels' biddings, and related groups slipped into ordinary biddings.
pub fn biddings(
    f: &Field<'_>,
    profiles: &mut Vec<SupplierProfile>,
    biddings: &mut Vec<Bidding>,
    cats: &[usize],
    rel: &Plants,
    next_id: &mut usize,
    rng: &mut ChaCha8Rng,
) -> Vec<Planted> {
    let mut out = Vec::new();
    for (contracts, members) in &rel.cartels {
        let mut ids = Vec::new();
        let step = rng.gen_range(0.02..0.04);
        for &i in contracts {
            let c = &f.contracts[i];
            let others: Vec<Party> = members.iter().filter(|m| m.document != c.supplier.document).cloned().collect();
            let mut b = bidding_for(c, *next_id, Vec::new(), rng);
            *next_id += 1;
            // Cover bids in lockstep: the members bid a fixed ladder just above the designated
            // winner (2-4% steps), far tighter than the 1-45% spread of real competition.
            for (r, p) in others.into_iter().enumerate() {
                let cover = 1.0 + step * (r + 1) as f64;
                b.participants.push(Bid {
                    bidder: p,
                    value: Some((c.initial_value * cover * 100.0).round() / 100.0),
                    winner: false,
                });
            }
            b.participants.shuffle(rng);
            ids.push(b.id.to_string());
            biddings.push(b);
        }
        let what = format!(
            "ring of {} firms ({}) winning {} biddings in rotation, the others placing cover bids in lockstep {:.1}% apart",
            members.len(),
            members.iter().map(|m| m.document.as_str()).collect::<Vec<_>>().join(", "),
            ids.len(),
            step * 100.0
        );
        out.push(label(Scheme::BidRing, AnomalyType::RelationshipAnomaly, ids, None, what));
    }
    let index: HashMap<String, usize> = profiles.iter().enumerate().map(|(k, p)| (p.cnpj.clone(), k)).collect();
    let mut by_cat: Vec<Vec<usize>> = vec![Vec::new(); f.world.profiles.len()];
    for (k, &cat) in cats.iter().enumerate() {
        by_cat[cat].push(k);
    }
    let cartel: HashSet<usize> =
        (biddings.len() - rel.cartels.iter().map(|c| c.0.len()).sum::<usize>()..biddings.len()).collect();
    let n = f.contracts.len();
    for g in 0..per(n, 2500.0) {
        let cat = rng.gen_range(0..f.world.profiles.len());
        let pool = &f.world.pools[cat];
        let mut cands: Vec<usize> = by_cat[cat].iter().copied().filter(|k| !cartel.contains(k)).collect();
        if cands.len() < 2 {
            cands = (0..biddings.len()).filter(|k| !cartel.contains(k)).collect();
        }
        cands.shuffle(rng);
        cands.truncate(rng.gen_range(2..=3));
        if cands.len() < 2 {
            continue;
        }
        let mut picks: Vec<usize> = (3.min(pool.suppliers.len() - 1)..pool.suppliers.len()).collect();
        picks.shuffle(rng);
        picks.truncate(if rng.gen_bool(0.5) { 2 } else { 3 });
        let mut members: Vec<Party> = picks.iter().map(|&s| pool.suppliers[s].party()).collect();
        let Some(first) = members.first().and_then(|m| index.get(m.document.as_str())).copied() else { continue };
        match g % 4 {
            0 => {
                let p = partner(rng);
                for m in &members {
                    if let Some(&k) = index.get(m.document.as_str()) {
                        profiles[k].partners.push(p.clone());
                    }
                }
            }
            1 => {
                let phone = format!(
                    "{}{}",
                    &profiles[first].phone[..2.min(profiles[first].phone.len())],
                    rng.gen_range(40_000_000..49_999_999)
                );
                for m in &members {
                    if let Some(&k) = index.get(m.document.as_str()) {
                        profiles[k].phone.clone_from(&phone);
                    }
                }
            }
            2 => {
                let a = address(&profiles[first].address.city.clone(), rng);
                for m in &members {
                    if let Some(&k) = index.get(m.document.as_str()) {
                        profiles[k].address = a.clone();
                    }
                }
            }
            _ => {
                let root: u32 = profiles[first].cnpj[..8].parse().unwrap_or(0);
                let branch = cnpj_from_parts(root, 2);
                let mut p = profiles[first].clone();
                p.cnpj.clone_from(&branch);
                p.address = address(&p.address.city.clone(), rng);
                p.phone = format!("{}", 6_130_000_000u64 + rng.gen_range(0..9_999_999u64));
                profiles.push(p);
                members.truncate(1);
                members.push(Party { name: members[0].name.clone(), document: branch.into() });
            }
        }
        for &k in &cands {
            let b = &mut biddings[k];
            let base = b.winner().and_then(|w| w.value).unwrap_or(100_000.0);
            for m in &members {
                if !b.participants.iter().any(|p| p.bidder.document == m.document) {
                    let v = (base * rng.gen_range(1.02..1.25) * 100.0).round() / 100.0;
                    b.participants.push(Bid { bidder: m.clone(), value: Some(v), winner: false });
                }
            }
        }
        let ids: Vec<String> = members.iter().map(|m| m.document.to_string()).collect();
        let link = ["a partner", "a phone", "an address", "a CNPJ root (head office and branch)"][g % 4];
        let what =
            format!("firms {} sharing {link} bid against each other in {} biddings", ids.join(", "), cands.len());
        out.push(label(Scheme::RelatedBidders, AnomalyType::RelationshipAnomaly, ids, None, what));
    }
    out
}

/// Servants who are partners of suppliers of their own organ, and the noise of the module doc.
pub fn servants(
    f: &Field<'_>,
    _reserved: &HashSet<usize>,
    profiles: &mut [SupplierProfile],
    servants: &mut [Servant],
    rng: &mut ChaCha8Rng,
) -> Vec<Planted> {
    let n = f.contracts.len();
    let mut out = Vec::new();
    if n == 0 || servants.is_empty() {
        return out;
    }
    let index: HashMap<String, usize> = profiles.iter().enumerate().map(|(k, p)| (p.cnpj.clone(), k)).collect();
    let mut organs_of: HashMap<&str, HashSet<&str, FxBuild>, FxBuild> = HashMap::default();
    for c in &f.contracts {
        organs_of.entry(c.supplier.document.as_str()).or_default().insert(c.organ.code.as_str());
    }
    let mut used_servants: HashSet<usize> = HashSet::new();
    let mut family: HashMap<String, Vec<usize>> = HashMap::new();
    for (k, s) in servants.iter().enumerate() {
        family.entry(s.organ_family()).or_default().push(k);
    }
    for _ in 0..per(n, 2500.0) {
        let c = &f.contracts[rng.gen_range(0..n)];
        let Some(&p) = index.get(c.supplier.document.as_str()) else { continue };
        let Some(list) = family.get(&organ_family(&c.organ.code)) else { continue };
        let Some(&s) = list.iter().filter(|k| !used_servants.contains(k)).collect::<Vec<_>>().choose(rng).copied()
        else {
            continue;
        };
        used_servants.insert(s);
        let sv = &servants[s];
        let middle = cpf_key(&sv.cpf).unwrap_or_else(|| cpf_middle(rng));
        profiles[p].partners.push(crate::model::registry_facts::Partner {
            name: sv.name.clone(),
            document: receita_mask(&middle),
            role: "Sócio".into(),
        });
        let what = format!(
            "servant {} of organ {} made partner of supplier {}, which contracts with that organ",
            sv.id, c.organ.code, c.supplier.document
        );
        out.push(label(
            Scheme::ServantPartner,
            AnomalyType::RelationshipAnomaly,
            vec![sv.id.clone(), c.supplier.document.to_string()],
            Some(c.supplier.document.to_string()),
            what,
        ));
    }
    // Noise: partners of suppliers that never contracted with the servant's organ, homonyms.
    for _ in 0..per(n, 2500.0) {
        let s = rng.gen_range(0..servants.len());
        if used_servants.contains(&s) {
            continue;
        }
        let fam = servants[s].organ_family();
        let start = rng.gen_range(0..profiles.len());
        let Some(p) = (0..profiles.len()).map(|k| (start + k) % profiles.len()).find(|&k| {
            organs_of.get(profiles[k].cnpj.as_str()).is_none_or(|o| !o.iter().any(|code| same_family(code, &fam)))
        }) else {
            continue;
        };
        used_servants.insert(s);
        let middle = cpf_key(&servants[s].cpf).unwrap_or_default();
        profiles[p].partners.push(crate::model::registry_facts::Partner {
            name: servants[s].name.clone(),
            document: receita_mask(&middle),
            role: "Sócio".into(),
        });
        let q = rng.gen_range(0..profiles.len());
        let other = loop {
            let m = cpf_middle(rng);
            if m != middle {
                break m;
            }
        };
        profiles[q].partners.push(crate::model::registry_facts::Partner {
            name: servants[s].name.clone(),
            document: receita_mask(&other),
            role: "Sócio".into(),
        });
    }
    let _ = person_name;
    out
}

#[cfg(test)]
#[path = "plants_tests.rs"]
mod tests;
