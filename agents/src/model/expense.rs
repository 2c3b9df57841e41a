//! An expense document (`/despesas/documentos` DespesasPorDocumentoDTO of the Portal da
//! Transparência: an empenho, liquidação or pagamento), normalised, and its conversion from
//! and to the upstream's JSON. Values arrive as pt-BR strings (`"1.234,56"`).

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use super::intern::{ArcStr, Interner};
use serde_json::{Value, json};

use super::contract::{Organ, Party, Unit};
use super::fields::{Reader, format_document};
use super::upstream::RecordError;

/// One expense document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Expense {
    /// `documento` (UG + gestão + year + type + number, e.g. `257001000012024NE000123`).
    pub id: ArcStr,
    /// `data` (emission date).
    pub date: Option<NaiveDate>,
    /// `fase`: "Empenho", "Liquidação" or "Pagamento".
    pub phase: ArcStr,
    /// `especie` ("Original", "Reforço", "Anulação").
    pub kind: ArcStr,
    /// `codigoFavorecido` / `nomeFavorecido` (a CNPJ as 14 digits, a masked CPF as given).
    pub payee: Party,
    /// `valor` in R$.
    pub value: f64,
    /// `codigoUg` / `ug`.
    pub unit: Unit,
    /// `codigoOrgaoSuperior` / `orgaoSuperior` (SIAFI "órgão superior").
    pub organ: Organ,
    /// `codigoOrgao`: the subordinate organ.
    pub sub_organ: ArcStr,
    /// `elemento` ("30 - Material de Consumo", "39 - Outros Serviços de Terceiros - PJ", ...):
    /// the nature of what is bought, the key of "objects of the same nature" for splitting.
    pub element: ArcStr,
    /// `categoria` ("Despesas Correntes", "Despesas de Capital").
    pub category: ArcStr,
    /// `grupo`.
    pub group: ArcStr,
    /// `modalidade` of the purchase ("Dispensa de Licitação", "Pregão", "Não se Aplica").
    pub modality: ArcStr,
    /// `numeroProcesso`: shared with the contract it pays, when there is one.
    pub process_number: ArcStr,
    /// `observacao`: free text.
    pub observation: ArcStr,
}

impl Expense {
    /// Shares the texts that repeat across expenses (payee, organ, unit, classification,
    /// modality) through `interner`.
    pub fn share_text(&mut self, interner: &mut Interner) {
        self.payee.share_text(interner);
        self.unit.share_text(interner);
        self.organ.share_text(interner);
        let texts = [
            &mut self.phase,
            &mut self.kind,
            &mut self.sub_organ,
            &mut self.element,
            &mut self.category,
            &mut self.group,
            &mut self.modality,
        ];
        for text in texts {
            interner.share(text);
        }
    }
    /// Whether this is a commitment (empenho), the phase that records the purchase.
    pub fn is_commitment(&self) -> bool {
        self.phase.starts_with("Empenho") || self.phase == "1" || crate::text::fold(&self.phase).starts_with("empenho")
    }
    /// Whether it was bought by direct purchase (dispensa), by its `modalidade`.
    pub fn is_dispensa(&self) -> bool {
        match self.modality.as_bytes().first() {
            Some(b'D') if self.modality.starts_with("Dispensa") => true,
            Some(b'P' | b'C' | b'I') => false,
            _ => crate::text::fold(&self.modality).contains("dispensa"),
        }
    }
    /// A short human name.
    pub fn display_name(&self) -> String {
        let obs: String = self.observation.chars().take(60).collect();
        format!("{} {} - {}", self.phase, self.id, obs)
    }
}

