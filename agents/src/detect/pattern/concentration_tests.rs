//! Tests of the supplier concentration detector.

use chrono::Datelike;

use super::*;
use crate::model::contract::Contract;
use crate::testutil::contract;

const BIG: &str = "12345678000190";

/// An organ-year in which each supplier `(document, value)` gets `per_supplier` contracts
/// adding up to `value` (short documents are zero-padded to a CNPJ's 14 digits: a shorter
/// code would be a public unit, outside the market). A contract of one cent without a
/// supplier on the 1st of every month and on 31 December makes the data cover the whole year.
fn organ_year(organ: &str, year: i32, shares: &[(&str, f64)], per_supplier: usize) -> Vec<Contract> {
    let calendar = (1..=12u32).map(|m| (m, 1)).chain([(12, 31)]);
    let mut out: Vec<Contract> = calendar
        .map(|(m, d)| contract(&format!("{organ}-{year}-cal-{m}-{d}"), "X", "", organ, 0.01, (year, m, d)))
        .collect();
    for (s, value) in shares {
        let s = &format!("{s:0>14}");
        for k in 0..per_supplier {
            let id = format!("{organ}-{year}-{s}-{k}");
            out.push(contract(&id, "LIMPEZA", s, organ, value / per_supplier as f64, (year, 1 + k as u32 % 12, 3)));
        }
    }
    out
}

/// Five suppliers with a fifth each.
const EVEN: &[(&str, f64)] = &[("1", 100.0), ("2", 100.0), ("3", 100.0), ("4", 100.0), ("5", 100.0)];

/// Three peer organs in 2024 whose largest supplier holds a fifth.
fn peers() -> Vec<Contract> {
    ["26000", "30000", "25000"].iter().flat_map(|o| organ_year(o, 2024, EVEN, 2)).collect()
}

fn run_at(cs: Vec<Contract>, p: &DetectionParams) -> Vec<Anomaly> {
    SupplierConcentration.run(&Dataset::from_contracts(cs), p, &CancelFlag::new()).unwrap()
}

fn run(cs: Vec<Contract>) -> Vec<Anomaly> {
    run_at(cs, &DetectionParams::default())
}

fn concentrated() -> Vec<Contract> {
    organ_year("36000", 2024, &[(BIG, 500.0), ("1", 200.0), ("2", 150.0), ("3", 150.0)], 3)
}

#[test]
fn a_supplier_with_half_of_an_organ_year_against_peers_with_a_fifth_is_flagged() {
    let mut cs = peers();
    cs.extend(concentrated());
    let found = run(cs.clone());
    assert_eq!(found.len(), 1, "{found:?}");
    let a = &found[0];
    assert_eq!(a.id, format!("supplier_concentration-36000-2024-{BIG}"));
    assert_eq!(a.affected_entities.primary.kind, "supplier");
    assert_eq!(a.affected_entities.primary.id, BIG);
    let related: Vec<(&str, &str)> =
        a.affected_entities.related.iter().map(|e| (e.kind.as_str(), e.id.as_str())).collect();
    assert_eq!(related.iter().filter(|(k, _)| *k == "contract").count(), 3);
    assert!(related.contains(&("organ", "36000")));
    assert!((a.technical_details["share"].as_f64().unwrap() - 0.5).abs() < 1e-9);
    assert!((a.technical_details["peer_largest_share"].as_f64().unwrap() - 0.2).abs() < 1e-9);
    assert_eq!(a.technical_details["peers"], 3);
    assert_eq!(a.technical_details["share_of"], "competitive_value");
    // The value beyond what the peers' largest supplier usually holds.
    assert!((a.value_at_stake() - 300.0).abs() < 0.01);
    assert!(a.confidence >= 0.8);
    // A year the data does not cover whole (here cut in November) is not judged.
    let cut: Vec<Contract> =
        cs.into_iter().filter(|c| c.signed_on.is_some_and(|d| d.month() < 11 || d.year() < 2024)).collect();
    assert!(run(cut).is_empty());
}

