//! Reading one upstream JSON record field by field, for the parsers of every record kind other
//! than contracts: dotted paths (`licitacao.numero`), money, dates, flags and CPF/CNPJ
//! documents, each failure a [`RecordError`] naming the record and the field.

use chrono::NaiveDate;
use serde_json::{Map, Value, json};

use super::cnpj::digits_only;
use super::upstream::{RecordError, parse_date, parse_money};

/// One record being read: its position, its id once known, and its fields.
pub struct Reader<'a> {
    index: usize,
    id: Option<String>,
    obj: &'a Map<String, Value>,
}

/// What kind of JSON value this is, for error messages.
pub fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// An id field as text: integers printed without decimals, non-empty strings trimmed.
pub fn id_text(v: &Value) -> Result<String, String> {
    match v {
        Value::Number(n) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
            (Some(u), _, _) => Ok(u.to_string()),
            (_, Some(i), _) => Ok(i.to_string()),
            (_, _, Some(f)) if f.fract() == 0.0 && f.abs() < 1e15 => Ok(format!("{f:.0}")),
            _ => Err(format!("not an integer: {n}")),
        },
        Value::String(s) if !s.trim().is_empty() => Ok(s.trim().to_string()),
        Value::Null => Err("missing".to_string()),
        Value::String(_) => Err("empty".to_string()),
        other => Err(format!("not an integer or string but {}", kind_of(other))),
    }
}

/// The id back in upstream form: a JSON integer when the text is one, else the string.
pub fn id_value(id: &str) -> Value {
    match id.parse::<u64>() {
        Ok(n) if n.to_string() == id => json!(n),
        _ => json!(id),
    }
}

/// A date back in upstream form (`YYYY-MM-DD` or null).
pub fn date_value(d: Option<NaiveDate>) -> Value {
    d.map_or(Value::Null, |d| json!(d.format("%Y-%m-%d").to_string()))
}

/// Normalises a CPF/CNPJ as the records keep it: a CNPJ (14 digits, punctuation or not) or an
/// unmasked CPF (11 digits) as digits only; a masked CPF (`***.456.789-**`) as given; empty as
/// empty. Anything else is an error.
pub fn document(raw: &str) -> Result<String, String> {
    let t = raw.trim();
    if t.is_empty() {
        return Ok(String::new());
    }
    if t.contains('*') {
        return Ok(t.to_string());
    }
    let digits = digits_only(t);
    let allowed = t.chars().all(|c| c.is_ascii_digit() || matches!(c, '.' | '/' | '-' | ' '));
    if allowed && (digits.len() == 14 || digits.len() == 11) {
        Ok(digits)
    } else {
        Err(format!("not a CPF or CNPJ: {t:?}"))
    }
}

/// The six visible middle digits of a CPF, masked (`***.456.789-**`, `***456789**`) or not:
/// the key under which the Portal (servants) and the Receita Federal (company partners) can
/// be matched, since both publish only these digits.
pub fn cpf_key(cpf: &str) -> Option<String> {
    let t = cpf.trim();
    let visible: Vec<char> = t.chars().filter(|c| c.is_ascii_digit() || *c == '*').collect();
    if visible.len() != 11 {
        return None;
    }
    let mid: String = visible[3..9].iter().collect();
    mid.bytes().all(|b| b.is_ascii_digit()).then_some(mid)
}

/// Formats an 11-digit CPF as `000.000.000-00`; masked or other input is returned unchanged.
pub fn format_cpf(digits: &str) -> String {
    if digits.len() != 11 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return digits.to_string();
    }
    format!("{}.{}.{}-{}", &digits[..3], &digits[3..6], &digits[6..9], &digits[9..])
}

/// A document back in upstream form: CNPJs as `00.000.000/0000-00`, CPFs as `000.000.000-00`.
pub fn format_document(doc: &str) -> String {
    match doc.len() {
        14 => super::cnpj::format_cnpj(doc),
        11 => format_cpf(doc),
        _ => doc.to_string(),
    }
}

impl<'a> Reader<'a> {
    /// Starts reading record `index`, taking its id from `id_path` (required).
    pub fn new(index: usize, v: &'a Value, id_path: &str) -> Result<Self, RecordError> {
        let Some(obj) = v.as_object() else {
            return Err(RecordError {
                index,
                id: None,
                field: "(record)".into(),
                message: format!("not a JSON object but {}", kind_of(v)),
            });
        };
        let mut r = Reader { index, id: None, obj };
        let id = match r.get(id_path) {
            Some(v) => id_text(v).map_err(|m| r.err(id_path, m))?,
            None => return Err(r.err(id_path, "missing".into())),
        };
        r.id = Some(id);
        Ok(r)
    }

    /// The record's id.
    pub fn id(&self) -> String {
        self.id.clone().unwrap_or_default()
    }

    /// An error about `field` of this record.
    pub fn err(&self, field: &str, message: String) -> RecordError {
        RecordError { index: self.index, id: self.id.clone(), field: field.to_string(), message }
    }

