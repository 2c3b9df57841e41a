//! Helpers for the unit tests: hand-made contracts and recall of planted anomalies.

use chrono::NaiveDate;

use crate::agent::{Agent, AnalysisContext, AnalysisError, CancelFlag};
use crate::demo::{DemoData, DemoSpec, generate};
use crate::model::anomaly::Anomaly;
use crate::model::contract::{Contract, Organ, Party, Unit};
use crate::model::params::DetectionParams;
use crate::model::report::AgentOutput;

/// A contract with the fields detectors read; the rest are plausible constants.
pub fn contract(id: &str, object: &str, supplier: &str, organ: &str, value: f64, signed: (i32, u32, u32)) -> Contract {
    let date = NaiveDate::from_ymd_opt(signed.0, signed.1, signed.2);
    Contract {
        id: id.to_string().into(),
        number: arcstr::format!("{id}/2024"),
        object: object.to_string().into(),
        process_number: arcstr::ArcStr::new(),
        legal_basis: arcstr::ArcStr::new(),
        situation: arcstr::literal!("Ativo"),
        modality: arcstr::literal!("Pregão"),
        supplier: Party { name: arcstr::format!("EMPRESA {supplier}"), document: supplier.into() },
        unit: Unit { code: arcstr::literal!("250005"), name: arcstr::literal!("UG") },
        organ: Organ { code: organ.into(), acronym: arcstr::ArcStr::new(), name: arcstr::format!("Órgão {organ}") },
        initial_value: value,
        final_value: value,
        signed_on: date,
        published_on: date,
        valid_from: date,
        valid_until: date,
        amendments: Vec::new(),
        items: Vec::new(),
    }
}

/// What an agent returns when its run is cancelled before it starts, over a demo dataset of
/// `contracts` contracts with the default parameters.
pub fn analyse_cancelled(agent: &dyn Agent, contracts: usize) -> Result<AgentOutput, AnalysisError> {
    let data = generate(&DemoSpec { contracts, ..DemoSpec::default() });
    let (params, cancel) = (DetectionParams::default(), CancelFlag::new());
    cancel.cancel();
    agent.analyse(&AnalysisContext::new(&data.dataset, &params, &cancel))
}

/// Fraction of the planted anomalies of `detector` for which some anomaly of that detector
/// names every planted record id, and the planted ones missed.
pub fn recall(data: &DemoData, anomalies: &[Anomaly], detector: &str) -> (f64, usize, Vec<Vec<String>>) {
    let planted: Vec<_> = data.planted.iter().filter(|p| p.detector == detector).collect();
    let mut missed = Vec::new();
    for p in &planted {
        let hit = anomalies
            .iter()
            .filter(|a| a.detector() == detector)
            .any(|a| p.record_ids.iter().all(|id| a.record_ids().any(|r| r == id)));
        if !hit {
            missed.push(p.record_ids.clone());
        }
    }
    let n = planted.len();
    (if n == 0 { 1.0 } else { (n - missed.len()) as f64 / n as f64 }, n, missed)
}
