//! PNCP (Portal Nacional de Contratações Públicas) `GET /api/consulta/v1/contratos` pages: the
//! `{data: [...], totalRegistros, ...}` envelope of contracts of any sphere. PNCP has no SIAFI
//! organ code: the organ is the contracting entity, known by its CNPJ. It carries neither the
//! modality nor the legal basis (those are on the purchase, `numeroControlePncpCompra`, which
//! stands in as the process when `processo` is empty). Revenue contracts (`receita: true`) are
//! not spending and are not read.

use serde_json::Value;

use super::contract::{Contract, Organ, Party, Unit};
use super::fields::Reader;
use super::load::document_as_given;
use super::upstream::RecordError;

/// Whether a JSON document is a PNCP contracts page: an object with a `data` array whose
/// records have `numeroControlePNCP`.
pub fn is_page(v: &Value) -> bool {
    v.get("data")
        .and_then(Value::as_array)
        .is_some_and(|d| d.first().is_some_and(|r| r.get("numeroControlePNCP").is_some()))
}

/// The spending contracts of a page, in order; errors name the record by its position in
/// `data` and its `numeroControlePNCP`.
pub fn contracts_from_page(v: &Value) -> Result<Vec<Contract>, RecordError> {
    let mut out = Vec::new();
    for (k, record) in v.get("data").and_then(Value::as_array).map_or(&[][..], Vec::as_slice).iter().enumerate() {
        let r = Reader::new(k, record, "numeroControlePNCP")?;
        if r.flag("receita")? == Some(true) {
            continue;
        }
        let process = r.text("processo");
        let process = if process.is_empty() { r.text("numeroControlePncpCompra") } else { process };
        out.push(Contract {
            id: r.id().into(),
            number: r.text("numeroContratoEmpenho").into(),
            object: r.text("objetoContrato").into(),
            process_number: process.into(),
            legal_basis: "".into(),
            situation: r.text("tipoContrato.nome").into(),
            modality: "".into(),
            supplier: Party {
                name: r.text("nomeRazaoSocialFornecedor").into(),
                document: document_as_given(&r.text("niFornecedor")).into(),
            },
            unit: Unit {
                code: r.text("unidadeOrgao.codigoUnidade").into(),
                name: r.text("unidadeOrgao.nomeUnidade").into(),
            },
            organ: Organ {
                code: r.text("orgaoEntidade.cnpj").into(),
                acronym: "".into(),
                name: r.text("orgaoEntidade.razaoSocial").into(),
            },
            initial_value: r.money("valorInicial")?.unwrap_or(0.0),
            final_value: r.money("valorGlobal")?.unwrap_or(0.0),
            signed_on: r.date("dataAssinatura")?,
            published_on: r.date("dataPublicacaoPncp")?,
            valid_from: r.date("dataVigenciaInicio")?,
            valid_until: r.date("dataVigenciaFim")?,
            amendments: Vec::new(),
            items: Vec::new(),
        });
    }
    Ok(out)
}

/// A one-contract PNCP page, for tests of the loader.
#[cfg(test)]
pub fn sample_page() -> Value {
    serde_json::json!({"data": [{
        "numeroControlePNCP": "43052497000102-2-000069/2026", "numeroContratoEmpenho": "22964",
        "objetoContrato": "OBRAS DE RECUPERAÇÃO DE EROSÃO", "processo": "",
        "numeroControlePncpCompra": "43052497000102-1-000085/2026", "tipoContrato": {"id": 1, "nome": "Contrato (termo inicial)"},
        "niFornecedor": "56037450000103", "nomeRazaoSocialFornecedor": "CONSDON ENGENHARIA",
        "orgaoEntidade": {"cnpj": "43052497000102", "razaoSocial": "DER"},
        "unidadeOrgao": {"codigoUnidade": "262201", "nomeUnidade": "DER-SP"}, "receita": false,
        "valorInicial": 2818000.0, "valorGlobal": 2818000.0, "dataAssinatura": "2026-06-19",
        "dataPublicacaoPncp": "2026-07-02T17:00:22", "dataVigenciaInicio": "2026-06-25", "dataVigenciaFim": "2027-05-25"
    }], "totalRegistros": 1})
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_pncp_page_gives_its_contracts_with_the_purchase_as_process() {
        let page = sample_page();
        assert!(is_page(&page));
        let c = contracts_from_page(&page).unwrap();
        assert_eq!(c.len(), 1);
        assert_eq!(&*c[0].process_number, "43052497000102-1-000085/2026");
        assert_eq!(&*c[0].organ.code, "43052497000102");
        assert_eq!(c[0].value(), 2818000.0);
        let mut revenue = page.clone();
        revenue["data"][0]["receita"] = json!(true);
        assert!(contracts_from_page(&revenue).unwrap().is_empty());
    }
}
