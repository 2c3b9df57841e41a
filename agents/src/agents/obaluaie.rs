//! Obaluaiê, the corruption risk detector: runs every detector through the engine and combines
//! their findings per supplier and per organ into a risk ranking. An entity is reported when
//! independent detectors (different names) flag it: two or more at sensitivity 0.5 and above,
//! three below. Its risk is the chance that at least one flag is right,
//! `1 - prod(1 - confidence_d)` over its detectors `d` (each detector's most confident finding),
//! times a money factor `0.6 + 0.4 * min(1, log10(1 + R$ at stake) / 7)`, as 0-100.
//!
//! Which entities an anomaly concerns: the suppliers and organs it names (primary, related,
//! `technical_details.supplier` and `.organ`), and the supplier and organ of a contract it is
//! primarily about.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::agents::{Agent, insight};

use crate::cancel::AnalysisError;

use crate::agents::roster::AgentId;
use crate::detect::common::FxBuild;
use crate::detect::context::AnalysisContext;
use crate::detect::engine;
use crate::model::anomaly::Anomaly;
use crate::model::dataset::Dataset;
use crate::model::report::AgentOutput;
use crate::text::{format_brl, format_decimal};

/// Entities reported in the insights.
const TOP: usize = 10;

/// The composite risk agent.
#[derive(Debug, Clone, Copy, Default)]
pub struct Obaluaie;

impl Obaluaie {
    /// A new risk detector.
    pub fn new() -> Self {
        Obaluaie
    }
}

/// One entity's combined risk.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EntityRisk {
    /// `supplier` or `organ`.
    pub kind: String,
    /// CNPJ or SIAFI code.
    pub id: String,
    /// A name.
    pub name: String,
    /// The detectors that flagged it, with their most confident finding's confidence.
    pub detectors: BTreeMap<String, f64>,
    /// Ids of the anomalies behind it.
    pub anomalies: Vec<String>,
    /// Money at stake over its anomalies.
    pub at_stake: f64,
    /// 0-100.
    pub risk: f64,
}

/// Independent detectors needed to report an entity at this sensitivity.
pub fn flags_needed(sensitivity: f64) -> usize {
    if sensitivity >= 0.5 { 2 } else { 3 }
}

/// Suppliers and organs an anomaly concerns, with names, by kind and id: one entry per
/// entity, named by the smallest non-empty name given for it (empty when none is). Borrowed
/// from the anomaly and the dataset: this runs over every finding of every detector.
fn entities<'a>(
    a: &'a Anomaly,
    contracts: &HashMap<&str, usize, FxBuild>,
    ds: &'a Dataset,
) -> Vec<(&'static str, &'a str, &'a str)> {
    let mut out: Vec<(&'static str, &'a str, &'a str)> = Vec::new();
    for e in std::iter::once(&a.affected_entities.primary).chain(a.affected_entities.related.iter()) {
        let kind = match e.kind.as_str() {
            "supplier" => "supplier",
            "organ" => "organ",
            _ => continue,
        };
        out.push((kind, e.id.as_str(), e.name.as_str()));
    }
    for kind in ["supplier", "organ"] {
        if let Some(id) = a.technical_details.get(kind).and_then(Value::as_str).filter(|s| !s.is_empty())
            && !out.iter().any(|(k, i, _)| *k == kind && *i == id)
        {
            out.push((kind, id, ""));
        }
    }
    let p = &a.affected_entities.primary;
    if p.kind == "contract"
        && let Some(&i) = contracts.get(p.id.as_str())
    {
        let c = &ds.contracts[i];
        if !c.supplier.document.is_empty() {
            out.push(("supplier", c.supplier.document.as_str(), c.supplier.name.as_str()));
        }
        out.push(("organ", c.organ.code.as_str(), c.organ.name.as_str()));
    }
    out.sort_unstable();
    // One name per entity: the first non-empty one in that order.
    let mut named: Vec<(&'static str, &'a str, &'a str)> = Vec::with_capacity(out.len());
    for (k, i, n) in out {
        match named.last_mut() {
            Some(last) if last.0 == k && last.1 == i => {
                if last.2.is_empty() {
                    last.2 = n;
                }
            }
            _ => named.push((k, i, n)),
        }
    }
    named
}

/// One entity's flags while the ranking is summed, borrowed from the anomalies.
struct Flags<'a> {
    name: &'a str,
    detectors: BTreeMap<&'a str, f64>,
    anomalies: Vec<&'a str>,
    at_stake: f64,
}

/// The index of each contract the anomalies are primarily about (the last one with that id, as
/// a map of every contract would keep): one pass over the contracts against the few ids wanted,
/// instead of a map of every contract.
fn contracts_named<'a>(ds: &Dataset, anomalies: &'a [Arc<Anomaly>]) -> HashMap<&'a str, usize, FxBuild> {
    let mut wanted: HashMap<&str, Option<usize>, FxBuild> = anomalies
        .iter()
        .map(|a| &a.affected_entities.primary)
        .filter(|p| p.kind == "contract")
        .map(|p| (p.id.as_str(), None))
        .collect();
    if !wanted.is_empty() {
        for (i, c) in ds.contracts.iter().enumerate() {
            if let Some(at) = wanted.get_mut(c.id.as_str()) {
                *at = Some(i);
            }
        }
    }
    wanted.into_iter().filter_map(|(id, at)| Some((id, at?))).collect()
}

