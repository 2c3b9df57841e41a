//! Reading records of every kind from one text: `vigia detect`'s input. A JSON array or NDJSON
//! of records whose kind is recognised per record by its distinctive upstream fields, or one
//! object keyed by kind (`{"contratos": [...], "licitacoes": [...], ...}`).

use serde_json::Value;

use super::agreement::agreement_from_upstream;
use super::bidding::bidding_from_upstream;
use super::dataset::Dataset;
use super::expense::expense_from_upstream;
use super::registry_facts::supplier_profile_from_upstream;
use super::sanction::sanction_from_upstream;
use super::servant::servant_from_upstream;
use super::upstream::{RecordError, contract_from_upstream};

/// The record kinds the engine reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordKind {
    /// `/contratos`.
    Contract,
    /// `/licitacoes` (with `participantes`).
    Bidding,
    /// `/despesas/documentos`.
    Expense,
    /// `/convenios`.
    Agreement,
    /// `/servidores`.
    Servant,
    /// `/ceis`, `/cnep`.
    Sanction,
    /// Receita Federal registry facts (partners, address, phone, opening date).
    SupplierProfile,
}

/// Keys of the keyed-object form, with the kind each holds.
pub const KEYS: &[(&str, RecordKind)] = &[
    ("contratos", RecordKind::Contract),
    ("contracts", RecordKind::Contract),
    ("licitacoes", RecordKind::Bidding),
    ("biddings", RecordKind::Bidding),
    ("despesas", RecordKind::Expense),
    ("expenses", RecordKind::Expense),
    ("convenios", RecordKind::Agreement),
    ("agreements", RecordKind::Agreement),
    ("servidores", RecordKind::Servant),
    ("servants", RecordKind::Servant),
    ("sancoes", RecordKind::Sanction),
    ("ceis", RecordKind::Sanction),
    ("cnep", RecordKind::Sanction),
    ("sanctions", RecordKind::Sanction),
    ("fornecedores", RecordKind::SupplierProfile),
    ("suppliers", RecordKind::SupplierProfile),
];

/// The kind of one record from its distinctive fields: `valorInicialCompra` /
/// `valorFinalCompra` / `situacaoContrato` a contract; `licitacao` a bidding; `dimConvenio` a
/// convênio; `documento` with `fase` an expense; `servidor` a servant; `tipoSancao` or
/// `sancionado` a sanction; `qsa` or `razao_social` registry facts.
pub fn kind_of_record(v: &Value) -> Option<RecordKind> {
    let o = v.as_object()?;
    let has = |k: &str| o.contains_key(k);
    if has("valorInicialCompra") || has("valorFinalCompra") || has("situacaoContrato") {
        Some(RecordKind::Contract)
    } else if has("licitacao") {
        Some(RecordKind::Bidding)
    } else if has("dimConvenio") {
        Some(RecordKind::Agreement)
    } else if has("documento") && has("fase") {
        Some(RecordKind::Expense)
    } else if has("servidor") {
        Some(RecordKind::Servant)
    } else if has("tipoSancao") || has("sancionado") {
        Some(RecordKind::Sanction)
    } else if has("qsa") || has("razao_social") {
        Some(RecordKind::SupplierProfile)
    } else {
        None
    }
}

/// Parses one record of a known kind into the dataset.
fn push(ds: &mut Dataset, kind: RecordKind, index: usize, v: &Value) -> Result<(), RecordError> {
    match kind {
        RecordKind::Contract => ds.contracts.push(contract_from_upstream(index, v)?),
        RecordKind::Bidding => ds.biddings.push(bidding_from_upstream(index, v)?),
        RecordKind::Expense => ds.expenses.push(expense_from_upstream(index, v)?),
        RecordKind::Agreement => ds.agreements.push(agreement_from_upstream(index, v)?),
        RecordKind::Servant => ds.servants.push(servant_from_upstream(index, v)?),
        RecordKind::Sanction => ds.sanctions.push(sanction_from_upstream(index, v)?),
        RecordKind::SupplierProfile => ds.suppliers.push(supplier_profile_from_upstream(index, v)?),
    }
    Ok(())
}

fn push_detected(ds: &mut Dataset, index: usize, v: &Value) -> Result<(), RecordError> {
    match kind_of_record(v) {
        Some(kind) => push(ds, kind, index, v),
        None if !v.is_object() => contract_from_upstream(index, v).map(|_| ()),
        None => Err(RecordError {
            index,
            id: v.get("id").and_then(|i| super::fields::id_text(i).ok()),
            field: "(record)".into(),
            message: "unknown record kind: expected the fields of a contrato (valorInicialCompra), licitação \
                      (licitacao), despesa (documento and fase), convênio (dimConvenio), servidor (servidor), \
                      sanção (tipoSancao or sancionado) or registry record (qsa or razao_social)"
                .into(),
        }),
    }
}

/// Whether a top-level object is the keyed form (every key a known kind, holding an array).
fn is_keyed(o: &serde_json::Map<String, Value>) -> bool {
    !o.is_empty() && o.iter().all(|(k, v)| v.is_array() && KEYS.iter().any(|(name, _)| name == k))
}

