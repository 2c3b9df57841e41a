//! Tests of the learned outlier detector.

use chrono::Days;

use super::*;
use crate::model::contract::Contract;
use crate::testutil::contract;

/// `n` one-year contracts of ordinary values in two categories and two modalities.
fn ordinary(n: usize) -> Vec<Contract> {
    (0..n)
        .map(|k| {
            let (object, base) =
                if k % 2 == 0 { ("LIMPEZA PREDIAL", 100_000.0) } else { ("AQUISIÇÃO DE MEDICAMENTOS", 50_000.0) };
            let v = base * (1.0 + 0.5 * ((k as f64 * 0.618_033_988_7).fract() - 0.5));
            let mut c =
                contract(&k.to_string(), object, &format!("S{}", k % 7), "26000", v, (2024, 1 + (k % 12) as u32, 3));
            if k % 3 == 0 {
                c.modality = "Dispensa de Licitação".into();
            }
            c.valid_until = c.valid_from.map(|d| d + Days::new(if k % 4 == 0 { 730 } else { 365 }));
            c
        })
        .collect()
}

#[test]
fn contracts_lasting_two_days_stand_out_from_every_cluster() {
    let mut cs = ordinary(800);
    for id in ["short1", "short2"] {
        let mut c = contract(id, "LIMPEZA PREDIAL", "S1", "26000", 100_000.0, (2024, 5, 3));
        c.valid_until = c.valid_from.map(|d| d + Days::new(2));
        cs.push(c);
    }
    let ds = Dataset::from_contracts(cs);
    let defaults = LearnedOutlier.run(&ds, &DetectionParams::default(), &CancelFlag::new()).unwrap();
    assert!(defaults.is_empty(), "an outlier is an exploratory lead, below the default confidence threshold");
    let leads = DetectionParams { confidence_threshold: 0.7, ..DetectionParams::default() };
    let found = LearnedOutlier.run(&ds, &leads, &CancelFlag::new()).unwrap();
    let ids: Vec<&str> = found.iter().map(|a| a.affected_entities.primary.id.as_str()).collect();
    assert_eq!(ids, vec!["short1", "short2"]);
    assert!(found.iter().all(|a| a.confidence <= MAX_CONFIDENCE));
    let a = &found[0];
    assert_eq!(a.kind, AnomalyType::PatternAnomaly);
    assert_eq!(a.technical_details["main_feature"], "log_duration_z_in_peer_group");
    assert_eq!(a.technical_details["peer_group"], json!(["limpeza", "predial"]));
    assert_eq!(a.technical_details["duration_days"], 2);
    assert!(a.technical_details["distance"].as_f64().unwrap() > DISTANCE.at(0.7));
}

#[test]
fn ordinary_contracts_and_small_datasets_raise_nothing() {
    let ds = Dataset::from_contracts(ordinary(800));
    assert!(LearnedOutlier.run(&ds, &DetectionParams::default(), &CancelFlag::new()).unwrap().is_empty());
    let small = Dataset::from_contracts(ordinary(MIN_RECORDS - 1));
    assert!(LearnedOutlier.run(&small, &DetectionParams::default(), &CancelFlag::new()).unwrap().is_empty());
}

#[test]
fn a_contract_without_a_peer_group_is_not_scored() {
    let mut cs = ordinary(800);
    let mut odd = contract("odd", "OBJETO SINGULAR NUNCA VISTO", "S1", "26000", 100_000.0, (2024, 5, 3));
    odd.valid_until = odd.valid_from.map(|d| d + Days::new(2));
    cs.push(odd);
    let all = DetectionParams { confidence_threshold: 0.0, ..DetectionParams::default() };
    let found = LearnedOutlier.run(&Dataset::from_contracts(cs), &all, &CancelFlag::new()).unwrap();
    assert!(found.iter().all(|a| a.affected_entities.primary.id != "odd"));
}
