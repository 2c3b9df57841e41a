//! Oxóssi, the fraud hunter: bid rigging (rotation and cover bidding), split purchases,
//! phantom suppliers and networks of related suppliers competing against each other or
//! servants behind their organ's suppliers; plus the first-digit (Benford) test when a detector
//! of that name is registered. Everything runs through the engine, by detector name.

use std::collections::BTreeSet;
use std::sync::Arc;

use serde_json::Value;

use crate::agents::{Agent, insight};

use crate::cancel::AnalysisError;

use crate::agents::narrative::{by_detector, nothing_found};
use crate::agents::roster::AgentId;
use crate::detect::context::AnalysisContext;
use crate::detect::engine;
use crate::detect::{
    self, compliance::splitting, relationship::bid_rigging, relationship::phantom, relationship::relationships,
};
use crate::model::anomaly::Anomaly;
use crate::model::cnpj::format_cnpj;
use crate::model::report::{AgentOutput, Insight};
use crate::text::{count_of, format_brl, format_pct};

/// Most recommendations per detector.
const PER_DETECTOR: usize = 3;

/// The fraud hunting agent.
#[derive(Debug, Clone, Copy, Default)]
pub struct Oxossi;

impl Oxossi {
    /// A new fraud hunter.
    pub fn new() -> Self {
        Oxossi
    }
}

/// The detectors Oxóssi runs: its four, and a Benford detector when one is registered.
pub fn detectors() -> Vec<&'static str> {
    let mut names = vec![bid_rigging::NAME, splitting::NAME, phantom::NAME, relationships::NAME];
    names.extend(detect::NAMES.iter().copied().filter(|n| n.contains("benford")));
    names
}

fn text<'a>(a: &'a Anomaly, key: &str) -> &'a str {
    a.technical_details.get(key).and_then(Value::as_str).unwrap_or("")
}

fn num(a: &Anomaly, key: &str) -> f64 {
    a.technical_details.get(key).and_then(Value::as_f64).unwrap_or(0.0)
}

fn mean_confidence(found: &[&Anomaly]) -> f64 {
    found.iter().map(|a| a.confidence).sum::<f64>() / found.len().max(1) as f64
}

fn first<'a>(found: &[&'a Anomaly]) -> Vec<&'a Anomaly> {
    found.iter().take(20).copied().collect()
}

/// How many distinct suppliers the findings name.
fn firms(found: &[&Anomaly]) -> usize {
    found
        .iter()
        .flat_map(|a| a.affected_entities.related.iter().chain([&a.affected_entities.primary]))
        .filter(|e| e.kind == "supplier" && !e.id.is_empty())
        .map(|e| e.id.as_str())
        .collect::<BTreeSet<&str>>()
        .len()
}

