//! Tests of the duplicate contracts detector.

use super::*;
use crate::demo::{DemoSpec, generate};
use crate::detect::pattern::simjoin::min_overlap;
use crate::model::contract::Contract;
use crate::testutil::{contract, recall};

pub(in crate::detect::pattern) const TEXT: &str = "AQUISIÇÃO DE MEDICAMENTOS DA ATENÇÃO ESPECIALIZADA (DIPIRONA SÓDICA 500 MG, OMEPRAZOL 20 MG E \
                    INSULINA HUMANA NPH) PARA ATENDIMENTO À DEMANDA DO HOSPITAL FEDERAL, EM RIO DE JANEIRO, QUANTIDADE \
                    ESTIMADA DE 1200 UNIDADES, LOTE 7, CONFORME TERMO DE REFERÊNCIA Nº 01234/2024";

pub(in crate::detect::pattern) fn run(cs: Vec<Contract>) -> Vec<Anomaly> {
    DuplicateContracts.run(&Dataset::from_contracts(cs), &DetectionParams::default(), &CancelFlag::new()).unwrap()
}

pub(in crate::detect::pattern) fn edited() -> String {
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
    // Changed with issue [4]: copies from another supplier are duplicates only within one
    // purchase process; this generator plants some under different process numbers, which the
    // rule no longer calls duplicates, so recall is counted over the copies the rule covers.
    let cs = &data.dataset.contracts;
    let by_id = |id: &str| cs.iter().find(|c| c.id.as_str() == id);
    let mut covered = data.clone();
    covered.planted.retain(|p| {
        crate::testutil::detector_of(p.scheme) != NAME || {
            let (a, b) = (by_id(&p.record_ids[0]), by_id(&p.record_ids[1]));
            a.zip(b).is_some_and(|(a, b)| {
                a.supplier.document == b.supplier.document
                    || (!a.process_number.is_empty() && a.process_number == b.process_number)
            })
        }
    });
    let (r, n, missed) = recall(&covered, &found, NAME);
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

/// A contract of purchase process `process`, listing the process's first item.
pub(in crate::detect::pattern) fn in_process(mut c: Contract, process: &str) -> Contract {
    c.process_number = process.into();
    c.items = vec![crate::model::amendment::ContractItem {
        code: format!("{process}-00001").into(),
        description: "MEDICAMENTO".into(),
        complement: "".into(),
        quantity: 1.0,
        value: c.initial_value,
    }];
    c
}

#[test]
fn texts_naming_two_places_are_two_purchases() {
    // One pregão, one supplier, the same service in two offices (DPU's 2024 maintenance
    // contracts): the texts differ by the place, which is specific in the dataset.
    let text = |city: &str| {
        format!(
            "O OBJETO DO PRESENTE INSTRUMENTO É A CONTRATAÇÃO DE EMPRESA PARA PRESTAÇÃO DE SERVIÇOS DE NATUREZA \
             CONTINUADA PARA MANUTENÇÃO PREVENTIVA E CORRETIVA DOS SISTEMAS DE AR CONDICIONADO DA DPU EM {city}"
        )
    };
    let mut cs: Vec<Contract> = (0..100)
        .map(|i| {
            contract(
                &format!("o{i}"),
                "AQUISIÇÃO DE MATERIAL DE EXPEDIENTE",
                &format!("X{i}"),
                "29000",
                1e3,
                (2024, 1, 1),
            )
        })
        .collect();
    cs.push(contract("1", &text("CURITIBA"), "G", "29000", 150_595.0, (2024, 6, 7)));
    cs.push(contract("2", &text("MANAUS"), "G", "29000", 155_000.0, (2024, 6, 10)));
    assert!(run(cs.clone()).is_empty());
    cs.push(contract("3", &text("CURITIBA"), "G", "29000", 151_000.0, (2024, 6, 20)));
    let found = run(cs);
    assert_eq!(found.len(), 1, "the same office twice is a duplicate");
    assert_eq!(found[0].affected_entities.related[0].id, "3");
}

#[test]
fn units_drawing_on_one_ata_from_the_same_supplier_are_not_duplicates() {
    let mut cs = vec![
        contract("1", TEXT, "S1", "36000", 100_000.0, (2024, 3, 1)),
        contract("2", &edited(), "S1", "36000", 101_000.0, (2024, 3, 5)),
    ];
    for (c, unit) in cs.iter_mut().zip(["250005", "250110"]) {
        c.modality = "Pregão - Registro de Preço".into();
        c.unit.code = unit.into();
    }
    assert!(run(cs.clone()).is_empty());
    cs[1].unit.code = "250005".into();
    assert_eq!(run(cs).len(), 1, "the same unit signing the same ata twice is still a duplicate");
}

#[test]
fn the_secret_notice_and_widely_shared_boilerplate_are_not_duplicates() {
    let secret = "Informação protegida por sigilo nos termos da legislação vigente";
    let found = run(vec![
        contract("1", secret, "-11", "30000", 2588.97, (2023, 12, 30)),
        contract("2", secret, "-11", "30000", 2588.97, (2023, 12, 30)),
    ]);
    assert!(found.is_empty(), "{found:?}");
    // A long text hundreds of contracts carry: two copies of it from one supplier say nothing.
    let boiler = "PRESTAÇÃO DE SERVIÇOS DE APOIO ADMINISTRATIVO, TÉCNICO E OPERACIONAL COM DEDICAÇÃO EXCLUSIVA";
    let mut cs: Vec<Contract> = (0..300)
        .map(|i| contract(&i.to_string(), boiler, &format!("S{i}"), &format!("{}", 20000 + i), 50_000.0, (2024, 1, 5)))
        .collect();
    cs.push(contract("a", boiler, "S7", "20007", 50_100.0, (2024, 1, 20)));
    assert!(run(cs).is_empty());
}

#[test]
fn two_lots_of_one_tender_are_two_purchases_and_a_record_listed_twice_is_a_duplicate() {
    // Lines of the Portal's 2024-01 download: one supplier won two lots of one tender (ETEL,
    // UG 393028, items ...300001 and ...300002), and one contract appears twice (VILLAGE, UG
    // 373055, contract 000252024 with the same items).
    let object = "Objeto: EXECUÇÃO DOS SERVIÇOS TÉCNICOS ESPECIALIZADOS DE SUPERVISÃO E APOIO À FISCALIZAÇÃO NA \
                  EXECUÇÃO DAS AÇÕES DE MANUTENÇÃO E RESTAURAÇÃO";
    let with_item = |id: &str, code: &str, value: f64| {
        let mut c = contract(id, object, "03086225000184", "39000", value, (2024, 1, 5));
        c.items = vec![crate::model::amendment::ContractItem {
            code: code.into(),
            description: "SUPERVISÃO / GERENCIAMENTO / FISCALIZAÇÃO".into(),
            complement: "".into(),
            quantity: 1.0,
            value,
        }];
        c
    };
    // Both lots come from one licitação, the purchase process the loaders key them by.
    let lots: Vec<Contract> = [
        with_item("000102024", "39302805000012023300001", 33_450_062.39),
        with_item("000112024", "39302805000012023300002", 32_449_553.75),
    ]
    .into_iter()
    .map(|mut c| {
        c.process_number = "393028-05-000012023".into();
        c
    })
    .collect();
    assert!(run(lots).is_empty());
    let twice = vec![
        with_item("000252024", "37305505000022023300001", 1_075_965.60),
        with_item("000252024b", "37305505000022023300001", 1_075_965.60),
    ];
    assert_eq!(run(twice).len(), 1);
}

#[test]
fn contracts_of_one_supplier_in_one_purchase_or_one_document_published_twice_are_no_duplicates() {
    // Lots of one pregão, orders from one ata, empenhos of one contract: one purchase.
    let mut lot = contract("2", &edited(), "S1", "36000", 102_000.0, (2024, 3, 20));
    let mut first = contract("1", TEXT, "S1", "36000", 100_000.0, (2024, 3, 1));
    (lot.process_number, first.process_number) = ("P1".into(), "P1".into());
    assert!(run(vec![first.clone(), lot.clone()]).is_empty());
    // The same unit and number twice is one contract listed twice by the source.
    lot.process_number = "P2".into();
    lot.number = first.number.clone();
    assert!(run(vec![first.clone(), lot.clone()]).is_empty());
    // Another purchase of the same thing is a duplicate.
    lot.number = "999/2024".into();
    assert_eq!(run(vec![first, lot]).len(), 1);
}

#[test]
fn the_same_item_bought_again_at_the_same_unit_price_in_another_purchase_is_a_duplicate() {
    let item = |quantity: f64, value: f64| crate::model::amendment::ContractItem {
        code: "".into(),
        description: "DIPIRONA SÓDICA 500 MG".into(),
        complement: "".into(),
        quantity,
        value,
    };
    let mut first = contract("1", TEXT, "S1", "36000", 100_000.0, (2024, 3, 1));
    let mut again = contract("2", &edited(), "S1", "36000", 103_000.0, (2024, 3, 20));
    (first.process_number, again.process_number) = ("P1".into(), "P2".into());
    first.items = vec![item(1000.0, 100_000.0)];
    again.items = vec![item(1030.0, 103_000.0)];
    assert_eq!(run(vec![first.clone(), again.clone()]).len(), 1);
    // Another item, or the same item at another unit price, is another purchase.
    again.items = vec![item(1030.0, 140_000.0)];
    assert!(run(vec![first, again]).is_empty());
}
