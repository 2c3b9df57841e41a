//! The document's shape of the transparency and federal data routes' answers, `{data, meta}`.
//! The services build them (`service/federal_params.rs::answer`); this is the one schema the
//! seven routes share: `data` is what the source sent (its records, or a route's summary of
//! them) and `meta` where it came from and which page it is, every key any route writes.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

/// `{data, meta}`: records and their provenance.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct DataAnswer {
    /// The source's records as it sends them (transparency, PNCP: an array of the portal's
    /// records), or the route's summary: IBGE `{level, places}`, DataSUS `{place,
    /// establishments, by_unit_type, available}`, INEP `{theme, datasets, available}`.
    pub data: Value,
    /// Where the data came from and which part of it this is.
    pub meta: DataMeta,
}

/// The `meta` of a data answer: provenance on every route, paging where the source pages.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct DataMeta {
    /// `portal_transparencia_api`, `ibge_api`, `pncp_api`, `datasus_cnes_api`,
    /// `inep_catalogue`, `demo_data`, `ibge_offline_table` or `none`.
    pub source: String,
    /// True when the data is the service's own (demo or offline), not the source's.
    pub demo_mode: bool,
    /// `completed`, or `completed_fallback` when the source failed and the service answered.
    pub data_status: String,
    /// Whether the source's answer came from the upstream cache (production only).
    pub cache_hit: Option<bool>,
    /// Says why the data is the service's own (fallback only).
    pub warning: Option<String>,
    /// The class of the source's failure (fallback only).
    pub upstream_error: Option<String>,
    /// Page number.
    pub page: Option<u64>,
    /// Rows per page.
    pub page_size: Option<u64>,
    /// Rows or places in `data`.
    pub count: Option<u64>,
    /// Rows the source answered for the page (transparency, before the value filter).
    pub upstream_count: Option<u64>,
    /// Rows in all (demo transparency, INEP).
    pub total: Option<u64>,
    /// Whether another page may follow.
    pub has_more: Option<bool>,
    /// The upstream parameters sent (transparency).
    pub filters: Option<BTreeMap<String, String>>,
    /// PNCP: records, pages and pages left.
    pub total_records: Option<u64>,
    /// PNCP: pages in all.
    pub total_pages: Option<u64>,
    /// PNCP: pages after this one.
    pub remaining_pages: Option<u64>,
    /// PNCP: `{data_inicial, data_final}` asked for.
    pub period: Option<BTreeMap<String, String>>,
    /// IBGE: where the population figures come from.
    pub population_source: Option<String>,
    /// IBGE: what the population figures cover (the offline table has states only).
    pub population_note: Option<String>,
    /// Says the records are synthetic (demo data).
    pub notice: Option<String>,
    /// What an offline answer could not show.
    pub note: Option<String>,
    /// Demo data: the cache that keeps generated answers (`service/federal_demo.rs`).
    pub demo_cache: Option<DemoCacheFigures>,
}

/// `meta.demo_cache`: whether this answer's data was held, and the cache's figures.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct DemoCacheFigures {
    /// Whether the data was held (not generated for this request).
    pub hit: bool,
    /// Generations the cache has run since start.
    pub generations: u64,
    /// Answers held now.
    pub entries: u64,
    /// Their size as JSON, bytes.
    pub bytes: u64,
}