    /// The value at a dotted path, `None` when absent or null.
    pub fn get(&self, path: &str) -> Option<&'a Value> {
        let mut parts = path.split('.');
        let mut cur = self.obj.get(parts.next()?)?;
        for p in parts {
            cur = cur.as_object()?.get(p)?;
        }
        (!cur.is_null()).then_some(cur)
    }

    /// Text at a path: strings trimmed, numbers printed, anything else empty.
    pub fn text(&self, path: &str) -> String {
        match self.get(path) {
            Some(Value::String(s)) => s.trim().to_string(),
            Some(Value::Number(n)) => n.to_string(),
            _ => String::new(),
        }
    }

    /// The first non-empty text among several paths.
    pub fn text_any(&self, paths: &[&str]) -> String {
        paths.iter().map(|p| self.text(p)).find(|t| !t.is_empty()).unwrap_or_default()
    }

    /// A non-negative amount (number, `"1234.56"` or pt-BR `"1.234,56"`); `None` when absent.
    pub fn money(&self, path: &str) -> Result<Option<f64>, RecordError> {
        match self.get(path) {
            None => Ok(None),
            Some(Value::String(s)) if s.trim().is_empty() => Ok(None),
            Some(v) => match parse_money(v) {
                Some(x) if x >= 0.0 => Ok(Some(x)),
                Some(x) => Err(self.err(path, format!("negative amount {x}"))),
                None => Err(self.err(path, "not a number or money string".into())),
            },
        }
    }

    /// A date (`YYYY-MM-DD`, `DD/MM/YYYY`; empty and `1900-01-01` are no date).
    pub fn date(&self, path: &str) -> Result<Option<NaiveDate>, RecordError> {
        match self.get(path) {
            None => Ok(None),
            Some(Value::String(s)) => parse_date(s).map_err(|m| self.err(path, m)),
            Some(other) => Err(self.err(path, format!("not a date string but {}", kind_of(other)))),
        }
    }

    /// A flag: JSON booleans, `"SIM"`/`"NÃO"`, `"S"`/`"N"`, `"true"`/`"false"`, 1/0.
    pub fn flag(&self, path: &str) -> Result<Option<bool>, RecordError> {
        match self.get(path) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(Value::Number(n)) if n.as_u64() == Some(1) => Ok(Some(true)),
            Some(Value::Number(n)) if n.as_u64() == Some(0) => Ok(Some(false)),
            Some(Value::String(s)) => match crate::text::fold(s.trim()).as_str() {
                "sim" | "s" | "true" | "1" => Ok(Some(true)),
                "nao" | "n" | "false" | "0" | "" => Ok(Some(false)),
                other => Err(self.err(path, format!("not a yes/no flag: {other:?}"))),
            },
            Some(other) => Err(self.err(path, format!("not a flag but {}", kind_of(other)))),
        }
    }

    /// A CPF/CNPJ at the first present path, normalised by [`document`].
    pub fn document(&self, paths: &[&str]) -> Result<String, RecordError> {
        for p in paths {
            let t = self.text(p);
            if !t.is_empty() {
                return document(&t).map_err(|m| self.err(p, m));
            }
        }
        Ok(String::new())
    }

    /// The array at a path (empty when absent); an error when present but not an array.
    pub fn array(&self, path: &str) -> Result<&'a [Value], RecordError> {
        match self.get(path) {
            None => Ok(&[]),
            Some(Value::Array(a)) => Ok(a.as_slice()),
            Some(other) => Err(self.err(path, format!("not an array but {}", kind_of(other)))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documents_are_normalised_and_masked_cpfs_kept() {
        assert_eq!(document("00.000.000/0001-91").unwrap(), "00000000000191");
        assert_eq!(document("123.456.789-09").unwrap(), "12345678909");
        assert_eq!(document("***.456.789-**").unwrap(), "***.456.789-**");
        assert_eq!(document("").unwrap(), "");
        assert!(document("ABC").is_err());
        assert!(document("1234").is_err());
        assert_eq!(cpf_key("***.456.789-**").as_deref(), Some("456789"));
        assert_eq!(cpf_key("***456789**").as_deref(), Some("456789"));
        assert_eq!(cpf_key("123.456.789-09").as_deref(), Some("456789"));
        assert_eq!(cpf_key("12"), None);
        assert_eq!(format_document("12345678909"), "123.456.789-09");
    }

    #[test]
    fn a_reader_names_the_record_and_field_of_each_failure() {
        let v = json!({"id": 7, "a": {"b": "x"}, "v": "1.234,50", "d": "31/12/2024", "f": "SIM", "bad": -3});
        let r = Reader::new(4, &v, "id").unwrap();
        assert_eq!(r.id(), "7");
        assert_eq!(r.text("a.b"), "x");
        assert_eq!(r.money("v").unwrap(), Some(1234.5));
        assert_eq!(r.date("d").unwrap(), NaiveDate::from_ymd_opt(2024, 12, 31));
        assert_eq!(r.flag("f").unwrap(), Some(true));
        let e = r.money("bad").unwrap_err();
        assert_eq!((e.index, e.id.as_deref(), e.field.as_str()), (4, Some("7"), "bad"));
        assert_eq!(Reader::new(0, &json!({"x": 1}), "id").err().unwrap().field, "id");
        assert_eq!(Reader::new(0, &json!([1]), "id").err().unwrap().field, "(record)");
    }
}
