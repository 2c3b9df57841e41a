//! Tests of `compliance_rules` on hand-made contracts: each rule with the law of its date and
//! the ground its legal basis cites.

use chrono::NaiveDate;

use super::*;
use crate::model::cnpj::cnpj_from_parts;
use crate::model::contract::Party;
use crate::model::dataset::Dataset;
use crate::testutil::contract;

fn supplier() -> String {
    cnpj_from_parts(12_345_678, 1)
}

fn dispensa(id: &str, object: &str, value: f64, date: (i32, u32, u32), basis: &str) -> Contract {
    let mut c = contract(id, object, &supplier(), "36000", value, date);
    c.modality = "Dispensa de Licitação".into();
    c.legal_basis = basis.into();
    c
}

fn run(contracts: Vec<Contract>, sanctions: Vec<Sanction>, s: f64) -> Vec<Anomaly> {
    let ds = Dataset { sanctions, ..Dataset::from_contracts(contracts) };
    let p = DetectionParams { sensitivity: s, ..DetectionParams::default() };
    ComplianceRules.run(&ds, &p, &CancelFlag::new()).unwrap()
}

fn rules(found: &[Anomaly]) -> Vec<(String, String)> {
    found
        .iter()
        .map(|a| (a.affected_entities.primary.id.clone(), a.technical_details["rule"].as_str().unwrap().to_string()))
        .collect()
}

const II: &str = "Lei 14.133/2021, art. 75, II";
const I: &str = "Lei 14.133/2021, art. 75, I";

#[test]
fn dispensas_are_held_to_the_limit_of_their_signing_year() {
    let obj = "AQUISIÇÃO DE MATERIAL DE EXPEDIENTE";
    let obra = "EXECUÇÃO DE OBRA DE REFORMA DO EDIFÍCIO SEDE";
    let cases = vec![
        dispensa("a21", obj, 50_000.00, (2021, 5, 1), II),
        dispensa("b21", obj, 50_000.01 + 0.01, (2021, 5, 1), II),
        // Decreto 10.922/2021: R$ 54.020,41 in 2022.
        dispensa("a22", obj, 54_020.41, (2022, 5, 1), II),
        dispensa("b22", obj, 54_100.00, (2022, 5, 1), II),
        dispensa("a23", obj, 57_208.33, (2023, 5, 1), II),
        dispensa("b23", obj, 57_300.00, (2023, 5, 1), II),
        dispensa("a24", obj, 59_906.02, (2024, 5, 1), II),
        dispensa("b24", obj, 60_000.00, (2024, 5, 1), II),
        dispensa("a25", obj, 62_725.59, (2025, 5, 1), II),
        dispensa("b25", obj, 62_800.00, (2025, 5, 1), II),
        dispensa("e24", obra, 119_812.02, (2024, 5, 1), I),
        dispensa("f24", obra, 119_900.00, (2024, 5, 1), I),
        dispensa("e25", obra, 125_000.00, (2025, 5, 1), I),
        dispensa("urgent", obj, 900_000.00, (2024, 5, 1), "Lei 14.133/2021, art. 75, VIII"),
        dispensa("old", obj, 20_000.00, (2023, 5, 1), "Lei 8.666/1993, art. 24, II"),
        // Lei 8.666 before Decreto 9.412/2018: R$ 8.000,00.
        dispensa("o17", obj, 9_000.00, (2017, 5, 1), "Art. 24, inciso II da Lei 8666/93"),
        dispensa("p17", obj, 7_900.00, (2017, 5, 1), "Art. 24, inciso II da Lei 8666/93"),
        // Lei 14.133 cited before it was in force: not judged by its limits.
        dispensa("n19", obj, 90_000.00, (2019, 5, 1), II),
        // Lei 13.303 (state companies), art. 29, II: R$ 50.000,00.
        dispensa("s24", obj, 70_000.00, (2024, 5, 1), "Fundamento Legal: Art. 29, Inciso II da Lei 13.303/2016"),
    ];
    let found = rules(&run(cases, Vec::new(), 0.7));
    let flagged: Vec<&str> =
        found.iter().filter(|(_, r)| r == "dispensa_above_limit").map(|(id, _)| id.as_str()).collect();
    assert_eq!(flagged, vec!["b21", "b22", "b23", "b24", "b25", "f24", "old", "o17", "s24"]);
}

