//! A sanction from the CEIS (Cadastro de Empresas Inidôneas e Suspensas) or CNEP (Cadastro
//! Nacional de Empresas Punidas) of the Portal da Transparência, normalised, and its conversion
//! from and to the upstream's JSON. Dates may come as `YYYY-MM-DD` or `DD/MM/YYYY`.

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::fields::{Reader, date_value, format_document, id_value};
use super::upstream::RecordError;
use crate::text::fold;

/// One sanction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sanction {
    /// Upstream `id`, as a string.
    pub id: String,
    /// "CEIS" or "CNEP" (`fonteSancao.nomeExibicao`, else CNEP when `valorMulta` is present).
    pub register: String,
    /// `sancionado.codigoFormatado`: a CNPJ as 14 digits, a CPF as given.
    pub document: String,
    /// `sancionado.nome`.
    pub name: String,
    /// `tipoSancao.descricaoResumida` ("Impedimento/proibição de contratar com prazo
    /// determinado", "Inidoneidade", "Suspensão", "Multa", ...).
    pub kind: String,
    /// `dataInicioSancao`.
    pub starts_on: Option<NaiveDate>,
    /// `dataFimSancao` (none: indefinite).
    pub ends_on: Option<NaiveDate>,
    /// `dataPublicacaoSancao`.
    pub published_on: Option<NaiveDate>,
    /// `orgaoSancionador.nome`.
    pub authority: String,
    /// `fundamentacao[0].codigo` (the legal article).
    pub legal_basis: String,
    /// `numeroProcesso`.
    pub process_number: String,
    /// `valorMulta` (CNEP).
    pub fine: Option<f64>,
}

impl Sanction {
    /// Whether the sanction bars the company from contracting with the administration
    /// (impedimento, inidoneidade, suspensão, proibição, a court order "que impeça a
    /// contratação"). A fine, a warning or an extraordinary publication alone does not.
    pub fn bars_contracting(&self) -> bool {
        let k = fold(&self.kind);
        ["impedimento", "inidone", "suspens", "proibi", "impeca contratacao", "impeca a contratacao"]
            .iter()
            .any(|w| k.contains(w))
    }
    /// Whether it was in force on `d` (start and end inclusive; no end means indefinite).
    pub fn active_on(&self, d: NaiveDate) -> bool {
        self.starts_on.is_some_and(|s| s <= d) && self.ends_on.is_none_or(|e| d <= e)
    }
    /// The 8-digit CNPJ root of the sanctioned company (sanctions bind the legal entity, every
    /// branch included).
    pub fn root(&self) -> Option<&str> {
        (self.document.len() == 14).then(|| &self.document[..8])
    }
}

/// Normalises one CEIS/CNEP record. `index` is its position in the input.
pub fn sanction_from_upstream(index: usize, v: &Value) -> Result<Sanction, RecordError> {
    let r = Reader::new(index, v, "id")?;
    let shown = r.text("fonteSancao.nomeExibicao");
    let fine = r.money("valorMulta")?;
    let register = if fold(&shown).contains("cnep") || (shown.is_empty() && fine.is_some()) { "CNEP" } else { "CEIS" };
    let basis = r
        .array("fundamentacao")?
        .first()
        .and_then(|f| f.get("codigo"))
        .and_then(Value::as_str)
        .unwrap_or("")
        .trim()
        .to_string();
    Ok(Sanction {
        register: register.to_string(),
        document: r.document(&["sancionado.codigoFormatado", "pessoa.cnpjFormatado", "pessoa.cpfFormatado"])?,
        name: r.text_any(&["sancionado.nome", "pessoa.nome"]),
        kind: r.text_any(&["tipoSancao.descricaoResumida", "tipoSancao.descricaoPortal"]),
        starts_on: r.date("dataInicioSancao")?,
        ends_on: r.date("dataFimSancao")?,
        published_on: r.date("dataPublicacaoSancao")?,
        authority: r.text("orgaoSancionador.nome"),
        legal_basis: basis,
        process_number: r.text("numeroProcesso"),
        fine,
        id: r.id(),
    })
}

/// The sanction in the upstream CEIS/CNEP shape (the inverse of [`sanction_from_upstream`]).
pub fn sanction_to_upstream(s: &Sanction) -> Value {
    let mut v = json!({
        "id": id_value(&s.id),
        "dataReferencia": date_value(s.starts_on),
        "dataInicioSancao": date_value(s.starts_on),
        "dataFimSancao": date_value(s.ends_on),
        "dataPublicacaoSancao": date_value(s.published_on),
        "dataTransitadoJulgado": null,
        "dataOrigemInformacao": date_value(s.published_on),
        "tipoSancao": {"descricaoResumida": s.kind, "descricaoPortal": s.kind},
        "fonteSancao": {"nomeExibicao": s.register, "endpoint": ""},
        "fundamentacao": [{"codigo": s.legal_basis, "descricao": ""}],
        "orgaoSancionador": {"nome": s.authority, "siglaUf": "", "poder": "Executivo", "esfera": "Federal"},
        "sancionado": {"nome": s.name, "codigoFormatado": format_document(&s.document)},
        "textoPublicacao": "",
        "numeroProcesso": s.process_number,
    });
    if let (Some(f), Some(obj)) = (s.fine, v.as_object_mut()) {
        obj.insert("valorMulta".into(), json!(super::expense::money_pt(f)));
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ceis_record_is_normalised_and_round_trips() {
        let v = json!({"id": 99, "dataInicioSancao": "10/02/2024", "dataFimSancao": "2026-02-09",
            "tipoSancao": {"descricaoResumida": "Impedimento/proibição de contratar com prazo determinado"},
            "fonteSancao": {"nomeExibicao": "CEIS"}, "sancionado": {"nome": "A LTDA", "codigoFormatado": "00.000.000/0001-91"},
            "orgaoSancionador": {"nome": "MINISTÉRIO X"}, "fundamentacao": [{"codigo": "Lei 14.133/2021, art. 156, III"}]});
        let s = sanction_from_upstream(0, &v).unwrap();
        assert_eq!((s.document.as_str(), s.register.as_str(), s.root()), ("00000000000191", "CEIS", Some("00000000")));
        assert!(s.bars_contracting());
        assert!(s.active_on(NaiveDate::from_ymd_opt(2024, 2, 10).unwrap()));
        assert!(!s.active_on(NaiveDate::from_ymd_opt(2024, 2, 9).unwrap()));
        assert!(!s.active_on(NaiveDate::from_ymd_opt(2026, 2, 10).unwrap()));
        assert_eq!(sanction_from_upstream(0, &sanction_to_upstream(&s)).unwrap(), s);
        let multa = json!({"id": 5, "tipoSancao": {"descricaoResumida": "Multa"}, "valorMulta": "1.000,00",
            "sancionado": {"nome": "B", "codigoFormatado": "11.222.333/0001-81"}, "dataInicioSancao": "2024-01-01"});
        let m = sanction_from_upstream(1, &multa).unwrap();
        assert!(!m.bars_contracting() && m.register == "CNEP" && m.fine == Some(1000.0));
        assert_eq!(sanction_from_upstream(0, &sanction_to_upstream(&m)).unwrap(), m);
    }
}
