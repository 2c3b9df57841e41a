//! Oscar Niemeyer on a fixture and end to end on demo data.

use super::*;
use crate::cancel::CancelFlag;
use crate::demo::{DemoSpec, generate};
use crate::model::dataset::Dataset;
use crate::model::params::DetectionParams;
use crate::testutil::contract;

fn run(ds: &Dataset) -> AgentOutput {
    let (params, cancel) = (DetectionParams::default(), CancelFlag::new());
    OscarNiemeyer::new().analyse(&AnalysisContext::new(ds, &params, &cancel)).unwrap()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-6 * b.abs().max(1.0)
}

#[test]
fn a_small_dataset_gives_its_totals_by_organ_supplier_month_and_its_network() {
    let ds = Dataset::from_contracts(vec![
        contract("1", "LIMPEZA", "11", "36000", 600.0, (2024, 1, 5)),
        contract("2", "LIMPEZA", "11", "26000", 300.0, (2024, 3, 5)),
        contract("3", "VIGILANCIA", "22", "36000", 100.0, (2024, 3, 9)),
    ]);
    let out = run(&ds);
    let by = |title: &str| out.artifacts.iter().find(|a| a.title == title).map(|a| a.content.clone()).unwrap();
    let organs = by("Valor contratado por órgão");
    assert_eq!(organs["bars"][0]["key"], "36000");
    assert_eq!(organs["bars"][0]["value"], 700.0);
    assert_eq!(organs["total"], 1000.0);
    let months = by("Valor contratado por mês");
    let values: Vec<f64> = months["points"].as_array().unwrap().iter().map(|p| p["value"].as_f64().unwrap()).collect();
    assert_eq!(values, vec![600.0, 0.0, 400.0]);
    let net = by("Rede fornecedor-órgão");
    assert_eq!(net["links"].as_array().unwrap().len(), 3);
    assert_eq!(net["suppliers_with_several_organs"], 1);
    let text: Vec<&str> = out.insights.iter().map(|i| i.insight.as_str()).collect();
    assert!(
        text.contains(&"Órgão 36000 concentra 70,0% do valor contratado (R$ 700,00 de R$ 1.000,00), entre 2 órgãos"),
        "{text:?}"
    );
    assert!(text.iter().any(|t| t.starts_with("Os 2 maiores fornecedores recebem 100,0%")));
    // Every headline is also written in English, with English numbers.
    let en: Vec<&str> = out.insights.iter().filter_map(|i| i.insight_en.as_deref()).collect();
    assert_eq!(en.len(), out.insights.len());
    assert!(
        en.contains(&"Órgão 36000 holds 70.0% of the contracted value (R$ 700.00 of R$ 1,000.00), among 2 organs"),
        "{en:?}"
    );
    assert!(en.iter().any(|t| t.contains("the largest month is 2024-01 with R$ 600.00 in 1 record")), "{en:?}");
    assert!(text.iter().any(|t| t.contains("o maior mês é 2024-01 com R$ 600,00 em 1 registro")));
}

#[test]
fn one_organs_data_has_no_concentration_headline_and_sums_come_out_in_cents() {
    let ds = Dataset::from_contracts(vec![
        contract("1", "LIMPEZA", "11", "36000", 0.1, (2024, 1, 5)),
        contract("2", "LIMPEZA", "11", "36000", 0.2, (2024, 1, 9)),
    ]);
    let out = run(&ds);
    let text: Vec<&str> = out.insights.iter().map(|i| i.insight.as_str()).collect();
    assert!(!text.iter().any(|t| t.contains("concentra") || t.contains("mais de um órgão")), "{text:?}");
    assert!(text.contains(&"A rede mostra o único fornecedor em 1 ligação, 100,0% do valor contratado"), "{text:?}");
    assert!(text.iter().any(|t| t.contains("com 1 mês; o maior mês é 2024-01 com R$ 0,30 em 2 registros")), "{text:?}");
    let json = serde_json::to_string(&out.artifacts).unwrap();
    // 0.1 + 0.2 is 0.30000000000000004 in floating point.
    assert!(json.contains("\"value\":0.3}") && !json.contains("0.30000000000000004"), "{json}");
}

#[test]
fn oscar_niemeyer_charts_the_demo_data_and_every_chart_adds_up_to_its_total() {
    let data = generate(&DemoSpec { seed: 9, contracts: 3000, ..DemoSpec::default() });
    let out = run(&data.dataset);
    let contracts: f64 = data.dataset.contracts.iter().map(|c| c.value()).sum();
    let commitments: f64 = data.dataset.expenses.iter().filter(|e| e.is_commitment()).map(|e| e.value).sum();
    let mut seen = 0;
    for a in out.artifacts.iter().filter(|a| a.kind == "aggregation") {
        let c = &a.content;
        let total = c["total"].as_f64().unwrap();
        let expected = if c["source"] == "contracts" { contracts } else { commitments };
        assert!(close(total, expected), "{}", a.title);
        let parts: f64 = if c["dimension"] == "month" {
            c["points"].as_array().unwrap().iter().map(|p| p["value"].as_f64().unwrap()).sum::<f64>()
                + c["undated"]["value"].as_f64().unwrap()
        } else {
            let bars = c["bars"].as_array().unwrap();
            assert!(!bars.is_empty() && bars.len() <= TOP_N);
            bars.iter().map(|b| b["value"].as_f64().unwrap()).sum::<f64>()
                + c["others"]["value"].as_f64().unwrap_or(0.0)
        };
        assert!(close(parts, total), "{}: {parts} vs {total}", a.title);
        seen += 1;
    }
    assert_eq!(seen, if commitments > 0.0 { 8 } else { 4 });
    let net = &out.artifacts.iter().find(|a| a.kind == "network").unwrap().content;
    let links: f64 = net["links"].as_array().unwrap().iter().map(|l| l["value"].as_f64().unwrap()).sum();
    for group in ["organ", "supplier"] {
        let nodes: f64 = net["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|n| n["group"] == group)
            .map(|n| n["value"].as_f64().unwrap())
            .sum();
        assert!(close(nodes, links), "{group}");
    }
    assert!(net["links"].as_array().unwrap().len() <= MAX_LINKS);
    assert!(out.insights.len() >= 4 && out.anomalies.is_empty());
}

#[test]
fn a_cancelled_aggregation_returns_cancelled() {
    assert_eq!(crate::testutil::analyse_cancelled(&OscarNiemeyer::new(), 300), Err(AnalysisError::Cancelled));
}

#[test]
fn an_empty_dataset_gives_empty_charts_and_no_headline() {
    let out = run(&Dataset::default());
    assert!(out.insights.is_empty());
    let kinds: Vec<&str> = out.artifacts.iter().map(|a| a.kind.as_str()).collect();
    assert_eq!(kinds, vec!["aggregation", "aggregation", "aggregation", "aggregation", "network"]);
    assert!(out.artifacts.iter().all(|a| a.content["total"] == 0.0 || a.content["total_value"] == 0.0));
}
