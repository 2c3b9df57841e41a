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
    /// The contract's global value after this amendment, when the source gives it:
    /// Contratos.gov.br's `novo_valor_global` (apostilamentos) or, for a termo aditivo, the
    /// `valor_global` the term records, which for a prorrogação is the value of the contract
    /// with its new period (not a cumulative total). The Portal's files give none.
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

/// The stems (folded, matched at the start of a word) that say what an amendment's text does,
/// and the kind each means. Word starts rather than substrings, so "reajuste" does not match
/// inside another word, and accents are folded so "ACRÉSCIMO" and "acrescimo" are one stem.
const STEMS: &[(&str, AmendmentKind)] = &[
    ("acresc", AmendmentKind::Addition),
    ("supress", AmendmentKind::Suppression),
    ("suprim", AmendmentKind::Suppression),
    ("prorrog", AmendmentKind::Extension),
    ("renov", AmendmentKind::Extension),
    ("reajust", AmendmentKind::Readjustment),
    ("ipca", AmendmentKind::Readjustment),
    ("inpc", AmendmentKind::Readjustment),
    ("igpm", AmendmentKind::Readjustment),
    ("repactu", AmendmentKind::Rebalance),
    ("reequilib", AmendmentKind::Rebalance),
    ("recomposi", AmendmentKind::Rebalance),
    ("rescis", AmendmentKind::Termination),
    ("rescind", AmendmentKind::Termination),
    ("distrat", AmendmentKind::Termination),
    ("incorpora", AmendmentKind::SupplierChange),
    ("cisao", AmendmentKind::SupplierChange),
    ("subrog", AmendmentKind::SupplierChange),
];

/// Two-word phrases (folded) with the kind each means: the words are too common alone.
const PHRASES: &[(&str, &str, AmendmentKind)] = &[
    ("razao", "social", AmendmentKind::SupplierChange),
    ("sub", "rogacao", AmendmentKind::SupplierChange),
    ("igp", "m", AmendmentKind::Readjustment),
    ("ipc", "a", AmendmentKind::Readjustment),
];

/// Words that negate the stem right after them ("sem reajuste", "sem ônus ou acréscimo", "não
/// haverá acréscimo"): an amendment saying it adds nothing must not read as an addition.
const NEGATIONS: &[&str] = &["sem", "nao", "nem", "vedado", "vedada"];

/// How many words before a stem a negation still governs it ("sem qualquer acréscimo",
/// "sem ônus ou acréscimo de valor").
const NEGATION_REACH: usize = 3;

/// Stems of the words that say a term changes quantities ("readequar o quantitativo",
/// "inclusão de postos", "redução"): what lets a bare change of value, under a qualification
/// "ACRÉSCIMO / SUPRESSÃO", count as an addition or a suppression.
const QUANTITATIVE: &[&str] = &["quantitativ", "readequ", "inclu", "aument", "amplia", "reduz", "exclu", "diminu"];

/// How many leading words may hold the verb of a retification ("Objetivo: RETIFICAR ...",
/// "O PRESENTE TERMO TEM POR OBJETO RETIFICAR ...").
const RETIFICATION_REACH: usize = 12;

/// Whether the text is a retification of an earlier publication or term: it quotes what it
/// corrects ("onde se lê ... leia-se ..."), so its words are not what it does. The verb must
/// open the text, before any word that names a kind ("ACRÉSCIMO DE 10% E RETIFICAÇÃO DA
/// CLÁUSULA" is an addition).
fn is_retification(words: &[String]) -> bool {
    for w in words.iter().take(RETIFICATION_REACH) {
        if w.starts_with("retific") {
            return true;
        }
        if STEMS.iter().any(|(stem, _)| w.starts_with(stem)) {
            return false;
        }
    }
    false
}

/// The kinds an amendment's free text names (`Objeto` of the Portal's TermoAditivo,
/// `observacao` of a Contratos.gov.br history entry), sorted and without repeats; empty when
/// the text names none. Accents and case are folded, stems match at word starts, and a stem
/// right after "sem" / "não" is not counted ("prorrogação sem reajuste" is an extension only).
/// A retification is [`AmendmentKind::Other`] whatever it quotes. A text may name an addition
/// beside a repactuação or reajuste ("repactuação ... que representa um acréscimo de R$ ..."):
/// both kinds are kept, and such a term's growth is not surely a quantitative addition.
pub fn kinds_from_text(text: &str) -> Vec<AmendmentKind> {
    let words = crate::text::words(text);
    if is_retification(&words) {
        return vec![AmendmentKind::Other];
    }
    let mut kinds = Vec::new();
    for (k, w) in words.iter().enumerate() {
        let negated = words[k.saturating_sub(NEGATION_REACH)..k].iter().any(|p| NEGATIONS.contains(&p.as_str()));
        if negated {
            continue;
        }
        for (stem, kind) in STEMS {
            if w.starts_with(stem) {
                kinds.push(*kind);
            }
        }
        if let Some(next) = words.get(k + 1) {
            for (first, second, kind) in PHRASES {
                if w == first && next == second {
                    kinds.push(*kind);
                }
            }
        }
    }
    kinds.sort_unstable();
    kinds.dedup();
    kinds
}

