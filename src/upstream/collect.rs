//! Production data for one investigation: every record kind the engine analyses, fetched from
//! the Portal da Transparência within a budget of records and requests, and the sanctions lists
//! from the local store (never the upstream per contract).
//!
//! Kinds are fetched concurrently (the shared token bucket spaces their requests); within a
//! kind, organs, periods and pages go in a fixed order, so a budget cut keeps the same records
//! on every run. The record and request budgets are split between kinds by fixed shares, so a
//! large contract list cannot starve the others. Despesas are in [`super::expenses`] (sampled
//! days), servidores in [`super::servants`] (SIAPE codes through the organ lists).

use std::collections::HashSet;
use std::sync::Arc;

use chrono::NaiveDate;
use futures::{StreamExt, stream};
use serde_json::Value;
use vigia_agents::model::agreement::{Agreement, agreement_from_upstream};
use vigia_agents::model::amendment_upstream::amendment_from_upstream;
use vigia_agents::model::bidding::{Bidding, bidding_from_upstream};
use vigia_agents::model::expense::Expense;
use vigia_agents::model::fields::id_text;
use vigia_agents::model::servant::Servant;
use vigia_agents::model::upstream::{RecordError, contract_from_upstream};
use vigia_agents::{Contract, Dataset};

use super::params::{Endpoint, dmy, months};
use super::registry::RegistryClient;
use super::source::UpstreamError;
use super::transparency::{Budget, TransparencyClient};
use crate::domain::ports::OrganCodes;

/// Detail requests (aditivos, participants) in flight at once per kind; the token bucket
/// decides when each goes out.
const DETAIL_CONCURRENCY: usize = 8;

/// Shares of the budgets per kind, in percent: (records, requests).
const CONTRACT_SHARE: (usize, usize) = (45, 45);
const BIDDING_SHARE: (usize, usize) = (20, 20);
const AGREEMENT_SHARE: (usize, usize) = (10, 5);
/// Despesas' share.
pub(super) const EXPENSE_SHARE: (usize, usize) = (15, 20);
/// Servidores' share.
pub(super) const SERVANT_SHARE: (usize, usize) = (10, 10);

/// What to fetch.
#[derive(Debug, Clone)]
pub struct Plan {
    /// SIAFI organ codes.
    pub organs: Vec<String>,
    /// First day of the period.
    pub from: NaiveDate,
    /// Last day of the period.
    pub to: NaiveDate,
    /// Contracts below this value (R$) are dropped client-side (the API has no such filter).
    pub min_value: Option<f64>,
    /// Most records kept, all kinds together.
    pub record_budget: usize,
    /// Most requests sent, all kinds together.
    pub request_budget: usize,
    /// The SIAFI and SIAPE organ lists as last read (`None`: never read).
    pub organ_codes: Option<Arc<OrganCodes>>,
    /// The company register for suppliers' facts (`None`: not configured).
    pub registry: Option<Arc<RegistryClient>>,
}

/// What was fetched, and how complete it is.
#[derive(Debug, Default)]
pub struct Collected {
    /// The records (sanctions are added by the caller).
    pub dataset: Dataset,
    /// Records the upstream sent (at least this many exist: the API gives no totals).
    pub available: usize,
    /// Records kept for analysis.
    pub analysed: usize,
    /// Whether a budget or page cap stopped a list, or details were left unfetched.
    pub truncated: bool,
    /// Whether every answer came from the cache.
    pub cache_hit: bool,
    /// What was not fetched and why (a kind the key may not read, details over budget).
    pub notes: Vec<String>,
}

impl Collected {
    fn absorb(&mut self, part: Part) {
        self.available += part.available;
        self.truncated |= part.truncated;
        self.cache_hit &= part.cached;
        self.notes.extend(part.notes);
    }
}

/// One kind's tally.
pub(super) struct Part {
    /// Records the upstream sent.
    pub available: usize,
    /// Whether a budget or page cap cut the kind.
    pub truncated: bool,
    /// Whether every answer came from the cache.
    pub cached: bool,
    /// What was not fetched and why.
    pub notes: Vec<String>,
}

