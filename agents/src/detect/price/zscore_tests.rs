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
fn a_rare_modality_falls_back_to_the_learned_group_and_nothing_has_a_global_baseline() {
    // Changed with issue [4]: there is no category or global fallback any more; the baseline is
    // the learned object group (with its modality when it has enough contracts).
    let mut cs = medicines(40);
    let mut odd = contract("555", "AQUISIÇÃO DE MEDICAMENTOS", "00000000000555", "36000", 2_000_000.0, (2024, 1, 9));
    odd.modality = arcstr::literal!("Dispensa de Licitação");
    cs.push(odd);
    let found = run(cs, &DetectionParams::default());
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].technical_details["baseline"], "object_group");
    let mut mixed: Vec<Contract> = (0..40)
        .map(|i| {
            contract(
                &format!("{i}"),
                &format!("ITEM DIVERSO NUMERO {i}"),
                "1",
                "36000",
                50_000.0 + i as f64 * 1000.0,
                (2024, 2, 1),
            )
        })
        .collect();
    mixed.push(contract("big", "AQUISIÇÃO DE MEDICAMENTOS", "2", "36000", 5_000_000.0, (2024, 2, 1)));
    let all = DetectionParams { confidence_threshold: 0.0, ..DetectionParams::default() };
    assert!(run(mixed, &all).is_empty(), "a contract unlike any group is not judged");
}

#[test]
fn a_group_whose_values_span_orders_of_magnitude_gives_no_price_finding() {
    let mut cs: Vec<Contract> = (0..60)
        .map(|i| {
            let v = 1_000.0 * 10f64.powf((i % 5) as f64);
            contract(&format!("{i}"), "AQUISIÇÃO DE MEDICAMENTOS", &format!("S{i}"), "36000", v, (2024, 2, 1))
        })
        .collect();
    cs.push(contract("big", "AQUISIÇÃO DE MEDICAMENTOS", "B", "36000", 900_000_000.0, (2024, 2, 1)));
    let all = DetectionParams { confidence_threshold: 0.0, ..DetectionParams::default() };
    assert!(run(cs, &all).is_empty());
}

#[test]
fn an_unseen_vocabulary_gives_the_same_price_findings() {
    use crate::detect::peer_groups::tests::{mixed_objects, rename};
    let objects = mixed_objects(150);
    let build = |objects: &[String]| -> Vec<Contract> {
        let mut cs: Vec<Contract> = objects
            .iter()
            .enumerate()
            .map(|(i, o)| {
                let base = [80_000.0, 20_000.0, 150_000.0][i % 3];
                let v = base * (1.0 + 0.05 * ((i * 7) % 9) as f64);
                contract(&i.to_string(), o, &format!("S{}", i % 17), "26000", v, (2024, 1, 1 + (i % 28) as u32))
            })
            .collect();
        cs[4].initial_value = 400_000.0;
        cs[4].final_value = 400_000.0;
        cs
    };
    let mut vocab = std::collections::HashMap::new();
    let renamed: Vec<String> = objects.iter().map(|o| rename(o, &mut vocab)).collect();
    let ids = |v: Vec<Anomaly>| v.into_iter().map(|a| a.id).collect::<Vec<_>>();
    let (a, b) = (
        ids(run(build(&objects), &DetectionParams::default())),
        ids(run(build(&renamed), &DetectionParams::default())),
    );
    assert_eq!(a, vec!["price_zscore-4".to_string()]);
    assert_eq!(a, b);
}

#[test]
fn secret_contracts_have_no_peer_group() {
    let mut cs: Vec<Contract> = (0..40)
        .map(|i| {
            contract(
                &i.to_string(),
                "Informação protegida por sigilo nos termos da legislação vigente",
                "-11",
                "30000",
                10_000.0 * (1.0 + 0.01 * i as f64),
                (2024, 1, 1),
            )
        })
        .collect();
    cs.push(contract(
        "x",
        "Informação protegida por sigilo nos termos da legislação vigente",
        "-11",
        "30000",
        9e6,
        (2024, 1, 1),
    ));
    assert!(run(cs, &DetectionParams { confidence_threshold: 0.0, ..DetectionParams::default() }).is_empty());
}

