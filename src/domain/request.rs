//! The start request of an investigation (the spec's InvestigationRequest). One type accepts
//! both naming variants: Portuguese field names are serde aliases of the English ones, so the
//! English and Portuguese routes share one parser and one validation.

use chrono::{Datelike, NaiveDate};
use serde::{Deserialize, Serialize};
use vigia_agents::{AnomalyType, DetectionParams};

use crate::error::Error;

/// The spec's data sources.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DataSource {
    /// Portal da Transparência (CGU's public API).
    PortalTransparencia,
    /// Tribunal de Contas da União.
    Tcu,
    /// Controladoria-Geral da União.
    Cgu,
    /// Compras.gov.br.
    ComprasGov,
}

impl DataSource {
    /// Wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            DataSource::PortalTransparencia => "portal_transparencia",
            DataSource::Tcu => "tcu",
            DataSource::Cgu => "cgu",
            DataSource::ComprasGov => "compras_gov",
        }
    }
    /// Parses the wire name.
    pub fn parse(s: &str) -> Option<DataSource> {
        [DataSource::PortalTransparencia, DataSource::Tcu, DataSource::Cgu, DataSource::ComprasGov]
            .into_iter()
            .find(|d| d.as_str() == s)
    }
}

/// `{start, end}` (`{inicio, fim}`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct DateRange {
    /// First day included.
    #[serde(alias = "inicio")]
    pub start: NaiveDate,
    /// Last day included.
    #[serde(alias = "fim")]
    pub end: NaiveDate,
}

/// The spec's filters (`filtros`). Unknown keys (e.g. `bid_count` of client examples) are kept
/// in `extra` and reported back, not rejected.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default, utoipa::ToSchema)]
pub struct Filters {
    /// Signing dates to analyse.
    #[serde(default, alias = "intervalo_data")]
    pub date_range: Option<DateRange>,
    /// Organ SIAFI codes (5 digits) or managing-unit codes (6 digits).
    #[serde(default, alias = "organizacoes")]
    pub organizations: Vec<String>,
    /// Purchase modalities to keep (matched case- and accent-insensitively as substrings).
    #[serde(default, alias = "tipos_contrato")]
    pub contract_types: Vec<String>,
    /// Minimum contract value in R$.
    #[serde(default, alias = "valor_minimo")]
    pub min_value: Option<f64>,
    /// Maximum contract value in R$.
    #[serde(default, alias = "valor_maximo")]
    pub max_value: Option<f64>,
    /// Regions (UF codes). Contracts carry no region upstream, so this filter needs the
    /// managing unit's municipality and is recorded but does not narrow contract data.
    #[serde(default, alias = "regioes")]
    pub regions: Vec<String>,
    /// Keys this version does not interpret.
    #[serde(flatten)]
    #[schema(ignore)]
    pub extra: serde_json::Map<String, serde_json::Value>,
}

/// `{max_iterations, reflection_enabled, parallel_agents}` (`configuracao_agente`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default, utoipa::ToSchema)]
pub struct AgentConfiguration {
    /// Most refinement passes.
    #[serde(default, alias = "max_iteracoes")]
    pub max_iterations: Option<u32>,
    /// Whether agents re-check their findings.
    #[serde(default, alias = "reflexao_ativada")]
    pub reflection_enabled: Option<bool>,
    /// Most agents analysing at once.
    #[serde(default, alias = "agentes_paralelos")]
    pub parallel_agents: Option<u32>,
}

/// The start request, validated by [`InvestigationRequest::validate`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[schema(example = json!({
    "query": "contratos emergenciais acima de R$ 1 milhão no Ministério da Saúde",
    "data_source": "portal_transparencia",
    "filters": {"date_range": {"start": "2025-01-01", "end": "2025-12-31"}, "organizations": ["36000"], "min_value": 1000000.0},
    "anomaly_types": ["price_anomaly", "temporal_anomaly"],
    "sensitivity": 0.7,
    "include_explanations": true
}))]
pub struct InvestigationRequest {
    /// Natural-language query.
    #[serde(alias = "consulta")]
    pub query: String,
    /// Where the data comes from.
    #[serde(alias = "fonte_dados")]
    pub data_source: String,
    /// Filters.
    #[serde(default, alias = "filtros")]
    pub filters: Filters,
    /// Types to look for (English or Portuguese names); empty = all.
    #[serde(default, alias = "tipos_anomalia")]
    pub anomaly_types: Vec<String>,
    /// 0-1, default 0.7.
    #[serde(default, alias = "sensibilidade")]
    pub sensitivity: Option<f64>,
    /// 0-1, default 0.8.
    #[serde(default, alias = "limite_confianca")]
    pub confidence_threshold: Option<f64>,
    /// Whether explanations are included in results.
    #[serde(default, alias = "incluir_explicacoes")]
    pub include_explanations: Option<bool>,
    /// Whether the client will stream (results are streamed either way).
    #[serde(default, alias = "transmitir_resultados")]
    pub stream_results: Option<bool>,
    /// Most anomalies returned.
    #[serde(default, alias = "max_resultados")]
    pub max_results: Option<u32>,
    /// Agent knobs.
    #[serde(default, alias = "configuracao_agente")]
    pub agent_configuration: AgentConfiguration,
}

