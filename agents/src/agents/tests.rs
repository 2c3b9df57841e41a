//! Tests of the agents together: agents sharing one findings cache over the same dataset.

use crate::cancel::CancelFlag;
use crate::demo::{DemoSpec, generate};
use crate::detect;
use crate::model::params::DetectionParams;

#[test]
fn agents_sharing_one_findings_cache_report_what_they_report_alone_and_run_each_detector_once() {
    use crate::agents::roster::instantiate;
    use crate::detect::context::AnalysisContext;
    use crate::detect::findings::FindingsCache;
    let data = generate(&DemoSpec { seed: 11, contracts: 3000, ..DemoSpec::default() });
    let (params, cancel) = (DetectionParams::default(), CancelFlag::new());
    let agents: Vec<_> = crate::agents::roster::COVERAGE.iter().filter_map(|(id, _)| instantiate(*id)).collect();
    assert_eq!(agents.len(), 7);
    let cache = FindingsCache::new();
    let shared: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = agents
            .iter()
            .map(|a| {
                let ctx =
                    AnalysisContext { findings: Some(&cache), ..AnalysisContext::new(&data.dataset, &params, &cancel) };
                s.spawn(move || serde_json::to_value(a.analyse(&ctx).unwrap()).unwrap())
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for (agent, with_cache) in agents.iter().zip(&shared) {
        let alone = agent.analyse(&AnalysisContext::new(&data.dataset, &params, &cancel)).unwrap();
        assert_eq!(&serde_json::to_value(alone).unwrap(), with_cache);
    }
    // Obaluaie reads every detector; each ran once into the cache.
    assert_eq!(cache.len(), detect::NAMES.len());
}