#[test]
fn one_large_contract_is_not_a_supplier_that_keeps_winning() {
    let mut cs = peers();
    cs.extend(organ_year("36000", 2024, &[(BIG, 500.0)], 1));
    cs.extend(organ_year("36000", 2024, &[("1", 200.0), ("2", 150.0), ("3", 150.0)], 4));
    assert!(run(cs).is_empty());
}

#[test]
fn without_peers_there_is_no_finding_and_the_organ_s_other_years_can_be_its_peers() {
    assert!(run(concentrated()).is_empty());
    let mut cs = concentrated();
    cs.extend(organ_year("36000", 2023, EVEN, 2));
    let found = run(cs);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].technical_details["peer_kind"], "same_organ_other_years");
}

#[test]
fn a_share_usual_among_the_peers_is_not_flagged() {
    let mut cs: Vec<Contract> = ["26000", "30000", "25000"]
        .iter()
        .flat_map(|o| organ_year(o, 2024, &[("9", 450.0), ("1", 200.0), ("2", 200.0), ("3", 150.0)], 3))
        .collect();
    cs.extend(concentrated());
    assert!(run(cs).is_empty());
}

#[test]
fn utilities_leases_public_bodies_and_secret_contracts_are_left_out_of_the_market() {
    for (object, name, doc) in [
        ("FORNECIMENTO DE ENERGIA ELÉTRICA", "COMPANHIA ENERGETICA", BIG),
        ("LOCAÇÃO DE IMÓVEL PARA A SEDE", "IMOBILIARIA", BIG),
        ("SERVIÇOS DE TI", "SERPRO - SEDE", BIG),
        ("Informação protegida por sigilo", "Sigiloso", "-11"),
    ] {
        let mut cs = peers();
        for mut c in concentrated() {
            if c.supplier.document == BIG {
                c.object = object.into();
                c.supplier.name = name.into();
                c.supplier.document = doc.into();
            }
            cs.push(c);
        }
        // The three remaining suppliers are too few contracts to judge (9 < 10).
        assert!(run(cs).is_empty(), "{object}");
    }
}

#[test]
fn small_or_two_supplier_organ_years_are_not_judged() {
    let mut cs = peers();
    cs.extend(organ_year("36000", 2024, &[(BIG, 900.0), ("1", 50.0), ("2", 50.0)], 2));
    assert!(run(cs).is_empty(), "fewer than 10 contracts");
    let mut cs = peers();
    cs.extend(organ_year("36000", 2024, &[(BIG, 900.0), ("1", 100.0)], 6));
    assert!(run(cs).is_empty(), "fewer than 3 suppliers");
}

#[test]
fn a_share_just_above_a_quarter_is_found_only_at_the_literal_sensitivity() {
    let mut cs = peers();
    cs.extend(organ_year("36000", 2024, &[(BIG, 270.0), ("1", 250.0), ("2", 240.0), ("3", 240.0)], 4));
    assert!(run(cs.clone()).is_empty());
    let literal = DetectionParams { sensitivity: 1.0, ..DetectionParams::default() };
    let found = run_at(cs, &literal);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].technical_details["threshold"], 0.25);
}

#[test]
fn a_supplier_with_thousands_of_contracts_names_its_largest_five_hundred() {
    let mut cs = peers();
    cs.extend(organ_year("36000", 2024, &[("1", 1000.0), ("2", 1000.0), ("3", 1000.0)], 10));
    cs.extend(
        (0..1200)
            .map(|k| contract(&format!("b{k}"), "LIMPEZA", BIG, "36000", 5.0 + k as f64, (2024, 1 + k as u32 % 12, 2))),
    );
    let found = run(cs);
    assert_eq!(found.len(), 1);
    let a = &found[0];
    assert_eq!(a.technical_details["supplier_contracts"], 1200);
    let named: Vec<&str> = a.record_ids().filter(|id| id.starts_with('b')).collect();
    assert_eq!(named.len(), MAX_RELATED);
    assert!(named.contains(&"b1199") && !named.contains(&"b0"), "the largest are kept");
}
