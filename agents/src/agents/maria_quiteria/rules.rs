//! The security review's rules over the audit trail, each returning findings with their
//! evidence: failure bursts in a sliding window against the log's base rate, privilege changes
//! (worse after failures), logins from an address new for the actor, activity at hours unusual
//! for the actor, lockouts and refresh-token reuse. Events come in time order.

use std::collections::{BTreeMap, HashMap, HashSet};

use chrono::{DateTime, Duration, Timelike, Utc};
use serde::Serialize;
use serde_json::{Value, json};

use crate::lang::Language;
use crate::model::anomaly::Severity;
use crate::model::security_log::SecurityEvent;

/// Width of the sliding window of a burst, in minutes.
pub const WINDOW_MINUTES: i64 = 10;
/// Fewest failures in one window that make a burst.
pub const MIN_BURST: usize = 5;
/// A burst also needs this many times the failures a key has in a window on average.
pub const BASE_FACTOR: f64 = 10.0;
/// Failures this long before a privilege change make it suspicious.
pub const PRIOR_MINUTES: i64 = 60;
/// Successful logins an actor needs before a new address is worth a finding.
pub const MIN_LOGINS_FOR_ADDRESS: usize = 3;
/// Events an actor needs before an hour can be unusual for them.
pub const MIN_EVENTS_FOR_HOURS: usize = 10;
/// An hour is unusual when the actor's events within two hours of it are under this share.
pub const UNUSUAL_HOUR_SHARE: f64 = 0.05;
/// Hours are read in Brasília time (UTC-3, no daylight saving since 2019).
pub const LOCAL_OFFSET_HOURS: i64 = -3;
/// Most timestamps cited per finding.
const MAX_TIMES: usize = 20;

/// One finding of the review.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SecurityFinding {
    /// `failed_login_burst`, `refused_request_burst`, `privilege_change`, `new_address`,
    /// `unusual_hour`, `account_locked`, `refresh_token_reuse`.
    pub kind: &'static str,
    /// How serious.
    pub severity: Severity,
    /// The actor concerned, if any.
    pub actor: Option<String>,
    /// The address concerned, if any.
    pub ip: Option<String>,
    /// One sentence in Portuguese.
    pub description: String,
    /// The sentence in English.
    pub description_en: String,
    /// Timestamps, counts and the baselines that fired.
    pub evidence: Value,
}

/// An instant to the second, the reader's way.
fn at(l: Language, t: DateTime<Utc>) -> String {
    t.format(if l.is_en() { "%Y-%m-%d %H:%M:%S UTC" } else { "%d/%m/%Y %H:%M:%S UTC" }).to_string()
}

fn times(ts: &[DateTime<Utc>]) -> Vec<String> {
    ts.iter().take(MAX_TIMES).map(|t| t.to_rfc3339()).collect()
}

/// Whether the event is a login attempt.
pub fn is_login(e: &SecurityEvent) -> bool {
    e.action == "login"
}

/// Whether the event is a refused request (401 or 403).
pub fn is_refused_request(e: &SecurityEvent) -> bool {
    e.action == "unauthorized_access" || e.action == "forbidden_access"
}

/// Whether the act changes who may do what: an admin action (the host audits admin writes and
/// registrations as `admin_action`) or any action naming roles, grants, permissions or keys.
pub fn is_privilege_change(e: &SecurityEvent) -> bool {
    let a = e.action.to_ascii_lowercase();
    a == "admin_action" || ["role", "grant", "privilege", "permission", "api_key"].iter().any(|w| a.contains(w))
}

