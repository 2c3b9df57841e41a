//! Tests of the price z-score detector.

use super::*;
use crate::demo::{DemoSpec, generate};
use crate::model::contract::Contract;
use crate::testutil::{contract, recall};

fn medicines(n: usize) -> Vec<Contract> {
    (0..n)
        .map(|i| {
            let value = 100_000.0 * (1.0 + 0.04 * (i as f64 - n as f64 / 2.0) / n as f64 * 10.0);
            contract(
                &format!("{}", 1000 + i),
                "AQUISIÇÃO DE MEDICAMENTOS",
                &format!("{:014}", i % 5),
                "36000",
                value,
                (2024, 3, 1),
            )
        })
        .collect()
}

fn run(contracts: Vec<Contract>, p: &DetectionParams) -> Vec<Anomaly> {
    PriceZScore.run(&Dataset::from_contracts(contracts), p, &CancelFlag::new()).unwrap()
}

#[test]
fn price_detector_flags_a_contract_ten_times_its_peer_median() {
    let mut cs = medicines(30);
    cs.push(contract("999", "AQUISIÇÃO DE MEDICAMENTOS", "00000000000999", "36000", 1_000_000.0, (2024, 5, 2)));
    let found = run(cs, &DetectionParams::default());
    assert_eq!(found.len(), 1);
    let a = &found[0];
    assert_eq!(a.id, "price_zscore-999");
    assert_eq!(a.kind, AnomalyType::PriceAnomaly);
    assert_eq!(a.affected_entities.primary.kind, "contract");
    assert_eq!(a.affected_entities.primary.id, "999");
    assert!(a.confidence >= 0.8, "{}", a.confidence);
    let td = &a.technical_details;
    assert_eq!(td["detector"], "price_zscore");
    assert_eq!(td["baseline"], "peer_group");
    assert_eq!(td["peer_size"], 31);
    assert!(td["z_score"].as_f64().unwrap() > ROBUST.at(0.7));
    assert!(td["rule"].as_str().unwrap().starts_with("robust"));
    assert_eq!(td["entity_baseline"], "none", "a supplier with no other contract has no baseline of its own");
    assert_eq!(td["robust_threshold"], 2.4);
    let median = td["peer_median"].as_f64().unwrap();
    assert!((median - 100_000.0).abs() < 5_000.0, "{median}");
    assert!((a.value_at_stake() - (1_000_000.0 - median)).abs() < 1.0);
    let stats = a.evidence.statistical_analysis.as_ref().unwrap();
    assert_eq!(stats.method, "robust_zscore_log_median_mad");
    assert!(a.context.peer_comparison.is_some());
    assert!(a.explanation.as_ref().unwrap().human_readable.contains("vezes"));
}

#[test]
fn a_marginal_excess_is_flagged_only_at_the_literal_sensitivity() {
    let mut cs = medicines(40);
    cs.push(contract("777", "AQUISIÇÃO DE MEDICAMENTOS", "00000000000777", "36000", 124_000.0, (2024, 5, 2)));
    let literal = DetectionParams { sensitivity: 1.0, ..DetectionParams::default() };
    let found = run(cs.clone(), &literal);
    let a = found.iter().find(|a| a.affected_entities.primary.id == "777").expect("flagged at sensitivity 1");
    let z = a.technical_details["literal_z_score"].as_f64().unwrap();
    assert!(z > THRESHOLD && z < 2.5, "{z}");
    assert!(a.confidence >= 0.8 && a.confidence < 0.9, "{}", a.confidence);
    let all = DetectionParams { confidence_threshold: 0.0, ..DetectionParams::default() };
    assert!(run(cs, &all).iter().all(|a| a.affected_entities.primary.id != "777"));
}

#[test]
fn equal_or_evenly_spread_prices_raise_nothing_at_the_defaults() {
    let mut equal = medicines(30);
    for c in &mut equal {
        c.final_value = 100_000.0;
    }
    assert!(run(equal, &DetectionParams { confidence_threshold: 0.0, ..DetectionParams::default() }).is_empty());
    assert!(run(medicines(50), &DetectionParams::default()).is_empty());
    assert!(run(Vec::new(), &DetectionParams::default()).is_empty());
}

#[test]
fn small_peer_groups_fall_back_to_the_category_then_to_all_contracts() {
    let mut cs = medicines(40);
    let mut odd = contract("555", "AQUISIÇÃO DE MEDICAMENTOS", "00000000000555", "36000", 2_000_000.0, (2024, 1, 9));
    odd.modality = arcstr::literal!("Dispensa de Licitação");
    cs.push(odd);
    let found = run(cs, &DetectionParams::default());
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].technical_details["baseline"], "category");
    let mut mixed: Vec<Contract> = (0..12)
        .map(|i| {
            contract(
                &format!("{i}"),
                &format!("ITEM DIVERSO {i}"),
                "1",
                "36000",
                50_000.0 + i as f64 * 1000.0,
                (2024, 2, 1),
            )
        })
        .collect();
    mixed.push(contract("big", "AQUISIÇÃO DE MEDICAMENTOS", "2", "36000", 5_000_000.0, (2024, 2, 1)));
    let all = DetectionParams { confidence_threshold: 0.0, ..DetectionParams::default() };
    let found = run(mixed.clone(), &all);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].technical_details["baseline"], "global");
    assert!(found[0].confidence < 0.8, "a global baseline of 13 contracts says less");
    assert!(run(mixed, &DetectionParams::default()).is_empty());
}