impl Part {
    /// Nothing read yet.
    pub fn new() -> Self {
        Part { available: 0, truncated: false, cached: true, notes: Vec::new() }
    }
}

/// A kind's part of the plan's budgets.
pub(super) fn share((records, requests): (usize, usize), plan: &Plan) -> Budget {
    Budget { records: plan.record_budget * records / 100, requests: plan.request_budget * requests / 100 }
}

/// Fetches every kind for `plan`. A failure of the contracts fetch fails the whole (the caller
/// falls back); another kind answering 403 (not allowed for this key) is noted and skipped.
pub async fn collect(client: &TransparencyClient, plan: &Plan) -> Result<Collected, UpstreamError> {
    let (contracts, biddings, agreements, servants) = tokio::join!(
        contracts(client, plan),
        biddings(client, plan),
        agreements(client, plan),
        super::servants::servants(client, plan)
    );
    let (contracts, contract_part) = contracts?;
    let units: Vec<String> = distinct(contracts.iter().map(|c| c.unit.code.to_string()));
    // The register is another upstream with its own bucket: read it while despesas are read.
    let register = async {
        match &plan.registry {
            Some(registry) => Some(registry.suppliers(&contracts).await),
            None => None,
        }
    };
    let (expenses, register) = tokio::join!(super::expenses::expenses(client, plan, &units), register);
    let mut out = Collected { cache_hit: true, ..Collected::default() };
    let registry_on = register.is_some();
    if let Some((profiles, notes)) = register {
        out.dataset.suppliers = profiles;
        out.notes.extend(notes);
    }
    out.dataset.contracts = contracts;
    out.absorb(contract_part);
    for (name, result) in [("licitações", biddings.map(|(b, p)| (Kind::Biddings(b), p)))]
        .into_iter()
        .chain([("convênios", agreements.map(|(a, p)| (Kind::Agreements(a), p)))])
        .chain([("despesas", expenses.map(|(e, p)| (Kind::Expenses(e), p)))])
        .chain([("servidores", servants.map(|(s, p)| (Kind::Servants(s), p)))])
    {
        match result {
            Ok((kind, part)) => {
                match kind {
                    Kind::Biddings(b) => out.dataset.biddings = b,
                    Kind::Agreements(a) => out.dataset.agreements = a,
                    Kind::Expenses(e) => out.dataset.expenses = e,
                    Kind::Servants(s) => out.dataset.servants = s,
                }
                out.absorb(part);
            }
            Err(e) if e.class() == "blocked" => out.notes.push(format!("{name} not read: {e}")),
            Err(e) => return Err(e),
        }
    }
    if !registry_on && !out.dataset.servants.is_empty() {
        // The servant rule compares servants with suppliers' partners, which the portal does
        // not publish: without `registry.base_url`, say so rather than let "no finding" read
        // as "checked".
        out.notes.push(
            "servidores read, but no register of suppliers' partners is available in production: servants \
             cannot be matched to partners of suppliers"
                .into(),
        );
    }
    out.analysed = out.dataset.len();
    Ok(out)
}

enum Kind {
    Biddings(Vec<Bidding>),
    Agreements(Vec<Agreement>),
    Expenses(Vec<Expense>),
    Servants(Vec<Servant>),
}

fn distinct(items: impl Iterator<Item = String>) -> Vec<String> {
    let mut seen = HashSet::new();
    items.filter(|s| !s.is_empty() && seen.insert(s.clone())).collect()
}

/// Parses rows, skipping (and logging) those that do not normalise.
pub(super) fn parse<T>(rows: &[Value], what: &str, f: fn(usize, &Value) -> Result<T, RecordError>) -> Vec<T> {
    rows.iter()
        .enumerate()
        .filter_map(|(i, row)| match f(i, row) {
            Ok(r) => Some(r),
            Err(e) => {
                tracing::warn!(kind = what, error = %e, "skipping an upstream record");
                None
            }
        })
        .collect()
}

