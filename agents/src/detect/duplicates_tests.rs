//! Tests of the duplicate contracts detector.

use super::*;
use crate::demo::{DemoSpec, generate};
use crate::detect::simjoin::min_overlap;
use crate::model::contract::Contract;
use crate::testutil::{contract, recall};

const TEXT: &str = "AQUISIÇÃO DE MEDICAMENTOS DA ATENÇÃO ESPECIALIZADA (DIPIRONA SÓDICA 500 MG, OMEPRAZOL 20 MG E \
                    INSULINA HUMANA NPH) PARA ATENDIMENTO À DEMANDA DO HOSPITAL FEDERAL, EM RIO DE JANEIRO, QUANTIDADE \
                    ESTIMADA DE 1200 UNIDADES, LOTE 7, CONFORME TERMO DE REFERÊNCIA Nº 01234/2024";

fn run(cs: Vec<Contract>) -> Vec<Anomaly> {
    DuplicateContracts.run(&Dataset::from_contracts(cs), &DetectionParams::default(), &CancelFlag::new()).unwrap()
}

fn edited() -> String {
    TEXT.replace("1200", "1250")
}

#[test]
fn a_lightly_edited_copy_from_the_same_supplier_is_a_duplicate_of_the_earlier_contract() {
    let cs = vec![
        contract("2", &edited(), "S1", "36000", 102_000.0, (2024, 3, 20)),
        contract("1", TEXT, "S1", "36000", 100_000.0, (2024, 3, 1)),
        contract("3", "LOCAÇÃO DE VEÍCULOS", "S1", "36000", 100_000.0, (2024, 3, 1)),
    ];
    let found = run(cs);
    assert_eq!(found.len(), 1);
    let a = &found[0];
    assert_eq!(a.id, "duplicate_contracts-1");
    assert_eq!(a.affected_entities.primary.id, "1");
    assert_eq!(a.affected_entities.related.iter().map(|e| e.id.as_str()).collect::<Vec<_>>(), vec!["2"]);
    assert_eq!(a.value_at_stake(), 102_000.0);
    assert!(a.technical_details["similarity"].as_f64().unwrap() > THRESHOLD);
    assert_eq!(a.technical_details["max_days_apart"], 19);
    assert!(a.confidence >= 0.8, "{}", a.confidence);
}

#[test]
fn the_same_object_far_apart_in_value_and_time_or_another_supplier_far_in_value_is_not_a_duplicate() {
    let other_supplier = vec![
        contract("1", TEXT, "S1", "36000", 100_000.0, (2024, 3, 1)),
        contract("2", TEXT, "S2", "36000", 150_000.0, (2024, 3, 1)),
    ];
    assert!(run(other_supplier).is_empty());
    let far = vec![
        contract("1", TEXT, "S1", "36000", 100_000.0, (2024, 1, 1)),
        contract("2", TEXT, "S1", "36000", 180_000.0, (2024, 9, 1)),
    ];
    assert!(run(far).is_empty());
    let different = vec![
        contract("1", TEXT, "S1", "36000", 100_000.0, (2024, 1, 1)),
        contract(
            "2",
            &TEXT.replace("DIPIRONA SÓDICA 500 MG, OMEPRAZOL 20 MG", "CEFTRIAXONA 1 G, MORFINA 10 MG"),
            "S1",
            "36000",
            100_000.0,
            (2024, 1, 2),
        ),
    ];
    assert!(run(different).is_empty());
}

#[test]
fn identical_texts_close_in_value_but_months_apart_are_found_with_lower_confidence() {
    let cs = vec![
        contract("1", TEXT, "S1", "36000", 100_000.0, (2024, 1, 1)),
        contract("2", TEXT, "S1", "36000", 101_000.0, (2024, 9, 1)),
    ];
    assert!(run(cs.clone()).is_empty());
    let all = DetectionParams { confidence_threshold: 0.0, ..DetectionParams::default() };
    let found = DuplicateContracts.run(&Dataset::from_contracts(cs), &all, &CancelFlag::new()).unwrap();
    assert_eq!(found.len(), 1);
    assert!(found[0].confidence < 0.8);
}

#[test]
fn three_mutual_copies_make_one_anomaly() {
    let cs = vec![
        contract("c", TEXT, "S1", "36000", 100_000.0, (2024, 3, 3)),
        contract("b", &edited(), "S1", "36000", 100_500.0, (2024, 3, 2)),
        contract("a", &TEXT.replace("LOTE 7", "LOTE 8"), "S1", "36000", 99_000.0, (2024, 3, 1)),
    ];
    let found = run(cs);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].affected_entities.primary.id, "a");
    assert_eq!(found[0].affected_entities.related.len(), 2);
    assert_eq!(found[0].technical_details["group_size"], 3);
}

#[test]
fn similarity_ignores_case_accents_and_stopwords() {
    assert_eq!(similarity("Aquisição de MEDICAMENTOS", "aquisicao medicamentos"), 1.0);
    assert!(similarity(TEXT, &edited()) > 0.9);
    assert!(similarity("a b c", "d e f") < 0.01);
    assert_eq!(min_overlap(20, 20), 19);
}

#[test]
fn many_contracts_of_one_supplier_are_joined_without_comparing_every_pair() {
    let cs: Vec<Contract> = (0..20_000)
        .map(|i| {
            contract(&i.to_string(), &format!("{TEXT} ITEM A{i} B{i} C{i}"), "S1", "36000", 100_000.0, (2024, 3, 1))
        })
        .collect();
    let start = std::time::Instant::now();
    let found = run(cs);
    assert!(found.is_empty());
    assert!(start.elapsed().as_secs() < 30, "took {:?}", start.elapsed());
}