#[test]
fn raising_sensitivity_raises_confidence_and_keeps_every_flag() {
    let mut cs = medicines(40);
    cs.push(contract("888", "AQUISIÇÃO DE MEDICAMENTOS", "00000000000888", "36000", 160_000.0, (2024, 5, 2)));
    let at = |s: f64| DetectionParams { sensitivity: s, confidence_threshold: 0.0, anomaly_types: None };
    let (l, d, h) = (run(cs.clone(), &at(0.1)), run(cs.clone(), &at(0.7)), run(cs, &at(1.0)));
    assert!(l.is_empty(), "{l:?}");
    assert_eq!(d.len(), 1);
    assert!(h.len() >= d.len());
    let conf = |v: &[Anomaly]| v.iter().find(|a| a.affected_entities.primary.id == "888").unwrap().confidence;
    assert!(conf(&h) > conf(&d));
}

#[test]
fn a_supplier_that_always_prices_high_is_judged_against_its_own_baseline() {
    // Supplier P charges about three times the market on every contract: none of its usual
    // contracts is flagged, but one at ten times its own level is.
    let mut cs = medicines(60);
    for k in 0..8 {
        let v = 300_000.0 * (1.0 + 0.02 * k as f64);
        cs.push(contract(&format!("p{k}"), "AQUISIÇÃO DE MEDICAMENTOS", "P", "36000", v, (2024, 4, 1 + k)));
    }
    let found = run(cs.clone(), &DetectionParams::default());
    assert!(found.iter().all(|a| !a.affected_entities.primary.id.starts_with('p')), "{found:?}");
    cs.push(contract("p-big", "AQUISIÇÃO DE MEDICAMENTOS", "P", "36000", 3_000_000.0, (2024, 6, 1)));
    let found = run(cs, &DetectionParams::default());
    let a = found.iter().find(|a| a.affected_entities.primary.id == "p-big").expect("flagged");
    assert_eq!(a.technical_details["entity_baseline"], "supplier");
    assert!(a.technical_details["entity_z_score"].as_f64().unwrap() > 1.4);
}

#[test]
#[ignore = "the demo generator no longer plants to this detector's thresholds (issue 4 item 11): its recall and precision are measured by examples/evaluate"]
fn price_detector_finds_the_planted_overpriced_contracts_of_the_demo_data() {
    let data = generate(&DemoSpec { seed: 7, contracts: 5000, ..DemoSpec::default() });
    let found = PriceZScore.run(&data.dataset, &DetectionParams::default(), &CancelFlag::new()).unwrap();
    let (r, n, missed) = recall(&data, &found, NAME);
    assert!(n >= 20, "{n} planted");
    assert!(r >= 0.9, "recall {r}, missed {missed:?}");
    assert!(found.len() <= n + n / 4, "{} found for {n} planted", found.len());
}

#[test]
fn a_cancelled_price_run_stops() {
    let cancel = CancelFlag::new();
    cancel.cancel();
    let ds = Dataset::from_contracts(medicines(10));
    assert_eq!(PriceZScore.run(&ds, &DetectionParams::default(), &cancel), Err(AnalysisError::Cancelled));
}

#[test]
fn a_supplier_with_few_contracts_is_judged_against_the_cluster_its_other_contracts_price_like() {
    // Twelve suppliers with six contracts each (their own baselines feed the clusters), and a
    // supplier with three contracts, one of them ten times the market.
    let mut cs = Vec::new();
    for s in 0..12 {
        for k in 0..6 {
            let v = 100_000.0 * (1.0 + 0.03 * ((s * 6 + k) % 11) as f64);
            cs.push(contract(
                &format!("{s}-{k}"),
                "AQUISIÇÃO DE MEDICAMENTOS",
                &format!("S{s:02}"),
                "36000",
                v,
                (2024, 3, 1),
            ));
        }
    }
    cs.push(contract("few-1", "AQUISIÇÃO DE MEDICAMENTOS", "FEW", "36000", 104_000.0, (2024, 4, 1)));
    cs.push(contract("few-2", "AQUISIÇÃO DE MEDICAMENTOS", "FEW", "36000", 108_000.0, (2024, 4, 2)));
    cs.push(contract("few-3", "AQUISIÇÃO DE MEDICAMENTOS", "FEW", "36000", 1_000_000.0, (2024, 4, 3)));
    let found = run(cs, &DetectionParams::default());
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].affected_entities.primary.id, "few-3");
    assert_eq!(found[0].technical_details["entity_baseline"], "supplier_cluster");
    assert!(found[0].context.historical_comparison.as_ref().unwrap()["cluster"].is_u64());
}
