//! Helpers for the unit tests: hand-made contracts and recall of planted anomalies. The demo
//! generator's labels say what was planted, never who should find it; the mapping from a
//! planted scheme to the detectors expected to find it lives here, on the tests' side.

use chrono::NaiveDate;

use crate::agents::Agent;

use crate::cancel::{AnalysisError, CancelFlag};

use crate::demo::{DemoData, DemoSpec, Planted, Scheme, generate};
use crate::detect;
use crate::detect::context::AnalysisContext;
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

/// The detector expected to find a planted scheme.
pub fn detector_of(scheme: Scheme) -> &'static str {
    use Scheme::*;
    match scheme {
        Overprice => detect::price::zscore::NAME,
        RepeatedContract | CopiedContract => detect::pattern::duplicates::NAME,
        Concentration => detect::pattern::concentration::NAME,
        DecemberRush => detect::temporal::end_of_year::NAME,
        MonthSpike | DayBurst => detect::temporal::spikes::NAME,
        LevelShift => detect::temporal::regime::NAME,
        Cadence => detect::temporal::periodicity::NAME,
        RoundedValues => detect::pattern::round_values::NAME,
        FirstDigits => detect::pattern::benford::NAME,
        ShortContract => detect::pattern::short_contract::NAME,
        DateError => detect::temporal::dates::NAME,
        VagueObject => detect::pattern::text_flags::VAGUE,
        BrandRequirement => detect::pattern::text_flags::BRAND,
        DispensaOverLimit
        | IllegalAddition
        | SanctionedSigning
        | InvalidCnpj
        | ExtinctModality
        | UnjustifiedInexigibilidade
        | ReleaseAboveAgreed
        | SanctionedGrantee => detect::compliance::compliance_rules::NAME,
        SplitPurchase => detect::compliance::splitting::NAME,
        PhantomSupplier => detect::relationship::phantom::NAME,
        BidRing => detect::relationship::bid_rigging::NAME,
        RelatedBidders | ServantPartner => detect::relationship::relationships::NAME,
    }
}

/// The plants of `data` that `detector` is expected to find.
pub fn planted_for<'a>(data: &'a DemoData, detector: &str) -> Vec<&'a Planted> {
    data.planted.iter().filter(|p| detector_of(p.scheme) == detector).collect()
}

/// Fraction of the planted anomalies of `detector` for which some anomaly of that detector
/// names every planted record id, and the planted ones missed.
pub fn recall(data: &DemoData, anomalies: &[Anomaly], detector: &str) -> (f64, usize, Vec<Vec<String>>) {
    let planted = planted_for(data, detector);
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

/// Findings as agents hold them (shared).
pub fn shared(anomalies: Vec<Anomaly>) -> Vec<std::sync::Arc<Anomaly>> {
    anomalies.into_iter().map(std::sync::Arc::new).collect()
}