#[test]
fn a_dispensa_on_a_non_value_ground_has_no_value_limit() {
    let cases = vec![
        // Real DPU amparo_legal spellings.
        dispensa(
            "energia",
            "FORNECIMENTO DE ENERGIA",
            900_000.0,
            (2019, 3, 1),
            "LEI 8.666 / 1993 - Artigo: 24 - Inciso: XXII",
        ),
        dispensa("aluguel", "LOCAÇÃO DE IMÓVEL", 400_000.0, (2017, 3, 1), "LEI 8.666 / 1993 - Artigo: 24 - Inciso: X"),
        dispensa(
            "urgente",
            "AQUISIÇÃO DE ÁGUA MINERAL",
            300_000.0,
            (2024, 5, 20),
            "MP 1.221/2024 - Artigo: 2 - Inciso: I",
        ),
        dispensa(
            "misto",
            "SERVIÇOS",
            300_000.0,
            (2024, 5, 20),
            "LEI 8.666 / 1993 - Artigo: 23 - Inciso: I e LEI 14.133/2021 - Artigo: 75 - Inciso: X",
        ),
        // Missing basis, ground shown by object or supplier: not a finding.
        dispensa("imovel", "LOCAÇÃO DE IMÓVEL PARA A SEDE DA DPU EM MANAUS", 800_000.0, (2022, 3, 1), ""),
        dispensa("luz", "FORNECIMENTO DE ENERGIA ELÉTRICA", 800_000.0, (2017, 3, 1), "NÃO SE APLICA"),
    ];
    let mut serpro = dispensa("serpro", "PRESTAÇÃO DE SERVIÇOS DE INFORMÁTICA", 1_684_134.72, (2020, 5, 5), "");
    serpro.supplier = Party { name: "SERPRO - SEDE - BRASILIA".into(), document: "806030".into() };
    let mut all = cases;
    all.push(serpro);
    assert!(run(all, Vec::new(), 1.0).is_empty());
}

#[test]
fn a_value_inciso_cited_for_a_state_company_is_taken_as_miscoded() {
    // Real DPU record: Dataprev, R$ 23.557.813,90, "LEI 14.133/2021 - Artigo: 75 - Inciso: I".
    let mut c = dispensa(
        "dataprev",
        "CONTRATAÇÃO DOS SERVIÇOS DE TECNOLOGIA DA INFORMAÇÃO E COMUNICAÇÃO",
        23_557_813.90,
        (2025, 9, 9),
        "LEI 14.133/2021 - Artigo: 75 - Inciso: I",
    );
    c.supplier.name = "EMPRESA DE TECNOLOGIA E INFORMACOES DA PREVIDENCIA S.A. - DATAPREV".into();
    assert!(run(vec![c.clone()], Vec::new(), 1.0).is_empty());
    let ds = Dataset::from_contracts(vec![c]);
    let p = DetectionParams { confidence_threshold: 0.5, ..DetectionParams::default() };
    let found = ComplianceRules.run(&ds, &p, &CancelFlag::new()).unwrap();
    let text = &found[0].explanation.as_ref().unwrap().human_readable;
    assert!(text.contains("mal registrado"), "{text}");
}

#[test]
fn a_dispensa_whose_ground_is_unknown_is_a_low_confidence_finding_that_says_so() {
    let c = dispensa("x", "AQUISIÇÃO DE MATERIAL DE EXPEDIENTE", 90_000.0, (2024, 5, 1), "");
    assert!(run(vec![c.clone()], Vec::new(), 0.7).is_empty(), "below the default threshold");
    let ds = Dataset::from_contracts(vec![c]);
    let p = DetectionParams { confidence_threshold: 0.5, ..DetectionParams::default() };
    let found = ComplianceRules.run(&ds, &p, &CancelFlag::new()).unwrap();
    assert_eq!(found.len(), 1);
    assert!(found[0].confidence < 0.8);
    let text = &found[0].explanation.as_ref().unwrap().human_readable;
    assert!(text.contains("desconhecido") && text.contains("Decreto 11.871/2023"), "{text}");
}

