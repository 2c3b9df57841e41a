//! Contract search: the contracts of an organ and value range (fetched and filtered exactly as a
//! direct agent call fetches them, through [`AgentService::data`]) narrowed by words of their
//! object, supplier, number or process, for clients that list contracts (GraphQL `contracts`).

use std::sync::Arc;

use vigia_agents::{Contract, Dataset};

use super::AgentService;
use super::agent_request::AgentRequest;
use crate::domain::investigation::Provenance;
use crate::error::{Error, Result};

/// Most characters of a search text.
const SEARCH_MAX_CHARS: usize = 200;

/// A page of contracts.
#[derive(Debug, Clone)]
pub struct ContractPage {
    /// The data the page was cut from (the page's contracts are `dataset.contracts[i]` for `i`
    /// in `indices`), shared, not copied.
    pub dataset: Arc<Dataset>,
    /// Indices of the page's contracts, in order.
    pub indices: Vec<usize>,
    /// Contracts matching the search.
    pub total: usize,
    /// Where the data came from.
    pub provenance: Provenance,
}

impl ContractPage {
    /// The page's contracts, in order.
    pub fn contracts(&self) -> impl Iterator<Item = &Contract> {
        self.indices.iter().filter_map(|&i| self.dataset.contracts.get(i))
    }
}

/// How to order and cut the matches.
#[derive(Debug, Clone, Default)]
pub struct ContractOrder {
    /// `value`, `signed_on`, `supplier` or `number` (`value` when absent).
    pub by: Option<String>,
    /// Ascending when true (descending by default: the largest and newest first).
    pub ascending: bool,
    /// Matches skipped.
    pub offset: usize,
    /// Matches returned at most.
    pub limit: usize,
}

impl AgentService {
    /// The contracts `req` names (organ, value range, period) whose object, supplier name or
    /// document, number or process number contain every word of `search` (accents and case
    /// ignored), ordered and cut by `order`.
    pub async fn contracts(
        &self,
        req: &AgentRequest,
        search: Option<&str>,
        order: &ContractOrder,
    ) -> Result<ContractPage> {
        let words: Vec<String> = match search.map(str::trim).filter(|s| !s.is_empty()) {
            Some(s) if s.chars().count() > SEARCH_MAX_CHARS => {
                return Err(Error::validation("search", format!("at most {SEARCH_MAX_CHARS} characters")));
            }
            Some(s) => vigia_agents::text::fold(s).split_whitespace().map(str::to_string).collect(),
            None => Vec::new(),
        };
        let key = match order.by.as_deref().unwrap_or("value") {
            k @ ("value" | "signed_on" | "supplier" | "number") => k.to_string(),
            other => {
                return Err(Error::validation("orderBy", format!("cannot order contracts by '{other}'"))
                    .with("allowed", serde_json::json!(["value", "signed_on", "supplier", "number"])));
            }
        };
        let (dataset, provenance, _) = self.data(req).await?;
        let mut indices: Vec<usize> = (0..dataset.contracts.len())
            .filter(|&i| words.is_empty() || matches(&dataset.contracts[i], &words))
            .collect();
        let cs = &dataset.contracts;
        indices.sort_by(|&a, &b| {
            let (x, y) = (&cs[a], &cs[b]);
            let ord = match key.as_str() {
                "signed_on" => x.signed_on.cmp(&y.signed_on),
                "supplier" => x.supplier.name.cmp(&y.supplier.name),
                "number" => x.number.cmp(&y.number),
                _ => x.value().total_cmp(&y.value()),
            }
            .then_with(|| x.id.cmp(&y.id));
            if order.ascending { ord } else { ord.reverse() }
        });
        let total = indices.len();
        let indices = indices.into_iter().skip(order.offset).take(order.limit).collect();
        Ok(ContractPage { dataset, indices, total, provenance })
    }
}

/// Whether every word occurs in one of the contract's searchable texts.
fn matches(c: &Contract, words: &[String]) -> bool {
    let text = vigia_agents::text::fold(&format!(
        "{} {} {} {} {}",
        c.object, c.supplier.name, c.supplier.document, c.number, c.process_number
    ));
    words.iter().all(|w| text.contains(w.as_str()))
}
