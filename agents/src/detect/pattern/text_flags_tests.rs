//! Tests of the contract-text detectors.

use super::*;
use crate::model::dataset::Dataset;
use crate::testutil::contract;

fn run(d: &dyn Detector, cs: Vec<Contract>, s: f64) -> Vec<Anomaly> {
    let p = DetectionParams { sensitivity: s, ..DetectionParams::default() };
    d.run(&Dataset::from_contracts(cs), &p, &CancelFlag::new()).unwrap()
}

#[test]
fn a_generic_object_of_real_money_is_vague_and_a_specific_or_small_one_is_not() {
    let cs = vec![
        contract("vague", "AQUISIÇÃO DE MATERIAL", "S", "26000", 200_000.0, (2024, 3, 1)),
        contract("small", "MATERIAL DE CONSUMO", "S", "26000", 5_000.0, (2024, 3, 1)),
        contract("specific", "AQUISIÇÃO DE PAPEL A4 75 G, 500 RESMAS", "S", "26000", 200_000.0, (2024, 3, 1)),
        contract("one_word", "AQUISIÇÃO DE MEDICAMENTOS", "S", "26000", 200_000.0, (2024, 3, 1)),
    ];
    let found = run(&VagueObject, cs.clone(), 0.7);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].id, "vague_object-vague");
    assert_eq!(found[0].kind, AnomalyType::PatternAnomaly);
    assert_eq!(found[0].technical_details["specific_words"], 0);
    let literal: Vec<String> = run(&VagueObject, cs, 1.0).into_iter().map(|a| a.id).collect();
    assert!(literal.contains(&"vague_object-one_word".to_string()), "{literal:?}");
    assert!(!literal.contains(&"vague_object-small".to_string()), "R$ 5.000 is below every value threshold");
}

#[test]
fn a_generic_object_under_the_direct_purchase_limit_in_force_is_routine() {
    // 2024: R$ 59.906,02 (Decreto 11.871/2023); 2025: R$ 62.725,59 (Decreto 12.343/2024).
    let cs = vec![
        contract("under_2024", "AQUISIÇÃO DE MATERIAL DE CONSUMO", "S", "26000", 58_000.0, (2024, 5, 1)),
        contract("over_2024", "AQUISIÇÃO DE MATERIAL DE CONSUMO", "S", "26000", 61_000.0, (2024, 5, 1)),
        contract("under_2025", "AQUISIÇÃO DE MATERIAL DE CONSUMO", "S", "26000", 61_000.0, (2025, 5, 1)),
        // Under Lei 8.666 the limit was R$ 17.600: the R$ 50.000 floor holds.
        contract("old", "AQUISIÇÃO DE MATERIAL DE CONSUMO", "S", "26000", 40_000.0, (2019, 5, 1)),
    ];
    let found: Vec<String> = run(&VagueObject, cs.clone(), 0.7).into_iter().map(|a| a.id).collect();
    assert_eq!(found, vec!["vague_object-over_2024"]);
    assert_eq!(routine_limit(NaiveDate::from_ymd_opt(2025, 5, 1)), Some(62_725.59));
    // From sensitivity 0.9 the limit no longer raises the floor.
    assert_eq!(run(&VagueObject, cs, 1.0).len(), 4);
}

#[test]
fn a_brand_without_an_equivalent_is_a_restriction() {
    let cs = vec![
        contract("marca", "AQUISIÇÃO DE NOTEBOOKS, EXCLUSIVAMENTE DA MARCA DELL", "S", "26000", 90_000.0, (2024, 3, 1)),
        contract("named", "AQUISIÇÃO DE NOTEBOOKS, MARCA DELL", "S", "26000", 90_000.0, (2024, 3, 1)),
        contract("similar", "AQUISIÇÃO DE NOTEBOOKS DELL OU SIMILAR", "S", "26000", 90_000.0, (2024, 3, 1)),
        contract("bare", "AQUISIÇÃO DE TONER HP", "S", "26000", 90_000.0, (2024, 3, 1)),
        contract("none", "AQUISIÇÃO DE TONER PARA IMPRESSORA", "S", "26000", 90_000.0, (2024, 3, 1)),
    ];
    let found = run(&BrandRestriction, cs.clone(), 0.7);
    assert_eq!(found.len(), 1, "{found:?}");
    let a = &found[0];
    assert_eq!(a.id, "brand_restriction-marca");
    assert_eq!(a.kind, AnomalyType::ComplianceViolation);
    assert_eq!(a.technical_details["brands"], serde_json::json!(["dell"]));
    assert!(a.context.regulatory_context.is_some());
    let literal: Vec<String> = run(&BrandRestriction, cs, 1.0).into_iter().map(|a| a.id).collect();
    assert_eq!(literal, vec!["brand_restriction-marca", "brand_restriction-named", "brand_restriction-bare"]);
}

#[test]
fn an_inexigibilidade_naming_its_exclusive_maker_is_no_brand_restriction() {
    let mut c =
        contract("inex", "FORNECIMENTO DE KIT EXCLUSIVAMENTE DA MARCA MOBIUS", "S", "26000", 90_000.0, (2024, 3, 1));
    assert_eq!(run(&BrandRestriction, vec![c.clone()], 0.7).len(), 1);
    c.modality = "Inexigibilidade de Licitação".into();
    assert!(run(&BrandRestriction, vec![c], 0.7).is_empty());
}
