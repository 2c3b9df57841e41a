//! Lampião on fixtures (figures checked by hand) and end to end on demo data.

use super::*;
use crate::cancel::CancelFlag;
use crate::demo::{DemoSpec, generate};
use crate::model::dataset::Dataset;
use crate::model::params::DetectionParams;
use spending::tests::agreement;

fn run(ds: &Dataset) -> AgentOutput {
    let (params, cancel) = (DetectionParams::default(), CancelFlag::new());
    Lampiao::new().analyse(&AnalysisContext::new(ds, &params, &cancel)).unwrap()
}

#[test]
fn a_state_far_above_the_rest_of_its_region_is_an_outlier_with_its_figures() {
    // Sergipe (2,210,004 people) gets R$ 22,100,040 = R$ 10/person; Bahia (14,141,626) gets
    // R$ 14,141,626 = R$ 1/person; the rest of the Nordeste besides Sergipe gets only Bahia's
    // money: 14,141,626 / (Nordeste population - Sergipe) is well under R$ 1. Bahia against the
    // rest besides itself (Sergipe's money over 40.5 M people, R$ 0.55) is 1.8 times: no outlier.
    let ds = Dataset {
        agreements: vec![
            agreement("se1", "SE", "Aracaju", 22_100_040.0),
            agreement("ba1", "BA", "Salvador", 14_141_626.0),
        ],
        ..Dataset::default()
    };
    let r = regional_spending(&ds, &CancelFlag::new()).unwrap();
    let found = outliers(&r);
    let ne_rest: u64 = r.states.iter().filter(|s| s.region == "NE" && s.uf != "SE").filter_map(|s| s.population).sum();
    let expected_ratio = 10.0 / (14_141_626.0 / ne_rest as f64);
    assert_eq!(found.iter().map(|o| o.uf).collect::<Vec<_>>(), vec!["SE"]);
    assert!((found[0].per_capita - 10.0).abs() < 1e-9);
    assert!((found[0].ratio.unwrap() - expected_ratio).abs() < 1e-9);
    assert_eq!(found[0].records, vec!["se1"]);
    let out = run(&ds);
    let text = out.insights.iter().map(|i| i.insight.as_str()).collect::<Vec<_>>().join("\n");
    assert!(text.contains("SE recebeu R$ 10,00 por habitante"), "{text}");
    assert!(text.contains("2 de 2 convênios localizados por UF (R$ 36.241.666,00)"), "{text}");
    // Each insight is also written in English, with English numbers and region names.
    let en = out.insights.iter().filter_map(|i| i.insight_en.as_deref()).collect::<Vec<_>>().join("\n");
    assert_eq!(out.insights.iter().filter(|i| i.insight_en.is_some()).count(), out.insights.len());
    assert!(en.contains("SE received R$ 10.00 per inhabitant"), "{en}");
    assert!(en.contains("of the rest of the Northeast region"), "{en}");
    assert!(en.contains("2 of 2 agreements placed in a state (R$ 36,241,666.00)"), "{en}");
    assert!(!en.contains("convênios") && !en.contains("habitante"), "{en}");
    assert!(out.anomalies.is_empty());
    assert_eq!(out.recommendations.len(), 1);
}

#[test]
fn money_spread_by_population_shows_no_inequality_and_no_outlier() {
    let t = ibge::tables();
    let agreements =
        t.states.iter().map(|s| agreement(s.uf, s.uf, "", s.population.unwrap_or(0) as f64 * 3.0)).collect();
    let ds = Dataset { agreements, ..Dataset::default() };
    let r = regional_spending(&ds, &CancelFlag::new()).unwrap();
    assert!(outliers(&r).is_empty());
    assert!(inequality::gini(&r.state_units()).unwrap() < 1e-9);
    assert!(r.regions.iter().all(|g| (g.per_capita.unwrap() - 3.0).abs() < 1e-9));
    assert_eq!(r.coverage.municipality_unresolved, 27);
}