/// The kinds of an apostilamento. By law (Lei 14.133/2021 art. 136; Lei 8.666/1993 art. 65
/// §8) an apostila only records what needs no amendment: readjustments by the contract's
/// index, repactuações, changes of the contractor's name, budget notes. It never adds to the
/// object nor extends it, whatever its text mentions, so only those kinds are kept and
/// anything else is informative ([`AmendmentKind::Other`]).
pub fn apostille_kinds(text: &str) -> Vec<AmendmentKind> {
    let allowed = [AmendmentKind::Readjustment, AmendmentKind::Rebalance, AmendmentKind::SupplierChange];
    let kinds: Vec<AmendmentKind> = kinds_from_text(text).into_iter().filter(|k| allowed.contains(k)).collect();
    if kinds.is_empty() { vec![AmendmentKind::Other] } else { kinds }
}

/// Whether a text speaks of changing quantities (see [`QUANTITATIVE`]), retifications aside.
fn says_quantities(text: &str) -> bool {
    let words = crate::text::words(text);
    !is_retification(&words) && words.iter().any(|w| QUANTITATIVE.iter().any(|q| w.starts_with(q)))
}

/// The kinds of a Contratos.gov.br history entry from its `qualificacao_termo` descriptions,
/// its free text and the change of the global value it made (`value_change`, new minus
/// previous global value, when both are known).
///
/// VIGÊNCIA is an extension, REAJUSTE a readjustment, FORNECEDOR a change of supplier and
/// INFORMATIVO informative. "ACRÉSCIMO / SUPRESSÃO" is ticked whenever the value changes, also
/// when the change comes from a prorrogação's new period or a reajuste, so it is resolved: the
/// text's own acréscimo / supressão words decide first; failing those, a value change that an
/// extension, readjustment or repactuação of the same entry explains is theirs, not an
/// addition; otherwise, when the text speaks of quantities ("readequar o quantitativo",
/// "inclusão de postos"), the sign of the value change decides. With no change known, or a
/// text that speaks of something else (a change of address, of payment terms), the entry's
/// direction stays unknown (neither kind). A retification is informative only.
pub fn kinds_from_qualification(descriptions: &[&str], text: &str, value_change: Option<f64>) -> Vec<AmendmentKind> {
    let from_text = kinds_from_text(text);
    if from_text == [AmendmentKind::Other] {
        // A retification: the qualification was copied from the term it corrects.
        return from_text;
    }
    let mut kinds = Vec::new();
    let mut quantitative = false;
    for d in descriptions {
        let folded = crate::text::fold(d);
        match folded.trim() {
            "vigencia" => kinds.push(AmendmentKind::Extension),
            "reajuste" => kinds.push(AmendmentKind::Readjustment),
            "fornecedor" => kinds.push(AmendmentKind::SupplierChange),
            "informativo" => kinds.push(AmendmentKind::Other),
            f if f.contains("acrescimo") || f.contains("supressao") => quantitative = true,
            _ => kinds.push(AmendmentKind::Other),
        }
    }
    // The text may say more than the qualification (a repactuação ticked as INFORMATIVO).
    let explaining = [AmendmentKind::Extension, AmendmentKind::Readjustment, AmendmentKind::Rebalance];
    kinds.extend(from_text.iter().copied().filter(|k| explaining.contains(k) || *k == AmendmentKind::Termination));
    if quantitative {
        let said: Vec<AmendmentKind> = from_text
            .iter()
            .copied()
            .filter(|k| matches!(k, AmendmentKind::Addition | AmendmentKind::Suppression))
            .collect();
        if !said.is_empty() {
            kinds.extend(said);
        } else if !kinds.iter().any(|k| explaining.contains(k)) && says_quantities(text) {
            match value_change {
                Some(d) if d > 0.0 => kinds.push(AmendmentKind::Addition),
                Some(d) if d < 0.0 => kinds.push(AmendmentKind::Suppression),
                _ => {}
            }
        }
    }
    kinds.sort_unstable();
    kinds.dedup();
    // Informative only when nothing else was said.
    if kinds.len() > 1 {
        kinds.retain(|k| *k != AmendmentKind::Other);
    }
    kinds
}

#[cfg(test)]
#[path = "amendment_tests.rs"]
mod tests;
