//! The plans of cache warming: the strategies and their limits, the checks on
//! `warm-specific` keys, and the investigations the query strategies pick from the heads.

use std::collections::HashMap;

use chrono::{DateTime, Utc};

use crate::domain::{InvestigationHead, InvestigationRequest};
use crate::error::{Error, ErrorCode, Result};

/// Most query groups `popular_queries` warms.
pub const POPULAR_LIMIT: usize = 5;
/// How far back `popular_queries` counts investigations.
pub const POPULAR_WINDOW_DAYS: i64 = 7;
/// Investigations `recent_investigations` warms.
pub const RECENT_LIMIT: usize = 10;
/// Most keys one `warm-specific` call takes.
pub const MAX_KEYS: usize = 50;

/// The upstream response cache.
pub const UPSTREAM_CACHE: &str = "upstream_responses";
/// The agent pool.
pub const AGENT_POOL: &str = "agent_pool";

/// A warming strategy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strategy {
    /// The most frequent queries of recent investigations.
    PopularQueries,
    /// The last investigations' data requests.
    RecentInvestigations,
    /// The agents with the most calls.
    FrequentAgents,
}

impl Strategy {
    /// Every strategy, in the order `trigger` runs them.
    pub const ALL: [Strategy; 3] = [Strategy::FrequentAgents, Strategy::PopularQueries, Strategy::RecentInvestigations];

    /// Its name on the wire.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::PopularQueries => "popular_queries",
            Strategy::RecentInvestigations => "recent_investigations",
            Strategy::FrequentAgents => "frequent_agents",
        }
    }

    /// What it does.
    pub fn description(self) -> String {
        match self {
            Strategy::PopularQueries => format!(
                "fetches the data of the {POPULAR_LIMIT} most frequent queries of the last {POPULAR_WINDOW_DAYS} \
                 days' investigations (each with its newest investigation's filters) into the upstream response cache"
            ),
            Strategy::RecentInvestigations => format!(
                "fetches the data requests of the last {RECENT_LIMIT} investigations into the upstream response cache"
            ),
            Strategy::FrequentAgents => "loads the agents with the most calls since start into the agent pool, up to \
                                         max_loaded_agents"
                .to_string(),
        }
    }

    /// The cache it fills.
    pub fn cache_type(self) -> &'static str {
        match self {
            Strategy::FrequentAgents => AGENT_POOL,
            _ => UPSTREAM_CACHE,
        }
    }

    /// The strategy of a wire name; RESOURCE_NOT_FOUND otherwise.
    pub fn parse(name: &str) -> Result<Strategy> {
        Strategy::ALL.into_iter().find(|s| s.name() == name).ok_or_else(|| {
            let names: Vec<&str> = Strategy::ALL.iter().map(|s| s.name()).collect();
            Error::new(ErrorCode::ResourceNotFound, format!("no warming strategy is called '{name}'"))
                .with("strategy", name)
                .with("available", names)
        })
    }
}

/// What `warm-specific` warms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheType {
    /// Keys are agent ids or names.
    Agents,
    /// Keys are query texts or 5-digit SIAFI organ codes.
    Queries,
}

impl CacheType {
    /// The type of a wire name; VALIDATION_ERROR on `cache_type` otherwise.
    pub fn parse(raw: &str) -> Result<CacheType> {
        match raw {
            "agents" => Ok(CacheType::Agents),
            "queries" => Ok(CacheType::Queries),
            other => Err(Error::validation("cache_type", format!("'{other}' is not one of agents, queries"))),
        }
    }
}

/// The keys trimmed and without repeats; VALIDATION_ERROR when none or too many.
pub(super) fn checked_keys(keys: &[String]) -> Result<Vec<String>> {
    let mut out: Vec<String> = Vec::new();
    for (i, k) in keys.iter().enumerate() {
        let k = k.trim();
        if k.is_empty() {
            return Err(Error::validation(&format!("cache_keys[{i}]"), "must not be empty"));
        }
        if !out.iter().any(|o| o == k) {
            out.push(k.to_string());
        }
    }
    if out.is_empty() {
        return Err(Error::validation("cache_keys", "must name at least one key"));
    }
    if out.len() > MAX_KEYS {
        return Err(Error::validation("cache_keys", format!("at most {MAX_KEYS} keys at once")));
    }
    Ok(out)
}

/// The request a query key stands for: a 5-digit key is a SIAFI organ code (its data for
/// this year), anything else a query text, both from the Portal da Transparência.
pub(super) fn query_request(key: &str) -> Result<InvestigationRequest> {
    let mut req = InvestigationRequest::new(key);
    if key.len() == 5 && key.bytes().all(|b| b.is_ascii_digit()) {
        req.filters.organizations = vec![key.to_string()];
    }
    req.validate()?;
    Ok(req)
}

/// A validation error of a request, reported on the key it came from.
pub(super) fn rename_field(e: Error, field: &str) -> Error {
    match e.code {
        ErrorCode::Validation => {
            let reason = e.details.get("reason").and_then(|r| r.as_str()).unwrap_or("invalid").to_string();
            Error::validation(field, reason)
        }
        _ => e,
    }
}

/// The same query however it was typed: trimmed, lowercased, inner spaces collapsed.
fn normalise(query: &str) -> String {
    query.split_whitespace().map(str::to_lowercase).collect::<Vec<_>>().join(" ")
}

/// The newest investigation of each of the most frequent queries (and sources) since `since`,
/// most frequent first (ties: most recently asked first).
pub(super) fn popular<'a>(heads: &[&'a InvestigationHead], since: DateTime<Utc>) -> Vec<&'a InvestigationHead> {
    let mut groups: HashMap<(String, &str), (usize, &'a InvestigationHead)> = HashMap::new();
    for h in heads.iter().copied().filter(|h| h.created_at >= since) {
        let g = groups.entry((normalise(&h.query), h.data_source.as_str())).or_insert((0, h));
        g.0 += 1;
        if h.created_at > g.1.created_at {
            g.1 = h;
        }
    }
    let mut ranked: Vec<(usize, &InvestigationHead)> = groups.into_values().collect();
    ranked.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.created_at.cmp(&a.1.created_at)));
    ranked.into_iter().take(POPULAR_LIMIT).map(|(_, h)| h).collect()
}

/// The last [`RECENT_LIMIT`] investigations, newest first.
pub(super) fn recent<'a>(heads: &[&'a InvestigationHead]) -> Vec<&'a InvestigationHead> {
    let mut sorted = heads.to_vec();
    sorted.sort_by_key(|h| std::cmp::Reverse(h.created_at));
    sorted.truncate(RECENT_LIMIT);
    sorted
}