#[test]
fn legal_rules_fire_at_every_sensitivity_and_the_limit_is_in_the_evidence() {
    for s in [0.0, 0.3, 0.7, 1.0] {
        let found = run(vec![dispensa("x", "AQUISIÇÃO DE MATERIAL", 70_000.0, (2024, 3, 1), II)], Vec::new(), s);
        assert_eq!(found.len(), 1, "at {s}");
        assert!(found[0].confidence >= 0.8);
        assert_eq!(found[0].technical_details["threshold"], serde_json::json!(59_906.02));
        assert_eq!(found[0].technical_details["detector"], "compliance_rules");
        let text = &found[0].explanation.as_ref().unwrap().human_readable;
        assert!(text.contains("Decreto 11.871/2023") && text.contains("(EN)"), "{text}");
    }
}

#[test]
fn amendments_beyond_a_quarter_or_half_for_renovations_are_flagged_from_their_records() {
    use crate::model::amendment::{Amendment, AmendmentKind};
    let add =
        |v: f64| Amendment { kinds: vec![AmendmentKind::Addition], new_global_value: Some(v), ..Amendment::default() };
    let mut a = contract("a", "AQUISIÇÃO DE MEDICAMENTOS", &supplier(), "36000", 100_000.0, (2024, 1, 10));
    a.final_value = 125_000.0;
    a.amendments = vec![add(125_000.0)];
    let mut b = a.clone();
    b.id = "b".into();
    b.final_value = 127_000.0;
    b.amendments = vec![add(127_000.0)];
    let mut r = contract("r", "OBRA DE REFORMA DO EDIFÍCIO", &supplier(), "36000", 100_000.0, (2024, 1, 10));
    r.final_value = 145_000.0;
    r.amendments = vec![add(145_000.0)];
    let mut q = r.clone();
    q.id = "q".into();
    q.final_value = 151_000.0;
    q.amendments = vec![add(151_000.0)];
    let mut ext = a.clone();
    ext.id = "ext".into();
    ext.final_value = 200_000.0;
    ext.amendments = vec![Amendment {
        kinds: vec![AmendmentKind::Extension],
        new_global_value: Some(200_000.0),
        ..Amendment::default()
    }];
    let found = rules(&run(vec![a, b, r, q, ext], Vec::new(), 0.7));
    assert_eq!(
        found,
        vec![("b".to_string(), "amendment_above_cap".to_string()), ("q".into(), "amendment_above_cap".into())]
    );
}

fn sanction(doc: &str, kind: &str, from: (i32, u32, u32), to: Option<(i32, u32, u32)>) -> Sanction {
    let d = |x: (i32, u32, u32)| NaiveDate::from_ymd_opt(x.0, x.1, x.2);
    Sanction {
        id: "1".into(),
        register: "CEIS".into(),
        document: doc.into(),
        name: "X".into(),
        kind: kind.into(),
        starts_on: d(from),
        ends_on: to.and_then(d),
        published_on: d(from),
        authority: "MINISTÉRIO DA ECONOMIA".into(),
        legal_basis: String::new(),
        process_number: String::new(),
        fine: None,
    }
}

#[test]
fn contracts_signed_while_the_company_was_barred_are_flagged_branches_included() {
    let c = contract("c", "AQUISIÇÃO DE MEDICAMENTOS", &supplier(), "36000", 10_000.0, (2024, 6, 1));
    let branch =
        sanction(&cnpj_from_parts(12_345_678, 2), "Impedimento de contratar", (2024, 1, 1), Some((2024, 12, 31)));
    assert_eq!(rules(&run(vec![c.clone()], vec![branch], 0.7)), vec![("c".into(), "sanctioned_supplier".into())]);
    let expired = sanction(&supplier(), "Inidoneidade", (2022, 1, 1), Some((2024, 5, 31)));
    let later = sanction(&supplier(), "Suspensão", (2024, 6, 2), None);
    let fine = sanction(&supplier(), "Multa", (2024, 1, 1), None);
    assert!(run(vec![c], vec![expired, later, fine], 1.0).is_empty());
}

