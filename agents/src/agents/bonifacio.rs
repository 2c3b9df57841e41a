//! José Bonifácio, the legal compliance analyst: runs the Lei 14.133/2021 detectors
//! (`compliance_rules`: dispensa limits per year, amendment caps, sanctioned suppliers, check
//! digits, extinct modalities, unjustified inexigibilidade; over agreements, sanctioned grantees
//! and releases above the agreed value; `purchase_splitting`) through the engine and turns their
//! findings into insights per rule and concrete requests to the organs.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::Value;

use crate::agents::{Agent, insight};

use crate::cancel::AnalysisError;

use crate::agents::narrative::{by_detector, nothing_found};
use crate::agents::roster::AgentId;
use crate::detect::context::AnalysisContext;
use crate::detect::engine;
use crate::detect::{compliance::compliance_rules, compliance::splitting, legal_grounds};
use crate::model::anomaly::{Anomaly, AnomalyType};
use crate::model::cnpj::format_cnpj;
use crate::model::report::{AgentOutput, Insight};
use crate::text::{count_of, format_brl, format_pct};

/// Most recommendations per rule.
const PER_RULE: usize = 3;

/// The legal compliance agent.
#[derive(Debug, Clone, Copy, Default)]
pub struct Bonifacio;

impl Bonifacio {
    /// A new compliance analyst.
    pub fn new() -> Self {
        Bonifacio
    }
}

fn text<'a>(a: &'a Anomaly, key: &str) -> &'a str {
    a.technical_details.get(key).and_then(Value::as_str).unwrap_or("")
}

fn num(a: &Anomaly, key: &str) -> f64 {
    a.technical_details.get(key).and_then(Value::as_f64).unwrap_or(0.0)
}

/// What each rule is called in the insights.
fn rule_label(rule: &str) -> &'static str {
    match rule {
        "dispensa_above_limit" => "dispensas por valor acima do limite da lei em vigor na assinatura",
        "amendment_above_cap" => "acréscimos acima de 25% do valor inicial atualizado (50% em reformas)",
        "sanctioned_supplier" => "contratos com empresas sancionadas (CEIS/CNEP) na data da assinatura",
        "invalid_document" => "fornecedores com CNPJ/CPF de dígitos verificadores inválidos",
        "extinct_modality" => "contratos em modalidades extintas (convite, tomada de preços)",
        "unjustified_inexigibility" => "inexigibilidades cujo fundamento legal não cita inexigibilidade",
        "sanction_undecidable" => "fornecedores em listas de sanções sem data de início (indecidível, não é violação)",
        "sanctioned_grantee" => "convênios com convenentes sancionados (CEIS/CNEP) no início da vigência",
        "released_above_agreed" => "convênios com valor liberado acima do valor pactuado",
        _ => "violações",
    }
}

