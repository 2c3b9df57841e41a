//! Normalisation of the upstream's JSON (`/contratos` ContratoDTO of the Portal da
//! Transparência) into [`Contract`], and the inverse for fixtures and the demo data.
//!
//! Money arrives as JSON numbers, `"1234.56"` or pt-BR `"1.234.567,89"` strings; dates as ISO
//! `YYYY-MM-DD` (possibly with a time), `DD/MM/YYYY`, `null`, `""` or the sentinel
//! `1900-01-01`. Every failure names the record and the field.

use chrono::NaiveDate;
use serde_json::{Map, Value, json};

use super::cnpj::{digits_only, format_cnpj};
use super::contract::{Contract, Organ, Party, Unit};

/// A record that could not be normalised: which one, and which field.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordError {
    /// Position of the record in the input, from 0.
    pub index: usize,
    /// The record's `id`, when it could be read.
    pub id: Option<String>,
    /// The upstream field name (`valorInicialCompra`, `fornecedor.cnpjFormatado`, `(json)`).
    pub field: String,
    /// What is wrong with it.
    pub message: String,
}

impl std::fmt::Display for RecordError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "record {}", self.index)?;
        if let Some(id) = &self.id {
            write!(f, " (id {id})")?;
        }
        write!(f, ": field {}: {}", self.field, self.message)
    }
}

impl std::error::Error for RecordError {}

/// Reads a money value: a JSON number, `"1234.56"`, pt-BR `"1.234.567,89"`, optionally prefixed
/// by `R$`. `None` for null, empty, unparseable or non-finite values. Negative values are
/// returned as such (the caller decides whether they are acceptable).
pub fn parse_money(v: &Value) -> Option<f64> {
    let x = match v {
        Value::Number(n) => n.as_f64()?,
        Value::String(s) => parse_money_str(s)?,
        _ => return None,
    };
    x.is_finite().then_some(x)
}

/// [`parse_money`] of a string: `"1234.56"`, pt-BR `"1.234.567,89"` or `"2588,9700"`,
/// optionally prefixed by `R$` or negative; `None` when it is not an amount.
pub fn parse_money_str(s: &str) -> Option<f64> {
    let mut t = s.trim();
    let negative = t.starts_with('-');
    if negative {
        t = t[1..].trim_start();
    }
    if let Some(rest) = t.strip_prefix("R$") {
        t = rest.trim_start();
    }
    if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit() || b == b'.' || b == b',') {
        return None;
    }
    let normalised: String = if t.contains(',') {
        t.chars().filter(|c| *c != '.').map(|c| if c == ',' { '.' } else { c }).collect()
    } else if t.matches('.').count() > 1 {
        t.chars().filter(|c| *c != '.').collect()
    } else {
        t.to_string()
    };
    let x: f64 = normalised.parse().ok()?;
    Some(if negative { -x } else { x })
}

/// Parses a date: ISO `YYYY-MM-DD` (a `T...` or ` ...` time suffix is ignored) or `DD/MM/YYYY`.
/// Empty strings and the sentinel `1900-01-01` mean "no date" (`Ok(None)`).
pub fn parse_date(s: &str) -> Result<Option<NaiveDate>, String> {
    let t = s.trim();
    if t.is_empty() {
        return Ok(None);
    }
    let bad = || format!("not a date (YYYY-MM-DD or DD/MM/YYYY): {t:?}");
    let date = if t.len() >= 10 && t.as_bytes()[4] == b'-' {
        let (day, rest) = t.split_at(10);
        if !(rest.is_empty() || rest.starts_with('T') || rest.starts_with(' ')) {
            return Err(bad());
        }
        NaiveDate::parse_from_str(day, "%Y-%m-%d").map_err(|_| bad())?
    } else if t.len() == 10 && t.as_bytes()[2] == b'/' {
        NaiveDate::parse_from_str(t, "%d/%m/%Y").map_err(|_| bad())?
    } else {
        return Err(bad());
    };
    if date == NaiveDate::from_ymd_opt(1900, 1, 1).unwrap_or(NaiveDate::MIN) {
        return Ok(None);
    }
    Ok(Some(date))
}