impl InvestigationRequest {
    /// A request for `query` on the Portal da Transparência with defaults.
    pub fn new(query: impl Into<String>) -> Self {
        InvestigationRequest {
            query: query.into(),
            data_source: DataSource::PortalTransparencia.as_str().into(),
            filters: Filters::default(),
            anomaly_types: Vec::new(),
            sensitivity: None,
            confidence_threshold: None,
            include_explanations: None,
            stream_results: None,
            max_results: None,
            agent_configuration: AgentConfiguration::default(),
        }
    }

    /// Checks every field; the error names the field (English name).
    pub fn validate(&self) -> Result<(), Error> {
        let q = self.query.trim();
        if q.is_empty() {
            return Err(Error::validation("query", "must not be empty"));
        }
        if q.chars().count() > 2000 {
            return Err(Error::validation("query", "must be at most 2000 characters"));
        }
        if DataSource::parse(&self.data_source).is_none() {
            return Err(Error::validation(
                "data_source",
                format!("'{}' is not one of portal_transparencia, tcu, cgu, compras_gov", self.data_source),
            ));
        }
        for (field, v) in [("sensitivity", self.sensitivity), ("confidence_threshold", self.confidence_threshold)] {
            if let Some(v) = v
                && !(0.0..=1.0).contains(&v)
            {
                return Err(Error::validation(field, "must be between 0.0 and 1.0"));
            }
        }
        for t in &self.anomaly_types {
            if AnomalyType::parse(t).is_none() {
                return Err(Error::validation("anomaly_types", format!("'{t}' is not an anomaly type")));
            }
        }
        if self.max_results == Some(0) {
            return Err(Error::validation("max_results", "must be at least 1"));
        }
        let f = &self.filters;
        if let Some(r) = &f.date_range
            && r.start > r.end
        {
            return Err(Error::validation("filters.date_range", "start must not be after end"));
        }
        for (field, v) in [("filters.min_value", f.min_value), ("filters.max_value", f.max_value)] {
            if let Some(v) = v
                && !(v.is_finite() && v >= 0.0)
            {
                return Err(Error::validation(field, "must be a non-negative number"));
            }
        }
        if let (Some(lo), Some(hi)) = (f.min_value, f.max_value)
            && lo > hi
        {
            return Err(Error::validation("filters.min_value", "must not exceed filters.max_value"));
        }
        for org in &f.organizations {
            if !(org.len() == 5 || org.len() == 6) || !org.bytes().all(|b| b.is_ascii_digit()) {
                return Err(Error::validation(
                    "filters.organizations",
                    format!("'{org}' is not a 5-digit SIAFI organ code or a 6-digit unit code"),
                ));
            }
        }
        Ok(())
    }

    /// The parsed data source (call after `validate`).
    pub fn source(&self) -> DataSource {
        DataSource::parse(&self.data_source).unwrap_or(DataSource::PortalTransparencia)
    }

    /// What to fetch for this request (the driver's, the chat's and direct agent calls' one
    /// way from a request to the data). What the query text leaves open, the filters fill:
    /// the organs named, and the year and month of a date range within one year (one month).
    pub fn data_query(&self) -> crate::domain::ports::DataQuery {
        let mut intent = vigia_agents::query::interpret(&self.query);
        if intent.organ_codes.is_empty() {
            intent.organ_codes = self.filters.organizations.iter().filter(|o| o.len() == 5).cloned().collect();
        }
        if let Some(r) = &self.filters.date_range
            && r.start.year() == r.end.year()
        {
            intent.year = intent.year.or(Some(r.start.year()));
            if r.start.month() == r.end.month() && intent.year == Some(r.start.year()) {
                intent.month = intent.month.or(Some(r.start.month()));
            }
        }
        if let Some(min) = self.filters.min_value {
            intent.min_value = intent.min_value.or(Some(min));
        }
        crate::domain::ports::DataQuery {
            query: self.query.clone(),
            source: self.source(),
            intent,
            filters: self.filters.clone(),
        }
    }

