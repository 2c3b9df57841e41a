//! Tests of duplicates across suppliers (the same object in one purchase process at a close
//! value and date) and of the look-alikes the duplicate search leaves out: the next bidder
//! taking over a rescinded contract, and contracts made with a supplier because of who it is
//! or what it leases.

use crate::detect::pattern::duplicates::tests::{TEXT, edited, in_process, run};
use crate::model::amendment::{Amendment, AmendmentKind};
use crate::testutil::contract;

#[test]
fn the_next_bidder_taking_over_a_rescinded_contract_is_not_a_duplicate() {
    let first = in_process(contract("1", TEXT, "S1", "36000", 100_000.0, (2024, 3, 1)), "P1");
    let second = in_process(contract("2", &edited(), "S2", "36000", 104_000.0, (2024, 3, 25)), "P1");
    assert_eq!(run(vec![first.clone(), second.clone()]).len(), 1, "the same purchase contracted twice");
    let mut rescinded = first;
    rescinded.amendments.push(Amendment {
        kinds: vec![AmendmentKind::Termination],
        signed_on: chrono::NaiveDate::from_ymd_opt(2024, 3, 20),
        ..Amendment::default()
    });
    assert!(run(vec![rescinded, second]).is_empty());
}

#[test]
fn two_leases_or_utility_contracts_of_one_supplier_are_not_duplicates_by_their_text() {
    let lease = "LOCAÇÃO DE IMÓVEL COMERCIAL DESTINADO AO FUNCIONAMENTO DA SEDE REGIONAL DA UNIDADE EM BRASILIA";
    let power = "FORNECIMENTO DE ENERGIA ELÉTRICA EM ALTA TENSÃO PELA CONCESSIONÁRIA LOCAL PARA A UNIDADE EM BRASILIA";
    for text in [lease, power] {
        let cs = vec![
            contract("1", text, "S1", "36000", 300_000.0, (2024, 3, 1)),
            contract("2", text, "S1", "36000", 310_000.0, (2024, 3, 20)),
        ];
        assert!(run(cs).is_empty(), "{text}");
    }
    // The same text for goods is a duplicate.
    let cs = vec![
        contract("1", TEXT, "S1", "36000", 300_000.0, (2024, 3, 1)),
        contract("2", TEXT, "S1", "36000", 310_000.0, (2024, 3, 20)),
    ];
    assert_eq!(run(cs).len(), 1);
}

#[test]
fn the_same_object_from_another_supplier_in_one_process_at_a_close_value_and_date_is_a_duplicate_too() {
    let found = run(vec![
        in_process(contract("1", TEXT, "S1", "36000", 100_000.0, (2024, 3, 1)), "P1"),
        in_process(contract("2", &edited(), "S2", "36000", 104_000.0, (2024, 3, 25)), "P1"),
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
    assert!(a.severity <= crate::model::anomaly::Severity::Medium, "another supplier is medium at most");
}

#[test]
fn another_supplier_outside_the_process_for_another_item_or_on_a_multi_award_purchase_is_not_a_duplicate() {
    // Changed with issue [4]: identical objects from different suppliers are common; without
    // the same purchase process there is no corroboration.
    let unrelated = run(vec![
        contract("1", TEXT, "S1", "36000", 100_000.0, (2024, 3, 1)),
        contract("2", &edited(), "S2", "36000", 104_000.0, (2024, 3, 25)),
    ]);
    assert!(unrelated.is_empty(), "{unrelated:?}");
    let mut lots = vec![
        in_process(contract("1", TEXT, "S1", "36000", 100_000.0, (2024, 3, 1)), "P1"),
        in_process(contract("2", &edited(), "S2", "36000", 104_000.0, (2024, 3, 25)), "P1"),
    ];
    lots[1].items[0].code = "P1-00002".into();
    assert!(run(lots).is_empty(), "two items (lots) of one tender are two purchases");
    let mut ata = vec![
        in_process(contract("1", TEXT, "S1", "36000", 100_000.0, (2024, 3, 1)), "P1"),
        in_process(contract("2", &edited(), "S2", "36000", 104_000.0, (2024, 3, 25)), "P1"),
    ];
    for c in &mut ata {
        c.modality = "Pregão - Registro de Preço".into();
    }
    assert!(run(ata.clone()).is_empty());
    for c in &mut ata {
        c.modality = "Inexigibilidade de Licitação".into();
    }
    assert!(run(ata).is_empty(), "a credenciamento contracts many suppliers for one object");
}

#[test]
fn another_supplier_needs_both_a_close_value_and_a_close_date() {
    let far_value = run(vec![
        in_process(contract("1", TEXT, "S1", "36000", 100_000.0, (2024, 3, 1)), "P1"),
        in_process(contract("2", &edited(), "S2", "36000", 130_000.0, (2024, 3, 25)), "P1"),
    ]);
    assert!(far_value.is_empty(), "{far_value:?}");
    let far_date = run(vec![
        in_process(contract("1", TEXT, "S1", "36000", 100_000.0, (2024, 3, 1)), "P1"),
        in_process(contract("2", &edited(), "S2", "36000", 101_000.0, (2024, 6, 1)), "P1"),
    ]);
    assert!(far_date.is_empty(), "{far_date:?}");
    let other_organ = run(vec![
        in_process(contract("1", TEXT, "S1", "36000", 100_000.0, (2024, 3, 1)), "P1"),
        in_process(contract("2", &edited(), "S2", "26000", 101_000.0, (2024, 3, 2)), "P1"),
    ]);
    assert!(other_organ.is_empty(), "{other_organ:?}");
}

#[test]
fn a_pair_59_days_apart_in_one_process_is_found_once() {
    let found = run(vec![
        in_process(contract("0", "LOCAÇÃO DE VEÍCULOS", "S9", "36000", 5_000.0, (2024, 1, 1)), "P1"),
        in_process(contract("1", TEXT, "S1", "36000", 100_000.0, (2024, 2, 20)), "P1"),
        in_process(contract("2", &edited(), "S2", "36000", 100_500.0, (2024, 4, 19)), "P1"),
    ]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].technical_details["max_days_apart"], 59);
}