fn insights(anomalies: &[Arc<Anomaly>]) -> Vec<Insight> {
    let mut out = Vec::new();
    let rig = by_detector(anomalies, bid_rigging::NAME);
    let (screened, sets): (Vec<&Anomaly>, Vec<&Anomaly>) = rig.iter().partition(|a| text(a, "rule") == "bid_screens");
    if !sets.is_empty() {
        out.push(insight(
            AgentId::Oxossi,
            format!(
                "{} de possível cartel: {} empresas que só disputam entre si, revezando a vitória, em licitações que somam {} em propostas vencedoras",
                count_of(sets.len(), "grupo", "grupos"),
                firms(&sets),
                format_brl(sets.iter().map(|a| a.value_at_stake()).sum())
            ),
            mean_confidence(&sets),
            &first(&sets),
        ));
    }
    if !screened.is_empty() {
        out.push(insight(
            AgentId::Oxossi,
            format!(
                "{} em que vários indicadores de conluio coincidem (vencedor no preço de referência, propostas de cobertura, lances sincronizados), envolvendo {} empresas e {} em lances vencedores",
                count_of(screened.len(), "grupo de licitações", "grupos de licitações"),
                firms(&screened),
                format_brl(screened.iter().map(|a| a.value_at_stake()).sum())
            ),
            mean_confidence(&screened),
            &first(&screened),
        ));
    }
    let split = by_detector(anomalies, splitting::NAME);
    if !split.is_empty() {
        out.push(insight(
            AgentId::Oxossi,
            format!(
                "{} de compras fracionadas para escapar da licitação, somando {}",
                count_of(split.len(), "caso", "casos"),
                format_brl(split.iter().map(|a| num(a, "sum")).sum())
            ),
            mean_confidence(&split),
            &first(&split),
        ));
    }
    let ghost = by_detector(anomalies, phantom::NAME);
    if let Some(top) = ghost.first() {
        out.push(insight(
            AgentId::Oxossi,
            format!(
                "{} com sinais de empresa de fachada (aberta pouco antes do primeiro contrato, sem sócios, endereço ou telefone compartilhados) recebeu {}; a maior é {}",
                count_of(ghost.len(), "fornecedor", "fornecedores"),
                format_brl(ghost.iter().map(|a| a.value_at_stake()).sum()),
                top.affected_entities.primary.name
            ),
            mean_confidence(&ghost),
            &first(&ghost),
        ));
    }
    let net = by_detector(anomalies, relationships::NAME);
    let (servants, groups): (Vec<&Anomaly>, Vec<&Anomaly>) =
        net.iter().partition(|a| text(a, "rule") == "servant_partner");
    if !groups.is_empty() {
        out.push(insight(
            AgentId::Oxossi,
            format!(
                "{} de empresas ligadas por sócio, telefone, endereço ou raiz de CNPJ que concorreram entre si, simulando competição",
                count_of(groups.len(), "rede", "redes")
            ),
            mean_confidence(&groups),
            &first(&groups),
        ));
    }
    if !servants.is_empty() {
        out.push(insight(
            AgentId::Oxossi,
            format!(
                "{} sócios de fornecedores do próprio órgão, com {} em contratos",
                count_of(servants.len(), "servidor é", "servidores são"),
                format_brl(servants.iter().map(|a| a.value_at_stake()).sum())
            ),
            mean_confidence(&servants),
            &first(&servants),
        ));
    }
    for name in detectors().into_iter().filter(|n| n.contains("benford")) {
        let found = by_detector(anomalies, name);
        if !found.is_empty() {
            out.push(insight(
                AgentId::Oxossi,
                format!(
                    "{} em que os primeiros dígitos dos valores fogem da lei de Benford, sinal de valores fabricados ou ajustados",
                    count_of(found.len(), "grupo de valores", "grupos de valores")
                ),
                mean_confidence(&found),
                &first(&found),
            ));
        }
    }
    out
}

fn recommendation(a: &Anomaly) -> String {
    let primary = &a.affected_entities.primary;
    let related = |kind: &str| -> Vec<&str> {
        a.affected_entities.related.iter().filter(|e| e.kind == kind).map(|e| e.id.as_str()).take(8).collect()
    };
    match a.detector() {
        bid_rigging::NAME if text(a, "rule") == "bid_screens" => format!(
            "Pedir {} as atas, propostas e lances das licitações {} vencidas por {} e verificar os vínculos com as outras {} empresas; se confirmado, encaminhar ao CADE e ao TCU",
            buyer(a),
            related("bidding").join(", "),
            primary.name,
            related("supplier").len()
        ),
        bid_rigging::NAME => format!(
            "Encaminhar ao CADE e ao TCU as licitações {} disputadas só por {} e as outras {} empresas do grupo, com a vitória em rodízio; pedir {} as atas e propostas",
            related("bidding").join(", "),
            primary.name,
            related("supplier").len(),
            buyer(a)
        ),
        splitting::NAME => format!(
            "Pedir à UG {} as notas de empenho de {} ({}) e o planejamento da compra: {} dispensas somam {}",
            text(a, "unit"),
            text(a, "supplier_name"),
            format_cnpj(text(a, "supplier")),
            num(a, "purchases"),
            format_brl(num(a, "sum"))
        ),
        phantom::NAME => format!(
            "Fazer diligência no endereço e no quadro societário de {} (CNPJ {}) na Receita e na Junta Comercial antes de novos pagamentos: {}",
            primary.name,
            format_cnpj(&primary.id),
            a.technical_details.get("flags").map(|f| f.to_string()).unwrap_or_default()
        ),
        relationships::NAME if text(a, "rule") == "servant_partner" => format!(
            "Apurar na corregedoria do órgão {} o possível conflito de interesses do servidor {} ({}), sócio de {} (Lei 8.112/1990, art. 117, X)",
            text(a, "organ"),
            primary.name,
            primary.id,
            text(a, "supplier_name")
        ),
        relationships::NAME => format!(
            "Verificar na Receita os vínculos entre {} e {} e anular a competição simulada nas licitações {}",
            primary.name,
            related("supplier").join(", "),
            related("bidding").join(", ")
        ),
        other => {
            format!("Auditar os valores do grupo {} apontado por {} ({})", primary.id, other, format_pct(a.confidence))
        }
    }
}

