//! Contratos.gov.br (comprasnet contratos) API shapes: the contracts list
//! (`/api/contrato/...`: `contratante.orgao{codigo,nome,unidade_gestora{codigo,nome}}`,
//! `fornecedor{tipo,cnpj_cpf_idgener,nome}`, money as pt-BR strings) and the contract histories
//! (`/api/contrato/{id}/historico`, gathered as one object keyed by contract id), whose termos
//! aditivos, apostilamentos and rescisões become [`Contract::amendments`].
//!
//! Revenue contracts (`receita_despesa` "Receita": the organ is paid, e.g. for the use of its
//! space) are not spending and are not read. Documents are kept as published (a UG code or a
//! generic id for a public supplier, a CPF, a CNPJ).

use serde_json::Value;

use super::amendment::{Amendment, apostille_kinds, kinds_from_qualification, kinds_from_text};
use super::contract::{Contract, Organ, Party, Unit};
use super::fields::Reader;
use super::load::document_as_given;
use super::upstream::RecordError;

/// Whether a JSON document is a Contratos.gov.br contracts list: an array whose records have
/// `contratante` and `valor_global`.
pub fn is_contracts(v: &Value) -> bool {
    v.as_array()
        .and_then(|a| a.first())
        .and_then(Value::as_object)
        .is_some_and(|o| o.contains_key("contratante") && o.contains_key("valor_global"))
}

/// The first entry of an object of arrays keyed by contract id, if the document is one.
fn first_keyed_entry(v: &Value) -> Option<&serde_json::Map<String, Value>> {
    let o = v.as_object()?;
    if o.is_empty() || !o.values().all(Value::is_array) {
        return None;
    }
    o.values().filter_map(Value::as_array).find_map(|a| a.first()).and_then(Value::as_object)
}

/// Whether an object is a history entry (`contrato_id` and `novo_valor_global`).
fn is_history_entry(e: &serde_json::Map<String, Value>) -> bool {
    e.contains_key("contrato_id") && e.contains_key("novo_valor_global")
}

/// Whether a JSON document holds contract histories: an object keyed by contract id whose
/// arrays hold history entries, or one list of entries as `/api/contrato/{id}/historico`
/// returns it.
pub fn is_histories(v: &Value) -> bool {
    let listed = v.as_array().and_then(|a| a.first()).and_then(Value::as_object);
    first_keyed_entry(v).or(listed).is_some_and(is_history_entry)
}

/// The histories of a document [`is_histories`] accepts, per contract id (the key of the
/// keyed form, each entry's `contrato_id` in a list), in order of first appearance.
pub fn histories_by_contract(v: Value) -> Vec<(String, Vec<Value>)> {
    match v {
        Value::Object(o) => o.into_iter().map(|(id, e)| (id, e.as_array().cloned().unwrap_or_default())).collect(),
        Value::Array(entries) => {
            let mut out: Vec<(String, Vec<Value>)> = Vec::new();
            let mut at: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
            for e in entries {
                let id = e.get("contrato_id").and_then(|i| super::fields::id_text(i).ok()).unwrap_or_default();
                let k = *at.entry(id.clone()).or_insert_with(|| {
                    out.push((id, Vec::new()));
                    out.len() - 1
                });
                out[k].1.push(e);
            }
            out
        }
        _ => Vec::new(),
    }
}

/// Whether a JSON document is the empenhos of contracts keyed by contract id (entries with
/// `empenhado` and `credor`).
pub fn is_commitments(v: &Value) -> bool {
    first_keyed_entry(v).is_some_and(|e| e.contains_key("empenhado") && e.contains_key("credor"))
}

/// Normalises one contract of the list; `None` for a revenue contract. `index` is its
/// position in the list, used in errors.
pub fn contract_from_contratos_gov(index: usize, v: &Value) -> Result<Option<Contract>, RecordError> {
    let r = Reader::new(index, v, "id")?;
    if crate::text::fold(&r.text("receita_despesa")) == "receita" {
        return Ok(None);
    }
    let initial = r.money("valor_inicial")?;
    let global = r.money("valor_global")?;
    if initial.is_none() && global.is_none() {
        return Err(r.err("valor_inicial", "missing (and no valor_global)".into()));
    }
    let unit_path = "contratante.orgao.unidade_gestora";
    Ok(Some(Contract {
        id: r.id().into(),
        number: r.text("numero").into(),
        object: r.text("objeto").into(),
        process_number: purchase_key(&r).into(),
        legal_basis: r.text("amparo_legal").into(),
        situation: r.text("situacao").into(),
        modality: r.text("modalidade").into(),
        supplier: Party {
            name: r.text("fornecedor.nome").into(),
            document: document_as_given(&r.text("fornecedor.cnpj_cpf_idgener")).into(),
        },
        unit: Unit {
            code: r.text(&format!("{unit_path}.codigo")).into(),
            name: r.text(&format!("{unit_path}.nome")).into(),
        },
        organ: Organ {
            code: r.text("contratante.orgao.codigo").into(),
            acronym: "".into(),
            name: r.text("contratante.orgao.nome").into(),
        },
        initial_value: initial.unwrap_or(0.0),
        final_value: global.unwrap_or(0.0),
        signed_on: r.date("data_assinatura")?,
        published_on: r.date("data_publicacao")?,
        valid_from: r.date("vigencia_inicio")?,
        valid_until: r.date("vigencia_fim")?,
        amendments: Vec::new(),
        items: Vec::new(),
    }))
}

