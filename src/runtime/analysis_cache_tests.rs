//! Tests of the analysis cache: keys, time to live and bounds.

use super::*;
use vigia_agents::demo::{DemoSpec, generate};

fn data(seed: u64) -> Dataset {
    generate(&DemoSpec { seed, contracts: 60, ..DemoSpec::default() }).dataset
}

/// An output of `anomalies` findings (real ones, repeated as needed).
fn output(anomalies: usize) -> AgentOutput {
    static FOUND: std::sync::OnceLock<Vec<Arc<vigia_agents::Anomaly>>> = std::sync::OnceLock::new();
    let found = FOUND.get_or_init(|| {
        let ds = generate(&DemoSpec { seed: 1, contracts: 1_000, ..DemoSpec::default() }).dataset;
        vigia_agents::engine::analyse(&ds, &DetectionParams::default(), &vigia_agents::CancelFlag::new())
            .map(|(a, _)| a.into_iter().map(Arc::new).collect())
            .unwrap_or_default()
    });
    assert!(!found.is_empty(), "the demo data has findings");
    AgentOutput { anomalies: found.iter().cycle().take(anomalies).cloned().collect(), ..AgentOutput::default() }
}

#[test]
fn equal_datasets_have_equal_fingerprints_and_different_ones_do_not() {
    assert_eq!(Fingerprint::of(&data(7)), Fingerprint::of(&data(7)));
    assert_ne!(Fingerprint::of(&data(7)), Fingerprint::of(&data(8)));
}

#[test]
fn an_output_is_served_for_the_same_data_agent_and_parameters_only() {
    let cache = AnalysisCache::new(Duration::from_secs(60));
    let (a, b) = (Fingerprint::of(&data(7)).unwrap(), Fingerprint::of(&data(8)).unwrap());
    let p = DetectionParams::default();
    cache.put(&RunKey::of(a, &p), AgentId::Zumbi, &output(3));
    assert_eq!(cache.get(&RunKey::of(a, &p), AgentId::Zumbi).map(|o| o.anomalies.len()), Some(3));
    assert!(cache.get(&RunKey::of(b, &p), AgentId::Zumbi).is_none(), "other data");
    assert!(cache.get(&RunKey::of(a, &p), AgentId::Anita).is_none(), "other agent");
    let stricter = DetectionParams { confidence_threshold: 0.9, ..DetectionParams::default() };
    assert!(cache.get(&RunKey::of(a, &stricter), AgentId::Zumbi).is_none(), "other parameters");
}

#[test]
fn a_zero_time_to_live_keeps_nothing_and_an_expired_output_is_not_served() {
    let p = DetectionParams::default();
    let fp = Fingerprint::of(&data(7)).unwrap();
    let off = AnalysisCache::new(Duration::ZERO);
    off.put(&RunKey::of(fp, &p), AgentId::Zumbi, &output(1));
    assert!(off.get(&RunKey::of(fp, &p), AgentId::Zumbi).is_none());
    let short = AnalysisCache::new(Duration::from_millis(20));
    short.put(&RunKey::of(fp, &p), AgentId::Zumbi, &output(1));
    std::thread::sleep(Duration::from_millis(40));
    assert!(short.get(&RunKey::of(fp, &p), AgentId::Zumbi).is_none());
}

#[test]
fn the_cache_holds_at_most_its_anomaly_budget_dropping_the_oldest() {
    let cache = AnalysisCache::new(Duration::from_secs(60));
    let p = DetectionParams::default();
    let big = output(ANOMALIES / 10);
    let fps: Vec<Fingerprint> = (0..12).map(|s| Fingerprint::of(&data(100 + s)).unwrap()).collect();
    for fp in &fps {
        cache.put(&RunKey::of(*fp, &p), AgentId::Zumbi, &big);
    }
    assert!(cache.get(&RunKey::of(fps[0], &p), AgentId::Zumbi).is_none(), "the oldest went first");
    assert!(cache.get(&RunKey::of(fps[11], &p), AgentId::Zumbi).is_some());
    let held = cache.size().1;
    assert!(held <= ANOMALIES, "{held}");
    let too_big = output(ANOMALIES / 10 + 1);
    cache.put(&RunKey::of(fps[0], &p), AgentId::Anita, &too_big);
    assert!(
        cache.get(&RunKey::of(fps[0], &p), AgentId::Anita).is_none(),
        "an output over a tenth of the budget is not kept"
    );
}

#[test]
fn runs_asking_the_same_filters_of_the_same_records_share_one_filtered_dataset() {
    let cache = AnalysisCache::new(Duration::from_secs(60));
    let calls = std::cell::Cell::new(0);
    let filter = || {
        calls.set(calls.get() + 1);
        Arc::new(data(7))
    };
    let key = |year: u32| Fingerprint::of_key("demo|seed 7", &serde_json::json!({"year": year}));
    let first = cache.filtered(key(2024), filter);
    let again = cache.filtered(key(2024), filter);
    assert!(Arc::ptr_eq(&first, &again));
    assert_eq!(calls.get(), 1);
    cache.filtered(key(2023), filter);
    assert_eq!(calls.get(), 2, "other filters are other records");
    let off = AnalysisCache::new(Duration::ZERO);
    off.filtered(key(2024), filter);
    off.filtered(key(2024), filter);
    assert_eq!(calls.get(), 4, "with the cache off every run filters");
}

#[test]
fn a_large_filtered_dataset_is_not_kept() {
    let cache = AnalysisCache::new(Duration::from_secs(60));
    let big = Arc::new(generate(&DemoSpec { seed: 3, contracts: 6_000, ..DemoSpec::default() }).dataset);
    assert!(big.len() > DATASET_MAX, "{} records", big.len());
    let key = Fingerprint::of_key("demo|seed 3", &serde_json::json!({}));
    let first = cache.filtered(key, || big.clone());
    let again = cache.filtered(key, || Arc::new(data(1)));
    assert!(Arc::ptr_eq(&first, &big) && !Arc::ptr_eq(&again, &big));
}
