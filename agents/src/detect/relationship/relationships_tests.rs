//! Tests of `relationship_network` on hand-made registries, biddings and servants.

use super::*;
use crate::model::bidding::{Bid, Bidding};
use crate::model::cnpj::cnpj_from_parts;
use crate::model::contract::{Organ, Party};
use crate::model::registry_facts::{Address, Partner, SupplierProfile};
use crate::model::servant::Servant;

fn profile(root: u32, phone: &str, door: &str) -> SupplierProfile {
    SupplierProfile {
        cnpj: cnpj_from_parts(root, 1),
        name: format!("EMPRESA {root}"),
        opened_on: None,
        status: "ATIVA".into(),
        cnae: String::new(),
        address: Address { number: "10".into(), complement: door.into(), zip: "01310100".into(), ..Address::default() },
        phone: phone.into(),
        partners: vec![Partner {
            name: format!("SOCIO {root}"),
            document: format!("***{:06}**", root % 1_000_000),
            role: String::new(),
        }],
    }
}

fn bidding(id: &str, docs: &[String]) -> Bidding {
    Bidding {
        id: id.into(),
        object: "X".into(),
        modality: "Pregão".into(),
        participants: docs
            .iter()
            .enumerate()
            .map(|(k, d)| Bid {
                bidder: Party { name: d.clone().into(), document: d.clone().into() },
                value: Some(100.0 + k as f64),
                winner: k == 0,
            })
            .collect(),
        ..Bidding::default()
    }
}

fn run(ds: &Dataset, s: f64) -> Vec<Anomaly> {
    let p = DetectionParams { sensitivity: s, ..DetectionParams::default() };
    RelationshipNetwork.run(ds, &p, &CancelFlag::new()).unwrap()
}

#[test]
fn suppliers_sharing_a_phone_that_bid_against_each_other_are_a_network() {
    let (a, b, c) = (
        profile(11_111_111, "6133334444", "SALA 1"),
        profile(22_222_222, "6133334444", "SALA 2"),
        profile(33_333_333, "6199990000", "SALA 3"),
    );
    let bids = vec![
        bidding("b1", &[a.cnpj.clone(), b.cnpj.clone(), c.cnpj.clone()]),
        bidding("b2", &[b.cnpj.clone(), a.cnpj.clone()]),
    ];
    let ds = Dataset { suppliers: vec![a.clone(), b.clone(), c], biddings: bids, ..Dataset::default() };
    let found = run(&ds, 0.7);
    assert_eq!(found.len(), 1);
    let ids: Vec<&str> = found[0].record_ids().collect();
    assert!(ids.contains(&a.cnpj.as_str()) && ids.contains(&b.cnpj.as_str()) && ids.contains(&"b1"));
    let once = Dataset { biddings: ds.biddings[..1].to_vec(), ..ds.clone() };
    assert!(run(&once, 0.7).is_empty() && run(&once, 0.9).len() == 1, "one meeting counts from sensitivity 0.85");
    assert_eq!(found[0].technical_details["detector"], NAME);
    let apart = Dataset { biddings: Vec::new(), ..ds };
    assert!(run(&apart, 0.7).is_empty(), "related firms that never compete are not reported");
}

#[test]
fn an_address_shared_by_many_firms_joins_nobody_below_the_top_sensitivity() {
    let firms: Vec<SupplierProfile> =
        (0..10).map(|k| profile(40_000_000 + k, &format!("61{:08}", k), "SALA 300")).collect();
    let docs: Vec<String> = firms.iter().take(3).map(|p| p.cnpj.clone()).collect();
    let ds = Dataset { suppliers: firms, biddings: vec![bidding("b", &docs)], ..Dataset::default() };
    assert!(run(&ds, 0.7).is_empty());
    assert_eq!(run(&ds, 1.0).len(), 1);
    assert!(max_share(0.7) < max_share(0.9) && max_share(0.9) < max_share(1.0));
}

#[test]
fn a_servant_who_is_a_partner_of_a_supplier_of_the_own_organ_is_reported() {
    let mut p = profile(55_555_555, "6130000000", "");
    p.partners.push(Partner { name: "MARIA DA SILVA".into(), document: "***456789**".into(), role: String::new() });
    let servant = |id: &str, cpf: &str, name: &str, organ: &str| Servant {
        id: id.into(),
        cpf: cpf.into(),
        name: name.into(),
        organ: Organ { code: organ.into(), acronym: arcstr::ArcStr::new(), name: "ORGAO".into() },
        exercise_organ: organ.into(),
        situation: String::new(),
        kind: String::new(),
        role: String::new(),
    };
    let own = servant("1", "***.456.789-**", "Maria da Silva", "36201");
    let other = servant("2", "***.456.789-**", "MARIA DA SILVA", "26000");
    let homonym = servant("3", "***.111.222-**", "MARIA DA SILVA", "36000");
    let c = crate::testutil::contract("k1", "X", &p.cnpj, "36000", 50_000.0, (2024, 1, 1));
    let ds = Dataset { suppliers: vec![p], servants: vec![own, other, homonym], ..Dataset::from_contracts(vec![c]) };
    let found = run(&ds, 0.7);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].affected_entities.primary.kind, "servant");
    assert_eq!(found[0].affected_entities.primary.id, "1");
    assert!(found[0].record_ids().any(|r| r == "k1"));
}

#[test]
fn profiles_without_a_cnpj_are_never_a_network_nor_named() {
    let (mut a, mut b) = (profile(11_111_111, "6133334444", "SALA 1"), profile(22_222_222, "6155556666", "SALA 2"));
    a.cnpj = String::new();
    b.cnpj = String::new();
    let ds = Dataset {
        suppliers: vec![a, b],
        biddings: vec![bidding("b1", &[String::new(), String::new()]), bidding("b2", &[String::new(), String::new()])],
        ..Dataset::default()
    };
    assert!(run(&ds, 1.0).is_empty());
}