/// Normalises one ContratoDTO. `index` is the record's position, used in errors.
pub fn contract_from_upstream(index: usize, v: &Value) -> Result<Contract, RecordError> {
    let err = |id: Option<&str>, field: &str, message: String| RecordError {
        index,
        id: id.map(str::to_string),
        field: field.to_string(),
        message,
    };
    let Some(obj) = v.as_object() else {
        return Err(err(None, "(record)", format!("not a JSON object but {}", kind_of(v))));
    };
    let id = match obj.get("id") {
        Some(Value::Number(n)) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
            (Some(u), _, _) => u.to_string(),
            (_, Some(i), _) => i.to_string(),
            (_, _, Some(f)) if f.fract() == 0.0 && f.abs() < 1e15 => format!("{f:.0}"),
            _ => return Err(err(None, "id", format!("not an integer: {n}"))),
        },
        Some(Value::String(s)) if !s.trim().is_empty() => s.trim().to_string(),
        Some(Value::Null) | None => return Err(err(None, "id", "missing".to_string())),
        Some(other) => return Err(err(None, "id", format!("not an integer or string but {}", kind_of(other)))),
    };
    let id_ref = Some(id.as_str());
    let money = |field: &str| -> Result<Option<f64>, RecordError> {
        match obj.get(field) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => match parse_money(v) {
                Some(x) if x >= 0.0 => Ok(Some(x)),
                Some(x) => Err(err(id_ref, field, format!("negative amount {x}"))),
                None => Err(err(id_ref, field, "not a number or money string".to_string())),
            },
        }
    };
    let initial = money("valorInicialCompra")?;
    let final_value = money("valorFinalCompra")?;
    if initial.is_none() && final_value.is_none() {
        return Err(err(id_ref, "valorInicialCompra", "missing (and no valorFinalCompra)".to_string()));
    }
    let date = |field: &str| -> Result<Option<NaiveDate>, RecordError> {
        match obj.get(field) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => parse_date(s).map_err(|m| err(id_ref, field, m)),
            Some(other) => Err(err(id_ref, field, format!("not a date string but {}", kind_of(other)))),
        }
    };
    let supplier = party(obj.get("fornecedor")).map_err(|m| err(id_ref, "fornecedor.cnpjFormatado", m))?;
    let ug = obj.get("unidadeGestora").and_then(Value::as_object);
    let organ_obj = ug.and_then(|u| u.get("orgaoMaximo")).and_then(Value::as_object);
    let organ = Organ {
        code: text(organ_obj, "codigo").into(),
        acronym: text(organ_obj, "sigla").into(),
        name: text(organ_obj, "nome").into(),
    };
    let organ = if organ.code.is_empty() {
        let vinc = ug.and_then(|u| u.get("orgaoVinculado")).and_then(Value::as_object);
        Organ {
            code: text(vinc, "codigoSIAFI").into(),
            acronym: text(vinc, "sigla").into(),
            name: text(vinc, "nome").into(),
        }
    } else {
        organ
    };
    Ok(Contract {
        number: text(Some(obj), "numero").into(),
        object: text(Some(obj), "objeto").into(),
        process_number: text(Some(obj), "numeroProcesso").into(),
        legal_basis: text(Some(obj), "fundamentoLegal").into(),
        situation: text(Some(obj), "situacaoContrato").into(),
        modality: text(Some(obj), "modalidadeCompra").into(),
        supplier,
        unit: Unit { code: text(ug, "codigo").into(), name: text(ug, "nome").into() },
        organ,
        initial_value: initial.unwrap_or(0.0),
        final_value: final_value.unwrap_or(0.0),
        signed_on: date("dataAssinatura")?,
        published_on: date("dataPublicacaoDOU")?,
        valid_from: date("dataInicioVigencia")?,
        valid_until: date("dataFimVigencia")?,
        amendments: Vec::new(),
        items: Vec::new(),
        id: id.into(),
    })
}

fn party(v: Option<&Value>) -> Result<Party, String> {
    let obj = v.and_then(Value::as_object);
    let nome = text(obj, "nome");
    let name = if nome.is_empty() { text(obj, "razaoSocialReceita") } else { nome };
    let cnpj = text(obj, "cnpjFormatado");
    let document = if !cnpj.is_empty() {
        let digits = digits_only(&cnpj);
        if digits.len() != 14 {
            return Err(format!("a CNPJ must have 14 digits, got {:?}", cnpj));
        }
        digits
    } else {
        text(obj, "cpfFormatado")
    };
    Ok(Party { name: name.into(), document: document.into() })
}

