//! The body of a direct agent call (`/api/v1/agents/{name}/investigate`, `/orchestrate`,
//! `/multi-agent/query`, `/analyze/contracts`): organ, year and month (Portuguese or English
//! names), an optional question and detection settings, turned into the same
//! [`InvestigationRequest`] an investigation uses, so the data is fetched and filtered the same way.

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use crate::domain::request::DateRange;
use crate::domain::{Filters, InvestigationRequest};
use crate::error::{Error, Result};

/// What a direct call asks for.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(default)]
#[schema(example = json!({"orgao": "36000", "ano": 2024, "mes": 12, "query": "contratos acima do preço de mercado"}))]
pub struct AgentRequest {
    /// SIAFI organ code (5 digits) or unit code (6 digits).
    #[serde(alias = "organization", alias = "organ")]
    pub orgao: Option<String>,
    /// Year signed.
    #[serde(alias = "year")]
    pub ano: Option<i32>,
    /// Month signed (1-12), within `ano`.
    #[serde(alias = "month")]
    pub mes: Option<u32>,
    /// A question in the user's words.
    #[serde(alias = "question", alias = "pergunta", alias = "message", alias = "consulta")]
    pub query: Option<String>,
    /// Smallest contract value.
    #[serde(alias = "valor_minimo")]
    pub min_value: Option<f64>,
    /// Largest contract value.
    #[serde(alias = "valor_maximo")]
    pub max_value: Option<f64>,
    /// Detection sensitivity, 0 to 1.
    #[serde(alias = "sensibilidade")]
    pub sensitivity: Option<f64>,
    /// Anomaly types wanted (all when empty).
    #[serde(alias = "tipos_anomalia")]
    pub anomaly_types: Vec<String>,
    /// Data source (`portal_transparencia` by default).
    #[serde(alias = "fonte_dados")]
    pub data_source: Option<String>,
}

impl AgentRequest {
    /// The investigation request this call amounts to (validated).
    pub fn to_investigation(&self) -> Result<InvestigationRequest> {
        if let Some(m) = self.mes {
            if !(1..=12).contains(&m) {
                return Err(Error::validation("mes", "a month from 1 to 12"));
            }
            if self.ano.is_none() {
                return Err(Error::validation("mes", "a month needs its year (ano)"));
            }
        }
        let mut req = InvestigationRequest::new(self.query.clone().unwrap_or_else(|| self.describe()));
        if let Some(source) = &self.data_source {
            req.data_source = source.clone();
        }
        req.filters = Filters {
            organizations: self.orgao.iter().map(|o| o.trim().to_string()).collect(),
            min_value: self.min_value,
            max_value: self.max_value,
            date_range: self.period()?,
            ..Filters::default()
        };
        req.sensitivity = self.sensitivity;
        req.anomaly_types = self.anomaly_types.clone();
        req.validate()?;
        Ok(req)
    }

    /// A short text of what is asked, for logs, cache keys and queries without a question.
    pub fn describe(&self) -> String {
        let mut parts = vec!["contratos".to_string()];
        if let Some(o) = &self.orgao {
            parts.push(format!("do órgão {o}"));
        }
        match (self.mes, self.ano) {
            (Some(m), Some(y)) => parts.push(format!("em {m:02}/{y}")),
            (None, Some(y)) => parts.push(format!("em {y}")),
            _ => {}
        }
        parts.join(" ")
    }

    fn period(&self) -> Result<Option<DateRange>> {
        let Some(year) = self.ano else { return Ok(None) };
        if !(2000..=2100).contains(&year) {
            return Err(Error::validation("ano", "a year from 2000 to 2100"));
        }
        let (first, last) = match self.mes {
            Some(m) => (m, m),
            None => (1, 12),
        };
        let start = NaiveDate::from_ymd_opt(year, first, 1);
        let end =
            NaiveDate::from_ymd_opt(if last == 12 { year + 1 } else { year }, if last == 12 { 1 } else { last + 1 }, 1)
                .and_then(|d| d.pred_opt());
        match (start, end) {
            (Some(start), Some(end)) => Ok(Some(DateRange { start, end })),
            _ => Err(Error::validation("ano", "not a valid period")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn organ_year_and_month_become_the_filters_of_an_investigation() {
        let r: AgentRequest =
            serde_json::from_value(serde_json::json!({"orgao": "36000", "ano": 2024, "mes": 2})).unwrap();
        let inv = r.to_investigation().unwrap();
        assert_eq!(inv.filters.organizations, ["36000"]);
        let range = inv.filters.date_range.unwrap();
        assert_eq!((range.start.to_string(), range.end.to_string()), ("2024-02-01".into(), "2024-02-29".into()));
        assert!(inv.query.contains("36000"));
    }

    #[test]
    fn english_names_work_and_bad_values_name_their_field() {
        let r: AgentRequest =
            serde_json::from_value(serde_json::json!({"organization": "26000", "year": 2023})).unwrap();
        assert_eq!(r.to_investigation().unwrap().filters.date_range.unwrap().end.to_string(), "2023-12-31");
        let bad = AgentRequest { mes: Some(13), ano: Some(2024), ..Default::default() };
        assert_eq!(bad.to_investigation().unwrap_err().details.get("field").and_then(|v| v.as_str()), Some("mes"));
        let bad = AgentRequest { orgao: Some("abc".into()), ..Default::default() };
        assert!(bad.to_investigation().is_err());
    }
}