/// Parses records of any kind: a JSON array, NDJSON (one record per line), a single record,
/// or an object keyed by kind (`contratos`, `licitacoes`, `despesas`, `convenios`,
/// `servidores`, `sancoes`/`ceis`/`cnep`, `fornecedores`, or the English names). Errors name
/// the record (its position in the whole input, from 0, and its id) and the field; a JSON
/// syntax error has field `(json)`.
pub fn records_from_text(text: &str) -> Result<Dataset, RecordError> {
    let mut ds = Dataset::default();
    let mut index = 0usize;
    for value in serde_json::Deserializer::from_str(text).into_iter::<Value>() {
        let value = value.map_err(|e| RecordError {
            index,
            id: None,
            field: "(json)".into(),
            message: format!("invalid JSON at line {} column {}: {}", e.line(), e.column(), e),
        })?;
        push_value(&mut ds, &mut index, &value)?;
    }
    ds.share_text();
    Ok(ds)
}

/// [`records_from_text`] of one JSON document already parsed (an array, a record or the keyed
/// form), so a reader that looked at its shape does not parse it twice.
pub fn records_from_value(value: &Value) -> Result<Dataset, RecordError> {
    let mut ds = Dataset::default();
    push_value(&mut ds, &mut 0, value)?;
    ds.share_text();
    Ok(ds)
}

/// Reads the records of one top-level JSON value, numbering them from `index`.
fn push_value(ds: &mut Dataset, index: &mut usize, value: &Value) -> Result<(), RecordError> {
    match value {
        Value::Array(items) => {
            for item in items {
                push_detected(ds, *index, item)?;
                *index += 1;
            }
        }
        Value::Object(o) if is_keyed(o) => {
            for (key, items) in o {
                let Some((_, kind)) = KEYS.iter().find(|(name, _)| name == key) else { continue };
                for item in items.as_array().map_or(&[][..], Vec::as_slice) {
                    push(ds, *kind, *index, item)?;
                    *index += 1;
                }
            }
        }
        other => {
            push_detected(ds, *index, other)?;
            *index += 1;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::demo::{DemoSpec, generate};
    use crate::model::{agreement, bidding, expense, registry_facts, sanction, servant, upstream};

    fn upstream_lines(ds: &Dataset) -> Vec<Value> {
        let mut v: Vec<Value> = ds.contracts.iter().map(upstream::contract_to_upstream).collect();
        v.extend(ds.biddings.iter().map(bidding::bidding_to_upstream));
        v.extend(ds.expenses.iter().map(expense::expense_to_upstream));
        v.extend(ds.agreements.iter().map(agreement::agreement_to_upstream));
        v.extend(ds.servants.iter().map(servant::servant_to_upstream));
        v.extend(ds.sanctions.iter().map(sanction::sanction_to_upstream));
        v.extend(ds.suppliers.iter().map(registry_facts::supplier_profile_to_upstream));
        v
    }

    #[test]
    fn every_kind_of_demo_record_round_trips_through_ndjson_an_array_and_the_keyed_form() {
        let data = generate(&DemoSpec { seed: 3, contracts: 400, ..DemoSpec::default() });
        let ds = &data.dataset;
        assert!(!ds.biddings.is_empty() && !ds.expenses.is_empty() && !ds.agreements.is_empty());
        assert!(!ds.servants.is_empty() && !ds.sanctions.is_empty() && !ds.suppliers.is_empty());
        let lines = upstream_lines(ds);
        let ndjson: String = lines.iter().map(|v| format!("{v}\n")).collect();
        let back = records_from_text(&ndjson).unwrap();
        assert_eq!(back.len(), ds.len());
        assert_eq!(back.contracts, ds.contracts);
        assert_eq!(back.biddings, ds.biddings);
        assert_eq!(back.expenses, ds.expenses);
        assert_eq!(back.agreements, ds.agreements);
        assert_eq!(back.servants, ds.servants);
        assert_eq!(back.sanctions, ds.sanctions);
        assert_eq!(back.suppliers, ds.suppliers);
        let array = records_from_text(&Value::Array(lines).to_string()).unwrap();
        assert_eq!(array.len(), ds.len());
        let keyed = serde_json::json!({
            "contratos": ds.contracts.iter().map(upstream::contract_to_upstream).collect::<Vec<_>>(),
            "licitacoes": ds.biddings.iter().map(bidding::bidding_to_upstream).collect::<Vec<_>>(),
            "sancoes": ds.sanctions.iter().map(sanction::sanction_to_upstream).collect::<Vec<_>>(),
        });
        let k = records_from_text(&keyed.to_string()).unwrap();
        assert_eq!(
            (k.contracts.len(), k.biddings.len(), k.sanctions.len()),
            (ds.contracts.len(), ds.biddings.len(), ds.sanctions.len())
        );
    }

    #[test]
    fn unknown_records_and_bad_fields_are_named() {
        let e = records_from_text(r#"[{"id": 1, "valorInicialCompra": 10}, {"id": 2, "foo": 1}]"#).unwrap_err();
        assert_eq!((e.index, e.id.as_deref(), e.field.as_str()), (1, Some("2"), "(record)"));
        let e = records_from_text(r#"{"licitacoes": [{"id": 5, "licitacao": {}, "dataAbertura": "xx"}]}"#).unwrap_err();
        assert_eq!((e.index, e.field.as_str()), (0, "dataAbertura"));
        let e = records_from_text("[1,").unwrap_err();
        assert_eq!(e.field, "(json)");
        let one = records_from_text(r#"{"id": 9, "valorInicialCompra": 10.5}"#).unwrap();
        assert_eq!(one.contracts.len(), 1);
        assert_eq!(records_from_text("").unwrap().len(), 0);
    }
}
