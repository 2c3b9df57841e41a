//! What happened to a contract after signing: its termos aditivos, apostilamentos and rescisões
//! (Portal `TermoAditivo` / `Apostilamento` files, Contratos.gov.br histories), and the items it
//! buys (Portal `ItemCompra`). Both are carried in [`super::contract::Contract`] so the rules
//! that judge growth in value and the peer groups that compare prices read them from the
//! contract itself.

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use super::intern::ArcStr;

/// What an amendment changed, as its source qualifies it (Contratos.gov.br
/// `qualificacao_termo`) or as its text says (`Objeto` of the Portal's TermoAditivo file).
/// One amendment may do several things at once (an extension with a readjustment).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AmendmentKind {
    /// Acréscimo: more of the object (quantitative increase; capped by law at 25 %, 50 % for
    /// renovations of buildings and equipment).
    Addition,
    /// Supressão: less of the object.
    Suppression,
    /// Prorrogação de vigência: the same continuing service for another period (legal, not a
    /// growth of the object).
    Extension,
    /// Reajuste by a price index (legal, contractual).
    Readjustment,
    /// Repactuação or reequilíbrio econômico-financeiro (legal, on proven cost changes).
    Rebalance,
    /// Change of the contracted party (cessão, incorporação, change of name or CNPJ).
    SupplierChange,
    /// Rescisão: the contract ends early.
    Termination,
    /// Informative or other changes (clauses, managers, guarantees) with no effect on value.
    Other,
}

/// One amendment of a contract.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Amendment {
    /// The amendment's own number (`numero`, `Número Termo Aditivo`).
    pub number: ArcStr,
    /// The instrument as the source names it ("Termo Aditivo", "Termo de Apostilamento",
    /// "Termo de Rescisão").
    pub instrument: ArcStr,
    /// What it changed; empty when the source does not say and the text is not recognised.
    pub kinds: Vec<AmendmentKind>,
    /// Signing date (Contratos.gov.br) or publication date (the Portal's file has only that).
    pub signed_on: Option<NaiveDate>,
    /// The contract's global value after this amendment, when the source gives it.
    pub new_global_value: Option<f64>,
    /// The end of vigência after this amendment, when the source gives it.
    pub new_valid_until: Option<NaiveDate>,
    /// The free text (`observacao`, `Objeto`, `Descrição Apostilamento`).
    pub description: ArcStr,
}

/// One item a contract buys (`ItemCompra`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct ContractItem {
    /// The item's code in the purchase (`Código Item Compra`).
    pub code: ArcStr,
    /// `Descrição Item Compra` (a catalogue description, e.g. CATMAT/CATSER).
    pub description: ArcStr,
    /// `Descrição Complementar Item Compra` ("" when the source says "undefined").
    pub complement: ArcStr,
    /// `Quantidade Item`.
    pub quantity: f64,
    /// `Valor Item` in R$ as the source gives it.
    pub value: f64,
}