#[test]
#[ignore = "the demo generator no longer plants to this detector's thresholds (issue 4 item 11): its recall and precision are measured by examples/evaluate"]
fn duplicate_detector_finds_the_planted_copies_of_the_demo_data() {
    let data = generate(&DemoSpec { seed: 7, contracts: 5000, ..DemoSpec::default() });
    let found = DuplicateContracts.run(&data.dataset, &DetectionParams::default(), &CancelFlag::new()).unwrap();
    let (r, n, missed) = recall(&data, &found, NAME);
    assert!(n >= 10);
    assert!(r >= 0.9, "recall {r}, missed {missed:?}");
    assert!(found.len() <= n + n / 5, "{} found for {n} planted", found.len());
}

#[test]
fn boilerplate_objects_do_not_flood_the_results() {
    // One supplier signing the same generic object every week at the same price: the object
    // has fewer than 4 content words and names no purchase, so no pair is compared.
    let generic: Vec<Contract> = (0..300)
        .map(|i| {
            let d = (2024, 1 + (i / 28) as u32 % 12, 1 + (i % 28) as u32);
            contract(&i.to_string(), "SERVIÇOS DE LIMPEZA", "S1", "36000", 10_000.0, d)
        })
        .collect();
    assert!(run(generic).is_empty());
    // Long boilerplate with different items, quantities and references: below the threshold.
    let templated: Vec<Contract> = (0..300)
        .map(|i| {
            let object = format!(
                "CONTRATAÇÃO DE EMPRESA ESPECIALIZADA NA PRESTAÇÃO DE SERVIÇOS DE LIMPEZA ({}), {} M2, LOTE {}, \
                 TERMO DE REFERÊNCIA Nº {}/2024, PROCESSO 36000.{:06}/2024",
                ["ÁREAS INTERNAS", "JARDINAGEM", "COPEIRAGEM"][i % 3],
                100 + 7 * i,
                i % 40,
                10_000 + 13 * i,
                i * 31
            );
            contract(&i.to_string(), &object, "S1", "36000", 10_000.0 + i as f64, (2024, 3, 1 + (i % 28) as u32))
        })
        .collect();
    assert!(run(templated).is_empty());
}

#[test]
fn raising_the_sensitivity_reports_pairs_close_in_value_or_date_alone() {
    let cs = vec![
        contract("1", TEXT, "S1", "36000", 100_000.0, (2024, 1, 1)),
        contract("2", TEXT, "S1", "36000", 101_000.0, (2024, 9, 1)),
    ];
    let literal = DetectionParams { sensitivity: 1.0, ..DetectionParams::default() };
    let found = DuplicateContracts.run(&Dataset::from_contracts(cs), &literal, &CancelFlag::new()).unwrap();
    assert_eq!(found.len(), 1, "the literal rule: similarity above 85% and value or date close");
    assert_eq!(found[0].technical_details["threshold"], 0.85);
}

#[test]
fn the_same_object_from_another_supplier_at_a_close_value_and_date_is_a_duplicate_too() {
    let found = run(vec![
        contract("1", TEXT, "S1", "36000", 100_000.0, (2024, 3, 1)),
        contract("2", &edited(), "S2", "36000", 104_000.0, (2024, 3, 25)),
    ]);
    assert_eq!(found.len(), 1, "{found:?}");
    let a = &found[0];
    assert_eq!(a.id, "duplicate_contracts-cross-1");
    assert_eq!(a.technical_details["rule"], "other_supplier");
    assert_eq!(a.affected_entities.primary.id, "1");
    let related: Vec<(&str, &str)> =
        a.affected_entities.related.iter().map(|e| (e.kind.as_str(), e.id.as_str())).collect();
    assert_eq!(related, vec![("contract", "2"), ("supplier", "S1"), ("supplier", "S2")]);
    assert_eq!(a.value_at_stake(), 104_000.0);
    assert!(a.confidence >= 0.8);
}

#[test]
fn another_supplier_needs_both_a_close_value_and_a_close_date() {
    let far_value = run(vec![
        contract("1", TEXT, "S1", "36000", 100_000.0, (2024, 3, 1)),
        contract("2", &edited(), "S2", "36000", 130_000.0, (2024, 3, 25)),
    ]);
    assert!(far_value.is_empty(), "{far_value:?}");
    let far_date = run(vec![
        contract("1", TEXT, "S1", "36000", 100_000.0, (2024, 3, 1)),
        contract("2", &edited(), "S2", "36000", 101_000.0, (2024, 6, 1)),
    ]);
    assert!(far_date.is_empty(), "{far_date:?}");
    let other_organ = run(vec![
        contract("1", TEXT, "S1", "36000", 100_000.0, (2024, 3, 1)),
        contract("2", &edited(), "S2", "26000", 101_000.0, (2024, 3, 2)),
    ]);
    assert!(other_organ.is_empty(), "{other_organ:?}");
}

#[test]
fn pairs_across_a_block_boundary_are_found_once() {
    // 59 days apart: the two fall in consecutive 60-day blocks of the organ's calendar.
    let found = run(vec![
        contract("0", "LOCAÇÃO DE VEÍCULOS", "S9", "36000", 5_000.0, (2024, 1, 1)),
        contract("1", TEXT, "S1", "36000", 100_000.0, (2024, 2, 20)),
        contract("2", &edited(), "S2", "36000", 100_500.0, (2024, 4, 19)),
    ]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].technical_details["max_days_apart"], 59);
}