#[test]
fn lampiao_places_the_demo_agreements_and_its_artifact_adds_up() {
    let data = generate(&DemoSpec { seed: 3, contracts: 3000, ..DemoSpec::default() });
    let out = run(&data.dataset);
    assert_eq!(out.artifacts.len(), 1);
    let a = &out.artifacts[0];
    assert_eq!(a.kind, "regional");
    let c = &a.content;
    let sum = |key: &str| c[key].as_array().unwrap().iter().map(|x| x["value"].as_f64().unwrap()).sum::<f64>();
    let placed = c["coverage"]["placed_value"].as_f64().unwrap();
    assert!(placed > 0.0);
    assert!((sum("states") - placed).abs() < 1e-3);
    assert!((sum("regions") - placed).abs() < 1e-3);
    let cities = sum("municipalities") + c["municipalities_others"]["value"].as_f64().unwrap();
    let cities_in_table: f64 =
        regional_spending(&data.dataset, &CancelFlag::new()).unwrap().municipalities.iter().map(|m| m.value).sum();
    assert!((cities - cities_in_table).abs() < 1e-3);
    let all: f64 = data.dataset.agreements.iter().map(|a| a.value.max(0.0)).sum();
    assert!((placed + c["coverage"]["agreements_without_region_value"].as_f64().unwrap() - all).abs() < 1e-3);
    assert_eq!(c["coverage"]["contracts_without_region"], data.dataset.contracts.len());
    let biddings = c["coverage"]["biddings_with_region"].as_u64().unwrap()
        + c["coverage"]["biddings_without_region"].as_u64().unwrap();
    assert_eq!(biddings as usize, data.dataset.biddings.len());
    assert!(c["indices"]["gini"].as_f64().is_some());
    assert!(out.insights.len() >= 4);
}

#[test]
fn a_cancelled_regional_analysis_returns_cancelled() {
    assert_eq!(crate::testutil::analyse_cancelled(&Lampiao::new(), 300), Err(AnalysisError::Cancelled));
}

#[test]
fn an_empty_dataset_gives_the_coverage_and_zero_totals() {
    let out = run(&Dataset::default());
    assert_eq!(out.insights.len(), 1);
    assert!(out.insights[0].insight.starts_with("0 de 0 convênios localizados por UF"));
    let c = &out.artifacts[0].content;
    assert_eq!(c["states"].as_array().unwrap().len(), 27);
    assert!(c["indices"]["gini"].is_null());
}

#[test]
fn population_handed_in_with_the_dataset_replaces_the_offline_table_and_gives_municipal_per_capita() {
    use crate::model::regional::RegionalFacts;
    let facts = RegionalFacts {
        population_source: "IBGE API, agregado 6579 (2024)".into(),
        population_year: Some(2024),
        state_population: [("MG".to_string(), 21_000_000), ("SP".to_string(), 46_000_000)].into(),
        municipal_population: [(3106200, 2_400_000)].into(),
        indicators: Vec::new(),
    };
    let mut bh = agreement("1", "MG", "Belo Horizonte", 4_800_000.0);
    bh.municipality_code = "3106200".into();
    let ds = Dataset {
        agreements: vec![bh, agreement("2", "SP", "Campinas", 1_000_000.0)],
        regional: Some(std::sync::Arc::new(facts)),
        ..Dataset::default()
    };
    let r = regional_spending(&ds, &CancelFlag::new()).unwrap();
    let mg = r.states.iter().find(|s| s.uf == "MG").unwrap();
    assert_eq!(mg.population, Some(21_000_000));
    assert!((mg.per_capita.unwrap() - 4_800_000.0 / 21_000_000.0).abs() < 1e-12);
    // A state the facts do not give has no population: nothing is taken from the offline table.
    assert_eq!(r.states.iter().find(|s| s.uf == "BA").unwrap().population, None);
    assert!(r.population_fetched);
    let bh = r.municipalities.iter().find(|m| m.code == 3106200).unwrap();
    assert_eq!((bh.population, bh.per_capita), (Some(2_400_000), Some(2.0)));
    assert_eq!(r.municipalities.iter().find(|m| m.name == "Campinas").unwrap().per_capita, None);
    let out = run(&ds);
    assert_eq!(out.artifacts[0].content["population_source"], "IBGE API, agregado 6579 (2024)");
    let text = out.insights.iter().map(|i| i.insight.as_str()).collect::<Vec<_>>().join("\n");
    assert!(text.contains("Belo Horizonte-MG (R$ 2,00 por habitante)"), "{text}");
}

#[test]
fn without_facts_the_offline_table_serves_and_says_so() {
    let ds = Dataset { agreements: vec![agreement("1", "MG", "Belo Horizonte", 1.0)], ..Dataset::default() };
    let r = regional_spending(&ds, &CancelFlag::new()).unwrap();
    assert!(!r.population_fetched);
    assert_eq!(r.population_source, spending::OFFLINE_POPULATION_SOURCE);
    assert_eq!(r.states.iter().find(|s| s.uf == "MG").unwrap().population, Some(20_539_989));
}