/// The history entry types that change a contract after signing; every other type (Contrato,
/// Empenho, Credenciamento, Termo de Adesão, Outros "celebração do contrato" ...) is the
/// original instrument itself.
const AMENDMENT_TYPES: &[&str] = &["termo aditivo", "termo de apostilamento", "termo de rescisao"];

/// A history entry's amount: `field` when positive. The API writes "0,00" where it has no
/// value (every termo aditivo's `novo_valor_global`), so zero reads as unknown.
fn positive(r: &Reader<'_>, field: &str) -> Result<Option<f64>, RecordError> {
    Ok(r.money(field)?.filter(|x| *x > 0.0))
}

/// The amendments of one contract from its history `entries`, in signing order (undated last),
/// the original instrument skipped. `initial_value` is the contract's own initial value, the
/// base when the history lacks the original entry.
///
/// [`Amendment::new_global_value`] is `novo_valor_global` when the API fills it (apostilamentos)
/// and otherwise the entry's `valor_global`, the global value the term records (for a
/// prorrogação, the value of the contract with its new period). The change from the previous
/// global value resolves a qualification "ACRÉSCIMO / SUPRESSÃO" (see
/// [`kinds_from_qualification`]).
pub fn amendments_from_history(entries: &[Value], initial_value: f64) -> Result<Vec<Amendment>, RecordError> {
    let mut readers = Vec::with_capacity(entries.len());
    for (k, e) in entries.iter().enumerate() {
        readers.push(Reader::new(k, e, "id")?);
    }
    let mut dated = Vec::with_capacity(readers.len());
    for r in readers {
        let signed = r.date("data_assinatura")?;
        dated.push((signed, r));
    }
    dated.sort_by_key(|(d, _)| (d.is_none(), *d));
    let is_amendment = |r: &Reader<'_>| AMENDMENT_TYPES.contains(&crate::text::fold(&r.text("tipo")).as_str());
    let original = dated.iter().find(|(_, r)| !is_amendment(r));
    let mut previous = match original {
        Some((_, r)) => positive(r, "valor_global")?.or((initial_value > 0.0).then_some(initial_value)),
        None => (initial_value > 0.0).then_some(initial_value),
    };
    let mut out = Vec::new();
    for (signed_on, r) in dated.iter().filter(|(_, r)| is_amendment(r)) {
        let instrument = r.text("tipo");
        let text = r.text("observacao");
        let new_global = match positive(r, "novo_valor_global")? {
            Some(x) => Some(x),
            None => positive(r, "valor_global")?,
        };
        let change = new_global.zip(previous).map(|(new, old)| new - old);
        let folded = crate::text::fold(&instrument);
        let kinds = if folded.contains("apostilamento") {
            apostille_kinds(&text)
        } else if folded.contains("rescisao") {
            vec![super::amendment::AmendmentKind::Termination]
        } else {
            let descriptions: Vec<String> = r
                .array("qualificacao_termo")?
                .iter()
                .filter_map(|q| q.get("descricao").and_then(Value::as_str).map(str::to_string))
                .collect();
            if descriptions.is_empty() {
                kinds_from_text(&text)
            } else {
                let refs: Vec<&str> = descriptions.iter().map(String::as_str).collect();
                kinds_from_qualification(&refs, &text, change)
            }
        };
        if new_global.is_some() {
            previous = new_global;
        }
        out.push(Amendment {
            number: r.text("numero").into(),
            instrument: instrument.into(),
            kinds,
            signed_on: *signed_on,
            new_global_value: new_global,
            new_valid_until: r.date("vigencia_fim")?,
            description: text.into(),
        });
    }
    Ok(out)
}

/// The purchase a contract came from: the licitação (buying unit, modality code and number),
/// as the Portal's Compras download identifies it, so lots of one pregão signed under separate
/// administrative (SEI) processes are one purchase; the SEI `processo` when no licitação is
/// given.
fn purchase_key(r: &Reader<'_>) -> String {
    let bidding = r.text("licitacao_numero");
    if bidding.is_empty() {
        return r.text("processo");
    }
    format!("{}-{}-{bidding}", r.text("unidade_compra"), r.text("codigo_modalidade"))
}

#[cfg(test)]
#[path = "contratos_gov_tests.rs"]
pub(crate) mod tests;
