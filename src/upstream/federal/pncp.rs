//! PNCP consulta v1 contracts: `GET /v1/contratos?dataInicial=yyyyMMdd&dataFinal=yyyyMMdd&
//! pagina=N&tamanhoPagina=10..500[&cnpjOrgao=][&codigoUnidadeAdministrativa=]`. The answer is
//! the envelope `{data, totalRegistros, totalPaginas, numeroPagina, paginasRestantes, empty}`;
//! an empty result is HTTP 204 with no body; a period longer than 365 days is refused upstream
//! with 422, so it is refused here before sending.

use chrono::NaiveDate;
use serde::Serialize;
use serde_json::Value;

use super::{Fetched, get, malformed, missing};
use crate::upstream::UpstreamError;
use crate::upstream::source::UpstreamSource;

const PATH: &str = "/v1/contratos";
/// Longest period PNCP accepts, in days (inclusive bounds).
pub const MAX_DAYS: i64 = 365;
/// Page sizes PNCP accepts.
pub const PAGE_SIZES: std::ops::RangeInclusive<u32> = 10..=500;

/// What to ask for.
#[derive(Debug, Clone, PartialEq)]
pub struct ContractsQuery {
    /// First signature-publication day.
    pub from: NaiveDate,
    /// Last day.
    pub to: NaiveDate,
    /// 1-based page.
    pub page: u32,
    /// Records per page (10 to 500).
    pub page_size: u32,
    /// The contracting entity's CNPJ (14 digits).
    pub cnpj_orgao: Option<String>,
    /// The administrative unit's code.
    pub unit: Option<String>,
}

impl ContractsQuery {
    /// Why PNCP would refuse this query, if it would.
    pub fn problem(&self) -> Option<(&'static str, String)> {
        if self.to < self.from {
            return Some(("data_final", "must not be before data_inicial".into()));
        }
        if (self.to - self.from).num_days() >= MAX_DAYS {
            return Some(("data_final", format!("PNCP answers periods of at most {MAX_DAYS} days")));
        }
        if self.page == 0 {
            return Some(("pagina", "pages start at 1".into()));
        }
        if !PAGE_SIZES.contains(&self.page_size) {
            return Some(("tamanho_pagina", "from 10 to 500".into()));
        }
        None
    }
}

/// One page of contracts with PNCP's counts.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ContractsPage {
    /// The records as PNCP sent them.
    pub data: Vec<Value>,
    /// Records in the whole result.
    pub total_records: u64,
    /// Pages in the whole result.
    pub total_pages: u64,
    /// This page's number.
    pub page: u64,
    /// Pages after this one.
    pub remaining_pages: u64,
}

/// The PNCP client.
#[derive(Clone)]
pub struct PncpClient {
    src: UpstreamSource,
}

impl PncpClient {
    /// The source under this client (health reads its outcomes).
    pub fn source(&self) -> &UpstreamSource {
        &self.src
    }

    /// Over one source.
    pub fn new(src: UpstreamSource) -> Self {
        PncpClient { src }
    }

    /// One page of contracts; a 204 is an empty page.
    pub async fn contracts(&self, q: &ContractsQuery) -> Result<Fetched<ContractsPage>, UpstreamError> {
        if let Some((field, reason)) = q.problem() {
            return Err(missing(&self.src, PATH, format!("{field}: {reason}")));
        }
        let mut query = vec![
            ("dataInicial", q.from.format("%Y%m%d").to_string()),
            ("dataFinal", q.to.format("%Y%m%d").to_string()),
            ("pagina", q.page.to_string()),
            ("tamanhoPagina", q.page_size.to_string()),
        ];
        if let Some(c) = &q.cnpj_orgao {
            query.push(("cnpjOrgao", c.clone()));
        }
        if let Some(u) = &q.unit {
            query.push(("codigoUnidadeAdministrativa", u.clone()));
        }
        let got = get(&self.src, PATH, &query).await?;
        let page = match got.value.as_deref() {
            None => ContractsPage {
                data: Vec::new(),
                total_records: 0,
                total_pages: 0,
                page: q.page.into(),
                remaining_pages: 0,
            },
            Some(body) => parse_page(body).map_err(|r| malformed(&self.src, PATH, r))?,
        };
        Ok(Fetched { value: page, cache_hit: got.cache_hit })
    }
}

/// Reads PNCP's envelope.
pub fn parse_page(body: &Value) -> Result<ContractsPage, String> {
    let data = body.get("data").and_then(Value::as_array).ok_or("expected the {data: [...]} envelope")?.clone();
    let n = |k: &str| body.get(k).and_then(Value::as_u64).unwrap_or(0);
    Ok(ContractsPage {
        total_records: body.get("totalRegistros").and_then(Value::as_u64).unwrap_or(data.len() as u64),
        total_pages: n("totalPaginas"),
        page: n("numeroPagina"),
        remaining_pages: n("paginasRestantes"),
        data,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query(from: (i32, u32, u32), to: (i32, u32, u32)) -> ContractsQuery {
        let d = |(y, m, d)| NaiveDate::from_ymd_opt(y, m, d).unwrap();
        ContractsQuery { from: d(from), to: d(to), page: 1, page_size: 10, cnpj_orgao: None, unit: None }
    }

    #[test]
    fn a_period_of_a_year_and_a_day_is_refused_and_one_of_365_days_is_not() {
        assert_eq!(query((2024, 1, 1), (2024, 12, 30)).problem(), None);
        assert_eq!(query((2024, 1, 1), (2024, 12, 31)).problem().map(|p| p.0), Some("data_final"));
        assert_eq!(query((2024, 2, 1), (2024, 1, 1)).problem().map(|p| p.0), Some("data_final"));
    }

    #[test]
    fn the_real_envelope_gives_its_records_and_counts() {
        let text =
            std::fs::read_to_string("../shared/real/pncp/devtulio-motor-pncp_tests_fixtures_contratos.json").unwrap();
        let page = parse_page(&serde_json::from_str(&text).unwrap()).unwrap();
        assert_eq!((page.data.len(), page.total_records, page.total_pages, page.remaining_pages), (2, 52, 6, 5));
        assert!(parse_page(&serde_json::json!([])).is_err());
    }
}
