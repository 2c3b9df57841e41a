//! Demo contracts in PNCP's record shape, for `/federal/pncp/contracts` in demo mode and when
//! PNCP fails: the demo generator's contracts signed in the period asked, written with the
//! fields `vigia_agents::model::pncp::contracts_from_page` reads back (so a demo page loads as
//! contracts like a real one).

use chrono::NaiveDate;
use serde_json::{Value, json};
use vigia_agents::Contract;
use vigia_agents::demo::{DemoSpec, generate};

/// The demo contracts of `years` signed from `from` to `to`, in PNCP's shape, by signature date.
pub fn pncp_records(seed: u64, records: usize, years: &[i32], from: NaiveDate, to: NaiveDate) -> Vec<Value> {
    let mut contracts: Vec<Contract> = years
        .iter()
        .flat_map(|y| {
            generate(&DemoSpec { seed, contracts: records, organ_codes: Vec::new(), year: Some(*y) }).dataset.contracts
        })
        .filter(|c| c.signed_on.is_some_and(|d| d >= from && d <= to))
        .collect();
    contracts.sort_by(|a, b| a.signed_on.cmp(&b.signed_on).then(a.id.cmp(&b.id)));
    contracts.iter().map(pncp_record).collect()
}

/// One contract as a PNCP record. The organ has no CNPJ in the demo data: its SIAFI code
/// stands in `orgaoEntidade.cnpj`, as the PNCP loader keeps whatever identifies the organ.
pub fn pncp_record(c: &Contract) -> Value {
    let date = |d: Option<NaiveDate>| d.map_or(Value::Null, |d| json!(d.format("%Y-%m-%d").to_string()));
    let year = c.signed_on.map(|d| chrono::Datelike::year(&d));
    json!({
        "numeroControlePNCP": format!("DEMO-{}", c.id),
        "numeroControlePncpCompra": c.process_number,
        "anoContrato": year,
        "numeroContratoEmpenho": c.number,
        "processo": c.process_number,
        "tipoContrato": {"id": 1, "nome": "Contrato (termo inicial)"},
        "objetoContrato": format!("[DEMO] {}", c.object),
        "orgaoEntidade": {"cnpj": c.organ.code, "razaoSocial": c.organ.name, "poderId": "E", "esferaId": "F"},
        "unidadeOrgao": {"codigoUnidade": c.unit.code, "nomeUnidade": c.unit.name},
        "tipoPessoa": if c.supplier.document.len() == 14 { "PJ" } else { "PF" },
        "niFornecedor": c.supplier.document,
        "nomeRazaoSocialFornecedor": c.supplier.name,
        "receita": false,
        "valorInicial": c.initial_value,
        "valorGlobal": c.final_value,
        "dataAssinatura": date(c.signed_on),
        "dataVigenciaInicio": date(c.valid_from),
        "dataVigenciaFim": date(c.valid_until),
        "dataPublicacaoPncp": date(c.published_on),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demo_pncp_records_load_back_as_the_same_contracts() {
        let from = NaiveDate::from_ymd_opt(2024, 3, 1).unwrap();
        let to = NaiveDate::from_ymd_opt(2024, 3, 31).unwrap();
        let rows = pncp_records(42, 500, &[2024], from, to);
        assert!(!rows.is_empty());
        let page = json!({"data": rows});
        let back = vigia_agents::model::pncp::contracts_from_page(&page).unwrap();
        assert_eq!(back.len(), page["data"].as_array().unwrap().len());
        assert!(back.iter().all(|c| c.signed_on.is_some_and(|d| d >= from && d <= to)));
    }
}