/// The request an auditor should send for one finding.
fn recommendation(a: &Anomaly) -> String {
    let id = &a.affected_entities.primary.id;
    let organ = text(a, "organ");
    let supplier = text(a, "supplier");
    let name = text(a, "supplier_name");
    match text(a, "rule") {
        "dispensa_above_limit" => format!(
            "Solicitar ao órgão {organ} o processo de dispensa do contrato {id} ({}), acima do limite de {} da lei em vigor na assinatura, e o fundamento da contratação direta; se a dispensa foi por valor, apurar a responsabilidade de quem a autorizou (Lei 14.133/2021, art. 73)",
            format_brl(num(a, "observed")),
            format_brl(num(a, "threshold"))
        ),
        "amendment_above_cap" => format!(
            "Solicitar ao órgão {organ} os termos aditivos do contrato {id}, cujos acréscimos somam {} do valor inicial atualizado (limite de {}, art. 125), e a justificativa de cada acréscimo",
            format_pct(num(a, "observed")),
            format_pct(num(a, "threshold"))
        ),
        "sanctioned_supplier" => format!(
            "Comunicar à CGU e ao TCU que o contrato {id} foi assinado com {name} (CNPJ {}) durante sanção que a impedia de contratar, e pedir ao órgão {organ} a avaliação da rescisão (art. 137)",
            format_cnpj(supplier)
        ),
        "invalid_document" => format!(
            "Pedir ao órgão {organ} a comprovação da habilitação do fornecedor do contrato {id}: o documento {supplier} informado não é um CNPJ/CPF válido"
        ),
        "extinct_modality" => format!(
            "Solicitar ao órgão {organ} a data de publicação do edital do contrato {id}, assinado em modalidade extinta, para verificar se a licitação foi aberta antes de 30/12/2023"
        ),
        "unjustified_inexigibility" => format!(
            "Solicitar ao órgão {organ} a justificativa de inviabilidade de competição (art. 74) e a razão da escolha de {name} no contrato {id}"
        ),
        "sanction_undecidable" => format!(
            "Consultar no CEIS/CNEP atual a data de início da sanção de {name} para saber se alcançava o contrato {id} do órgão {organ}"
        ),
        "sanctioned_grantee" => format!(
            "Comunicar à CGU e ao TCU que o convênio {id} foi celebrado com {} (CNPJ {}) durante sanção que o impedia, e pedir ao órgão {organ} a suspensão das liberações (Decreto 11.531/2023)",
            text(a, "grantee_name"),
            format_cnpj(text(a, "grantee"))
        ),
        "released_above_agreed" => format!(
            "Solicitar ao órgão {organ} os termos aditivos e o cronograma de desembolso do convênio {id}, que teve {} liberados além do valor pactuado ({} acima)",
            format_brl(a.value_at_stake()),
            format_pct(num(a, "observed"))
        ),
        _ if a.detector() == splitting::NAME => format!(
            "Verificar o planejamento anual de compras da UG {} para '{}': {} dispensas de {} (CNPJ {}) somam {}, acima do limite de {} (fracionamento, art. 75, §1)",
            text(a, "unit"),
            text(a, "element"),
            num(a, "purchases"),
            name,
            format_cnpj(supplier),
            format_brl(num(a, "sum")),
            format_brl(num(a, "threshold"))
        ),
        _ => format!("Examinar a conformidade legal do registro {id}"),
    }
}

/// One insight per rule with findings, and one for split purchases.
fn insights(anomalies: &[Arc<Anomaly>], contracts: usize) -> Vec<Insight> {
    let mut per_rule: BTreeMap<&str, Vec<&Anomaly>> = BTreeMap::new();
    for a in by_detector(anomalies, compliance_rules::NAME) {
        per_rule.entry(text(a, "rule")).or_default().push(a);
    }
    let mut out = Vec::new();
    let breached: std::collections::BTreeSet<&str> = per_rule
        .values()
        .flatten()
        .filter(|a| a.affected_entities.primary.kind == "contract" && a.kind == AnomalyType::ComplianceViolation)
        .map(|a| a.affected_entities.primary.id.as_str())
        .collect();
    if !breached.is_empty() {
        out.push(insight(
            AgentId::Bonifacio,
            format!(
                "{} de {} ({}) violam ao menos uma regra das leis de licitações (8.666/1993, 14.133/2021)",
                count_of(breached.len(), "contrato", "contratos"),
                contracts,
                format_pct(breached.len() as f64 / contracts.max(1) as f64)
            ),
            0.9,
            &per_rule.values().flatten().take(20).copied().collect::<Vec<_>>(),
        ));
    }
    for (rule, found) in &per_rule {
        let at_stake: f64 = found.iter().map(|a| a.value_at_stake()).sum();
        let top = found[0];
        let conf = found.iter().map(|a| a.confidence).sum::<f64>() / found.len() as f64;
        out.push(insight(
            AgentId::Bonifacio,
            format!(
                "{}: {}, somando {}; o mais grave é o {} {} ({})",
                count_of(found.len(), "caso", "casos"),
                rule_label(rule),
                format_brl(at_stake),
                if top.affected_entities.primary.kind == "agreement" { "convênio" } else { "contrato" },
                top.affected_entities.primary.id,
                format_brl(top.value_at_stake())
            ),
            conf,
            &found.iter().take(20).copied().collect::<Vec<_>>(),
        ));
    }
    let split = by_detector(anomalies, splitting::NAME);
    if let Some(top) = split.first() {
        let total: f64 = split.iter().map(|a| num(a, "sum")).sum();
        out.push(insight(
            AgentId::Bonifacio,
            format!(
                "{} de fracionamento de despesa: compras diretas do mesmo fornecedor e natureza que, juntas, somam {} acima do limite de dispensa; o maior é de {} na UG {} ({})",
                count_of(split.len(), "indício", "indícios"),
                format_brl(total),
                text(top, "supplier_name"),
                text(top, "unit"),
                format_brl(num(top, "sum"))
            ),
            split.iter().map(|a| a.confidence).sum::<f64>() / split.len() as f64,
            &split.iter().take(20).copied().collect::<Vec<_>>(),
        ));
    }
    out
}

