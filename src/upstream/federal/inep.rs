//! INEP publishes its statistics (Censo Escolar, IDEB, ENEM, higher education) as files, not
//! through a query API; the machine-readable way in is the CKAN catalogue that lists them:
//! `GET /api/3/action/package_search?fq=organization:inep&q=<theme>&rows=N`, answered as
//! `{success, result: {count, results: [{name, title, notes, metadata_modified, resources:
//! [{name, format, url}]}]}}`. This client lists INEP's datasets on a theme with their files.

use serde::Serialize;
use serde_json::Value;

use super::{Fetched, get, malformed};
use crate::upstream::UpstreamError;
use crate::upstream::source::UpstreamSource;

const PATH: &str = "/api/3/action/package_search";

/// One INEP dataset and its files.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Dataset {
    /// Catalogue id.
    pub name: String,
    /// Title.
    pub title: String,
    /// Description.
    pub notes: String,
    /// Last change of its metadata.
    pub modified: Option<String>,
    /// Its files: name, format, URL.
    pub resources: Vec<Resource>,
}

/// One published file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Resource {
    /// Name.
    pub name: String,
    /// Format (CSV, ZIP, XLSX ...).
    pub format: String,
    /// Where to download it.
    pub url: String,
}

/// The INEP client.
#[derive(Clone)]
pub struct InepClient {
    src: UpstreamSource,
}

impl InepClient {
    /// The source under this client (health reads its outcomes).
    pub fn source(&self) -> &UpstreamSource {
        &self.src
    }

    /// Over one source.
    pub fn new(src: UpstreamSource) -> Self {
        InepClient { src }
    }

    /// INEP's datasets matching `theme`, at most `rows`, and how many match in all.
    pub async fn datasets(&self, theme: &str, rows: u32) -> Result<Fetched<(u64, Vec<Dataset>)>, UpstreamError> {
        let query = [("fq", "organization:inep".to_string()), ("q", theme.to_string()), ("rows", rows.to_string())];
        let got = get(&self.src, PATH, &query).await?;
        let found = match got.value.as_deref() {
            None => (0, Vec::new()),
            Some(body) => parse_search(body).map_err(|r| malformed(&self.src, PATH, r))?,
        };
        Ok(Fetched { value: found, cache_hit: got.cache_hit })
    }
}

/// Reads a CKAN `package_search` answer.
pub fn parse_search(body: &Value) -> Result<(u64, Vec<Dataset>), String> {
    if body.get("success").and_then(Value::as_bool) != Some(true) {
        return Err("the catalogue did not answer success: true".into());
    }
    let result = body.get("result").ok_or("no result")?;
    let rows = result.get("results").and_then(Value::as_array).ok_or("no result.results array")?;
    let text = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).unwrap_or_default().to_string();
    let datasets = rows
        .iter()
        .map(|d| Dataset {
            name: text(d, "name"),
            title: text(d, "title"),
            notes: text(d, "notes"),
            modified: d.get("metadata_modified").and_then(Value::as_str).map(str::to_string),
            resources: d
                .get("resources")
                .and_then(Value::as_array)
                .map_or(&[][..], Vec::as_slice)
                .iter()
                .map(|r| Resource { name: text(r, "name"), format: text(r, "format"), url: text(r, "url") })
                .collect(),
        })
        .collect();
    Ok((result.get("count").and_then(Value::as_u64).unwrap_or(rows.len() as u64), datasets))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_catalogue_answer_gives_the_datasets_and_their_files() {
        let body = json!({"success": true, "result": {"count": 7, "results": [{
            "name": "microdados-do-censo-escolar", "title": "Microdados do Censo Escolar", "notes": "...",
            "metadata_modified": "2024-03-01T10:00:00",
            "resources": [{"name": "Microdados 2023", "format": "ZIP", "url": "https://download.inep.gov.br/x.zip"}]}]}});
        let (count, ds) = parse_search(&body).unwrap();
        assert_eq!((count, ds.len(), ds[0].resources[0].format.as_str()), (7, 1, "ZIP"));
        assert!(parse_search(&json!({"success": false})).is_err());
    }
}
