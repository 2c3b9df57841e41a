//! The schema's input types and their translation into the service layer's requests:
//! pagination, the investigations' search filters (into a [`ListQuery`]) and the start of an
//! investigation (into an [`InvestigationRequest`]). Bad input is VALIDATION_ERROR naming the
//! field, as REST answers it.

use async_graphql::InputObject;
use chrono::NaiveDate;
use serde_json::json;

use crate::domain::{InvestigationRequest, Status};
use crate::error::{Error, Result};
use crate::service::investigations::ListQuery;

/// Page size when none is asked for.
pub const DEFAULT_LIMIT: usize = 20;
/// Largest page.
pub const MAX_LIMIT: usize = 100;

/// Paging and order.
#[derive(InputObject, Clone, Default)]
pub struct PaginationInput {
    /// 1-100, default 20.
    pub limit: Option<i32>,
    /// Items skipped, default 0.
    pub offset: Option<i32>,
    /// What to order by (investigations: `createdAt`, `completedAt`, `anomaliesFound`,
    /// `riskScore`, `status`; contracts: `value`, `signedOn`, `supplier`, `number`).
    pub order_by: Option<String>,
    /// `asc` or `desc` (default `desc`).
    pub order_dir: Option<String>,
}

/// Limit, offset, the order key in snake case and whether ascending.
pub struct Paging {
    /// Items returned at most.
    pub limit: usize,
    /// Items skipped.
    pub offset: usize,
    /// Order key (snake case), if given.
    pub order_by: Option<String>,
    /// Ascending order.
    pub ascending: bool,
}

impl PaginationInput {
    /// The page size an argument asks for (for the complexity of list fields).
    pub fn size(p: &Option<PaginationInput>) -> usize {
        p.as_ref().and_then(|p| p.limit).map_or(DEFAULT_LIMIT, |l| l.clamp(1, MAX_LIMIT as i32) as usize)
    }

    /// Checks and normalises the paging of `p`.
    pub fn paging(p: Option<&PaginationInput>) -> Result<Paging> {
        let p = p.cloned().unwrap_or_default();
        let limit = p.limit.unwrap_or(DEFAULT_LIMIT as i32);
        if !(1..=MAX_LIMIT as i32).contains(&limit) {
            return Err(Error::validation("pagination.limit", "must be between 1 and 100"));
        }
        let offset = p.offset.unwrap_or(0);
        if offset < 0 {
            return Err(Error::validation("pagination.offset", "must not be negative"));
        }
        let ascending = match p.order_dir.as_deref().map(str::to_ascii_lowercase).as_deref() {
            None | Some("desc") => false,
            Some("asc") => true,
            Some(_) => return Err(Error::validation("pagination.orderDir", "must be 'asc' or 'desc'")),
        };
        Ok(Paging {
            limit: limit as usize,
            offset: offset as usize,
            order_by: p.order_by.as_deref().map(snake),
            ascending,
        })
    }
}

