//! Contratos.gov.br contracts and histories on records shaped like the DPU's.

use serde_json::json;

use super::*;
use crate::model::amendment::AmendmentKind;

pub(crate) fn dpu_contract() -> Value {
    json!({
        "id": 5639, "receita_despesa": "Despesa", "numero": "00020/2010",
        "contratante": {"orgao": {"codigo": "29000", "nome": "DEFENSORIA PUBLICA DA UNIAO",
            "unidade_gestora": {"codigo": "290002", "nome": "DPU-SEOF"}}},
        "fornecedor": {"tipo": "FISICA", "cnpj_cpf_idgener": "050.841.642-68", "nome": "ADINOR BATISTA DOS SANTOS"},
        "tipo": "Contrato", "processo": "08038.001030/2009-36", "objeto": "LOCAÇÃO DE IMÓVEL PARA A DPU EM PALMAS/TO",
        "amparo_legal": "LEI 8.666 / 1993 - Artigo: 24 - Inciso: X", "modalidade": "Dispensa", "situacao": "Ativo",
        "data_assinatura": "2010-03-12", "data_publicacao": "2010-03-15", "vigencia_inicio": "2010-03-12",
        "vigencia_fim": "2030-03-11", "valor_inicial": "180.000,00", "valor_global": "231.509,52"
    })
}

fn entry(id: u64, tipo: &str, q: &[&str], signed: &str, global: &str, novo: &str, text: &str) -> Value {
    let q: Vec<Value> = q.iter().map(|d| json!({"codigo": 1, "descricao": d})).collect();
    json!({"id": id, "contrato_id": 5639, "tipo": tipo, "numero": format!("{id:05}"),
        "qualificacao_termo": if q.is_empty() { Value::Null } else { json!(q) },
        "observacao": text, "data_assinatura": signed, "vigencia_fim": "2030-03-11",
        "valor_global": global, "novo_valor_global": novo})
}

pub(crate) fn dpu_history() -> Vec<Value> {
    vec![
        entry(
            3,
            "Termo Aditivo",
            &["VIGÊNCIA", "ACRÉSCIMO / SUPRESSÃO"],
            "2025-02-17",
            "231.509,52",
            "0,00",
            "PRORROGAR O PRAZO DE VIGÊNCIA DO CONTRATO POR MAIS 60 (SESSENTA) MESES",
        ),
        entry(1, "Contrato", &[], "2010-03-12", "180.000,00", "0,00", ""),
        entry(
            2,
            "Termo de Apostilamento",
            &[],
            "2011-03-12",
            "200.341,20",
            "200.341,20",
            "UTILIZANDO-SE O IGP-M ACUMULADO, O CONTRATO DEVE SER REAJUSTADO",
        ),
        entry(4, "Termo de Rescisão", &[], "", "0,00", "0,00", "RESCISÃO AMIGÁVEL"),
    ]
}

#[test]
fn a_dpu_contract_is_read_with_its_legal_basis_and_an_individual_as_supplier() {
    let v = json!([dpu_contract()]);
    assert!(is_contracts(&v) && !is_histories(&v));
    let c = contract_from_contratos_gov(0, &dpu_contract()).unwrap().unwrap();
    assert_eq!((&*c.id, &*c.organ.code, &*c.unit.code), ("5639", "29000", "290002"));
    assert_eq!(&*c.supplier.document, "05084164268");
    assert_eq!((c.initial_value, c.final_value), (180_000.0, 231_509.52));
    assert_eq!(&*c.legal_basis, "LEI 8.666 / 1993 - Artigo: 24 - Inciso: X");
}

#[test]
fn a_revenue_contract_is_not_spending() {
    let mut v = dpu_contract();
    v["receita_despesa"] = json!("Receita");
    assert_eq!(contract_from_contratos_gov(0, &v).unwrap(), None);
}

#[test]
fn a_public_supplier_keeps_its_unit_code_as_document() {
    let mut v = dpu_contract();
    v["fornecedor"] = json!({"tipo": "UG", "cnpj_cpf_idgener": "806030", "nome": "SERPRO - SEDE - BRASILIA"});
    let c = contract_from_contratos_gov(0, &v).unwrap().unwrap();
    assert_eq!(&*c.supplier.document, "806030");
}

#[test]
fn a_history_gives_amendments_in_signing_order_without_the_original() {
    let h = json!({"5639": dpu_history()});
    assert!(is_histories(&h) && !is_contracts(&h) && !is_commitments(&h));
    let a = amendments_from_history(&dpu_history(), 180_000.0).unwrap();
    let kinds: Vec<(&str, &[AmendmentKind])> = a.iter().map(|a| (&*a.instrument, a.kinds.as_slice())).collect();
    assert_eq!(
        kinds,
        vec![
            ("Termo de Apostilamento", &[AmendmentKind::Readjustment][..]),
            ("Termo Aditivo", &[AmendmentKind::Extension][..]),
            ("Termo de Rescisão", &[AmendmentKind::Termination][..]),
        ]
    );
    assert_eq!(a[0].new_global_value, Some(200_341.20));
    assert_eq!(a[1].new_global_value, Some(231_509.52));
    assert_eq!(a[2].new_global_value, None);
}

#[test]
fn a_bad_history_entry_names_its_field() {
    let mut bad = dpu_history();
    bad[0]["data_assinatura"] = json!("17/02/25");
    let e = amendments_from_history(&bad, 0.0).unwrap_err();
    assert_eq!((e.id.as_deref(), e.field.as_str()), (Some("3"), "data_assinatura"));
}

#[test]
fn one_contracts_history_as_the_api_lists_it_is_a_history_too() {
    let list = Value::Array(dpu_history());
    assert!(is_histories(&list));
    let by = histories_by_contract(list);
    assert_eq!(by.len(), 1);
    assert_eq!((by[0].0.as_str(), by[0].1.len()), ("5639", 4));
    let keyed = histories_by_contract(json!({"5639": dpu_history()}));
    assert_eq!((keyed[0].0.as_str(), keyed[0].1.len()), ("5639", 4));
}
