//! Tests of the plants and traps: what a label says was planted is in the data, as the law
//! and the literature describe it, and the traps of real records are in the clean data.

use std::collections::{HashMap, HashSet};

use crate::demo::catalog::{PROFILES, market_price};
use crate::demo::clean::unit_price;
use crate::demo::{DemoData, DemoSpec, Scheme, generate, law, traps};
use crate::model::amendment::AmendmentKind;
use crate::model::contract::Contract;

fn data() -> DemoData {
    generate(&DemoSpec { seed: 7, contracts: 5000, ..DemoSpec::default() })
}

fn contracts_of(d: &DemoData, scheme: Scheme) -> Vec<&Contract> {
    let by_id: HashMap<&str, &Contract> = d.dataset.contracts.iter().map(|c| (c.id.as_str(), c)).collect();
    d.planted
        .iter()
        .filter(|p| p.scheme == scheme)
        .flat_map(|p| p.record_ids.iter().filter_map(|id| by_id.get(id.as_str()).copied()))
        .collect()
}

fn added(c: &Contract, kind: AmendmentKind) -> f64 {
    let mut before = c.initial_value;
    let mut sum = 0.0;
    for a in &c.amendments {
        let after = a.new_global_value.unwrap_or(before);
        if a.kinds == [kind] {
            sum += after - before;
        }
        before = after;
    }
    sum
}

#[test]
fn an_overpriced_contract_buys_an_item_at_two_to_five_times_its_market_price() {
    let d = data();
    let planted = contracts_of(&d, Scheme::Overprice);
    assert!(planted.len() >= 20);
    for c in planted {
        let marked = c.items.iter().any(|i| {
            PROFILES.iter().any(|p| {
                p.items.iter().position(|x| *x == i.description.as_str()).is_some_and(|k| {
                    let ratio = unit_price(i) / market_price(p, k);
                    (1.95..5.05).contains(&ratio)
                })
            })
        });
        assert!(marked, "{}: {:?}", c.id, c.items);
    }
}

#[test]
fn a_dispensa_over_the_limit_cites_a_value_inciso_of_the_law_in_force_and_exceeds_its_limit() {
    let d = data();
    let planted = contracts_of(&d, Scheme::DispensaOverLimit);
    assert!(!planted.is_empty());
    for c in planted {
        let signed = c.signed_on.unwrap();
        assert!(law::is_dispensa(&c.modality));
        let limit = [false, true]
            .into_iter()
            .filter_map(|e| law::value_limit(signed, e))
            .find(|(_, basis, _)| c.legal_basis.as_str() == basis)
            .map(|l| l.0);
        assert!(limit.is_some_and(|l| c.initial_value > l), "{}: {} R$ {}", c.id, c.legal_basis, c.initial_value);
    }
    let label = d.planted.iter().find(|p| p.scheme == Scheme::DispensaOverLimit).unwrap();
    assert!(label.what.contains("Lei 14.133/2021, Art. 75") && label.what.contains("Decreto"), "{}", label.what);
}

#[test]
fn an_illegal_amendment_is_an_acrescimo_beyond_the_cap_and_clean_growth_comes_from_prorrogacoes() {
    let d = data();
    for c in contracts_of(&d, Scheme::IllegalAddition) {
        assert!(added(c, AmendmentKind::Addition) > law::ADDITION_CAP * c.initial_value, "{}", c.id);
    }
    let planted: HashSet<&str> = d.planted.iter().flat_map(|p| p.record_ids.iter().map(String::as_str)).collect();
    let clean: Vec<&Contract> = d.dataset.contracts.iter().filter(|c| !planted.contains(c.id.as_str())).collect();
    for c in &clean {
        assert!(added(c, AmendmentKind::Addition) <= law::ADDITION_CAP_RENOVATION * c.initial_value + 0.01, "{}", c.id);
    }
    // Prorrogações of continuing services make clean contracts grow far beyond 25%.
    let grown = clean
        .iter()
        .filter(|c| {
            c.final_value > 1.5 * c.initial_value
                && c.amendments.iter().any(|a| a.kinds.contains(&AmendmentKind::Extension))
        })
        .count();
    assert!(grown > 100, "{grown} clean contracts grown by prorrogações");
}