/// Clusters of failures (consecutive gaps within the window) whose densest window holds at
/// least [`MIN_BURST`] failures and [`BASE_FACTOR`] times the base rate; per actor and per ip
/// (a burst of one actor from one address is one finding with both).
pub fn bursts(events: &[&SecurityEvent], kind: &'static str, pick: fn(&SecurityEvent) -> bool) -> Vec<SecurityFinding> {
    let failures: Vec<&SecurityEvent> = events.iter().copied().filter(|e| pick(e) && e.failed()).collect();
    let (Some(first), Some(last)) = (events.first(), events.last()) else { return Vec::new() };
    let window = Duration::minutes(WINDOW_MINUTES);
    let windows = ((last.timestamp - first.timestamp).num_seconds() as f64 / window.num_seconds() as f64).max(1.0);
    let mut out = Vec::new();
    // Actor bursts coming from one address: (address, first, last, count), so that the same
    // failures seen by address are not reported twice.
    let mut seen: HashSet<(String, BurstSpan)> = HashSet::new();
    for by_ip in [false, true] {
        let mut keyed: BTreeMap<&str, Vec<&SecurityEvent>> = BTreeMap::new();
        for e in &failures {
            let key = if by_ip { e.ip.as_deref() } else { e.actor.as_deref() };
            if let Some(k) = key.filter(|k| !k.is_empty()) {
                keyed.entry(k).or_default().push(e);
            }
        }
        let keys = keyed.len().max(1) as f64;
        let base = failures.len() as f64 / (keys * windows);
        for (key, list) in keyed {
            for cluster in list.chunk_by(|a, b| b.timestamp - a.timestamp <= window) {
                let peak = densest(cluster, window);
                if peak < MIN_BURST || (peak as f64) < BASE_FACTOR * base {
                    continue;
                }
                let ts: Vec<DateTime<Utc>> = cluster.iter().map(|e| e.timestamp).collect();
                let end = ts[ts.len() - 1];
                // The events after the burst's end and within the window (events are in time order).
                let after = events.partition_point(|e| e.timestamp < end);
                let then_ok = events[after..].iter().take_while(|e| e.timestamp - end <= window).any(|e| {
                    pick(e) && !e.failed() && (if by_ip { e.ip.as_deref() } else { e.actor.as_deref() }) == Some(key)
                });
                // The other key, when every failure of the burst shares it: one attacker from one
                // address is one finding, not one per key.
                let other = |e: &SecurityEvent| if by_ip { e.actor.clone() } else { e.ip.clone() };
                let shared = other(cluster[0]).filter(|o| cluster.iter().all(|e| other(e).as_ref() == Some(o)));
                let span = (ts[0], end, cluster.len());
                if by_ip && shared.is_some() && seen.contains(&(key.to_string(), span)) {
                    continue;
                }
                let (actor, ip) = if by_ip { (shared, Some(key.to_string())) } else { (Some(key.to_string()), shared) };
                if let (false, Some(ip)) = (by_ip, ip.as_ref()) {
                    seen.insert((ip.clone(), span));
                }
                let text = |l: Language| {
                    let who = match (&actor, &ip, l.is_en()) {
                        (Some(a), Some(i), false) => format!("de {a} a partir de {i}"),
                        (Some(a), None, false) => format!("de {a}, de vários endereços"),
                        (None, Some(i), false) => format!("do endereço {i}, contra várias contas"),
                        (Some(a), Some(i), true) => format!("by {a} from {i}"),
                        (Some(a), None, true) => format!("by {a}, from several addresses"),
                        (None, Some(i), true) => format!("from the address {i}, against several accounts"),
                        (None, None, _) => String::new(),
                    };
                    let what = match (kind == "failed_login_burst", l.is_en()) {
                        (true, false) => "logins falhos",
                        (false, false) => "requisições recusadas",
                        (true, true) => "failed logins",
                        (false, true) => "refused requests",
                    };
                    let (n, from, to, base) = (cluster.len(), at(l, ts[0]), end.format("%H:%M:%S"), l.dec(base, 2));
                    if l.is_en() {
                        format!(
                            "{n} {what} {who} between {from} and {to} (a peak of {peak} in {WINDOW_MINUTES} minutes, \
                             against {base} per window on the log's average){}",
                            if then_ok { ", followed by a success" } else { "" }
                        )
                    } else {
                        format!(
                            "{n} {what} {who} entre {from} e {to} (pico de {peak} em {WINDOW_MINUTES} minutos, contra \
                             {base} por janela na média do registro){}",
                            if then_ok { ", seguidos de um sucesso" } else { "" }
                        )
                    }
                };
                out.push(SecurityFinding {
                    kind,
                    severity: if then_ok { Severity::High } else { Severity::Medium },
                    description: text(Language::Pt),
                    description_en: text(Language::En),
                    actor,
                    ip,
                    evidence: json!({"count": cluster.len(), "peak_in_window": peak, "window_minutes": WINDOW_MINUTES,
                        "base_rate_per_window": base, "followed_by_success": then_ok, "timestamps": times(&ts)}),
                });
            }
        }
    }
    out
}

/// A burst's first and last failure and their count.
type BurstSpan = (DateTime<Utc>, DateTime<Utc>, usize);