/// `createdAt` -> `created_at` (snake case names pass unchanged).
fn snake(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    for c in name.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// One condition on the investigations listed: `status eq completed`,
/// `dataSource eq portal_transparencia`, `createdAt gte 2025-01-01` (also `gt`, `lt`, `lte`,
/// `eq`), `anomaliesFound gt 3` (also `gte`).
#[derive(InputObject, Clone)]
pub struct SearchFilter {
    /// `status`, `dataSource`, `createdAt` or `anomaliesFound`.
    pub field: String,
    /// `eq`, `gt`, `gte`, `lt` or `lte` (as the field allows).
    pub operator: String,
    /// The value, as text.
    pub value: String,
}

/// The list query of the investigations' filters and paging (REST's list parameters).
pub fn list_query(filters: &[SearchFilter], paging: &Paging) -> Result<ListQuery> {
    let mut q = ListQuery::default();
    for f in filters {
        let (field, op, value) = (snake(f.field.trim()), f.operator.trim().to_ascii_lowercase(), f.value.trim());
        let refused = || {
            Error::validation("filters", format!("operator '{op}' does not apply to '{}'", f.field))
                .with("field", f.field.as_str())
        };
        match (field.as_str(), op.as_str()) {
            ("status", "eq") => {
                q.status = Some(
                    Status::parse(value)
                        .ok_or_else(|| Error::validation("filters", format!("'{value}' is not a status")))?,
                );
            }
            ("data_source", "eq") => q.data_source = Some(value.to_string()),
            ("created_at", op @ ("eq" | "gt" | "gte" | "lt" | "lte")) => {
                let day = value
                    .get(..10)
                    .and_then(|d| d.parse::<NaiveDate>().ok())
                    .ok_or_else(|| Error::validation("filters", format!("'{value}' is not an ISO 8601 date")))?;
                match op {
                    "gt" => q.date_from = day.succ_opt(),
                    "gte" => q.date_from = Some(day),
                    "lt" => q.date_to = day.pred_opt(),
                    "lte" => q.date_to = Some(day),
                    _ => (q.date_from, q.date_to) = (Some(day), Some(day)),
                }
            }
            ("anomalies_found", op @ ("gt" | "gte")) => {
                let n = value
                    .parse::<usize>()
                    .map_err(|_| Error::validation("filters", format!("'{value}' is not a whole number")))?;
                q.min_anomalies = Some(if op == "gt" { n + 1 } else { n });
            }
            ("status" | "data_source" | "created_at" | "anomalies_found", _) => return Err(refused()),
            _ => {
                return Err(Error::validation("filters", format!("cannot filter on '{}'", f.field))
                    .with("allowed", json!(["status", "dataSource", "createdAt", "anomaliesFound"])));
            }
        }
    }
    let key = paging.order_by.clone().unwrap_or_else(|| "created_at".into());
    if !["created_at", "completed_at", "anomalies_found", "risk_score", "status"].contains(&key.as_str()) {
        return Err(Error::validation("pagination.orderBy", format!("cannot order investigations by '{key}'"))
            .with("allowed", json!(["createdAt", "completedAt", "anomaliesFound", "riskScore", "status"])));
    }
    q.sort = (key, !paging.ascending);
    // The service pages by page number; one page from the start as long as offset plus limit
    // holds every item the offset skips, cut here.
    q.page = 1;
    q.limit = paging.offset + paging.limit;
    Ok(q)
}

/// What to investigate.
#[derive(InputObject, Clone)]
pub struct InvestigationInput {
    /// The question, in the user's words.
    pub query: String,
    /// `low`, `normal` or `high`: accepted and checked, not used for scheduling (runs start in
    /// the order they are accepted).
    pub priority: Option<String>,
    /// One data source (`portal_transparencia` by default).
    pub data_sources: Option<Vec<String>>,
    /// Organ SIAFI codes (5 digits) or unit codes (6 digits).
    pub organizations: Option<Vec<String>>,
    /// Smallest contract value, R$.
    pub min_value: Option<f64>,
    /// Largest contract value, R$.
    pub max_value: Option<f64>,
    /// Anomaly types to look for (all when absent).
    pub anomaly_types: Option<Vec<String>>,
    /// Detection sensitivity, 0-1.
    pub sensitivity: Option<f64>,
}

impl InvestigationInput {
    /// The start request it amounts to (validated by the service).
    pub fn request(self) -> Result<InvestigationRequest> {
        if let Some(p) = self.priority.as_deref()
            && !["low", "normal", "high"].contains(&p)
        {
            return Err(Error::validation("priority", "must be 'low', 'normal' or 'high'"));
        }
        let mut req = InvestigationRequest::new(self.query);
        match self.data_sources.as_deref() {
            None | Some([]) => {}
            Some([one]) => req.data_source = one.clone(),
            Some(_) => return Err(Error::validation("dataSources", "one data source per investigation")),
        }
        req.filters.organizations = self.organizations.unwrap_or_default();
        req.filters.min_value = self.min_value;
        req.filters.max_value = self.max_value;
        req.anomaly_types = self.anomaly_types.unwrap_or_default();
        req.sensitivity = self.sensitivity;
        Ok(req)
    }
}

/// A chat message.
#[derive(InputObject, Clone)]
pub struct ChatInput {
    /// What the user writes.
    pub message: String,
    /// The conversation to continue (a new one when absent).
    pub session_id: Option<String>,
    /// `auto` (default) or an agent id.
    pub agent_name: Option<String>,
}