/// A contract buying `quantity` units of one catalogue item at `unit` each.
fn with_item(id: &str, description: &str, quantity: f64, unit: f64) -> Contract {
    let mut c = contract(id, "Objeto: AQUISIÇÃO DE GÊNEROS ALIMENTÍCIOS", id, "26000", quantity * unit, (2024, 1, 10));
    c.items = vec![crate::model::amendment::ContractItem {
        code: format!("{id}-1").into(),
        description: description.into(),
        complement: "".into(),
        quantity,
        value: unit,
    }];
    c
}

#[test]
fn twenty_units_are_not_overpriced_against_two_units() {
    // Totals differ tenfold, unit prices are alike: nothing to report.
    let mut cs: Vec<Contract> = (0..30)
        .map(|i| with_item(&format!("c{i}"), "FRUTA", 2.0 + (i % 3) as f64, 5.0 + 0.1 * (i % 7) as f64))
        .collect();
    cs.push(with_item("many", "FRUTA", 200.0, 5.2));
    let all = DetectionParams { confidence_threshold: 0.0, ..DetectionParams::default() };
    assert!(run(cs.clone(), &all).is_empty());
    // The same quantity at ten times the unit price is a finding, with the excess as money at stake.
    cs.push(with_item("dear", "FRUTA", 3.0, 52.0));
    let found = run(cs, &DetectionParams::default());
    assert_eq!(found.len(), 1, "{found:?}");
    let a = &found[0];
    assert_eq!(a.affected_entities.primary.id, "dear");
    assert_eq!(a.technical_details["baseline"], "catalogue_item");
    assert_eq!(a.technical_details["peer_group"], "FRUTA");
    assert!((a.value_at_stake() - 3.0 * (52.0 - 5.3)).abs() < 1.0, "{}", a.value_at_stake());
}

#[test]
fn real_portal_items_are_priced_per_unit() {
    // Lines of the Portal's 2024-01 ItemCompra file: `Valor Item` is the unit price (quantity x
    // value adds up to the contract's Valor Inicial Compra).
    let mut c = with_item("000012021", "SERVIÇOS DE GERENCIAMENTO DE SISTEMAS COMPUTACIONAIS", 1000.0, 530.0);
    c.items.push(crate::model::amendment::ContractItem {
        code: "1539780500021202000002".into(),
        description: "EQUIPAMENTO SEGURANÇA REDE".into(),
        complement: "".into(),
        quantity: 1.0,
        value: 400_827.75,
    });
    c.initial_value = 1000.0 * 530.0 + 400_827.75;
    c.final_value = c.initial_value;
    assert_eq!(crate::detect::price::price_items::unit_prices(&c), vec![530.0, 400_827.75]);
    // A source giving item totals instead: the unit price is the total over the quantity.
    c.items[0].value = 530_000.0;
    assert_eq!(crate::detect::price::price_items::unit_prices(&c), vec![530.0, 400_827.75]);
}

