//! Tests of the demo data generator: determinism, shape of the records, filters, the labels
//! (every scheme planted, every label naming records of the data), the clean data's seasonality
//! and value distributions, the shifted flavour, and the independence of the generator from the
//! detectors (no demo source names them).

use std::collections::{HashMap, HashSet};

use chrono::Datelike;

use super::*;
use crate::model::cnpj::cnpj_is_valid;
use crate::model::upstream::{contract_from_upstream, contract_to_upstream};

fn spec(seed: u64, contracts: usize) -> DemoSpec {
    DemoSpec { seed, contracts, ..DemoSpec::default() }
}

fn schemes(d: &DemoData) -> HashSet<Scheme> {
    d.planted.iter().map(|p| p.scheme).collect()
}

#[test]
fn no_demo_source_names_the_detectors() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/demo");
    let forbidden = ["crate::", "det", "ect::"].concat();
    let mut read = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).unwrap();
            read += 1;
            for needle in [forbidden.as_str(), &forbidden["crate::".len()..]] {
                assert!(!text.contains(needle), "{} names {needle}", path.display());
            }
        }
    }
    assert!(read > 10, "the demo sources were read");
}

#[test]
fn the_same_spec_gives_identical_data_and_labels() {
    let (a, b) = (generate(&spec(1, 1500)), generate(&spec(1, 1500)));
    assert_eq!(a.dataset.contracts, b.dataset.contracts);
    assert_eq!(a.dataset.biddings, b.dataset.biddings);
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
fn records_look_like_upstream_contracts_with_items_and_amendments_that_add_up() {
    let d = generate(&spec(4, 3000));
    let bad_cnpj: HashSet<&str> = d
        .planted
        .iter()
        .filter(|p| p.scheme == Scheme::InvalidCnpj)
        .flat_map(|p| p.record_ids.iter().map(String::as_str))
        .collect();
    for c in &d.dataset.contracts {
        let doc = c.supplier.document.as_str();
        let masked_cpf = doc.starts_with("***.") && doc.ends_with("-**");
        assert!(cnpj_is_valid(doc) || masked_cpf || doc == "-11" || bad_cnpj.contains(c.id.as_str()), "{doc}");
        assert!(crate::organs::organ_by_code(&c.organ.code).is_some());
        assert_eq!(c.unit.code.len(), 6);
        assert!(c.number.ends_with(&format!("/{}", c.signed_on.unwrap().year())));
        assert!(c.process_number.starts_with(c.organ.code.as_str()) || c.modality.contains("Registro de Preço"));
        assert!(c.value() > 0.0 && c.final_value >= c.initial_value - 0.01);
        // The final value is the initial one plus what the amendments added.
        let last = c.amendments.iter().rev().find_map(|a| a.new_global_value).unwrap_or(c.initial_value);
        assert!((last - c.final_value).abs() < 0.02, "{}: {last} vs {}", c.id, c.final_value);
        if !c.items.is_empty() {
            let items: f64 = c.items.iter().map(|i| i.value).sum();
            assert!(
                (items - c.initial_value).abs() <= 0.02 * c.initial_value + 1.0,
                "{}: {items} vs {}",
                c.id,
                c.initial_value
            );
        }
        assert_eq!(contract_from_upstream(0, &contract_to_upstream(c)).unwrap().id, c.id);
    }
}

#[test]
fn organ_and_year_filters_are_respected_and_the_main_schemes_planted() {
    let d = generate(&DemoSpec { seed: 5, contracts: 800, organ_codes: vec!["26000".into()], year: Some(2023) });
    assert!(d.dataset.contracts.iter().all(|c| c.organ.code == "26000" && c.signed_on.unwrap().year() == 2023));
    let kinds = schemes(&d);
    for s in [
        Scheme::Overprice,
        Scheme::Concentration,
        Scheme::DecemberRush,
        Scheme::RepeatedContract,
        Scheme::DispensaOverLimit,
        Scheme::IllegalAddition,
        Scheme::SplitPurchase,
        Scheme::BidRing,
        Scheme::RelatedBidders,
        Scheme::PhantomSupplier,
    ] {
        assert!(kinds.contains(&s), "{s:?} not planted: {kinds:?}");
    }
    let any = generate(&DemoSpec { seed: 5, contracts: 800, organ_codes: vec!["99999".into()], year: None });
    let organs: HashSet<&str> = any.dataset.contracts.iter().map(|c| c.organ.code.as_str()).collect();
    assert!(organs.len() > 5, "an unknown code falls back to all organs");
}

#[test]
fn every_scheme_is_planted_and_every_label_names_records_of_the_data() {
    let large_only = [
        Scheme::RoundedValues,
        Scheme::FirstDigits,
        Scheme::MonthSpike,
        Scheme::LevelShift,
        Scheme::Cadence,
        Scheme::DayBurst,
        Scheme::SanctionedSigning,
    ];
    for n in [200, 2000, 20_000] {
        let d = generate(&spec(6, n));
        let kinds = schemes(&d);
        let all = [
            Scheme::Overprice,
            Scheme::RepeatedContract,
            Scheme::CopiedContract,
            Scheme::Concentration,
            Scheme::DecemberRush,
            Scheme::ShortContract,
            Scheme::DateError,
            Scheme::VagueObject,
            Scheme::BrandRequirement,
            Scheme::DispensaOverLimit,
            Scheme::IllegalAddition,
            Scheme::InvalidCnpj,
            Scheme::ExtinctModality,
            Scheme::UnjustifiedInexigibilidade,
            Scheme::SplitPurchase,
            Scheme::PhantomSupplier,
            Scheme::BidRing,
            Scheme::RelatedBidders,
            Scheme::ServantPartner,
            Scheme::ReleaseAboveAgreed,
            Scheme::SanctionedGrantee,
        ];
        for s in all.iter().chain(if n >= 20_000 { &large_only[..] } else { &[] }) {
            // A ring needs four competitive contracts of one trade free of other plants and traps;
            // a servant partner needs a servant of the organ of a drawn contract.
            if n < 2000 && matches!(s, Scheme::BidRing | Scheme::ServantPartner) {
                continue;
            }
            assert!(kinds.contains(s), "{s:?} missing at {n}");
        }
        assert!(d.planted.iter().all(|p| !p.what.is_empty() && !p.record_ids.is_empty()));
        let ds = &d.dataset;
        let ids: HashSet<&str> = labels::record_ids(ds).collect();
        assert_eq!(ids.len(), ds.len(), "ids shared across record kinds at {n}");
        assert!(d.planted.iter().flat_map(|p| &p.record_ids).all(|id| ids.contains(id.as_str())));
    }
}

#[test]
fn every_organ_has_a_large_december_of_its_own_and_a_rush_goes_well_beyond_it() {
    let d = generate(&spec(8, 20_000));
    let rushed: HashSet<&str> =
        d.planted.iter().filter(|p| p.scheme == Scheme::DecemberRush).filter_map(|p| p.entity_id.as_deref()).collect();
    let planted: HashSet<&str> = d.planted.iter().flat_map(|p| p.record_ids.iter().map(String::as_str)).collect();
    let mut per: HashMap<&str, (usize, usize)> = HashMap::new();
    for c in d.dataset.contracts.iter().filter(|c| !planted.contains(c.id.as_str())) {
        let e = per.entry(c.organ.code.as_str()).or_default();
        e.0 += 1;
        e.1 += usize::from(c.signed_on.unwrap().month() == 12);
    }
    for (organ, (all, december)) in per {
        if rushed.contains(organ) || all < 300 {
            continue;
        }
        let share = december as f64 / all as f64;
        assert!((0.11..0.30).contains(&share), "{organ}: December holds {share}");
    }
}

#[test]
fn values_follow_their_category_medians() {
    let d = generate(&spec(10, 20_000));
    for p in catalog::PROFILES {
        let mut values: Vec<f64> = d
            .dataset
            .contracts
            .iter()
            .filter(|c| {
                c.amendments.is_empty() && c.items.first().is_some_and(|i| p.items.contains(&i.description.as_str()))
            })
            .map(|c| c.value())
            .collect();
        values.sort_by(f64::total_cmp);
        let m = values[values.len() / 2];
        assert!(m > p.median * 0.6 && m < p.median * 1.5, "{:?}: {m} vs {}", p.category, p.median);
    }
}

#[test]
fn the_shifted_flavour_speaks_another_vocabulary_with_other_values() {
    let s = spec(11, 5000);
    let (normal, shifted) = (generate(&s), generate_as(&s, Flavour::Shifted));
    assert_eq!(shifted.dataset.contracts.len(), 5000);
    let normal_items: HashSet<&str> = catalog::PROFILES.iter().flat_map(|p| p.items.iter().copied()).collect();
    let shifted_items: HashSet<&str> = catalog_shifted::SHIFTED.iter().flat_map(|p| p.items.iter().copied()).collect();
    assert!(normal_items.is_disjoint(&shifted_items));
    assert!(
        shifted.dataset.contracts.iter().flat_map(|c| &c.items).all(|i| !normal_items.contains(i.description.as_str()))
    );
    let words = |p: &catalog::Profile| -> HashSet<String> {
        p.templates
            .iter()
            .flat_map(|t| t.split(' '))
            .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
            .filter(|w| w.len() > 5 && !w.contains('{') && *w != "MESES")
            .map(str::to_string)
            .collect()
    };
    for (a, b) in catalog::PROFILES.iter().zip(catalog_shifted::SHIFTED) {
        assert_eq!(a.category, b.category);
        let shared = words(a).intersection(&words(b)).count();
        assert!(shared <= 3, "{:?} shares {shared} words", a.category);
        assert!(a.median != b.median && a.sigma != b.sigma);
    }
    let total = |d: &DemoData| d.dataset.contracts.iter().map(|c| c.value()).sum::<f64>();
    assert!((total(&normal) / total(&shifted) - 1.0).abs() > 0.05);
    assert!(schemes(&shifted).len() >= 20);
}
