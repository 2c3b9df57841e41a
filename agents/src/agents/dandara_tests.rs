//! Dandara on fixtures (figures checked by hand) and end to end on demo data.

use super::*;
use crate::agents::lampiao::ibge;
use crate::agents::lampiao::spending::tests::agreement;
use crate::cancel::CancelFlag;
use crate::demo::{DemoSpec, generate};
use crate::model::dataset::Dataset;
use crate::model::params::DetectionParams;

fn run(ds: &Dataset) -> AgentOutput {
    let (params, cancel) = (DetectionParams::default(), CancelFlag::new());
    Dandara::new().analyse(&AnalysisContext::new(ds, &params, &cancel)).unwrap()
}

fn in_sao_paulo(n: usize) -> Dataset {
    let agreements = (0..n).map(|k| agreement(&format!("sp{k}"), "SP", "Campinas", 1_000_000.0 + k as f64)).collect();
    Dataset { agreements, ..Dataset::default() }
}

#[test]
fn all_the_money_in_one_state_is_flagged_with_the_hand_computed_index() {
    let r = regional_spending(&in_sao_paulo(40), &CancelFlag::new()).unwrap();
    let e = equity(&r);
    // Every other state has zero per person, so the curve stays at 0 until São Paulo's share of
    // the people: the area is p_SP and the index 1 - p_SP.
    let expected = 1.0 - 44_411_238.0 / 203_080_756.0;
    assert!((e.concentration_index.unwrap() - expected).abs() < 1e-12);
    assert_eq!(e.least_served_40, Some(0.0));
    let kinds: Vec<&str> = e.flags.iter().map(|f| f.kind).collect();
    assert_eq!(kinds.iter().filter(|k| **k == "underserved_region").count(), 4);
    assert!(kinds.contains(&"marked_concentration") && kinds.contains(&"overserved_region"));
    let se = e.regions.iter().find(|g| g.code == "SE").unwrap();
    let se_people = (20_539_989 + 3_833_712 + 16_055_174 + 44_411_238) as f64 / 203_080_756.0;
    assert!((se.service_ratio - 1.0 / se_people).abs() < 1e-9);
    assert!(e.flags[0].records.contains(&"sp39".to_string()));
    let out = run(&in_sao_paulo(40));
    assert!(out.insights[0].insight.contains("os 40% da população menos atendidos receberam 0,0% do valor"));
    assert_eq!(out.recommendations.len(), 4);
    // The same insights in English: every one of them, with English numbers and region names.
    let en: Vec<&str> = out.insights.iter().filter_map(|i| i.insight_en.as_deref()).collect();
    assert_eq!(en.len(), out.insights.len());
    assert!(en[0].contains("the least served 40% of the population received 0.0% of the value"), "{en:?}");
    assert!(en.iter().any(|t| t.starts_with("The Southeast region has ")), "{en:?}");
    assert!(en.iter().any(|t| t.starts_with("Markedly unequal distribution: concentration index 0.7")), "{en:?}");
}

#[test]
fn money_in_proportion_to_people_raises_no_flag() {
    let agreements = ibge::tables()
        .states
        .iter()
        .flat_map(|s| {
            let per = s.population.unwrap_or(0) as f64 / 2.0;
            [agreement(&format!("{}a", s.uf), s.uf, "", per), agreement(&format!("{}b", s.uf), s.uf, "", per)]
        })
        .collect();
    let e = equity(&regional_spending(&Dataset { agreements, ..Dataset::default() }, &CancelFlag::new()).unwrap());
    assert!(e.flags.is_empty());
    assert!(e.concentration_index.unwrap() < 1e-9);
    assert!((e.least_served_40.unwrap() - 0.4).abs() < 1e-9);
    assert!(e.regions.iter().all(|g| (g.service_ratio - 1.0).abs() < 1e-9));
}