#[test]
fn raising_sensitivity_raises_confidence_and_keeps_every_flag() {
    // Changed with issue [4]: a price needs three times the peer median at the default
    // sensitivity (five at s = 0), so the contract is four times the median here.
    let mut cs = medicines(40);
    cs.push(contract("888", "AQUISIÇÃO DE MEDICAMENTOS", "00000000000888", "36000", 400_000.0, (2024, 5, 2)));
    let at = |s: f64| DetectionParams { sensitivity: s, confidence_threshold: 0.0, anomaly_types: None };
    let (l, d, h) = (run(cs.clone(), &at(0.1)), run(cs.clone(), &at(0.7)), run(cs, &at(1.0)));
    assert!(l.is_empty(), "{l:?}");
    assert_eq!(d.len(), 1);
    assert!(h.len() >= d.len());
    let conf = |v: &[Anomaly]| v.iter().find(|a| a.affected_entities.primary.id == "888").unwrap().confidence;
    assert!(conf(&h) >= conf(&d), "raising the sensitivity never lowers the confidence");
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

#[test]
fn a_price_under_three_times_its_peers_is_market_spread_at_the_defaults() {
    let mut cs = medicines(40);
    cs.push(contract("888", "AQUISIÇÃO DE MEDICAMENTOS", "00000000000888", "36000", 160_000.0, (2024, 5, 2)));
    let all = DetectionParams { confidence_threshold: 0.0, ..DetectionParams::default() };
    assert!(run(cs.clone(), &all).is_empty());
    let literal = DetectionParams { sensitivity: 1.0, confidence_threshold: 0.0, anomaly_types: None };
    assert_eq!(run(cs, &literal).len(), 1, "the spec's literal rule has no least ratio");
}

#[test]
fn a_five_year_service_is_not_overpriced_against_one_year_ones() {
    // DPU's cleaning contracts of 2023-2025: most run a year; the Brasília one runs five.
    // Totals grow with the term in this group: half the contracts run two years at twice the
    // price.
    let year = |c: &mut Contract| c.valid_until = c.valid_from.map(|d| d + chrono::Days::new(365));
    let mut cs = medicines(40);
    cs.iter_mut().for_each(year);
    for c in cs.iter_mut().step_by(2) {
        c.valid_until = c.valid_from.map(|d| d + chrono::Days::new(730));
        c.initial_value *= 2.0;
        c.final_value *= 2.0;
    }
    let mut long = contract("long", "AQUISIÇÃO DE MEDICAMENTOS", "00000000000777", "36000", 900_000.0, (2024, 5, 2));
    long.valid_until = long.valid_from.map(|d| d + chrono::Days::new(5 * 365));
    cs.push(long.clone());
    let all = DetectionParams { confidence_threshold: 0.0, ..DetectionParams::default() };
    assert!(run(cs.clone(), &all).is_empty());
    let last = cs.len() - 1;
    year(&mut cs[last]);
    assert_eq!(run(cs, &all).len(), 1, "the same total over one year is a finding");
}

/// Thirty contracts buying 3 or 4 units of one well-specified item at 5.00 to 5.60 a unit.
fn precise_peers(description: &str) -> Vec<Contract> {
    (0..30)
        .map(|i| with_item(&format!("c{i}"), description, 3.0 + (i % 2) as f64, 5.0 + 0.1 * (i % 7) as f64))
        .collect()
}

#[test]
fn twice_the_unit_price_of_a_precisely_priced_item_is_a_finding() {
    let mut cs = precise_peers("CANETA ESFEROGRÁFICA AZUL");
    cs.push(with_item("double", "CANETA ESFEROGRÁFICA AZUL", 4.0, 11.5));
    let found = run(cs, &DetectionParams::default());
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].affected_entities.primary.id, "double");
    assert_eq!(found[0].technical_details["test"], "precise");
}

#[test]
fn ten_times_a_precise_price_on_an_ordinary_line_is_another_unit() {
    // Boxes of 12 priced against prices per piece: the line total is what peers' pieces cost.
    let mut cs: Vec<Contract> = (0..30)
        .map(|i| {
            let quantity = 100.0 + 50.0 * (i % 4) as f64;
            with_item(&format!("c{i}"), "CANETA ESFEROGRÁFICA AZUL", quantity, 5.0 + 0.1 * (i % 7) as f64)
        })
        .collect();
    cs.push(with_item("box", "CANETA ESFEROGRÁFICA AZUL", 20.0, 64.0));
    assert!(run(cs, &DetectionParams::default()).is_empty());
}

#[test]
fn an_item_whose_specification_its_peers_lack_is_another_product() {
    let mut cs = precise_peers("VEÍCULO TRANSPORTE PESSOAL");
    let mut bus = with_item("bus", "VEÍCULO TRANSPORTE PESSOAL", 4.0, 13.0);
    bus.items[0].complement = "VEÍCULO TRANSPORTE PESSOAL, TIPO ÔNIBUS, CAPACIDADE 44 PASSAGEIROS".into();
    cs.push(bus);
    assert!(run(cs.clone(), &DetectionParams::default()).is_empty());
    // The same price with the group's own specification is a finding.
    let n = cs.len() - 1;
    cs[n].items[0].complement = "".into();
    assert_eq!(run(cs, &DetectionParams::default()).len(), 1);
}