/// The most events of `list` (in time order) within any window of `width`.
fn densest(list: &[&SecurityEvent], width: Duration) -> usize {
    let (mut start, mut best) = (0, 0);
    for end in 0..list.len() {
        while list[end].timestamp - list[start].timestamp > width {
            start += 1;
        }
        best = best.max(end + 1 - start);
    }
    best
}

/// Privilege changes, high when the actor or the address failed to log in or was refused in
/// the hour before.
pub fn privilege_changes(events: &[&SecurityEvent]) -> Vec<SecurityFinding> {
    let prior = Duration::minutes(PRIOR_MINUTES);
    let mut out = Vec::new();
    for (k, e) in events.iter().enumerate().filter(|(_, e)| is_privilege_change(e) && !e.failed()) {
        let before: Vec<DateTime<Utc>> = events[..k]
            .iter()
            .rev()
            .take_while(|p| e.timestamp - p.timestamp <= prior)
            .filter(|p| p.failed() && (is_login(p) || is_refused_request(p)))
            .filter(|p| (p.actor.is_some() && p.actor == e.actor) || (p.ip.is_some() && p.ip == e.ip))
            .map(|p| p.timestamp)
            .collect();
        let detail = e.detail.as_deref().unwrap_or(&e.action);
        let text = |l: Language| {
            let who = e.actor.as_deref().unwrap_or(l.pick("ator desconhecido", "unknown actor"));
            let when = at(l, e.timestamp);
            match (before.is_empty(), l.is_en()) {
                (true, false) => format!("Mudança de privilégio por {who} em {when}: {detail}"),
                (false, false) => format!(
                    "Mudança de privilégio por {who} em {when} ({detail}) depois de {} falhas de acesso na hora anterior",
                    before.len()
                ),
                (true, true) => format!("Privilege change by {who} at {when}: {detail}"),
                (false, true) => format!(
                    "Privilege change by {who} at {when} ({detail}) after {} access failures in the hour before",
                    before.len()
                ),
            }
        };
        out.push(SecurityFinding {
            kind: "privilege_change",
            severity: if before.is_empty() { Severity::Low } else { Severity::High },
            actor: e.actor.clone(),
            ip: e.ip.clone(),
            description: text(Language::Pt),
            description_en: text(Language::En),
            evidence: json!({"at": e.timestamp.to_rfc3339(), "action": e.action, "detail": e.detail,
                "failures_in_prior_hour": before.len(), "failure_timestamps": times(&before)}),
        });
    }
    out
}

/// Successful logins from an address the actor never logged in from before, once the actor has
/// [`MIN_LOGINS_FOR_ADDRESS`] earlier successful logins.
pub fn new_addresses(events: &[&SecurityEvent]) -> Vec<SecurityFinding> {
    let mut seen: HashMap<&str, (usize, HashSet<&str>)> = HashMap::new();
    let mut out = Vec::new();
    for e in events.iter().filter(|e| is_login(e) && !e.failed()) {
        let (Some(actor), Some(ip)) = (e.actor.as_deref(), e.ip.as_deref()) else { continue };
        let h = seen.entry(actor).or_default();
        if h.0 >= MIN_LOGINS_FOR_ADDRESS && !h.1.contains(ip) {
            let known: Vec<&str> = {
                let mut v: Vec<&str> = h.1.iter().copied().collect();
                v.sort_unstable();
                v
            };
            out.push(SecurityFinding {
                kind: "new_address",
                severity: Severity::Medium,
                actor: Some(actor.to_string()),
                ip: Some(ip.to_string()),
                description: format!(
                    "{actor} entrou de um endereço novo, {ip}, em {}, depois de {} logins só de {}",
                    at(Language::Pt, e.timestamp),
                    h.0,
                    known.join(", ")
                ),
                description_en: format!(
                    "{actor} logged in from a new address, {ip}, at {}, after {} logins only from {}",
                    at(Language::En, e.timestamp),
                    h.0,
                    known.join(", ")
                ),
                evidence: json!({"at": e.timestamp.to_rfc3339(), "previous_logins": h.0, "known_addresses": known}),
            });
        }
        h.0 += 1;
        h.1.insert(ip);
    }
    out
}

/// Local (Brasília) hour of an instant.
fn local_hour(t: DateTime<Utc>) -> u32 {
    (t + Duration::hours(LOCAL_OFFSET_HOURS)).hour()
}