#[test]
fn too_few_placed_agreements_give_figures_without_judgement() {
    let out = run(&in_sao_paulo(5));
    assert!(out.insights.iter().any(|i| i.insight.starts_with("Apenas 5 convênios localizados")));
    assert!(out.artifacts[0].content["equity"]["flags"].as_array().unwrap().is_empty());
    let empty = run(&Dataset::default());
    assert!(empty.insights[0].insight.starts_with("Sem convênios localizados"));
}

#[test]
fn dandara_measures_the_demo_agreements_with_a_consistent_curve() {
    let data = generate(&DemoSpec { seed: 3, contracts: 3000, ..DemoSpec::default() });
    let out = run(&data.dataset);
    let a = &out.artifacts[0];
    assert_eq!(a.kind, "equity");
    let e = &a.content["equity"];
    let curve = e["lorenz"].as_array().unwrap();
    assert!(curve.len() > 2);
    let last = curve.last().unwrap();
    assert!((last["population_share"].as_f64().unwrap() - 1.0).abs() < 1e-9);
    assert!((last["value_share"].as_f64().unwrap() - 1.0).abs() < 1e-9);
    for key in ["regions", "states"] {
        let rows = e[key].as_array().unwrap();
        let v: f64 = rows.iter().map(|r| r["value_share"].as_f64().unwrap()).sum();
        let p: f64 = rows.iter().map(|r| r["population_share"].as_f64().unwrap()).sum();
        assert!((v - 1.0).abs() < 1e-9 && (p - 1.0).abs() < 1e-9, "{key}");
    }
    assert!(e["concentration_index"].as_f64().is_some());
}

#[test]
fn a_cancelled_equity_analysis_returns_cancelled() {
    assert_eq!(crate::testutil::analyse_cancelled(&Dandara::new(), 300), Err(AnalysisError::Cancelled));
}

#[test]
fn money_going_where_an_indicator_is_low_reads_as_a_negative_rank_correlation() {
    use crate::model::regional::{Indicator, RegionalFacts};
    // Every state gets money inversely proportional to its (made-up) establishment count per
    // person: the ranks are exactly reversed, so Spearman is -1.
    let t = ibge::tables();
    let mut agreements = Vec::new();
    let mut by_state = std::collections::HashMap::new();
    let mut state_population = std::collections::HashMap::new();
    for (k, s) in t.states.iter().enumerate() {
        let pop = 1_000_000u64;
        state_population.insert(s.uf.to_string(), pop);
        by_state.insert(s.uf.to_string(), (k + 1) as f64 * 10.0);
        agreements.push(agreement(&format!("a{k}"), s.uf, "", 1_000_000.0 * (30 - k) as f64));
    }
    let facts = RegionalFacts {
        population_source: "test".into(),
        population_year: None,
        state_population,
        municipal_population: Default::default(),
        indicators: vec![Indicator {
            key: "health_establishments".into(),
            name: "estabelecimentos de saúde".into(),
            area: "health".into(),
            source: "DataSUS CNES".into(),
            by_state,
            rate: false,
        }],
    };
    let ds = Dataset { agreements, regional: Some(std::sync::Arc::new(facts)), ..Dataset::default() };
    let out = run(&ds);
    let services = &out.artifacts[0].content["services"][0];
    assert_eq!(services["states"], 27);
    assert!((services["spearman"].as_f64().unwrap() + 1.0).abs() < 1e-12);
    assert_eq!(services["lowest"][0], t.states[0].uf);
    let text = out.insights.iter().map(|i| i.insight.as_str()).collect::<Vec<_>>().join("\n");
    assert!(text.contains("correlação de Spearman -1,00, o dinheiro vai mais para onde o indicador é baixo"), "{text}");
}

#[test]
fn without_indicators_nothing_is_said_about_services() {
    let out = run(&in_sao_paulo(40));
    assert_eq!(out.artifacts[0].content["services"], serde_json::json!([]));
}