#[test]
fn invalid_check_digits_extinct_modalities_and_unjustified_inexigibility_are_flagged() {
    let mut bad = contract("bad", "AQUISIÇÃO DE MEDICAMENTOS", "12345678000100", "36000", 10_000.0, (2024, 6, 1));
    bad.supplier.document = "12345678000100".into();
    assert!(invalid_document("12345678000100") && !invalid_document(&supplier()));
    assert!(
        !invalid_document("00000000000191") && invalid_document("00000000000192") && invalid_document("11111111111111")
    );
    assert!(!invalid_document("***.456.789-**") && cpf_is_valid("52998224725") && !cpf_is_valid("52998224724"));
    assert!(!invalid_document("00052998224725") && !invalid_document("806030") && !invalid_document("-11"));
    let tomada = |id: &str, d: (i32, u32, u32)| {
        let mut c = contract(id, "SERVIÇOS DE LIMPEZA", &supplier(), "36000", 10_000.0, d);
        c.modality = "Tomada de Preços".into();
        c
    };
    let early = tomada("early", (2024, 2, 1));
    let late = tomada("late", (2024, 10, 1));
    // An inexigibilidade citing a dispensa inciso cites no inexigibility ground; art. 74 with
    // or without its inciso does, and an empty basis is missing data (the old rule flagged
    // art. 74 without inciso: its caput is itself the ground).
    let mut inex = contract("inex", "AQUISIÇÃO DE SOFTWARE", &supplier(), "36000", 10_000.0, (2024, 6, 1));
    inex.modality = "Inexigibilidade de Licitação".into();
    inex.legal_basis = "LEI 14.133/2021 - Artigo: 75 - Inciso: II".into();
    let mut ok = inex.clone();
    ok.id = "ok".into();
    ok.legal_basis = "Lei 14.133/2021, art. 74".into();
    let mut empty = inex.clone();
    empty.id = "empty".into();
    empty.legal_basis = "".into();
    let mut padded_cpf = contract("cpf", "SERVIÇOS", "00052998224725", "36000", 10_000.0, (2024, 6, 1));
    padded_cpf.supplier.document = "00052998224725".into();
    let found = rules(&run(vec![bad, early.clone(), late, inex, ok, empty, padded_cpf], Vec::new(), 0.7));
    assert_eq!(
        found,
        vec![
            ("bad".to_string(), "invalid_document".to_string()),
            ("late".into(), "extinct_modality".into()),
            ("inex".into(), "unjustified_inexigibility".into())
        ]
    );
    assert_eq!(grace_days(0.7), 219);
    assert_eq!(grace_days(1.0), 0);
    assert_eq!(rules(&run(vec![early], Vec::new(), 1.0)), vec![("early".into(), "extinct_modality".into())]);
}

#[test]
fn a_match_with_a_list_without_start_dates_is_a_low_observation_not_a_violation() {
    let c = contract("c", "AQUISIÇÃO DE MEDICAMENTOS", &supplier(), "36000", 5_000_000.0, (2024, 6, 1));
    let mut s = sanction(&supplier(), "Inidoneidade - Lei de Licitações", (2018, 1, 1), None);
    s.starts_on = None;
    let found = run(vec![c], vec![s], 0.7);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].technical_details["rule"], "sanction_undecidable");
    assert_eq!(found[0].kind, AnomalyType::RelationshipAnomaly);
    assert_eq!(found[0].severity, crate::model::anomaly::Severity::Low);
}

#[test]
fn an_entity_with_an_empty_id_is_never_named() {
    let mut c = contract("c", "AQUISIÇÃO", "", "36000", 10_000.0, (2024, 10, 1));
    c.supplier.document = "".into();
    c.modality = "Convite".into();
    let found = run(vec![c], Vec::new(), 0.7);
    assert_eq!(found.len(), 1);
    assert!(found[0].affected_entities.related.iter().all(|e| !e.id.is_empty()));
}
