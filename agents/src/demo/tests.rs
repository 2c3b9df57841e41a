//! Tests of the demo data generator.

use std::collections::{HashMap, HashSet};

use chrono::Datelike;

use super::*;
use crate::detect::category::categorise;
use crate::detect::duplicates::similarity;
use crate::model::cnpj::cnpj_is_valid;
use crate::model::upstream::{contract_from_upstream, contract_to_upstream};

fn spec(seed: u64, contracts: usize) -> DemoSpec {
    DemoSpec { seed, contracts, ..DemoSpec::default() }
}

#[test]
fn the_same_spec_gives_identical_data_and_labels() {
    let (a, b) = (generate(&spec(1, 1500)), generate(&spec(1, 1500)));
    assert_eq!(a.dataset.contracts, b.dataset.contracts);
    assert_eq!(a.planted, b.planted);
    assert_ne!(generate(&spec(2, 1500)).dataset.contracts, a.dataset.contracts);
}

#[test]
fn the_requested_number_of_contracts_is_generated_with_unique_nine_digit_ids() {
    for n in [0, 50, 200, 2000, 10_000] {
        let d = generate(&spec(3, n));
        assert_eq!(d.dataset.contracts.len(), n, "for {n}");
        let ids: HashSet<&str> = d.dataset.contracts.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids.len(), n);
        assert!(ids.iter().all(|id| id.len() == 9 && id.bytes().all(|b| b.is_ascii_digit())));
    }
}

#[test]
fn records_look_like_upstream_contracts() {
    let d = generate(&spec(4, 3000));
    let planted: HashSet<&str> = d.planted.iter().flat_map(|p| p.record_ids.iter().map(String::as_str)).collect();
    for c in &d.dataset.contracts {
        // Invalid check digits are planted on purpose (compliance_rules).
        assert!(cnpj_is_valid(&c.supplier.document) || planted.contains(c.id.as_str()), "{}", c.supplier.document);
        assert!(crate::organs::organ_by_code(&c.organ.code).is_some());
        assert_eq!(c.unit.code.len(), 6);
        assert!(c.number.ends_with(&format!("/{}", c.signed_on.unwrap().year())));
        assert!(c.process_number.starts_with(c.organ.code.as_str()));
        assert!(c.value() > 0.0 && c.final_value >= c.initial_value);
        // Dates out of order and generic objects are planted on purpose (date_inconsistency,
        // vague_object).
        if !planted.contains(c.id.as_str()) {
            assert!(c.published_on > c.signed_on && c.valid_until > c.valid_from);
            assert_ne!(categorise(&c.object), crate::detect::category::Category::Outros, "{}", c.object);
        }
        assert_eq!(contract_from_upstream(0, &contract_to_upstream(c)).unwrap(), *c);
    }
    let dispensa: Vec<f64> =
        d.dataset.contracts.iter().filter(|c| c.modality.starts_with("Dispensa")).map(|c| c.value()).collect();
    assert!(!dispensa.is_empty());
    let small = dispensa.iter().filter(|v| **v < 150_000.0).count();
    assert!(small as f64 / dispensa.len() as f64 > 0.95);
}

#[test]
fn organ_and_year_filters_are_respected() {
    let d = generate(&DemoSpec { seed: 5, contracts: 800, organ_codes: vec!["26000".into()], year: Some(2023) });
    assert!(d.dataset.contracts.iter().all(|c| c.organ.code == "26000" && c.signed_on.unwrap().year() == 2023));
    let kinds: HashSet<&str> = d.planted.iter().map(|p| p.detector).collect();
    for name in [
        "price_zscore",
        "supplier_concentration",
        "end_of_year",
        "duplicate_contracts",
        crate::detect::compliance_rules::NAME,
        crate::detect::splitting::NAME,
        crate::detect::bid_rigging::NAME,
        crate::detect::relationships::NAME,
        crate::detect::phantom::NAME,
    ] {
        assert!(kinds.contains(name), "{name} not planted: {kinds:?}");
    }
    let any = generate(&DemoSpec { seed: 5, contracts: 800, organ_codes: vec!["99999".into()], year: None });
    let organs: HashSet<&str> = any.dataset.contracts.iter().map(|c| c.organ.code.as_str()).collect();
    assert!(organs.len() > 5, "an unknown code falls back to all organs");
}