/// The ranking: entities flagged by at least `min_detectors` detectors, riskiest first.
pub fn risk_ranking(ds: &Dataset, anomalies: &[Arc<Anomaly>], min_detectors: usize) -> Vec<EntityRisk> {
    let contracts = contracts_named(ds, anomalies);
    let mut by_entity: BTreeMap<(&'static str, &str), Flags<'_>> = BTreeMap::new();
    for a in anomalies {
        for (kind, id, name) in entities(a, &contracts, ds) {
            let e = by_entity.entry((kind, id)).or_insert_with(|| Flags {
                name: "",
                detectors: BTreeMap::new(),
                anomalies: Vec::new(),
                at_stake: 0.0,
            });
            if e.name.is_empty() {
                e.name = name;
            }
            let d = e.detectors.entry(a.detector()).or_insert(0.0);
            *d = d.max(a.confidence);
            e.anomalies.push(a.id.as_str());
            e.at_stake += a.value_at_stake();
        }
    }
    let mut out: Vec<EntityRisk> = by_entity
        .into_iter()
        .filter(|(_, e)| e.detectors.len() >= min_detectors)
        .map(|((kind, id), e)| {
            let clean: f64 = e.detectors.values().map(|c| 1.0 - c.clamp(0.0, 1.0)).product();
            let money = 0.6 + 0.4 * ((1.0 + e.at_stake.max(0.0)).log10() / 7.0).min(1.0);
            EntityRisk {
                kind: kind.to_string(),
                id: id.to_string(),
                name: e.name.to_string(),
                detectors: e.detectors.into_iter().map(|(d, c)| (d.to_string(), c)).collect(),
                anomalies: e.anomalies.into_iter().map(str::to_string).collect(),
                at_stake: e.at_stake,
                risk: ((1.0 - clean) * money * 1000.0).round() / 10.0,
            }
        })
        .collect();
    out.sort_by(|a, b| {
        b.detectors
            .len()
            .cmp(&a.detectors.len())
            .then(b.risk.total_cmp(&a.risk))
            .then(b.at_stake.total_cmp(&a.at_stake))
            .then(a.kind.cmp(&b.kind))
            .then(a.id.cmp(&b.id))
    });
    out
}

fn label(e: &EntityRisk) -> String {
    let kind = if e.kind == "organ" { "órgão" } else { "fornecedor" };
    if e.name.is_empty() { format!("{kind} {}", e.id) } else { format!("{kind} {} ({})", e.name, e.id) }
}

impl Agent for Obaluaie {
    fn id(&self) -> AgentId {
        AgentId::Obaluaie
    }

    fn analyse(&self, ctx: &AnalysisContext<'_>) -> Result<AgentOutput, AnalysisError> {
        (ctx.progress)(0.0);
        ctx.cancel.check()?;
        let all = engine::detect_for(ctx, &[])?;
        (ctx.progress)(0.8);
        ctx.cancel.check()?;
        let ranking = risk_ranking(ctx.dataset, &all, flags_needed(ctx.params.sensitivity));
        let reported: HashSet<&str, FxBuild> =
            ranking.iter().flat_map(|e| e.anomalies.iter().map(String::as_str)).collect();
        let by_id: HashMap<&str, &Anomaly, FxBuild> = all.iter().map(|a| (a.id.as_str(), &**a)).collect();
        let mut insights = Vec::new();
        let mut recommendations = Vec::new();
        if ranking.is_empty() {
            insights.push(insight(
                AgentId::Obaluaie,
                format!(
                    "Nenhum fornecedor ou órgão com sinais de {} ou mais detectores independentes entre {} anomalias",
                    flags_needed(ctx.params.sensitivity),
                    all.len()
                ),
                0.6,
                &[],
            ));
        } else {
            let suppliers = ranking.iter().filter(|e| e.kind == "supplier").count();
            insights.push(insight(
                AgentId::Obaluaie,
                format!(
                    "{} entidades com sinais independentes de risco ({} fornecedores, {} órgãos); a de maior risco é o {} com {} sinais ({}) e risco {} de 100",
                    ranking.len(),
                    suppliers,
                    ranking.len() - suppliers,
                    label(&ranking[0]),
                    ranking[0].detectors.len(),
                    ranking[0].detectors.keys().cloned().collect::<Vec<_>>().join(", "),
                    format_decimal(ranking[0].risk, 1)
                ),
                0.85,
                &ranking[0].anomalies.iter().filter_map(|id| by_id.get(id.as_str()).copied()).take(20).collect::<Vec<_>>(),
            ));
            for (rank, e) in ranking.iter().take(TOP).enumerate() {
                let evidence: Vec<&Anomaly> =
                    e.anomalies.iter().filter_map(|id| by_id.get(id.as_str()).copied()).take(20).collect();
                let confidence = e.detectors.values().copied().fold(0.0, f64::max);
                insights.push(insight(
                    AgentId::Obaluaie,
                    format!(
                        "{}º: {} — {} sinais independentes ({}), {} em risco, risco {} de 100",
                        rank + 1,
                        label(e),
                        e.detectors.len(),
                        e.detectors.keys().cloned().collect::<Vec<_>>().join(", "),
                        format_brl(e.at_stake),
                        format_decimal(e.risk, 1)
                    ),
                    confidence,
                    &evidence,
                ));
                if rank < 5 {
                    recommendations.push(format!(
                        "Priorizar auditoria integrada do {}: {} detectores independentes apontam problemas ({}), com {} em risco; cruzar os achados antes de novas contratações",
                        label(e),
                        e.detectors.len(),
                        e.detectors.keys().cloned().collect::<Vec<_>>().join(", "),
                        format_brl(e.at_stake)
                    ));
                }
            }
        }
        let mut anomalies: Vec<Arc<Anomaly>> = all.into_iter().filter(|a| reported.contains(a.id.as_str())).collect();
        engine::sort(&mut anomalies);
        (ctx.progress)(1.0);
        Ok(AgentOutput { anomalies, insights, recommendations, artifacts: Vec::new() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cancel::CancelFlag;
    use crate::demo::{DemoSpec, generate};
    use crate::model::params::DetectionParams;
    use crate::testutil::analyse_cancelled;

    #[test]
    fn obaluaie_ranks_entities_flagged_by_several_independent_detectors() {
        let data = generate(&DemoSpec { seed: 19, contracts: 4000, ..DemoSpec::default() });
        let params = DetectionParams::default();
        let cancel = CancelFlag::new();
        let out = Obaluaie::new().analyse(&AnalysisContext::new(&data.dataset, &params, &cancel)).unwrap();
        let all = crate::testutil::shared(engine::detect(&data.dataset, &params, &cancel, &[]).unwrap());
        let ranking = risk_ranking(&data.dataset, &all, 2);
        assert!(!ranking.is_empty());
        assert!(ranking.iter().all(|e| e.detectors.len() >= 2 && (0.0..=100.0).contains(&e.risk)));
        assert!(ranking.windows(2).all(|w| w[0].detectors.len() >= w[1].detectors.len()));
        assert!(ranking.iter().any(|e| e.kind == "supplier"), "a supplier with several red flags");
        assert!(!out.anomalies.is_empty() && out.anomalies.len() <= all.len());
        assert!(out.insights[0].insight.contains("sinais independentes"));
        assert!(out.recommendations[0].starts_with("Priorizar auditoria integrada"));
        assert!(out.insights.iter().all(|i| i.agent == "obaluaie"));
        assert_eq!(Obaluaie::new().id(), AgentId::Obaluaie);
    }

    #[test]
    fn a_cancelled_risk_assessment_returns_cancelled() {
        assert_eq!(analyse_cancelled(&Obaluaie::new(), 300), Err(AnalysisError::Cancelled));
    }
}
