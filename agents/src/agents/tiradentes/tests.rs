//! Tiradentes: the report rendered from plain values, and end to end on demo data.

use serde_json::json;

use super::*;
use crate::cancel::CancelFlag;
use crate::demo::{DemoSpec, generate};
use crate::model::anomaly::Anomaly;
use crate::model::dataset::Dataset;
use crate::model::params::DetectionParams;
use crate::testutil::contract;

fn anomaly(id: &str, severity: &str, kind: &str, at_stake: f64, records: &[&str]) -> Anomaly {
    let related: Vec<_> = records[1..].iter().map(|r| json!({"type": "contract", "id": r, "name": r})).collect();
    serde_json::from_value(json!({
        "id": id, "type": kind, "severity": severity, "confidence": 0.9,
        "description": format!("Achado {id} <com marcação>"),
        "technical_details": {"detector": "price_zscore", "value_at_stake": at_stake},
        "affected_entities": {"primary": {"type": "contract", "id": records[0], "name": "c"}, "related": related},
        "evidence": {"data_points": [{"metric": "ratio_to_median", "value": 4.25, "timestamp": "2024-03-01"}], "patterns": []},
        "context": {},
    }))
    .unwrap()
}

fn input(anomalies: Vec<Anomaly>, max_findings: usize) -> ReportInput {
    let mut undated = contract("c3", "X", "", "36000", 10.0, (2024, 1, 1));
    undated.signed_on = None;
    let ds = Dataset::from_contracts(vec![contract("c1", "X", "S", "36000", 10.0, (2024, 2, 1)), undated]);
    ReportInput {
        title: "Relatório & teste".into(),
        generated_at: None,
        scope: Scope::of(&ds),
        anomalies: crate::testutil::shared(anomalies),
        insights: Vec::new(),
        recommendations: vec!["Solicitar ao órgão 36000 as pesquisas de preço".into()],
        params: DetectionParams::default(),
        detectors: vec!["price_zscore".into(), "supplier_concentration".into()],
        max_findings,
    }
}

#[test]
fn a_report_lists_the_most_severe_findings_first_and_counts_those_left_out() {
    let anomalies = vec![
        anomaly("low-1", "low", "pattern_anomaly", 10.0, &["c9"]),
        anomaly("crit-1", "critical", "price_anomaly", 1_000.0, &["c1", "c2"]),
        anomaly("high-1", "high", "price_anomaly", 5_000.0, &["c3"]),
    ];
    let r = render_report(&input(anomalies, 2));
    let md = &r.markdown;
    let crit = md.find("### 1. \\[crítica\\] Anomalia de preço: Achado crit-1 \\<com marcação\\>").unwrap();
    let high = md.find("### 2. \\[alta\\]").unwrap();
    assert!(crit < high && !md.contains("low-1"));
    assert!(md.contains("Outros 1 achados, de menor severidade ou valor, não estão listados"));
    assert!(md.contains("3 achados, com R$ 6.010,00 em jogo"));
    assert!(md.contains("| Anomalia de preço | 2 | R$ 6.000,00 |"));
    assert!(md.contains("- Registros: c1, c2"));
    assert!(md.contains("- Evidência: ratio\\_to\\_median = 4,25 (2024-03-01)"));
    assert!(md.contains("| price\\_zscore | Preço do contrato"));
    assert!(md.contains("- contratos sem data de assinatura: 1 de 2 (50,0%)"));
    assert!(md.contains("Período coberto: de 01/02/2024 a 01/02/2024."));
    for section in ["Escopo", "Sumário executivo", "Achados", "Recomendações", "Metodologia", "Limitações"] {
        assert!(md.contains(&format!("## {section}\n")), "{section} in markdown");
        assert!(r.html.contains(&format!("<h2>{section}</h2>")), "{section} in html");
    }
    assert_eq!(r.html.matches("<h3>").count(), 2);
    assert!(r.html.contains("<title>Relatório &amp; teste</title>"));
    assert!(r.html.contains("Achado crit-1 &lt;com marcação&gt;"));
}

#[test]
fn a_report_without_findings_says_so_at_the_threshold_used() {
    let r = render_report(&input(Vec::new(), 50));
    assert!(r.markdown.contains("Nenhum achado com confiança de pelo menos 80,0%."));
    assert!(r.markdown.contains("0 achados, com R$ 0,00 em jogo; pontuação de risco 0 de 100"));
}

#[test]
fn a_host_without_the_dataset_renders_stored_results_with_an_empty_scope() {
    let i = ReportInput::from_results(
        "Investigação 42".into(),
        Scope::default(),
        crate::testutil::shared(vec![anomaly("a", "high", "price_anomaly", 1.0, &["c1"])]),
        Vec::new(),
        Vec::new(),
        DetectionParams::default(),
    );
    let r = render_report(&i);
    assert!(r.markdown.contains("Período coberto: nenhum registro datado."));
    assert_eq!(r.markdown.matches("\n### ").count(), 1);
    assert_eq!(r.markdown.matches("| Preço do contrato").count(), 1, "every detector in the methodology");
    assert!(r.markdown.contains("Nenhuma lacuna de dados encontrada"));
}

#[test]
fn the_report_input_round_trips_through_json_so_a_host_can_keep_it() {
    let i = input(vec![anomaly("a", "high", "price_anomaly", 1.0, &["c1"])], 50);
    let back: ReportInput = serde_json::from_value(serde_json::to_value(&i).unwrap()).unwrap();
    assert_eq!(render_report(&back), render_report(&i));
}

#[test]
fn tiradentes_reports_every_finding_of_the_demo_data_in_both_formats() {
    let data = generate(&DemoSpec { seed: 11, contracts: 2000, ..DemoSpec::default() });
    let (params, cancel) = (DetectionParams::default(), CancelFlag::new());
    let out = Tiradentes::new().analyse(&AnalysisContext::new(&data.dataset, &params, &cancel)).unwrap();
    let all = crate::detect::engine::detect(&data.dataset, &params, &cancel, &[]).unwrap();
    assert!(out.anomalies.is_empty());
    assert_eq!(out.artifacts.len(), 2);
    let body = |f: &str| {
        let a = out.artifacts.iter().find(|a| a.kind == "report" && a.content["format"] == f).unwrap();
        a.content["body"].as_str().unwrap().to_string()
    };
    let (md, html) = (body("markdown"), body("html"));
    let listed = all.len().min(input::DEFAULT_MAX_FINDINGS);
    assert!(listed > 0);
    assert_eq!(md.matches("\n### ").count(), listed);
    assert_eq!(html.matches("<h3>").count(), listed);
    let summary = crate::model::report::Summary::of(&all);
    assert!(md.contains(&format!("{} achados, com", summary.total_anomalies)));
    assert!(md.contains(&format!("pontuação de risco {} de 100", summary.risk_score)));
    assert!(md.contains(&format!("| contratos | {} |", data.dataset.contracts.len())));
    assert_eq!(md.matches("| Preço do contrato").count() + html.matches("<td>Preço do contrato").count(), 2);
    assert!(
        out.insights[0].insight.starts_with(&format!("Relatório escrito em Markdown e HTML: {} achados", all.len()))
    );
}

#[test]
fn a_cancelled_report_returns_cancelled() {
    assert_eq!(crate::testutil::analyse_cancelled(&Tiradentes::new(), 300), Err(AnalysisError::Cancelled));
}
