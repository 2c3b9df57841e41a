//! Insights and recommendations written from anomalies, in Portuguese, for the agents: one
//! insight per detector that found something, and concrete next steps naming organs,
//! suppliers and contracts.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::Value;

use crate::agents::insight;
use crate::agents::roster::AgentId;
use crate::detect::{pattern::concentration, pattern::duplicates, price::zscore, temporal::end_of_year};
use crate::model::anomaly::Anomaly;
use crate::model::cnpj::format_cnpj;
use crate::model::report::Insight;
use crate::text::{count_of, format_brl, format_decimal, format_pct};

/// Most anomaly ids cited as evidence by one insight.
const MAX_EVIDENCE: usize = 20;
/// Most recommendations per detector.
const MAX_RECOMMENDATIONS: usize = 3;

/// The anomalies found by one detector, in the order given.
pub fn by_detector<'a>(anomalies: &'a [Arc<Anomaly>], detector: &str) -> Vec<&'a Anomaly> {
    anomalies.iter().filter(|a| a.detector() == detector).map(|a| &**a).collect()
}

fn num(a: &Anomaly, key: &str) -> f64 {
    a.technical_details.get(key).and_then(Value::as_f64).unwrap_or(0.0)
}

fn text<'a>(a: &'a Anomaly, key: &str) -> &'a str {
    a.technical_details.get(key).and_then(Value::as_str).unwrap_or("")
}

fn mean_confidence(found: &[&Anomaly]) -> f64 {
    found.iter().map(|a| a.confidence).sum::<f64>() / found.len().max(1) as f64
}

fn evidence<'a>(found: &[&'a Anomaly]) -> Vec<&'a Anomaly> {
    found.iter().take(MAX_EVIDENCE).copied().collect()
}

fn join_ids(ids: &[&str]) -> String {
    match ids {
        [] => String::new(),
        [one] => (*one).to_string(),
        [rest @ .., last] => format!("{} e {}", rest.join(", "), last),
    }
}

/// The insight of an agent that found nothing: "`what` com confiança de pelo menos X em `scope`".
pub fn nothing_found(agent: AgentId, what: &str, confidence_threshold: f64, scope: String) -> Insight {
    let text = format!("{what} com confiança de pelo menos {} em {scope}", format_pct(confidence_threshold));
    insight(agent, text, 0.6, &[])
}

/// One insight per detector with findings, for the given agent.
pub fn insights(agent: AgentId, anomalies: &[Arc<Anomaly>]) -> Vec<Insight> {
    let mut out = Vec::new();
    let found = by_detector(anomalies, zscore::NAME);
    if let Some(top) = found.first() {
        let at_stake: f64 = found.iter().map(|a| a.value_at_stake()).sum();
        let text = format!(
            "{} com preço acima do grupo de pares {} {} acima da mediana; o mais grave é o contrato {} \
             ({} vezes a mediana de {})",
            count_of(found.len(), "contrato", "contratos"),
            if found.len() == 1 { "soma" } else { "somam" },
            format_brl(at_stake),
            top.affected_entities.primary.id,
            format_decimal(num(top, "ratio_to_median"), 1),
            text(top, "peer_group")
        );
        out.push(insight(agent, text, mean_confidence(&found), &evidence(&found)));
    }
    let found = by_detector(anomalies, concentration::NAME);
    if let Some(top) = found.first() {
        let text = format!(
            "{} de concentração de fornecedores acima de 25%; o maior: {} recebeu {} do valor contratado pelo \
             órgão {} em {} ({})",
            count_of(found.len(), "caso", "casos"),
            top.affected_entities.primary.name,
            format_pct(num(top, "share")),
            text(top, "organ"),
            num(top, "year"),
            format_brl(top.value_at_stake())
        );
        out.push(insight(agent, text, mean_confidence(&found), &evidence(&found)));
    }
    let found = by_detector(anomalies, end_of_year::NAME);
    if let Some(top) = found.first() {
        let text = format!(
            "{} com gasto concentrado em dezembro; {} ({}) assinou {} do valor de {} em dezembro, contra {} \
             usual para dezembro (o do órgão e o dos outros órgãos)",
            count_of(found.len(), "órgão-ano", "órgãos-ano"),
            top.affected_entities.primary.name,
            top.affected_entities.primary.id,
            format_pct(num(top, "december_share")),
            num(top, "year"),
            format_pct(num(top, "baseline_share"))
        );
        out.push(insight(agent, text, mean_confidence(&found), &evidence(&found)));
    }
    let found = by_detector(anomalies, duplicates::NAME);
    if !found.is_empty() {
        let contracts: usize = found.iter().map(|a| 1 + a.affected_entities.related.len()).sum();
        let at_stake: f64 = found.iter().map(|a| a.value_at_stake()).sum();
        let text = format!(
            "{} de contratos quase idênticos do mesmo fornecedor ({} contratos) {} {} além dos originais",
            count_of(found.len(), "grupo", "grupos"),
            contracts,
            if found.len() == 1 { "soma" } else { "somam" },
            format_brl(at_stake)
        );
        out.push(insight(agent, text, mean_confidence(&found), &evidence(&found)));
    }
    out
}

/// Concrete next steps for an auditor, at most three per detector.
pub fn recommendations(anomalies: &[Arc<Anomaly>]) -> Vec<String> {
    let mut out = Vec::new();
    let mut per_organ: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    for a in by_detector(anomalies, zscore::NAME) {
        per_organ.entry(text(a, "organ").to_string()).or_default().push(a.affected_entities.primary.id.as_str());
    }
    let mut organs: Vec<(String, Vec<&str>)> = per_organ.into_iter().collect();
    organs.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.0.cmp(&b.0)));
    for (organ, ids) in organs.into_iter().take(MAX_RECOMMENDATIONS) {
        let shown: Vec<&str> = ids.iter().take(5).copied().collect();
        let more =
            if ids.len() > shown.len() { format!(" (e outros {})", ids.len() - shown.len()) } else { String::new() };
        out.push(format!(
            "Solicitar ao órgão {} as pesquisas de preço e os mapas comparativos dos contratos {}{}",
            organ,
            join_ids(&shown),
            more
        ));
    }
    for a in by_detector(anomalies, concentration::NAME).into_iter().take(MAX_RECOMMENDATIONS) {
        out.push(format!(
            "Verificar junto ao órgão {} a competitividade das licitações vencidas por {} (CNPJ {}) em {}, que \
             concentram {} do valor anual",
            text(a, "organ"),
            a.affected_entities.primary.name,
            format_cnpj(&a.affected_entities.primary.id),
            num(a, "year"),
            format_pct(num(a, "share"))
        ));
    }
    for a in by_detector(anomalies, end_of_year::NAME).into_iter().take(MAX_RECOMMENDATIONS) {
        out.push(format!(
            "Solicitar ao órgão {} a justificativa para os {} contratos assinados em dezembro de {} ({} do valor \
             anual) e a comprovação da necessidade de cada um",
            a.affected_entities.primary.id,
            a.affected_entities.related.len(),
            num(a, "year"),
            format_pct(num(a, "december_share"))
        ));
    }
    for a in by_detector(anomalies, duplicates::NAME).into_iter().take(MAX_RECOMMENDATIONS) {
        let ids: Vec<&str> = a.record_ids().collect();
        out.push(format!(
            "Confirmar com o órgão {} se os contratos {} (mesmo fornecedor, {}, e objeto quase idêntico) não pagam o \
             mesmo objeto duas vezes",
            text(a, "organ"),
            join_ids(&ids),
            text(a, "supplier_name")
        ));
    }
    out
}
