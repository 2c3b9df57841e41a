//! Tests of the investigation request: validation, parameters and filters.

use super::*;

#[test]
fn portuguese_field_names_parse_into_the_same_request() {
    let pt: InvestigationRequest = serde_json::from_value(serde_json::json!({
        "consulta": "contratos da saúde", "fonte_dados": "portal_transparencia",
        "filtros": {"valor_minimo": 1000.0, "intervalo_data": {"inicio": "2024-01-01", "fim": "2024-12-31"}},
        "tipos_anomalia": ["anomalia_preco"], "sensibilidade": 0.9
    }))
    .unwrap();
    pt.validate().unwrap();
    assert_eq!(pt.filters.min_value, Some(1000.0));
    let p = pt.detection_params();
    assert_eq!(p.anomaly_types, Some(vec![AnomalyType::PriceAnomaly]));
    assert_eq!(p.sensitivity, 0.9);
    assert_eq!(p.confidence_threshold, 0.8);
}

#[test]
fn out_of_range_values_name_their_field() {
    let mut r = InvestigationRequest::new("x");
    r.sensitivity = Some(1.5);
    assert_eq!(r.validate().unwrap_err().details["field"], "sensitivity");
    let mut r = InvestigationRequest::new("x");
    r.data_source = "twitter".into();
    assert_eq!(r.validate().unwrap_err().details["field"], "data_source");
    assert_eq!(InvestigationRequest::new("  ").validate().unwrap_err().details["field"], "query");
}

#[test]
fn filters_apply_to_every_spending_record_kind_and_keep_reference_data() {
    use vigia_agents::demo::{DemoSpec, generate};
    let data = generate(&DemoSpec { seed: 5, contracts: 600, ..DemoSpec::default() }).dataset;
    let organ = data.contracts[0].organ.code.to_string();
    let by_organ = Filters { organizations: vec![organ.clone()], ..Filters::default() }.apply(data.clone());
    assert!(!by_organ.contracts.is_empty() && !by_organ.expenses.is_empty());
    assert!(by_organ.contracts.iter().all(|c| c.organ.code == organ.as_str()));
    assert!(by_organ.biddings.iter().all(|b| b.organ.code == organ.as_str()));
    assert!(by_organ.expenses.iter().all(|e| e.organ.code == organ.as_str()));
    assert!(by_organ.expenses.len() < data.expenses.len());
    assert_eq!(
        (by_organ.servants.len(), by_organ.sanctions.len(), by_organ.suppliers.len()),
        (data.servants.len(), data.sanctions.len(), data.suppliers.len())
    );

    let big = Filters { min_value: Some(500_000.0), ..Filters::default() }.apply(data.clone());
    assert!(big.contracts.iter().all(|c| c.value() >= 500_000.0));
    assert!(big.expenses.iter().all(|e| e.value >= 500_000.0));
    let kept: std::collections::HashSet<&str> = big.contracts.iter().map(|c| c.process_number.as_str()).collect();
    assert!(big.biddings.iter().all(|b| kept.contains(b.process_number.as_str())));
    assert!(big.biddings.len() < data.biddings.len());
}

#[test]
fn a_shared_dataset_every_record_of_which_passes_is_not_copied_and_a_filtered_one_matches_apply() {
    use vigia_agents::demo::{DemoSpec, generate};
    let data = std::sync::Arc::new(generate(&DemoSpec { seed: 5, contracts: 300, ..DemoSpec::default() }).dataset);
    let whole = Filters::default().apply_shared(data.clone());
    assert!(std::sync::Arc::ptr_eq(&whole, &data), "no filter, no copy");
    for f in [
        Filters { min_value: Some(500_000.0), ..Filters::default() },
        Filters { organizations: vec![data.contracts[0].organ.code.to_string()], ..Filters::default() },
    ] {
        let shared = f.apply_shared(data.clone());
        assert!(!std::sync::Arc::ptr_eq(&shared, &data));
        let copied = f.apply((*data).clone());
        let ids = |d: &vigia_agents::Dataset| {
            let ids = d.contracts.iter().map(|c| c.id.to_string()).collect::<Vec<_>>();
            (ids, d.biddings.len(), d.expenses.len(), d.agreements.len(), d.servants.len())
        };
        assert_eq!(ids(&shared), ids(&copied));
    }
}
