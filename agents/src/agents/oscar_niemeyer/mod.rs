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
use crate::lang::Language;
use crate::model::report::{AgentOutput, Artifact, Insight};
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
            let shown = net.shown_value / net.total_value.max(f64::MIN_POSITIVE);
            let suppliers = net.nodes.iter().filter(|n| n.group == "supplier").count();
            let (several, all, links) = (net.suppliers_with_several_organs, net.suppliers_in_data, net.links.len());
            // How many suppliers serve several organs says nothing when the data holds one organ.
            let organs = net.nodes.iter().filter(|n| n.group == "organ").count();
            insights.push(say(
                |l| {
                    let shown = l.pct(shown);
                    if organs > 1 {
                        return if l.is_en() {
                            format!(
                                "{several} of {all} suppliers serve more than one organ; the network shows the \
                                 {suppliers} largest suppliers in {links} links, {shown} of the contracted value"
                            )
                        } else {
                            format!(
                                "{several} de {all} fornecedores atendem mais de um órgão; a rede mostra os \
                                 {suppliers} maiores fornecedores em {links} ligações, {shown} do valor contratado"
                            )
                        };
                    }
                    let which = if suppliers < all {
                        let (largest, of, named) = (
                            l.pick("maiores de", "largest of"),
                            l.pick("os", "the"),
                            l.pick("fornecedores", "suppliers"),
                        );
                        format!("{of} {suppliers} {largest} {all} {named}")
                    } else if all == 1 {
                        l.pick("o único fornecedor", "the only supplier").to_string()
                    } else {
                        format!("{} {all} {}", l.pick("todos os", "all"), l.pick("fornecedores", "suppliers"))
                    };
                    let links = l.count(links, ("ligação", "ligações"), ("link", "links"));
                    format!(
                        "{} {which} {} {links}, {shown} {}",
                        l.pick("A rede mostra", "The network shows"),
                        l.pick("em", "in"),
                        l.pick("do valor contratado", "of the contracted value")
                    )
                },
                0.9,
            ));
        }
        artifacts
            .push(Artifact { kind: "network".into(), title: "Rede fornecedor-órgão".into(), content: json!(net) });
        (ctx.progress)(1.0);
        Ok(AgentOutput { anomalies: Vec::new(), insights, recommendations: Vec::new(), artifacts })
    }
}

/// An insight written by `text` in both languages.
fn say(text: impl Fn(Language) -> String, confidence: f64) -> Insight {
    crate::agents::insight_in_both(AgentId::OscarNiemeyer, text, confidence)
}

/// The headline of each chart of a source, in Portuguese and in English.
fn describe(c: &Charts) -> Vec<Insight> {
    let mut out = Vec::new();
    let contracts = c.series.source == "contracts";
    let what = |l: Language| match (contracts, l.is_en()) {
        (true, false) => "valor contratado",
        (false, false) => "valor empenhado",
        (true, true) => "contracted value",
        (false, true) => "committed value",
    };
    for b in &c.breakdowns {
        let (Some(first), true) = (b.bars.first(), b.total > 0.0) else { continue };
        let share = |l: Language, v: f64| l.pct(v / b.total);
        out.push(match b.dimension {
            // Concentration among organs says nothing when the data holds one (an organ's query).
            "organ" if b.groups < 2 => continue,
            "organ" => say(
                |l| {
                    let (label, pct, value, total, groups) =
                        (&first.label, share(l, first.value), l.brl(first.value), l.brl(b.total), b.groups);
                    let what = what(l);
                    if l.is_en() {
                        format!("{label} holds {pct} of the {what} ({value} of {total}), among {groups} organs")
                    } else {
                        format!("{label} concentra {pct} do {what} ({value} de {total}), entre {groups} órgãos")
                    }
                },
                0.95,
            ),
            "supplier" => say(
                |l| {
                    let top: f64 = b.bars.iter().take(10).map(|x| x.value).sum();
                    let (n, top, what) = (b.bars.len().min(10), share(l, top), what(l));
                    let (label, pct, value) = (&first.label, share(l, first.value), l.brl(first.value));
                    if l.is_en() {
                        format!("The {n} largest suppliers receive {top} of the {what}; the largest, {label}, {pct} ({value})")
                    } else {
                        format!("Os {n} maiores fornecedores recebem {top} do {what}; o maior, {label}, {pct} ({value})")
                    }
                },
                0.95,
            ),
            _ => say(
                |l| {
                    let parts: Vec<String> =
                        b.bars.iter().take(3).map(|x| format!("{} {}", x.label, share(l, x.value))).collect();
                    format!("{} ({}): {}", l.pick("Por modalidade", "By modality"), what(l), parts.join("; "))
                },
                0.95,
            ),
        });
    }
    if let Some(peak) = c.series.points.iter().max_by(|a, b| a.value.total_cmp(&b.value).then(b.period.cmp(&a.period)))
    {
        out.push(say(
            |l| {
                let months = l.count(c.series.points.len(), ("mês", "meses"), ("month", "months"));
                let records = l.count(peak.count, ("registro", "registros"), ("record", "records"));
                let (what, period, value) = (what(l), &peak.period, l.brl(peak.value));
                if l.is_en() {
                    format!("Monthly series of the {what} over {months}; the largest month is {period} with {value} in {records}")
                } else {
                    format!("Série mensal do {what} com {months}; o maior mês é {period} com {value} em {records}")
                }
            },
            0.95,
        ));
    }
    out
}

#[cfg(test)]
mod tests;