/// Who holds a bidding finding's records: its organ when known, else the purchasing units.
fn buyer(a: &Anomaly) -> String {
    match a.affected_entities.related.iter().find(|e| e.kind == "organ") {
        Some(o) if !o.name.is_empty() => format!("ao órgão {}", o.name),
        Some(o) => format!("ao órgão {}", o.id),
        None => "às unidades compradoras".to_string(),
    }
}

fn recommendations(anomalies: &[Arc<Anomaly>]) -> Vec<String> {
    let mut out = Vec::new();
    for name in detectors() {
        out.extend(by_detector(anomalies, name).into_iter().take(PER_DETECTOR).map(recommendation));
    }
    out
}

impl Agent for Oxossi {
    fn id(&self) -> AgentId {
        AgentId::Oxossi
    }

    fn analyse(&self, ctx: &AnalysisContext<'_>) -> Result<AgentOutput, AnalysisError> {
        let anomalies = engine::detect_each(ctx, &detectors())?;
        let mut found = insights(&anomalies);
        if found.is_empty() {
            let scope =
                format!("{} licitações e {} fornecedores", ctx.dataset.biddings.len(), ctx.dataset.suppliers.len());
            let what = "Nenhum indício de fraude";
            found.push(nothing_found(AgentId::Oxossi, what, ctx.params.confidence_threshold, scope));
        }
        let recommendations = recommendations(&anomalies);
        Ok(AgentOutput { anomalies, insights: found, recommendations, artifacts: Vec::new() })
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
    fn oxossi_finds_cartels_split_purchases_phantoms_and_networks_with_next_steps() {
        let data = generate(&DemoSpec { seed: 17, contracts: 6000, ..DemoSpec::default() });
        let params = DetectionParams::default();
        let cancel = CancelFlag::new();
        let out = Oxossi::new().analyse(&AnalysisContext::new(&data.dataset, &params, &cancel)).unwrap();
        for name in [bid_rigging::NAME, splitting::NAME, phantom::NAME, relationships::NAME] {
            assert!(out.anomalies.iter().any(|a| a.detector() == name), "no {name}");
        }
        assert!(out.anomalies.iter().all(|a| detectors().contains(&a.detector())));
        assert!(out.insights.iter().all(|i| i.agent == "oxossi" && !i.supporting_evidence.is_empty()));
        assert!(out.insights.iter().any(|i| i.insight.contains("cartel")));
        assert!(out.recommendations.iter().any(|r| r.starts_with("Encaminhar ao CADE")));
        assert!(out.recommendations.iter().any(|r| r.starts_with("Fazer diligência")));
        assert_eq!(Oxossi::new().id(), AgentId::Oxossi);
    }

    #[test]
    fn a_cancelled_hunt_returns_cancelled() {
        assert_eq!(analyse_cancelled(&Oxossi::new(), 300), Err(AnalysisError::Cancelled));
    }
}