#[test]
fn a_sanctioned_signing_happens_while_a_barring_sanction_is_in_force() {
    let d = generate(&DemoSpec { seed: 7, contracts: 20_000, ..DemoSpec::default() });
    let planted = contracts_of(&d, Scheme::SanctionedSigning);
    assert!(!planted.is_empty());
    for c in planted {
        let root = c.supplier.cnpj_root().unwrap();
        let in_force = d
            .dataset
            .sanctions
            .iter()
            .any(|s| s.root() == Some(root) && s.bars_contracting() && s.active_on(c.signed_on.unwrap()));
        assert!(in_force, "{}", c.id);
    }
}

#[test]
fn a_bid_ring_rotates_its_wins_and_covers_in_lockstep() {
    let d = data();
    let biddings: HashMap<&str, _> = d.dataset.biddings.iter().map(|b| (b.id.as_str(), b)).collect();
    let rings: Vec<_> = d.planted.iter().filter(|p| p.scheme == Scheme::BidRing).collect();
    assert!(!rings.is_empty());
    for ring in rings {
        let mut winners = HashSet::new();
        for id in &ring.record_ids {
            let b = biddings[id.as_str()];
            let win = b.participants.iter().find(|p| p.winner).and_then(|p| p.value).unwrap();
            winners.insert(b.participants.iter().find(|p| p.winner).unwrap().bidder.document.clone());
            let mut ratios: Vec<f64> =
                b.participants.iter().filter(|p| !p.winner).filter_map(|p| p.value).map(|v| v / win).collect();
            ratios.sort_by(f64::total_cmp);
            let steps: Vec<f64> = ratios.windows(2).map(|w| w[1] - w[0]).collect();
            assert!(ratios[0] > 1.0 && ratios[0] < 1.05, "{id}: {ratios:?}");
            assert!(steps.iter().all(|s| (s - (ratios[0] - 1.0)).abs() < 0.002), "{id}: {ratios:?}");
        }
        assert!(winners.len() >= 2, "wins rotate");
    }
}

#[test]
fn the_clean_data_carries_the_traps_of_real_records() {
    let d = data();
    let planted: HashSet<&str> = d.planted.iter().flat_map(|p| p.record_ids.iter().map(String::as_str)).collect();
    let clean: Vec<&Contract> = d.dataset.contracts.iter().filter(|c| !planted.contains(c.id.as_str())).collect();
    let n = clean.len() as f64;
    let empty = clean.iter().filter(|c| c.legal_basis.is_empty()).count() as f64;
    assert!(empty / n > 0.7, "empty fundamentoLegal in {empty} of {n}");
    // Direct purchases above the value limit on non-value grounds, some with the basis missing.
    let above: Vec<&&Contract> = clean
        .iter()
        .filter(|c| !c.modality.starts_with("Pregão") && !c.modality.starts_with("Concorr"))
        .filter(|c| law::value_limit(c.signed_on.unwrap(), true).is_some_and(|l| c.initial_value > l.0))
        .collect();
    assert!(above.len() >= 20, "{} non-value direct purchases", above.len());
    assert!(above.iter().any(|c| c.legal_basis.is_empty()) && above.iter().any(|c| c.legal_basis.contains("75, IX")));
    assert!(above.iter().any(|c| c.object.starts_with("LOCAÇÃO DE IMÓVEL")));
    assert!(clean.iter().any(|c| c.object == traps::SECRET_OBJECT && c.supplier.document == "-11"));
    assert!(clean.iter().filter(|c| c.supplier.document.starts_with("***.")).count() > 50);
    let mut boiler: HashMap<&str, HashSet<&str>> = HashMap::new();
    for c in &clean {
        if c.object.len() < 40 {
            boiler.entry(c.object.as_str()).or_default().insert(c.supplier.document.as_str());
        }
    }
    assert!(boiler.values().any(|s| s.len() > 5), "boilerplate shared by suppliers");
    let mut atas: HashMap<(&str, &str), HashSet<&str>> = HashMap::new();
    for c in clean.iter().filter(|c| c.modality.contains("Registro de Preço")) {
        atas.entry((c.process_number.as_str(), c.supplier.document.as_str())).or_default().insert(c.unit.code.as_str());
    }
    assert!(atas.values().any(|u| u.len() >= 2), "an ata used by several units");
}