/// Normalises one DespesasPorDocumentoDTO. `index` is its position in the input.
pub fn expense_from_upstream(index: usize, v: &Value) -> Result<Expense, RecordError> {
    let r = Reader::new(index, v, "documento")?;
    let Some(value) = r.money("valor")? else {
        return Err(r.err("valor", "missing".into()));
    };
    Ok(Expense {
        date: r.date("data")?,
        phase: r.text("fase").into(),
        kind: r.text("especie").into(),
        payee: Party {
            name: r.text("nomeFavorecido").into(),
            document: r.document(&["codigoFavorecido"]).unwrap_or_else(|_| r.text("codigoFavorecido")).into(),
        },
        value,
        unit: Unit { code: r.text("codigoUg").into(), name: r.text("ug").into() },
        organ: Organ {
            code: r.text("codigoOrgaoSuperior").into(),
            acronym: ArcStr::new(),
            name: r.text("orgaoSuperior").into(),
        },
        sub_organ: r.text("codigoOrgao").into(),
        element: r.text("elemento").into(),
        category: r.text("categoria").into(),
        group: r.text("grupo").into(),
        modality: r.text("modalidade").into(),
        process_number: r.text("numeroProcesso").into(),
        observation: r.text("observacao").into(),
        id: r.id().into(),
    })
}

/// Formats an amount the pt-BR way without the currency sign, as the upstream sends `valor`.
pub fn money_pt(value: f64) -> String {
    crate::text::format_brl(value).trim_start_matches("R$ ").replace("-R$ ", "-")
}

/// The expense in the upstream DespesasPorDocumentoDTO shape (the inverse of
/// [`expense_from_upstream`]).
pub fn expense_to_upstream(e: &Expense) -> Value {
    let date = e.date.map_or(String::new(), |d| d.format("%d/%m/%Y").to_string());
    let short = e.id.get(e.id.len().saturating_sub(12)..).unwrap_or("").to_string();
    json!({
        "data": date,
        "documento": e.id,
        "documentoResumido": short,
        "observacao": e.observation,
        "funcao": "", "subfuncao": "", "programa": "", "acao": "", "subTitulo": "", "localizadorGasto": "",
        "fase": e.phase,
        "especie": e.kind,
        "favorecido": e.payee.name,
        "codigoFavorecido": format_document(&e.payee.document),
        "nomeFavorecido": e.payee.name,
        "ufFavorecido": "",
        "valor": money_pt(e.value),
        "codigoUg": e.unit.code,
        "ug": e.unit.name,
        "codigoUo": e.sub_organ,
        "uo": "",
        "codigoOrgao": e.sub_organ,
        "orgao": "",
        "codigoOrgaoSuperior": e.organ.code,
        "orgaoSuperior": e.organ.name,
        "categoria": e.category,
        "grupo": e.group,
        "elemento": e.element,
        "modalidade": e.modality,
        "numeroProcesso": e.process_number,
        "planoOrcamentario": "",
        "autor": "",
        "favorecidoIntermediario": false,
        "favorecidoListaFaturas": false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_expense_document_is_normalised_and_round_trips() {
        let v = json!({
            "data": "15/03/2024", "documento": "257001000012024NE000123", "fase": "Empenho", "especie": "Original",
            "codigoFavorecido": "00.000.000/0001-91", "nomeFavorecido": "A LTDA", "valor": "59.000,00",
            "codigoUg": "257001", "ug": "FUNDO NACIONAL DE SAUDE", "codigoOrgao": "36901",
            "codigoOrgaoSuperior": "36000", "orgaoSuperior": "Ministério da Saúde",
            "elemento": "30 - Material de Consumo", "modalidade": "Dispensa de Licitação", "numeroProcesso": ""
        });
        let e = expense_from_upstream(0, &v).unwrap();
        assert_eq!(e.id, "257001000012024NE000123");
        assert_eq!(e.value, 59_000.0);
        assert_eq!(e.payee.document, "00000000000191");
        assert_eq!(e.date, NaiveDate::from_ymd_opt(2024, 3, 15));
        assert!(e.is_commitment() && e.is_dispensa());
        assert_eq!(expense_from_upstream(0, &expense_to_upstream(&e)).unwrap(), e);
        let mut bad = v.clone();
        bad["valor"] = json!("x");
        assert_eq!(expense_from_upstream(2, &bad).unwrap_err().field, "valor");
    }
}
