//! The SIAFI and SIAPE organ lists (`/orgaos-siafi`, `/orgaos-siape`, UPSTREAM.md A.7), read
//! whole on a schedule into the store like the sanctions lists, and the match between them:
//! investigations name SIAFI organs, `/servidores` takes SIAPE codes, and the two lists share
//! no key but the organ's name.
//!
//! The match is by normalised name only (accents and case folded, punctuation and Portuguese
//! function words dropped): a SIAFI organ whose normalised name equals exactly one SIAPE
//! organ's is matched; none, or several with none of them carrying the same code, is no match,
//! reported to the investigation rather than guessed.

use std::sync::Arc;

use chrono::Utc;
use serde_json::Value;
use vigia_agents::model::fields::id_text;
use vigia_agents::text::{is_stopword, words};

use super::params::Endpoint;
use super::schedule::{Kept, read_both};
use super::source::UpstreamError;
use super::transparency::TransparencyClient;
use crate::domain::ports::{OrganCode, OrganCodes, OrganCodesStore};

/// The lists as last read, shared.
pub type OrganCodesCache = Kept<OrganCodes>;

/// The name of the lists in logs.
pub const WHAT: &str = "organ codes";

/// The lists kept in `store` (read now, replaced at each refresh).
pub fn over(store: Arc<dyn OrganCodesStore>) -> OrganCodesCache {
    let loaded = store.load_organ_codes();
    Kept::stored(WHAT, loaded, move |codes: &OrganCodes, at| store.replace_organ_codes(codes, at))
}

/// Reads both lists whole (up to `upstream.max_pages` each) and keeps them.
pub async fn refresh(
    client: &TransparencyClient,
    cache: &OrganCodesCache,
    max_pages: u32,
) -> Result<usize, UpstreamError> {
    let (siafi, siape) = read_both(client, (Endpoint::OrgansSiafi, Endpoint::OrgansSiape), max_pages).await?;
    let codes = OrganCodes { siafi: parse(&siafi.rows), siape: parse(&siape.rows) };
    let n = codes.siafi.len() + codes.siape.len();
    cache.replace(codes, Utc::now());
    Ok(n)
}

/// `[{codigo, descricao}]`; rows without a code are skipped.
fn parse(rows: &[Value]) -> Vec<OrganCode> {
    rows.iter()
        .filter_map(|row| {
            let code = row.get("codigo").and_then(|c| id_text(c).ok()).filter(|c| !c.is_empty())?;
            let name = row.get("descricao").and_then(Value::as_str).unwrap_or("").trim().to_string();
            Some(OrganCode { code, name })
        })
        .collect()
}

/// An organ's name reduced to what identifies it: folded words without function words.
pub fn normalised(name: &str) -> String {
    words(name).into_iter().filter(|w| !is_stopword(w)).collect::<Vec<_>>().join(" ")
}

/// The SIAPE organ for a SIAFI code, or why there is none (a sentence for the data notes).
pub fn siape_for<'a>(codes: &'a OrganCodes, siafi: &str) -> Result<&'a OrganCode, String> {
    let Some(organ) = codes.siafi.iter().find(|o| o.code == siafi) else {
        return Err(format!("no SIAPE code for organ {siafi}: the SIAFI organ list does not have it"));
    };
    let wanted = normalised(&organ.name);
    if wanted.is_empty() {
        return Err(format!("no SIAPE code for organ {siafi}: the SIAFI organ list gives it no name"));
    }
    let same: Vec<&OrganCode> = codes.siape.iter().filter(|o| normalised(&o.name) == wanted).collect();
    match same.as_slice() {
        [one] => Ok(one),
        [] => Err(format!("no SIAPE code for organ {siafi} ({}): no SIAPE organ has that name", organ.name)),
        several => several.iter().copied().find(|o| o.code == siafi).ok_or_else(|| {
            format!("no SIAPE code for organ {siafi} ({}): {} SIAPE organs have that name", organ.name, several.len())
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn organ(code: &str, name: &str) -> OrganCode {
        OrganCode { code: code.into(), name: name.into() }
    }

    #[test]
    fn an_organ_matches_by_its_folded_name_without_function_words_and_never_by_guess() {
        let codes = OrganCodes {
            siafi: vec![
                organ("36000", "Ministério da Saúde"),
                organ("26000", "Ministério da Educação"),
                organ("52000", "Ministério da Defesa"),
                organ("30000", "Ministério da Justiça e Segurança Pública"),
                organ("99999", ""),
            ],
            siape: vec![
                organ("57000", "MINISTERIO DA SAUDE"),
                organ("26000", "MINISTÉRIO DA EDUCAÇÃO"),
                organ("26001", "Ministerio Educacao"),
                organ("52100", "COMANDO DA AERONAUTICA"),
                organ("30100", "MINISTERIO JUSTICA, SEGURANCA PUBLICA"),
            ],
        };
        assert_eq!(siape_for(&codes, "36000").unwrap().code, "57000");
        assert_eq!(siape_for(&codes, "30000").unwrap().code, "30100");
        // Two SIAPE organs of that name: the one with the same code, never the first.
        assert_eq!(siape_for(&codes, "26000").unwrap().code, "26000");
        let no = siape_for(&codes, "52000").unwrap_err();
        assert!(no.starts_with("no SIAPE code for organ 52000"), "{no}");
        assert!(siape_for(&codes, "11111").unwrap_err().contains("does not have it"));
        assert!(siape_for(&codes, "99999").unwrap_err().contains("no name"));
        let ambiguous = OrganCodes {
            siafi: vec![organ("25000", "Ministério da Fazenda")],
            siape: vec![organ("25100", "MINISTERIO DA FAZENDA"), organ("25200", "Ministério Fazenda")],
        };
        assert!(siape_for(&ambiguous, "25000").unwrap_err().contains("2 SIAPE organs"));
    }

    #[test]
    fn the_organ_lists_parse_string_and_number_codes_and_skip_rows_without_one() {
        let rows = serde_json::json!([{"codigo": "36000", "descricao": " Ministério da Saúde "},
            {"codigo": 26000, "descricao": "Ministério da Educação"}, {"descricao": "sem código"}]);
        let parsed = parse(rows.as_array().unwrap());
        assert_eq!(parsed, vec![organ("36000", "Ministério da Saúde"), organ("26000", "Ministério da Educação")]);
    }
}
