//! Tests of the upstream normalisation.

use super::*;
use serde_json::json;

fn record() -> Value {
    json!({
        "id": 671464460,
        "numero": "1132008",
        "objeto": "AQUISIÇÃO DE MEDICAMENTOS",
        "numeroProcesso": "25000.012345/2024-11",
        "fundamentoLegal": "Lei 14.133/2021, art. 28, I",
        "situacaoContrato": "Ativo",
        "modalidadeCompra": "Pregão",
        "fornecedor": {"nome": "", "razaoSocialReceita": "FARMA LTDA", "cnpjFormatado": "00.000.000/0001-91", "cpfFormatado": ""},
        "unidadeGestora": {"codigo": "257001", "nome": "FUNDO NACIONAL DE SAUDE",
            "orgaoMaximo": {"codigo": "36000", "sigla": "MS", "nome": "Ministério da Saúde"}},
        "valorInicialCompra": 117560.3,
        "valorFinalCompra": "R$ 1.234.567,89",
        "dataAssinatura": "2024-03-05",
        "dataPublicacaoDOU": "2024-03-08T00:00:00",
        "dataInicioVigencia": "10/03/2024",
        "dataFimVigencia": "1900-01-01"
    })
}

#[test]
fn a_full_upstream_record_is_normalised_field_by_field() {
    let c = contract_from_upstream(0, &record()).unwrap();
    assert_eq!(c.id, "671464460");
    assert_eq!(c.supplier.name, "FARMA LTDA");
    assert_eq!(c.supplier.document, "00000000000191");
    assert_eq!(c.organ.code, "36000");
    assert_eq!(c.unit.code, "257001");
    assert_eq!(c.initial_value, 117560.3);
    assert_eq!(c.final_value, 1_234_567.89);
    assert_eq!(c.signed_on, NaiveDate::from_ymd_opt(2024, 3, 5));
    assert_eq!(c.published_on, NaiveDate::from_ymd_opt(2024, 3, 8));
    assert_eq!(c.valid_from, NaiveDate::from_ymd_opt(2024, 3, 10));
    assert_eq!(c.valid_until, None);
}

#[test]
fn money_accepts_numbers_dot_decimals_and_pt_br_strings() {
    assert_eq!(parse_money(&json!(117560.3)), Some(117560.3));
    assert_eq!(parse_money(&json!("1234.56")), Some(1234.56));
    assert_eq!(parse_money(&json!("1.234.567,89")), Some(1_234_567.89));
    assert_eq!(parse_money(&json!("R$ 1.234,50")), Some(1234.5));
    assert_eq!(parse_money(&json!("1.234.567")), Some(1_234_567.0));
    assert_eq!(parse_money(&json!("abc")), None);
    assert_eq!(parse_money(&json!(null)), None);
    assert_eq!(parse_money(&json!("")), None);
}

#[test]
fn dates_accept_iso_times_and_brazilian_order_and_reject_garbage() {
    assert_eq!(parse_date("2024-12-31"), Ok(NaiveDate::from_ymd_opt(2024, 12, 31)));
    assert_eq!(parse_date("2024-12-31T10:00:00"), Ok(NaiveDate::from_ymd_opt(2024, 12, 31)));
    assert_eq!(parse_date("31/12/2024"), Ok(NaiveDate::from_ymd_opt(2024, 12, 31)));
    assert_eq!(parse_date(""), Ok(None));
    assert_eq!(parse_date("1900-01-01"), Ok(None));
    assert!(parse_date("2024-13-01").is_err());
    assert!(parse_date("yesterday").is_err());
}

#[test]
fn a_bad_value_is_an_error_naming_the_record_and_the_field() {
    let mut r = record();
    r["valorInicialCompra"] = json!("muito");
    let e = contract_from_upstream(3, &r).unwrap_err();
    assert_eq!(e.to_string(), "record 3 (id 671464460): field valorInicialCompra: not a number or money string");
    r["valorInicialCompra"] = json!(-5.0);
    assert_eq!(contract_from_upstream(3, &r).unwrap_err().field, "valorInicialCompra");
}

#[test]
fn missing_id_missing_values_bad_dates_and_short_cnpjs_are_rejected() {
    let mut r = record();
    r.as_object_mut().unwrap().remove("id");
    assert_eq!(contract_from_upstream(0, &r).unwrap_err().field, "id");
    let mut r = record();
    r.as_object_mut().unwrap().remove("valorInicialCompra");
    r.as_object_mut().unwrap().remove("valorFinalCompra");
    assert_eq!(contract_from_upstream(0, &r).unwrap_err().field, "valorInicialCompra");
    let mut r = record();
    r["dataAssinatura"] = json!("ontem");
    assert_eq!(contract_from_upstream(0, &r).unwrap_err().field, "dataAssinatura");
    let mut r = record();
    r["fornecedor"]["cnpjFormatado"] = json!("12.345");
    assert_eq!(contract_from_upstream(0, &r).unwrap_err().field, "fornecedor.cnpjFormatado");
    assert_eq!(contract_from_upstream(0, &json!([1])).unwrap_err().field, "(record)");
}

#[test]
fn a_missing_final_value_is_zero_and_a_string_id_is_kept() {
    let mut r = record();
    r.as_object_mut().unwrap().remove("valorFinalCompra");
    r["id"] = json!("ABC-1");
    let c = contract_from_upstream(0, &r).unwrap();
    assert_eq!(c.final_value, 0.0);
    assert_eq!(c.id, "ABC-1");
    assert_eq!(c.value(), 117560.3);
}

#[test]
fn arrays_single_objects_and_ndjson_are_all_accepted() {
    let one = record().to_string();
    let array = format!("[{one},{one}]");
    let ndjson = format!("{one}\n\n{one}\n{one}\n");
    assert_eq!(contracts_from_text(&array).unwrap().len(), 2);
    assert_eq!(contracts_from_text(&one).unwrap().len(), 1);
    assert_eq!(contracts_from_text(&ndjson).unwrap().len(), 3);
    assert_eq!(contracts_from_text("  ").unwrap().len(), 0);
}

#[test]
fn a_json_syntax_error_reports_line_and_column() {
    let e = contracts_from_text("[\n{\"id\": 1,,}\n]").unwrap_err();
    assert_eq!(e.field, "(json)");
    assert!(e.message.contains("line 2"), "{}", e.message);
}

#[test]
fn converting_to_the_upstream_shape_and_back_gives_the_same_contract() {
    let c = contract_from_upstream(0, &record()).unwrap();
    let v = contract_to_upstream(&c);
    assert_eq!(v["id"], json!(671464460));
    assert_eq!(v["fornecedor"]["cnpjFormatado"], json!("00.000.000/0001-91"));
    assert_eq!(v["unidadeGestora"]["orgaoMaximo"]["codigo"], json!("36000"));
    assert_eq!(v["unidadeGestora"]["descricaoPoder"], json!("EXECUTIVO"));
    assert_eq!(contract_from_upstream(0, &v).unwrap(), c);
    let mut cpf = c.clone();
    cpf.supplier.document = arcstr::literal!("***.456.789-**");
    cpf.id = arcstr::literal!("X1");
    assert_eq!(contract_from_upstream(0, &contract_to_upstream(&cpf)).unwrap(), cpf);
}