/// A string field as text: strings as they are, numbers printed, anything else empty.
fn text(obj: Option<&Map<String, Value>>, key: &str) -> String {
    match obj.and_then(|o| o.get(key)) {
        Some(Value::String(s)) => s.trim().to_string(),
        Some(Value::Number(n)) => n.to_string(),
        _ => String::new(),
    }
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Parses a JSON array of records, a single record, or NDJSON (one record per line).
/// A JSON syntax error is reported with field `(json)` and its line and column.
pub fn contracts_from_text(text: &str) -> Result<Vec<Contract>, RecordError> {
    let mut out = Vec::new();
    let stream = serde_json::Deserializer::from_str(text).into_iter::<Value>();
    for value in stream {
        let value = value.map_err(|e| RecordError {
            index: out.len(),
            id: None,
            field: "(json)".to_string(),
            message: format!("invalid JSON at line {} column {}: {}", e.line(), e.column(), e),
        })?;
        match value {
            Value::Array(items) => {
                out.reserve(items.len());
                for item in &items {
                    out.push(contract_from_upstream(out.len(), item)?);
                }
            }
            other => out.push(contract_from_upstream(out.len(), &other)?),
        }
    }
    Ok(out)
}

/// The contract in the exact upstream ContratoDTO shape (the inverse of
/// [`contract_from_upstream`]).
pub fn contract_to_upstream(c: &Contract) -> Value {
    let id = match c.id.parse::<u64>() {
        Ok(n) if n.to_string() == c.id => json!(n),
        _ => json!(c.id),
    };
    let is_cnpj = c.supplier.document.len() == 14 && c.supplier.document.bytes().all(|b| b.is_ascii_digit());
    let (cnpj, cpf) = if is_cnpj {
        (format_cnpj(&c.supplier.document), String::new())
    } else {
        (String::new(), c.supplier.document.to_string())
    };
    let supplier_id: u64 = if is_cnpj { c.supplier.document[..8].parse().unwrap_or(0) } else { 0 };
    let date = |d: Option<NaiveDate>| d.map_or(Value::Null, |d| json!(d.format("%Y-%m-%d").to_string()));
    let ug = json!({
        "codigo": c.unit.code,
        "nome": c.unit.name,
        "descricaoPoder": "EXECUTIVO",
        "orgaoVinculado": {"codigoSIAFI": c.organ.code, "cnpj": "", "sigla": c.organ.acronym, "nome": c.organ.name},
        "orgaoMaximo": {"codigo": c.organ.code, "sigla": c.organ.acronym, "nome": c.organ.name},
    });
    json!({
        "id": id,
        "numero": c.number,
        "objeto": c.object,
        "numeroProcesso": c.process_number,
        "fundamentoLegal": c.legal_basis,
        "compra": {"numero": "", "objeto": c.object, "numeroProcesso": c.process_number, "contatoResponsavel": ""},
        "situacaoContrato": c.situation,
        "modalidadeCompra": c.modality,
        "unidadeGestora": ug.clone(),
        "unidadeGestoraCompras": ug,
        "dataAssinatura": date(c.signed_on),
        "dataPublicacaoDOU": date(c.published_on),
        "dataInicioVigencia": date(c.valid_from),
        "dataFimVigencia": date(c.valid_until),
        "fornecedor": {
            "id": supplier_id,
            "cpfFormatado": cpf,
            "cnpjFormatado": cnpj,
            "numeroInscricaoSocial": "",
            "nome": c.supplier.name,
            "razaoSocialReceita": c.supplier.name,
            "nomeFantasiaReceita": "",
            "tipo": if is_cnpj { "PESSOA JURÍDICA" } else { "PESSOA FÍSICA" },
        },
        "valorInicialCompra": c.initial_value,
        "valorFinalCompra": c.final_value,
    })
}

#[cfg(test)]
#[path = "upstream_tests.rs"]
mod tests;
