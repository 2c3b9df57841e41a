//! Normalisation of the Portal API's `/contratos/termo-aditivo?id=` rows into [`Amendment`],
//! and the inverse for stand-in upstreams. The row shape is assumed to mirror the monthly
//! download's `TermoAditivo` file (the API's twin; UPSTREAM.md lists the endpoint but not its
//! fields): `{"numero", "dataPublicacao", "objeto"}`; `numeroTermoAditivo`, `data` and
//! `descricao` are accepted as aliases. As with the download, the kinds are read from the text
//! (there is no qualification field) and the date is the publication date.

use serde_json::{Value, json};

use super::amendment::{Amendment, kinds_from_text};
use super::fields::{Reader, date_value};
use super::upstream::RecordError;

/// Normalises one termo aditivo row. `index` is its position in the input.
pub fn amendment_from_upstream(index: usize, v: &Value) -> Result<Amendment, RecordError> {
    let r = Reader::new(index, v, "numero")?;
    let text = r.text_any(&["objeto", "descricao"]);
    let signed_on = match r.get("dataPublicacao") {
        Some(_) => r.date("dataPublicacao")?,
        None => r.date("data")?,
    };
    Ok(Amendment {
        number: r.text_any(&["numero", "numeroTermoAditivo"]).into(),
        instrument: "Termo Aditivo".into(),
        kinds: kinds_from_text(&text),
        signed_on,
        new_global_value: None,
        new_valid_until: None,
        description: text.into(),
    })
}

/// The amendment as a `/contratos/termo-aditivo` row (the inverse of
/// [`amendment_from_upstream`]).
pub fn amendment_to_upstream(a: &Amendment) -> Value {
    json!({
        "numero": a.number.as_str(),
        "dataPublicacao": date_value(a.signed_on),
        "objeto": a.description.as_str(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_termo_aditivo_row_reads_its_kinds_from_the_text_and_round_trips() {
        let row =
            json!({"numero": "000012024", "dataPublicacao": "11/03/2024", "objeto": "Objetivo: ACRÉSCIMO DE SERVIÇOS"});
        let a = amendment_from_upstream(0, &row).unwrap();
        assert_eq!(a.number.as_str(), "000012024");
        assert_eq!(a.signed_on, chrono::NaiveDate::from_ymd_opt(2024, 3, 11));
        assert!(!a.kinds.is_empty(), "an acréscimo is recognised");
        assert_eq!(amendment_from_upstream(0, &amendment_to_upstream(&a)).unwrap(), a);
        let sentinel = json!({"numero": "1", "dataPublicacao": "1900-01-01", "objeto": ""});
        assert_eq!(amendment_from_upstream(0, &sentinel).unwrap().signed_on, None);
    }
}