async fn contracts(client: &TransparencyClient, plan: &Plan) -> Result<(Vec<Contract>, Part), UpstreamError> {
    let mut budget = share(CONTRACT_SHARE, plan);
    let mut part = Part::new();
    let mut out = Vec::new();
    let period = [("dataInicial", dmy(plan.from)), ("dataFinal", dmy(plan.to))];
    for organ in &plan.organs {
        let mut query = vec![("codigoOrgao", organ.clone())];
        query.extend(period.iter().cloned());
        let listed = client.list(Endpoint::Contracts, &query, &mut budget).await?;
        part.available += listed.received;
        part.truncated |= !listed.complete;
        part.cached &= listed.cached;
        out.extend(parse(&listed.rows, "contrato", contract_from_upstream));
    }
    if let Some(min) = plan.min_value {
        out.retain(|c| c.value() >= min);
    }
    // One request per contract for its termos aditivos, as many as the request budget allows.
    let wanted = out.len();
    let fetched = wanted.min(budget.requests);
    let ids: Vec<String> = out.iter().take(fetched).map(|c| c.id.to_string()).collect();
    let answers: Vec<_> = stream::iter(ids)
        .map(|id| async move { client.detail(Endpoint::Amendments, &id).await })
        .buffered(DETAIL_CONCURRENCY)
        .collect()
        .await;
    for (contract, answer) in out.iter_mut().zip(answers) {
        let (rows, cached) = answer?;
        part.cached &= cached;
        contract.amendments.extend(parse(&rows, "termo aditivo", amendment_from_upstream));
    }
    if fetched < wanted {
        part.truncated = true;
        part.notes.push(format!("termos aditivos read for {fetched} of {wanted} contracts (request budget)"));
    }
    Ok((out, part))
}

async fn biddings(client: &TransparencyClient, plan: &Plan) -> Result<(Vec<Bidding>, Part), UpstreamError> {
    let mut budget = share(BIDDING_SHARE, plan);
    let mut part = Part::new();
    let mut rows = Vec::new();
    for organ in &plan.organs {
        for (from, to) in months(plan.from, plan.to) {
            let query = vec![("codigoOrgao", organ.clone()), ("dataInicial", dmy(from)), ("dataFinal", dmy(to))];
            let listed = client.list(Endpoint::Biddings, &query, &mut budget).await?;
            part.available += listed.received;
            part.truncated |= !listed.complete;
            part.cached &= listed.cached;
            rows.extend(listed.rows);
        }
    }
    // Participants: one request per licitação that does not carry them already.
    let wanted: Vec<usize> = (0..rows.len()).filter(|&i| rows[i].get("participantes").is_none()).collect();
    let fetched = wanted.len().min(budget.requests);
    let ids: Vec<(usize, String)> = wanted
        .iter()
        .take(fetched)
        .filter_map(|&i| rows[i].get("id").and_then(|id| id_text(id).ok()).map(|id| (i, id)))
        .collect();
    let answers: Vec<_> = stream::iter(ids)
        .map(|(i, id)| async move { (i, client.detail(Endpoint::Participants, &id).await) })
        .buffered(DETAIL_CONCURRENCY)
        .collect()
        .await;
    for (i, answer) in answers {
        let (participants, cached) = answer?;
        part.cached &= cached;
        if let Some(obj) = rows[i].as_object_mut() {
            obj.insert("participantes".into(), Value::Array(participants));
        }
    }
    if fetched < wanted.len() {
        part.truncated = true;
        part.notes.push(format!("participants read for {fetched} of {} licitações (request budget)", wanted.len()));
    }
    Ok((parse(&rows, "licitação", bidding_from_upstream), part))
}

async fn agreements(client: &TransparencyClient, plan: &Plan) -> Result<(Vec<Agreement>, Part), UpstreamError> {
    let mut budget = share(AGREEMENT_SHARE, plan);
    let mut part = Part::new();
    let mut out = Vec::new();
    for organ in &plan.organs {
        let query = vec![("codigoOrgao", organ.clone()), ("dataInicial", dmy(plan.from)), ("dataFinal", dmy(plan.to))];
        let listed = client.list(Endpoint::Agreements, &query, &mut budget).await?;
        part.available += listed.received;
        part.truncated |= !listed.complete;
        part.cached &= listed.cached;
        out.extend(parse(&listed.rows, "convênio", agreement_from_upstream));
    }
    Ok((out, part))
}
