//! DataSUS through the Ministry of Health's open-data API: CNES health establishments,
//! `GET /cnes/estabelecimentos?codigo_uf=NN&codigo_municipio=NNNNNN&codigo_tipo_unidade=&
//! limit=&offset=`, answered as `{"estabelecimentos": [...]}`. The state is its 2-digit IBGE
//! code and the municipality the 6-digit code (the IBGE code without its check digit); the API
//! caps `limit` at 20 whatever is asked, so pages are 20 records and the end is a short page.

use serde::Serialize;
use serde_json::Value;

use super::{Fetched, get, malformed, missing};
use crate::upstream::UpstreamError;
use crate::upstream::source::UpstreamSource;

const PATH: &str = "/cnes/estabelecimentos";
/// Records per page (the API's cap).
pub const PAGE_SIZE: u32 = 20;

/// What to ask for: a state or a municipality is required (the whole country is ~400,000
/// establishments, 20 at a time).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct EstablishmentsQuery {
    /// The state's 2-digit IBGE code.
    pub uf_code: Option<u32>,
    /// The municipality's 7-digit IBGE code (sent as its first six digits).
    pub municipality: Option<u32>,
    /// CNES unit type code (e.g. 2 health centre, 5 general hospital).
    pub unit_type: Option<u32>,
    /// 1-based page.
    pub page: u32,
}

/// One page of establishments with the count by unit type.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EstablishmentsPage {
    /// The records as the API sent them.
    pub establishments: Vec<Value>,
    /// How many of this page's records are of each `codigo_tipo_unidade`.
    pub by_unit_type: std::collections::BTreeMap<String, usize>,
    /// Whether a next page may hold more (this one was full).
    pub more: bool,
}

/// The DataSUS client.
#[derive(Clone)]
pub struct DatasusClient {
    src: UpstreamSource,
}

impl DatasusClient {
    /// The source under this client (health reads its outcomes).
    pub fn source(&self) -> &UpstreamSource {
        &self.src
    }

    /// Over one source.
    pub fn new(src: UpstreamSource) -> Self {
        DatasusClient { src }
    }

    /// One page of establishments.
    pub async fn establishments(&self, q: &EstablishmentsQuery) -> Result<Fetched<EstablishmentsPage>, UpstreamError> {
        if q.uf_code.is_none() && q.municipality.is_none() {
            return Err(missing(&self.src, PATH, "a state (codigo_uf) or a municipality (codigo_municipio)"));
        }
        let mut query = vec![
            ("limit", PAGE_SIZE.to_string()),
            ("offset", (q.page.max(1).saturating_sub(1) * PAGE_SIZE).to_string()),
        ];
        if let Some(uf) = q.uf_code {
            query.push(("codigo_uf", uf.to_string()));
        }
        if let Some(m) = q.municipality {
            query.push(("codigo_municipio", (m / 10).to_string()));
        }
        if let Some(t) = q.unit_type {
            query.push(("codigo_tipo_unidade", t.to_string()));
        }
        let got = get(&self.src, PATH, &query).await?;
        let page = match got.value.as_deref() {
            None => parse_page(&serde_json::json!({"estabelecimentos": []})),
            Some(body) => parse_page(body),
        }
        .map_err(|r| malformed(&self.src, PATH, r))?;
        Ok(Fetched { value: page, cache_hit: got.cache_hit })
    }
}

/// Reads `{"estabelecimentos": [...]}`.
pub fn parse_page(body: &Value) -> Result<EstablishmentsPage, String> {
    let rows = body.get("estabelecimentos").and_then(Value::as_array).ok_or("expected {estabelecimentos: [...]}")?;
    let mut by_unit_type = std::collections::BTreeMap::new();
    for r in rows {
        let t = match r.get("codigo_tipo_unidade") {
            Some(Value::Number(n)) => n.to_string(),
            Some(Value::String(s)) => s.clone(),
            _ => "unknown".into(),
        };
        *by_unit_type.entry(t).or_insert(0) += 1;
    }
    Ok(EstablishmentsPage { more: rows.len() as u32 >= PAGE_SIZE, establishments: rows.clone(), by_unit_type })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_page_is_counted_by_unit_type_and_a_short_page_is_the_last() {
        let body = json!({"estabelecimentos": [
            {"codigo_cnes": 2127989, "nome_fantasia": "UBS CENTRO", "codigo_uf": 31, "codigo_municipio": 310620, "codigo_tipo_unidade": 2},
            {"codigo_cnes": 27200, "nome_fantasia": "HOSPITAL", "codigo_uf": 31, "codigo_municipio": 310620, "codigo_tipo_unidade": 5},
            {"codigo_cnes": 27201, "codigo_tipo_unidade": 2}
        ]});
        let page = parse_page(&body).unwrap();
        assert_eq!(page.by_unit_type.get("2"), Some(&2));
        assert!(!page.more);
        assert!(parse_page(&json!([])).is_err());
    }
}
