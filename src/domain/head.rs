//! The head of an investigation: what its status, progress and list views show, without the
//! results. The store keeps one beside every full record so those views never decode results
//! (a finished investigation's anomalies, explanations and provenance run to kilobytes).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::investigation::{ErrorInfo, Investigation, InvestigationId, Progress, Status};

/// The small index record of an investigation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InvestigationHead {
    /// Id.
    pub id: InvestigationId,
    /// Owner (nil UUID for a public investigation).
    pub user_id: Uuid,
    /// The query as accepted.
    pub query: String,
    /// The data source as accepted.
    pub data_source: String,
    /// State.
    pub status: Status,
    /// Progress.
    pub progress: Progress,
    /// Accepted at.
    pub created_at: DateTime<Utc>,
    /// Started processing at.
    pub started_at: Option<DateTime<Utc>>,
    /// Finished at.
    pub completed_at: Option<DateTime<Utc>>,
    /// Why it failed.
    pub error: Option<ErrorInfo>,
    /// Anomalies found (of the results once they exist, else reported so far).
    pub anomalies_found: usize,
    /// Risk score 0-100 once results exist.
    pub risk_score: Option<u8>,
    /// Whether results exist (some agents finished).
    pub has_results: bool,
    /// Where the results' data came from, once results exist.
    #[serde(default)]
    pub provenance: Option<super::investigation::Provenance>,
}

impl From<&Investigation> for InvestigationHead {
    fn from(inv: &Investigation) -> Self {
        InvestigationHead {
            id: inv.id,
            user_id: inv.user_id,
            query: inv.request.query.clone(),
            data_source: inv.request.data_source.clone(),
            status: inv.status,
            progress: inv.progress.clone(),
            created_at: inv.created_at,
            started_at: inv.started_at,
            completed_at: inv.completed_at,
            error: inv.error.clone(),
            anomalies_found: inv.anomalies_found(),
            risk_score: inv.risk_score(),
            has_results: inv.results.is_some(),
            provenance: inv.results.as_ref().map(|r| r.provenance.clone()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::InvestigationRequest;

    #[test]
    fn a_head_carries_what_the_status_and_list_views_show() {
        let inv = Investigation::start(InvestigationRequest::new("contratos 2024"), Uuid::nil());
        let head = InvestigationHead::from(&inv);
        assert_eq!((head.id, head.status, head.query.as_str()), (inv.id, inv.status, "contratos 2024"));
        assert_eq!((head.anomalies_found, head.risk_score, head.has_results), (0, None, false));
    }
}
