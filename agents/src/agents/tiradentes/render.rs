//! The investigation report, written from a [`ReportInput`] as blocks ([`super::doc`]) and
//! rendered in Markdown and HTML: title, scope, executive summary, findings with their evidence
//! and record ids (most severe first, bounded), the agents' insights and recommendations,
//! methodology and limitations.

use serde::{Deserialize, Serialize};

use super::doc::{Block, to_html, to_markdown};
use super::input::ReportInput;
use super::methodology::rule_of;
use crate::detect::engine::order;
use crate::model::anomaly::{Anomaly, AnomalyType, Severity};
use crate::model::report::Summary;
use crate::text::{format_brl, format_decimal, format_pct};

/// Most record ids listed per finding.
const MAX_IDS: usize = 10;
/// Most evidence measurements listed per finding.
const MAX_POINTS: usize = 6;
/// Most insights and recommendations listed.
const MAX_NOTES: usize = 30;
/// Most organs named in the scope.
const MAX_ORGANS: usize = 15;

/// A rendered report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Report {
    /// The report in Markdown.
    pub markdown: String,
    /// The report as a self-contained HTML page.
    pub html: String,
}

fn type_pt(t: AnomalyType) -> &'static str {
    match t {
        AnomalyType::PriceAnomaly => "Anomalia de preço",
        AnomalyType::PatternAnomaly => "Anomalia de padrão",
        AnomalyType::TemporalAnomaly => "Anomalia temporal",
        AnomalyType::RelationshipAnomaly => "Anomalia de relacionamento",
        AnomalyType::ComplianceViolation => "Violação de conformidade",
    }
}

fn severity_pt(s: Severity) -> &'static str {
    match s {
        Severity::Critical => "crítica",
        Severity::High => "alta",
        Severity::Medium => "média",
        Severity::Low => "baixa",
    }
}

/// Renders the report of `input` in Markdown and HTML.
pub fn render_report(input: &ReportInput) -> Report {
    let mut blocks = vec![Block::Heading(1, input.title.clone())];
    if let Some(at) = input.generated_at {
        blocks.push(Block::Para(format!("Gerado em {} (UTC).", at.format("%d/%m/%Y %H:%M"))));
    }
    scope(input, &mut blocks);
    summary(input, &mut blocks);
    findings(input, &mut blocks);
    notes(input, &mut blocks);
    methodology(input, &mut blocks);
    limitations(input, &mut blocks);
    Report { markdown: to_markdown(&blocks), html: to_html(&input.title, &blocks) }
}

fn scope(input: &ReportInput, out: &mut Vec<Block>) {
    let s = &input.scope;
    out.push(Block::Heading(2, "Escopo".into()));
    let rows = s.records.iter().map(|r| vec![r.kind.clone(), r.count.to_string()]).collect();
    out.push(Block::Table(vec!["Registros".into(), "Quantidade".into()], rows));
    let period = match s.period {
        Some((a, b)) => format!("Período coberto: de {} a {}.", a.format("%d/%m/%Y"), b.format("%d/%m/%Y")),
        None => "Período coberto: nenhum registro datado.".into(),
    };
    out.push(Block::Para(period));
    if !s.organs.is_empty() {
        let mut items: Vec<String> = s
            .organs
            .iter()
            .take(MAX_ORGANS)
            .map(|o| format!("{} ({}): {} registros", o.name, o.code, o.records))
            .collect();
        if s.organs.len() > MAX_ORGANS {
            items.push(format!("e mais {} órgãos", s.organs.len() - MAX_ORGANS));
        }
        out.push(Block::Para(format!("Órgãos ({}):", s.organs.len())));
        out.push(Block::List(items));
    }
}

fn summary(input: &ReportInput, out: &mut Vec<Block>) {
    let a = &input.anomalies;
    let s = Summary::of(a);
    let at_stake: f64 = a.iter().map(|x| x.value_at_stake()).sum();
    out.push(Block::Heading(2, "Sumário executivo".into()));
    out.push(Block::Para(format!(
        "{} achados, com {} em jogo; pontuação de risco {} de 100. Por severidade: {} crítica(s), {} alta(s), {} média(s), {} baixa(s).",
        s.total_anomalies,
        format_brl(at_stake),
        s.risk_score,
        s.by_severity.critical,
        s.by_severity.high,
        s.by_severity.medium,
        s.by_severity.low
    )));
    let rows = AnomalyType::ALL
        .iter()
        .map(|t| {
            let of: Vec<&Anomaly> = a.iter().filter(|x| x.kind == *t).map(|x| &**x).collect();
            vec![type_pt(*t).to_string(), of.len().to_string(), format_brl(of.iter().map(|x| x.value_at_stake()).sum())]
        })
        .collect();
    out.push(Block::Table(vec!["Tipo".into(), "Achados".into(), "Valor em jogo".into()], rows));
}

