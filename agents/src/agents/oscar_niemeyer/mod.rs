//! Oscar Niemeyer, the data visualisation architect: chart- and graph-ready aggregations of the
//! spending analysed.
//!
//! Method. Contracts (their final value, else the initial) and, when there are expense
//! documents, their commitments (empenhos, so a purchase paid in phases counts once) are read
//! as rows ([`aggregate::Row`]); each source gives totals by organ, by supplier and by modality
//! (the [`TOP_N`] largest groups and the rest summed as "others", so every breakdown adds up to
//! its total) and a monthly series (every month between the first and the last, zeros
//! included; undated records apart). The contracts also give the supplier-organ network
//! ([`network::network`]) of the [`MAX_SUPPLIERS`] suppliers with the most money, in the
//! force-graph shape. Everything is one pass over the rows with hash maps, plus sorting the
//! groups. Artifacts: kind `aggregation` (one per breakdown and series) and `network`.

pub mod aggregate;
pub mod network;

use serde_json::json;

use crate::agents::Agent;
use crate::agents::roster::AgentId;
use crate::cancel::AnalysisError;
use crate::detect::context::AnalysisContext;
use crate::model::report::{AgentOutput, Artifact, Insight};
use crate::text::{format_brl, format_pct};
use aggregate::{Breakdown, Row, Series, breakdown, commitment_rows, contract_rows, monthly};

/// Groups kept per breakdown before the rest is summed as "others".
pub const TOP_N: usize = 20;
/// Suppliers in the network.
pub const MAX_SUPPLIERS: usize = 60;
/// Links in the network.
pub const MAX_LINKS: usize = 300;

/// The visualisation agent.
#[derive(Debug, Clone, Copy, Default)]
pub struct OscarNiemeyer;

impl OscarNiemeyer {
    /// A new visualisation agent.
    pub fn new() -> Self {
        OscarNiemeyer
    }
}

/// The breakdowns and the series of one source.
struct Charts {
    breakdowns: Vec<Breakdown>,
    series: Series,
}

fn charts(rows: &[Row<'_>], source: &'static str) -> Charts {
    Charts {
        breakdowns: vec![
            breakdown(rows, "organ", source, TOP_N, |r| (r.organ_key(), r.organ_label)),
            breakdown(rows, "supplier", source, TOP_N, |r| (r.supplier_key(), r.supplier_name)),
            breakdown(rows, "modality", source, TOP_N, |r| (r.modality, r.modality)),
        ],
        series: monthly(rows, source),
    }
}

fn title(dimension: &str, source: &str) -> String {
    let what = if source == "contracts" { "Valor contratado" } else { "Valor empenhado" };
    let by = match dimension {
        "organ" => "por órgão",
        "supplier" => "por fornecedor",
        "modality" => "por modalidade",
        _ => "por mês",
    };
    format!("{what} {by}")
}

impl Agent for OscarNiemeyer {
    fn id(&self) -> AgentId {
        AgentId::OscarNiemeyer
    }

    fn analyse(&self, ctx: &AnalysisContext<'_>) -> Result<AgentOutput, AnalysisError> {
        (ctx.progress)(0.0);
        let contracts = contract_rows(ctx.dataset);
        let mut sources = vec![charts(&contracts, "contracts")];
        (ctx.progress)(0.4);
        ctx.cancel.check()?;
        let commitments = commitment_rows(ctx.dataset);
        if !commitments.is_empty() {
            sources.push(charts(&commitments, "commitments"));
        }
        (ctx.progress)(0.6);
        ctx.cancel.check()?;
        let net = network::network(&contracts, MAX_SUPPLIERS, MAX_LINKS);
        (ctx.progress)(0.9);
        let mut artifacts = Vec::new();
        let mut insights = Vec::new();
        for c in &sources {
            insights.extend(describe(c));
            for b in &c.breakdowns {
                artifacts.push(Artifact {
                    kind: "aggregation".into(),
                    title: title(b.dimension, b.source),
                    content: json!(b),
                });
            }
            let mut series = json!(c.series);
            series["dimension"] = json!("month");
            artifacts.push(Artifact {
                kind: "aggregation".into(),
                title: title("month", c.series.source),
                content: series,
            });
        }
        if !net.links.is_empty() {
            insights.push(say(
                format!(
                    "{} de {} fornecedores atendem mais de um órgão; a rede mostra os {} maiores fornecedores em {} \
                     ligações, {} do valor contratado",
                    net.suppliers_with_several_organs,
                    net.suppliers_in_data,
                    net.nodes.iter().filter(|n| n.group == "supplier").count(),
                    net.links.len(),
                    format_pct(net.shown_value / net.total_value.max(f64::MIN_POSITIVE))
                ),
                0.9,
            ));
        }
        artifacts
            .push(Artifact { kind: "network".into(), title: "Rede fornecedor-órgão".into(), content: json!(net) });
        (ctx.progress)(1.0);
        Ok(AgentOutput { anomalies: Vec::new(), insights, recommendations: Vec::new(), artifacts })
    }
}

fn say(text: String, confidence: f64) -> Insight {
    crate::agents::insight(AgentId::OscarNiemeyer, text, confidence, &[])
}

/// `n` and the noun in the number `n` asks for.
fn counted(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The headline of each chart of a source.
fn describe(c: &Charts) -> Vec<Insight> {
    let mut out = Vec::new();
    let what = if c.series.source == "contracts" { "valor contratado" } else { "valor empenhado" };
    for b in &c.breakdowns {
        let (Some(first), true) = (b.bars.first(), b.total > 0.0) else { continue };
        let share = |v: f64| format_pct(v / b.total);
        let text = match b.dimension {
            // Concentration among organs says nothing when the data holds one (an organ's query).
            "organ" if b.groups < 2 => continue,
            "organ" => format!(
                "{} concentra {} do {} ({} de {}), entre {} órgãos",
                first.label,
                share(first.value),
                what,
                format_brl(first.value),
                format_brl(b.total),
                b.groups
            ),
            "supplier" => {
                let top: f64 = b.bars.iter().take(10).map(|x| x.value).sum();
                format!(
                    "Os {} maiores fornecedores recebem {} do {}; o maior, {}, {} ({})",
                    b.bars.len().min(10),
                    share(top),
                    what,
                    first.label,
                    share(first.value),
                    format_brl(first.value)
                )
            }
            _ => {
                let parts: Vec<String> =
                    b.bars.iter().take(3).map(|x| format!("{} {}", x.label, share(x.value))).collect();
                format!("Por modalidade ({}): {}", what, parts.join("; "))
            }
        };
        out.push(say(text, 0.95));
    }
    if let Some(peak) = c.series.points.iter().max_by(|a, b| a.value.total_cmp(&b.value).then(b.period.cmp(&a.period)))
    {
        out.push(say(
            format!(
                "Série mensal do {} com {}; o maior mês é {} com {} em {}",
                what,
                counted(c.series.points.len(), "mês", "meses"),
                peak.period,
                format_brl(peak.value),
                counted(peak.count, "registro", "registros")
            ),
            0.95,
        ));
    }
    out
}

#[cfg(test)]
mod tests;
