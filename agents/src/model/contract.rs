//! A federal contract (`/contratos` of the Portal da Transparência), normalised. Parsing from
//! the upstream's JSON lives in [`super::upstream`].

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use super::amendment::{Amendment, ContractItem};
use super::intern::{ArcStr, Interner};

/// The supplier (`fornecedor`, a Pessoa upstream).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Party {
    /// `nome` (or `razaoSocialReceita` when `nome` is empty).
    pub name: ArcStr,
    /// CNPJ as 14 digits, or the CPF as given (possibly masked), or "" when unknown.
    pub document: ArcStr,
}

impl Party {
    /// Shares its texts through `interner`.
    pub fn share_text(&mut self, interner: &mut Interner) {
        interner.share(&mut self.name);
        interner.share(&mut self.document);
    }
    /// The 8-digit CNPJ root (the company, across its branches), if the document is a CNPJ.
    pub fn cnpj_root(&self) -> Option<&str> {
        (self.document.len() == 14).then(|| &self.document[..8])
    }
}

/// The organ (`unidadeGestora.orgaoMaximo`): SIAFI code, acronym, name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Organ {
    /// SIAFI "órgão superior" code, 5 digits (e.g. `36000` Saúde).
    pub code: ArcStr,
    /// `sigla`, often empty upstream.
    pub acronym: ArcStr,
    /// `nome`.
    pub name: ArcStr,
}

impl Organ {
    /// Shares its texts through `interner`.
    pub fn share_text(&mut self, interner: &mut Interner) {
        interner.share(&mut self.code);
        interner.share(&mut self.acronym);
        interner.share(&mut self.name);
    }
}

/// The managing unit (`unidadeGestora`): 6-digit UG code and name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Unit {
    /// 6-digit UG code.
    pub code: ArcStr,
    /// Name.
    pub name: ArcStr,
}

impl Unit {
    /// Shares its texts through `interner`.
    pub fn share_text(&mut self, interner: &mut Interner) {
        interner.share(&mut self.code);
        interner.share(&mut self.name);
    }
}

/// One contract.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Contract {
    /// Upstream `id` (an integer upstream), as a string.
    pub id: ArcStr,
    /// `numero`.
    pub number: ArcStr,
    /// `objeto`: free text.
    pub object: ArcStr,
    /// `numeroProcesso`.
    pub process_number: ArcStr,
    /// `fundamentoLegal`.
    pub legal_basis: ArcStr,
    /// `situacaoContrato`.
    pub situation: ArcStr,
    /// `modalidadeCompra` ("Pregão", "Dispensa de Licitação", ...).
    pub modality: ArcStr,
    /// `fornecedor`.
    pub supplier: Party,
    /// `unidadeGestora`.
    pub unit: Unit,
    /// `unidadeGestora.orgaoMaximo`.
    pub organ: Organ,
    /// `valorInicialCompra` in R$.
    pub initial_value: f64,
    /// `valorFinalCompra` in R$.
    pub final_value: f64,
    /// `dataAssinatura`.
    pub signed_on: Option<NaiveDate>,
    /// `dataPublicacaoDOU`.
    pub published_on: Option<NaiveDate>,
    /// `dataInicioVigencia`.
    pub valid_from: Option<NaiveDate>,
    /// `dataFimVigencia`.
    pub valid_until: Option<NaiveDate>,
    /// Termos aditivos, apostilamentos and rescisões, in signing order (empty when the source
    /// gives none: then nothing is known of why the value changed).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub amendments: Vec<Amendment>,
    /// The items bought, when the source lists them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub items: Vec<ContractItem>,
}

impl Contract {
    /// Shares the texts that repeat across contracts (parties, organ, unit, modality, legal
    /// basis, situation) through `interner`.
    pub fn share_text(&mut self, interner: &mut Interner) {
        self.supplier.share_text(interner);
        self.unit.share_text(interner);
        self.organ.share_text(interner);
        interner.share(&mut self.legal_basis);
        interner.share(&mut self.situation);
        interner.share(&mut self.modality);
    }
    /// The value to analyse: the final value when known, else the initial one.
    pub fn value(&self) -> f64 {
        if self.final_value > 0.0 { self.final_value } else { self.initial_value }
    }
    /// A short human name: number and the start of the object.
    pub fn display_name(&self) -> String {
        let object: String = self.object.chars().take(80).collect();
        if self.number.is_empty() { object } else { format!("{} - {}", self.number, object) }
    }
}