fn findings(input: &ReportInput, out: &mut Vec<Block>) {
    out.push(Block::Heading(2, "Achados".into()));
    if input.anomalies.is_empty() {
        out.push(Block::Para(format!(
            "Nenhum achado com confiança de pelo menos {}.",
            format_pct(input.params.confidence_threshold)
        )));
        return;
    }
    let mut sorted: Vec<&Anomaly> = input.anomalies.iter().map(|a| &**a).collect();
    sorted.sort_by(|a, b| order(a, b));
    for (k, a) in sorted.iter().take(input.max_findings).enumerate() {
        out.push(Block::Heading(
            3,
            format!("{}. [{}] {}: {}", k + 1, severity_pt(a.severity), type_pt(a.kind), a.description),
        ));
        let ids: Vec<&str> = a.record_ids().collect();
        let mut shown = ids.iter().take(MAX_IDS).copied().collect::<Vec<_>>().join(", ");
        if ids.len() > MAX_IDS {
            shown.push_str(&format!(" e mais {}", ids.len() - MAX_IDS));
        }
        let mut items = vec![
            format!("Identificador: {}", a.id),
            format!("Detector: {}; confiança {}", a.detector(), format_pct(a.confidence)),
            format!("Valor em jogo: {}", format_brl(a.value_at_stake())),
            format!("Registros: {shown}"),
        ];
        for p in a.evidence.data_points.iter().take(MAX_POINTS) {
            let when = p.timestamp.as_deref().map(|t| format!(" ({t})")).unwrap_or_default();
            items.push(format!("Evidência: {} = {}{}", p.metric, format_decimal(p.value, 2), when));
        }
        if let Some(e) = &a.explanation {
            items.push(format!("Explicação: {}", e.human_readable));
        }
        out.push(Block::List(items));
    }
    let left = sorted.len().saturating_sub(input.max_findings);
    if left > 0 {
        out.push(Block::Para(format!(
            "Outros {left} achados, de menor severidade ou valor, não estão listados neste relatório."
        )));
    }
}

fn notes(input: &ReportInput, out: &mut Vec<Block>) {
    for (title, texts) in [
        (
            "Percepções dos agentes",
            input.insights.iter().map(|i| format!("{}: {}", i.agent, i.insight)).collect::<Vec<_>>(),
        ),
        ("Recomendações", input.recommendations.clone()),
    ] {
        if texts.is_empty() {
            continue;
        }
        out.push(Block::Heading(2, title.into()));
        let mut items: Vec<String> = texts.iter().take(MAX_NOTES).cloned().collect();
        if texts.len() > MAX_NOTES {
            items.push(format!("e mais {}", texts.len() - MAX_NOTES));
        }
        out.push(Block::List(items));
    }
}

fn methodology(input: &ReportInput, out: &mut Vec<Block>) {
    let p = &input.params;
    out.push(Block::Heading(2, "Metodologia".into()));
    let types = match &p.anomaly_types {
        None => "todos".to_string(),
        Some(t) => t.iter().map(|t| type_pt(*t)).collect::<Vec<_>>().join(", "),
    };
    out.push(Block::Para(format!(
        "Sensibilidade {} (0 a 1; 1 aplica os limiares literais da especificação); confiança mínima {}; tipos procurados: {}.",
        format_decimal(p.sensitivity, 2),
        format_pct(p.confidence_threshold),
        types
    )));
    let rows = input
        .detectors
        .iter()
        .map(|d| match rule_of(d, p.sensitivity) {
            Some((rule, thresholds)) => vec![d.clone(), rule.to_string(), thresholds],
            None => vec![d.clone(), "(detector sem descrição)".into(), String::new()],
        })
        .collect();
    out.push(Block::Table(vec!["Detector".into(), "Regra".into(), "Limiares em vigor".into()], rows));
}

fn limitations(input: &ReportInput, out: &mut Vec<Block>) {
    out.push(Block::Heading(2, "Limitações".into()));
    let mut items: Vec<String> = input
        .scope
        .gaps
        .iter()
        .map(|g| format!("{}: {} de {} ({})", g.what, g.count, g.of, format_pct(g.count as f64 / g.of.max(1) as f64)))
        .collect();
    if items.is_empty() {
        items.push("Nenhuma lacuna de dados encontrada nos campos verificados.".into());
    }
    out.push(Block::List(items));
    out.push(Block::Para(
        "Os achados são indícios estatísticos e legais a verificar junto aos órgãos, não prova de irregularidade; \
         um campo vazio é dado ausente, não violação."
            .into(),
    ));
}