#[test]
fn every_kind_is_planted_from_two_hundred_contracts_on() {
    // Group plants need enough contracts per supplier or organ to be detectable at all;
    // forecast_deviation finds the spikes, rushes and level shifts planted for others.
    use crate::detect::{benford, forecast, periodicity, regime, round_values, spikes};
    let large_only = [round_values::NAME, benford::NAME, spikes::NAME, regime::NAME, periodicity::NAME];
    for n in [200, 2000, 20_000] {
        let d = generate(&spec(6, n));
        for name in crate::detect::NAMES.iter().filter(|n| **n != forecast::NAME) {
            if n < 20_000 && large_only.contains(name) {
                continue;
            }
            assert!(d.planted.iter().any(|p| p.detector == *name), "{name} missing at {n}");
        }
        // Labels name records of every kind: contracts, biddings, expenses, agreements, servants,
        // suppliers; no two records of any kinds share an id.
        let ds = &d.dataset;
        let ids: HashSet<&str> = ds
            .contracts
            .iter()
            .map(|c| c.id.as_str())
            .chain(ds.biddings.iter().map(|b| b.id.as_str()))
            .chain(ds.expenses.iter().map(|e| e.id.as_str()))
            .chain(ds.agreements.iter().map(|a| a.id.as_str()))
            .chain(ds.servants.iter().map(|s| s.id.as_str()))
            .chain(ds.suppliers.iter().map(|p| p.cnpj.as_str()))
            .chain(ds.sanctions.iter().map(|s| s.id.as_str()))
            .collect();
        let records = ds.contracts.len()
            + ds.biddings.len()
            + ds.expenses.len()
            + ds.agreements.len()
            + ds.servants.len()
            + ds.suppliers.len()
            + ds.sanctions.len();
        assert_eq!(ids.len(), records, "ids shared across record kinds at {n}");
        assert!(d.planted.iter().flat_map(|p| &p.record_ids).all(|id| ids.contains(id.as_str())));
    }
}

#[test]
fn clean_december_holds_about_a_tenth_of_contracts_and_no_clean_supplier_dominates() {
    let d = generate(&spec(8, 20_000));
    let rushed: HashSet<(&str, i32)> = d
        .planted
        .iter()
        .filter(|p| p.detector == "end_of_year")
        .flat_map(|p| p.record_ids.first())
        .filter_map(|id| d.dataset.contracts.iter().find(|c| c.id == *id))
        .map(|c| (c.organ.code.as_str(), c.signed_on.unwrap().year()))
        .collect();
    let planted: HashSet<&str> = d.planted.iter().flat_map(|p| p.record_ids.iter().map(String::as_str)).collect();
    let clean: Vec<_> = d
        .dataset
        .contracts
        .iter()
        .filter(|c| !planted.contains(c.id.as_str()))
        .filter(|c| !rushed.contains(&(c.organ.code.as_str(), c.signed_on.unwrap().year())))
        .collect();
    let december = clean.iter().filter(|c| c.signed_on.unwrap().month() == 12).count() as f64 / clean.len() as f64;
    assert!((0.085..=0.115).contains(&december), "{december}");
    let mut totals: HashMap<(&str, i32), f64> = HashMap::new();
    let mut per: HashMap<(&str, i32, &str), f64> = HashMap::new();
    for c in &d.dataset.contracts {
        let key = (c.organ.code.as_str(), c.signed_on.unwrap().year());
        *totals.entry(key).or_default() += c.value();
        *per.entry((key.0, key.1, c.supplier.document.as_str())).or_default() += c.value();
    }
    let concentrated: HashSet<&str> = d
        .planted
        .iter()
        .filter(|p| p.detector == "supplier_concentration")
        .filter_map(|p| p.entity_id.as_deref())
        .collect();
    for ((organ, year, supplier), v) in per {
        if !concentrated.contains(supplier) {
            assert!(
                v / totals[&(organ, year)] < 0.2,
                "{supplier} has {} of {organ} {year}",
                v / totals[&(organ, year)]
            );
        }
    }
}

#[test]
fn clean_objects_of_one_supplier_are_rarely_near_duplicates() {
    let d = generate(&spec(9, 4000));
    let mut by_supplier: HashMap<&str, Vec<&str>> = HashMap::new();
    for c in &d.dataset.contracts {
        by_supplier.entry(c.supplier.document.as_str()).or_default().push(c.object.as_str());
    }
    let (mut pairs, mut similar) = (0usize, 0usize);
    for objects in by_supplier.values() {
        for (i, a) in objects.iter().enumerate().take(40) {
            for b in objects.iter().skip(i + 1).take(40) {
                pairs += 1;
                if similarity(a, b) > 0.85 {
                    similar += 1;
                }
            }
        }
    }
    assert!(pairs > 1000);
    assert!((similar as f64) < 0.01 * pairs as f64, "{similar} of {pairs}");
}

#[test]
fn values_follow_their_category_medians() {
    let d = generate(&spec(10, 20_000));
    for p in catalog::PROFILES {
        let mut values: Vec<f64> =
            d.dataset.contracts.iter().filter(|c| categorise(&c.object) == p.category).map(|c| c.value()).collect();
        let m = crate::detect::stats::median_in_place(&mut values);
        assert!(m > p.median * 0.7 && m < p.median * 1.4, "{:?}: {m} vs {}", p.category, p.median);
    }
}