/// Per actor with at least [`MIN_EVENTS_FOR_HOURS`] events, the events at an hour around which
/// (two hours either side, the event itself left out) the actor did under
/// [`UNUSUAL_HOUR_SHARE`] of their activity; one finding per actor.
pub fn unusual_hours(events: &[&SecurityEvent]) -> Vec<SecurityFinding> {
    let mut per_actor: BTreeMap<&str, Vec<&SecurityEvent>> = BTreeMap::new();
    for e in events.iter().filter(|e| !e.failed()) {
        if let Some(a) = e.actor.as_deref() {
            per_actor.entry(a).or_default().push(e);
        }
    }
    let mut out = Vec::new();
    for (actor, list) in per_actor.into_iter().filter(|(_, l)| l.len() >= MIN_EVENTS_FOR_HOURS) {
        let mut hours = [0usize; 24];
        for e in &list {
            hours[local_hour(e.timestamp) as usize] += 1;
        }
        let near = |h: u32| (0..5).map(|d| hours[((h + 22 + d) % 24) as usize]).sum::<usize>() - 1;
        let odd: Vec<&SecurityEvent> = list
            .iter()
            .copied()
            .filter(|e| (near(local_hour(e.timestamp)) as f64) < UNUSUAL_HOUR_SHARE * (list.len() - 1) as f64)
            .collect();
        if odd.is_empty() {
            continue;
        }
        let ts: Vec<DateTime<Utc>> = odd.iter().map(|e| e.timestamp).collect();
        let privileged = odd.iter().any(|e| is_privilege_change(e));
        let usual = (0..24u32).max_by_key(|h| (hours[*h as usize], std::cmp::Reverse(*h))).unwrap_or(0);
        let hours_of: Vec<String> = odd.iter().map(|e| format!("{}h", local_hour(e.timestamp))).collect();
        let hours_of = hours_of.join(", ");
        out.push(SecurityFinding {
            kind: "unusual_hour",
            severity: if privileged { Severity::Medium } else { Severity::Low },
            actor: Some(actor.to_string()),
            ip: None,
            description: format!(
                "{actor} agiu {} vez(es) em horário incomum para si (horário de Brasília: {hours_of}), contra {} eventos \
                 habituais, a maioria por volta das {usual}h{}",
                odd.len(),
                list.len(),
                if privileged { "; entre eles uma mudança de privilégio" } else { "" }
            ),
            description_en: format!(
                "{actor} acted {} at hours unusual for them (Brasília time: {hours_of}), against {} usual events, most \
                 around {usual}h{}",
                Language::En.count(odd.len(), ("vez", "vezes"), ("time", "times")),
                list.len(),
                if privileged { "; among them a privilege change" } else { "" }
            ),
            evidence: json!({"timestamps": times(&ts), "actor_events": list.len(), "hour_histogram_brt": hours.to_vec()}),
        });
    }
    out
}

/// Lockouts and reuse of a rotated refresh token (a stolen token: the host then revokes the
/// session), one finding per event.
pub fn token_and_lockout(events: &[&SecurityEvent]) -> Vec<SecurityFinding> {
    let mut out = Vec::new();
    for e in events {
        let detail = e.detail.as_deref().unwrap_or("");
        let (kind, severity, what, what_en) = if e.action == "account_locked" {
            (
                "account_locked",
                Severity::Medium,
                "Conta bloqueada por falhas de login",
                "Account locked after failed logins",
            )
        } else if e.action == "token_refresh" && e.failed() && detail.contains("reused") {
            (
                "refresh_token_reuse",
                Severity::High,
                "Token de renovação já usado apresentado de novo (sessão revogada)",
                "A refresh token already used was presented again (session revoked)",
            )
        } else {
            continue;
        };
        let text = |l: Language| {
            let who = e.actor.as_deref().unwrap_or(l.pick("ator desconhecido", "unknown actor"));
            let from = e.ip.as_deref().unwrap_or(l.pick("endereço desconhecido", "unknown address"));
            let when = at(l, e.timestamp);
            if l.is_en() {
                format!("{what_en}: {who} at {when} from {from}")
            } else {
                format!("{what}: {who} em {when} a partir de {from}")
            }
        };
        out.push(SecurityFinding {
            kind,
            severity,
            actor: e.actor.clone(),
            ip: e.ip.clone(),
            description: text(Language::Pt),
            description_en: text(Language::En),
            evidence: json!({"at": e.timestamp.to_rfc3339(), "action": e.action, "detail": e.detail}),
        });
    }
    out
}