    /// Detection parameters with the spec's defaults.
    pub fn detection_params(&self) -> DetectionParams {
        let d = DetectionParams::default();
        let types: Vec<AnomalyType> = self.anomaly_types.iter().filter_map(|t| AnomalyType::parse(t)).collect();
        DetectionParams {
            sensitivity: self.sensitivity.unwrap_or(d.sensitivity),
            confidence_threshold: self.confidence_threshold.unwrap_or(d.confidence_threshold),
            anomaly_types: (!types.is_empty()).then_some(types),
        }
    }
}

impl Filters {
    /// Keeps the records that pass the filters: contracts by [`Filters::keep`]; biddings and
    /// expenses by organ or unit, date (opening or emission), modality and, for expenses, value;
    /// agreements by organ, signing period and value. A bidding's money is its contract's, so
    /// under a value filter a bidding stays only when a kept contract shares its process
    /// number. Servants, supplier registry facts and sanctions are reference data the
    /// detectors join against, and are kept whole.
    pub fn apply(&self, mut ds: vigia_agents::Dataset) -> vigia_agents::Dataset {
        ds.contracts.retain(|c| self.keep(c));
        let valued = self.valued_processes(&ds.contracts);
        ds.biddings.retain(|b| self.keep_bidding(b, valued.as_ref()));
        ds.expenses.retain(|e| self.keep_expense(e));
        ds.agreements.retain(|a| self.keep_agreement(a));
        ds
    }

    /// [`Filters::apply`] over a shared dataset: the same `Arc` when every record passes (a
    /// demo or cached dataset asked for whole is not copied), else a filtered copy.
    pub fn apply_shared(&self, ds: std::sync::Arc<vigia_agents::Dataset>) -> std::sync::Arc<vigia_agents::Dataset> {
        let valued = self.valued_processes(&ds.contracts);
        let whole = ds.contracts.iter().all(|c| self.keep(c))
            && ds.biddings.iter().all(|b| self.keep_bidding(b, valued.as_ref()))
            && ds.expenses.iter().all(|e| self.keep_expense(e))
            && ds.agreements.iter().all(|a| self.keep_agreement(a));
        if whole { ds } else { std::sync::Arc::new(self.apply(std::sync::Arc::unwrap_or_clone(ds))) }
    }

    /// Under a value filter, the process numbers of `contracts` (those kept).
    fn valued_processes<'a>(
        &self,
        contracts: &'a [vigia_agents::Contract],
    ) -> Option<std::collections::HashSet<&'a str>> {
        (self.min_value.is_some() || self.max_value.is_some())
            .then(|| contracts.iter().map(|c| c.process_number.as_str()).collect())
    }

    fn keep_bidding(
        &self,
        b: &vigia_agents::model::bidding::Bidding,
        valued: Option<&std::collections::HashSet<&str>>,
    ) -> bool {
        valued.is_none_or(|kept| kept.contains(b.process_number.as_str()))
            && self.keep_record(None, b.opened_on.or(b.published_on), &[&b.organ.code, &b.unit.code], Some(&b.modality))
    }

    fn keep_expense(&self, e: &vigia_agents::model::expense::Expense) -> bool {
        self.keep_record(Some(e.value), e.date, &[&e.organ.code, &e.unit.code], Some(&e.modality))
    }

    fn keep_agreement(&self, a: &vigia_agents::model::agreement::Agreement) -> bool {
        self.keep_record(Some(a.value), a.valid_from, &[&a.organ.code], None)
    }

    /// Whether a contract passes the filters (value, signing date, organ or unit, modality).
    pub fn keep(&self, c: &vigia_agents::Contract) -> bool {
        self.keep_record(Some(c.value()), c.signed_on, &[&c.organ.code, &c.unit.code], Some(&c.modality))
    }

    /// The filters over one record's value, date, organ and unit codes and modality; a filter
    /// on something the record does not have (a value range on a bidding) does not apply.
    fn keep_record(&self, value: Option<f64>, date: Option<NaiveDate>, codes: &[&str], modality: Option<&str>) -> bool {
        if let Some(v) = value
            && (self.min_value.is_some_and(|m| v < m) || self.max_value.is_some_and(|m| v > m))
        {
            return false;
        }
        if let Some(r) = &self.date_range {
            match date {
                Some(d) if d >= r.start && d <= r.end => {}
                _ => return false,
            }
        }
        if !self.organizations.is_empty() && !self.organizations.iter().any(|o| codes.contains(&o.as_str())) {
            return false;
        }
        if let Some(modality) = modality
            && !self.contract_types.is_empty()
        {
            let modality = vigia_agents::text::fold(modality);
            if !self.contract_types.iter().any(|t| modality.contains(&vigia_agents::text::fold(t))) {
                return false;
            }
        }
        true
    }
}

#[cfg(test)]
#[path = "request_tests.rs"]
mod tests;