/// One data-quality note when contracts lack their legal basis: missing data, not a breach.
fn missing_basis_note(contracts: &[crate::model::contract::Contract]) -> Option<Insight> {
    let cov = legal_grounds::basis_coverage(contracts);
    (cov.missing > 0).then(|| {
        insight(
            AgentId::Bonifacio,
            format!(
                "Qualidade do dado: {} de {} ({}) não informam o fundamento legal, o que é falta de dado e não violação; das {} sem ele, {} mostram no objeto ou no fornecedor um fundamento sem limite de valor (locação, concessionária, empresa pública, emergência, exclusividade) e as demais só são comparadas ao limite de valor com baixa confiança",
                count_of(cov.missing, "contrato", "contratos"),
                cov.contracts,
                format_pct(cov.missing as f64 / cov.contracts.max(1) as f64),
                count_of(cov.direct_missing, "contratação direta", "contratações diretas"),
                cov.direct_inferred
            ),
            0.5,
            &[],
        )
    })
}

/// Up to three requests per rule, most severe first.
fn recommendations(anomalies: &[Arc<Anomaly>]) -> Vec<String> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = Vec::new();
    for a in anomalies {
        let key = format!("{}/{}", a.detector(), text(a, "rule"));
        let n = seen.entry(key).or_default();
        if *n < PER_RULE {
            *n += 1;
            out.push(recommendation(a));
        }
    }
    out
}

impl Agent for Bonifacio {
    fn id(&self) -> AgentId {
        AgentId::Bonifacio
    }

    fn analyse(&self, ctx: &AnalysisContext<'_>) -> Result<AgentOutput, AnalysisError> {
        let anomalies = engine::detect_each(ctx, &[compliance_rules::NAME, splitting::NAME])?;
        let mut found = insights(&anomalies, ctx.dataset.contracts.len());
        found.extend(missing_basis_note(ctx.dataset.contracts.as_slice()));
        if found.is_empty() {
            let scope = format!("{} contratos e {} despesas", ctx.dataset.contracts.len(), ctx.dataset.expenses.len());
            let what = "Nenhuma violação da Lei 14.133/2021";
            found.push(nothing_found(AgentId::Bonifacio, what, ctx.params.confidence_threshold, scope));
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
    fn bonifacio_reports_each_broken_rule_with_requests_to_the_organs() {
        let data = generate(&DemoSpec { seed: 13, contracts: 4000, ..DemoSpec::default() });
        let params = DetectionParams::default();
        let cancel = CancelFlag::new();
        let out = Bonifacio::new().analyse(&AnalysisContext::new(&data.dataset, &params, &cancel)).unwrap();
        assert!(out.anomalies.iter().any(|a| a.detector() == compliance_rules::NAME));
        assert!(out.anomalies.iter().any(|a| a.detector() == splitting::NAME));
        assert!(
            out.anomalies.iter().all(|a| a.detector() == compliance_rules::NAME || a.detector() == splitting::NAME)
        );
        assert!(out.insights.iter().all(|i| i.agent == "bonifacio"));
        assert!(out.insights.iter().any(|i| i.insight.contains("dispensas por valor acima do limite")));
        assert!(out.insights.iter().any(|i| i.insight.contains("fracionamento")));
        assert!(out.recommendations.iter().any(|r| r.contains("processo de dispensa") && r.contains("art. 73")));
        assert!(out.recommendations.iter().any(|r| r.contains("art. 75, §1")));
        assert!(out.insights.iter().any(|i| i.insight.contains("convenentes sancionados")));
        assert!(out.insights.iter().any(|i| i.insight.contains("o mais grave é o convênio")));
        assert!(out.recommendations.iter().any(|r| r.contains("cronograma de desembolso do convênio")));
        assert_eq!(Bonifacio::new().id(), AgentId::Bonifacio);
    }

    #[test]
    fn a_cancelled_compliance_review_returns_cancelled_and_an_empty_one_says_so() {
        assert_eq!(analyse_cancelled(&Bonifacio::new(), 300), Err(AnalysisError::Cancelled));
        let (params, empty) = (DetectionParams::default(), crate::Dataset::default());
        let out = Bonifacio::new().analyse(&AnalysisContext::new(&empty, &params, &CancelFlag::new())).unwrap();
        assert!(out.anomalies.is_empty() && out.insights[0].insight.starts_with("Nenhuma violação"));
    }
}
