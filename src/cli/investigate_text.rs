//! The human-readable report of `vigia investigate` (without `--json`).

use std::fmt::Write;

use vigia_agents::text::format_brl;

use crate::domain::Investigation;

/// Renders summary, anomalies, insights and recommendations.
pub fn render(inv: &Investigation) -> String {
    let mut out = String::new();
    let Some(r) = &inv.results else { return out };
    let demo = if r.provenance.demo_mode { "[DEMO] " } else { "" };
    let _ = writeln!(out, "{demo}Investigação {}: \"{}\"", inv.id, inv.request.query);
    let _ = writeln!(
        out,
        "{} registros analisados em {} ms por {} | fonte: {} | status: {}",
        r.records_analyzed,
        r.execution_time_ms,
        r.agents_used.join(", "),
        r.provenance.source,
        inv.status.as_str()
    );
    let s = &r.summary;
    let _ = writeln!(
        out,
        "{} anomalias (críticas {}, altas {}, médias {}, baixas {}) | risco {}/100\n",
        s.total_anomalies,
        s.by_severity.critical,
        s.by_severity.high,
        s.by_severity.medium,
        s.by_severity.low,
        s.risk_score
    );
    for (t, n) in &s.by_type {
        let _ = writeln!(out, "  {:<22} {n}", t.as_str());
    }
    let _ = writeln!(out);
    for a in &r.anomalies {
        let stake = a.value_at_stake();
        let money = if stake > 0.0 { format!(" | em jogo {}", format_brl(stake)) } else { String::new() };
        let _ = writeln!(
            out,
            "[{:<8}] {:<20} {:<24} conf {:.2}{money}\n           {}\n           registros: {}",
            a.severity.as_str(),
            a.kind.as_str(),
            a.detector(),
            a.confidence,
            a.description,
            a.record_ids().take(6).collect::<Vec<_>>().join(", ")
        );
    }
    if !r.insights.is_empty() {
        let _ = writeln!(out, "\nInsights:");
        for i in &r.insights {
            let _ = writeln!(out, "  - ({}) {}", i.agent, i.insight);
        }
    }
    if !r.recommendations.is_empty() {
        let _ = writeln!(out, "\nRecomendações:");
        for rec in &r.recommendations {
            let _ = writeln!(out, "  - {rec}");
        }
    }
    out
}
