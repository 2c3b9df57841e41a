//! Times the five analyst agents (Tiradentes, Oscar Niemeyer, Lampião, Dandara, Maria
//! Quitéria) on demo data, each alone and without a shared findings cache (Tiradentes runs
//! every detector itself), and prints what each produced. Maria Quitéria reviews a synthetic
//! audit trail of `events` events (failed logins in bursts, admin actions, logins from several
//! addresses) generated here, the demo data having none.
//!
//! `cargo run --release -p vigia-agents --example bench_analysts -- [contracts] [events] [seed] [--insights]`

use std::time::Instant;

use chrono::{Duration, TimeZone, Utc};
use vigia_agents::demo::{DemoSpec, generate};
use vigia_agents::model::security_log::SecurityEvent;
use vigia_agents::{AgentId, AnalysisContext, CancelFlag, DetectionParams, instantiate};

/// A deterministic audit trail: 50 actors logging in from their addresses (each moving to a new
/// one every 1,000 events), six failed logins in a row against one of 7 targets from one address
/// every 500 events, an admin action every 200.
fn audit_trail(n: usize) -> Vec<SecurityEvent> {
    let start = Utc.with_ymd_and_hms(2025, 1, 6, 11, 0, 0).single().unwrap_or_else(Utc::now);
    (0..n)
        .map(|k| {
            let burst = k % 500 <= 5;
            let actor = if burst {
                format!("alvo{}@orgao.gov.br", k / 500 % 7)
            } else {
                format!("user{}@orgao.gov.br", k % 50)
            };
            let (action, outcome) = match k % 500 {
                0..=5 => ("login", "failure"),
                _ if k % 200 == 7 => ("admin_action", "success"),
                _ => ("login", "success"),
            };
            SecurityEvent {
                timestamp: start + Duration::minutes((k as i64 / 50) * 15 + (k as i64 % 50) / 10),
                actor: Some(actor),
                action: action.into(),
                outcome: outcome.into(),
                ip: Some(if burst { "203.0.113.9".to_string() } else { format!("10.0.{}.{}", k % 50, (k / 1000) % 3) }),
                detail: (action == "admin_action").then(|| "POST /api/v1/admin/api-keys 201".to_string()),
            }
        })
        .collect()
}

fn main() {
    let print_insights = std::env::args().any(|a| a == "--insights");
    let args: Vec<String> = std::env::args().filter(|a| a != "--insights").collect();
    let contracts = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(50_000);
    let events = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(100_000);
    let seed = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(42);
    let t = Instant::now();
    let mut data = generate(&DemoSpec { seed, contracts, ..DemoSpec::default() }).dataset;
    data.security_events = audit_trail(events);
    println!(
        "demo: {} contracts, {} expenses, {} agreements, {} audit events, generated in {:.3}s",
        data.contracts.len(),
        data.expenses.len(),
        data.agreements.len(),
        data.security_events.len(),
        t.elapsed().as_secs_f64()
    );
    let params = DetectionParams::default();
    let cancel = CancelFlag::new();
    let agents =
        [AgentId::OscarNiemeyer, AgentId::Lampiao, AgentId::Dandara, AgentId::MariaQuiteria, AgentId::Tiradentes];
    for id in agents {
        let Some(agent) = instantiate(id) else {
            eprintln!("{id} is not implemented");
            continue;
        };
        let t = Instant::now();
        let out = agent.analyse(&AnalysisContext::new(&data, &params, &cancel));
        let secs = t.elapsed().as_secs_f64();
        match out {
            Ok(out) => {
                let bytes: usize = out.artifacts.iter().map(|a| a.content.to_string().len()).sum();
                println!(
                    "{:15} {:8.3}s  insights {:3}  artifacts {} ({} KiB of JSON)",
                    id.as_str(),
                    secs,
                    out.insights.len(),
                    out.artifacts.len(),
                    bytes / 1024
                );
                if print_insights {
                    for i in &out.insights {
                        println!("{:15} - {}", "", i.insight);
                    }
                }
                if let Some(found) = out.artifacts[0].content["findings"].as_array() {
                    let mut kinds = std::collections::BTreeMap::new();
                    for f in found {
                        *kinds.entry(f["kind"].as_str().unwrap_or("").to_string()).or_insert(0usize) += 1;
                    }
                    println!("{:15} findings by kind {kinds:?}", "");
                }
            }
            Err(e) => println!("{:15} failed after {secs:.3}s: {e}", id.as_str()),
        }
    }
}
