//! Tests of `phantom_suppliers` on hand-made registries.

use chrono::NaiveDate;

use super::*;
use crate::model::cnpj::cnpj_from_parts;
use crate::model::registry_facts::{Address, Partner, SupplierProfile};
use crate::testutil::contract;

fn profile(root: u32, opened: (i32, u32, u32), partners: bool, door: &str, phone: &str) -> SupplierProfile {
    SupplierProfile {
        cnpj: cnpj_from_parts(root, 1),
        name: format!("EMPRESA {root}"),
        opened_on: NaiveDate::from_ymd_opt(opened.0, opened.1, opened.2),
        status: "ATIVA".into(),
        cnae: String::new(),
        address: Address { number: "10".into(), complement: door.into(), zip: "70000000".into(), ..Address::default() },
        phone: phone.into(),
        partners: if partners {
            vec![Partner { name: "A".into(), document: "***123456**".into(), role: String::new() }]
        } else {
            Vec::new()
        },
    }
}

fn run(profiles: Vec<SupplierProfile>, s: f64, threshold: f64) -> Vec<String> {
    let contracts = profiles
        .iter()
        .enumerate()
        .map(|(k, p)| contract(&format!("c{k}"), "X", &p.cnpj, "36000", 90_000.0, (2024, 6, 1)))
        .collect();
    let ds = Dataset { suppliers: profiles, ..Dataset::from_contracts(contracts) };
    let p = DetectionParams { sensitivity: s, confidence_threshold: threshold, ..DetectionParams::default() };
    PhantomSuppliers
        .run(&ds, &p, &CancelFlag::new())
        .unwrap()
        .into_iter()
        .map(|a| a.affected_entities.primary.id)
        .collect()
}

#[test]
fn a_young_company_without_partners_at_a_crowded_door_is_reported_alone_each_flag_is_not() {
    let shell = profile(10_000_001, (2024, 4, 20), false, "SALA 9", "6111111111");
    let neighbours = [
        profile(10_000_002, (2001, 1, 1), true, "SALA 9", "6122222222"),
        profile(10_000_003, (2003, 1, 1), true, "SALA 9", "6133333333"),
    ];
    let young = profile(10_000_004, (2024, 5, 1), true, "SALA 1", "6144444444");
    let individual = profile(10_000_005, (2010, 1, 1), false, "SALA 2", "6155555555");
    let mut all = vec![shell.clone(), young, individual];
    all.extend(neighbours);
    assert_eq!(run(all.clone(), 0.7, 0.8), vec![shell.cnpj.clone()]);
    assert_eq!(run(all.clone(), 1.0, 0.8), vec![shell.cnpj.clone()]);
    assert_eq!(run(all, 1.0, 0.5).len(), 5, "single red flags count only at the top sensitivity, at low confidence");
    assert_eq!((young_days(0.7), young_days(1.0)), (120, 365));
    assert!(flags_needed(0.7) > flags_needed(0.9));
}

#[test]
fn a_profile_without_a_cnpj_neither_crowds_a_door_nor_is_named() {
    // At 0.9 a door needs three suppliers: the blank profile would make the third.
    let shell = profile(10_000_001, (2024, 4, 20), false, "SALA 9", "6111111111");
    let neighbour = profile(10_000_002, (2001, 1, 1), true, "SALA 9", "6122222222");
    let mut blank = profile(10_000_003, (2003, 1, 1), true, "SALA 9", "6133333333");
    blank.cnpj = String::new();
    let contracts = vec![contract("c0", "X", &shell.cnpj, "36000", 90_000.0, (2024, 6, 1))];
    let ds = Dataset { suppliers: vec![shell, neighbour, blank], ..Dataset::from_contracts(contracts) };
    let p = DetectionParams { sensitivity: 0.9, confidence_threshold: 0.1, ..DetectionParams::default() };
    let found = PhantomSuppliers.run(&ds, &p, &CancelFlag::new()).unwrap();
    assert!(!found.is_empty());
    for a in &found {
        assert!(a.affected_entities.related.iter().chain([&a.affected_entities.primary]).all(|e| !e.id.is_empty()));
        assert_eq!(
            a.technical_details["flags"].as_array().map(|f| f.iter().any(|x| x == "shared_address")),
            Some(false)
        );
    }
}
