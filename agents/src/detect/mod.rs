//! The detection engine ([`engine`]) and the anomaly detectors behind one trait, grouped by
//! what they find: [`price`], [`pattern`], [`temporal`], [`relationship`], [`compliance`] (one
//! detector a file). Beside the groups, the pieces they share: how sensitivity moves every
//! threshold ([`sensitivity`]), facts several detectors share within one analysis
//! ([`shared`]), building anomalies ([`finding`]), statistics, learned peer groups, the law
//! tables ([`legal`], [`legal_basis`], [`legal_grounds`], [`law_limits`]) and the findings
//! cache ([`findings`]). Registration is here: [`NAMES`] and [`by_name`]. Detectors know
//! nothing of agents or of demo data.

pub mod category;
pub mod common;
pub mod compliance;
pub mod context;
pub mod contract_text;
pub mod coverage;
pub mod distributions;
pub mod engine;
pub mod finding;
pub mod findings;
pub mod law_limits;
pub mod learn;
pub mod legal;
pub mod legal_basis;
pub mod legal_grounds;
pub mod market;
pub mod object_signature;
pub mod pattern;
pub mod peer_groups;
pub mod peer_vectors;
pub mod price;
pub mod relationship;
pub mod sensitivity;
pub mod series;
pub mod shared;
pub mod stats;
pub mod temporal;
pub mod text_entities;

use crate::cancel::{AnalysisError, CancelFlag};
use crate::model::anomaly::{Anomaly, AnomalyType};
use crate::model::dataset::Dataset;
use crate::model::params::DetectionParams;

/// One detector: a named rule over a [`Dataset`] that yields anomalies of one type.
pub trait Detector: Send + Sync {
    /// Stable name, also `technical_details.detector` and the prefix of anomaly ids.
    fn name(&self) -> &'static str;
    /// The type of every anomaly it yields.
    fn kind(&self) -> AnomalyType;
    /// Runs over the dataset, with the facts several detectors need ([`shared::Shared`],
    /// computed once per analysis); the engine calls this. Returns the anomalies that pass the
    /// detector's literal threshold with confidence at or above `p.confidence_threshold`
    /// (weaker findings are not built; the engine filters again), in a deterministic order.
    /// Returns `Err(Cancelled)` soon after `cancel` is set.
    fn run_shared(
        &self,
        shared: &shared::Shared<'_>,
        p: &DetectionParams,
        cancel: &CancelFlag,
    ) -> Result<Vec<Anomaly>, AnalysisError>;
    /// Whether it is among the slowest detectors: started first when detectors share worker
    /// threads, so that it does not run alone at the end.
    fn slow(&self) -> bool {
        false
    }
    /// [`Detector::run_shared`] over the dataset alone, its shared facts computed afresh.
    fn run(&self, ds: &Dataset, p: &DetectionParams, cancel: &CancelFlag) -> Result<Vec<Anomaly>, AnalysisError> {
        self.run_shared(&shared::Shared::new(ds), p, cancel)
    }
}

/// Names of every detector, in the order [`all`] returns them.
pub const NAMES: &[&str] = &[
    price::zscore::NAME,
    pattern::concentration::NAME,
    temporal::end_of_year::NAME,
    pattern::duplicates::NAME,
    compliance::compliance_rules::NAME,
    compliance::splitting::NAME,
    relationship::bid_rigging::NAME,
    relationship::relationships::NAME,
    relationship::phantom::NAME,
    pattern::round_values::NAME,
    pattern::benford::NAME,
    pattern::outliers::NAME,
    pattern::short_contract::NAME,
    temporal::spikes::NAME,
    temporal::regime::NAME,
    temporal::periodicity::NAME,
    temporal::dates::NAME,
    temporal::forecast::NAME,
    pattern::text_flags::VAGUE,
    pattern::text_flags::BRAND,
];

/// Every detector.
pub fn all() -> Vec<Box<dyn Detector>> {
    NAMES.iter().filter_map(|n| by_name(n)).collect()
}

/// The detector with this name.
pub fn by_name(name: &str) -> Option<Box<dyn Detector>> {
    match name {
        price::zscore::NAME => Some(Box::new(price::zscore::PriceZScore)),
        pattern::concentration::NAME => Some(Box::new(pattern::concentration::SupplierConcentration)),
        temporal::end_of_year::NAME => Some(Box::new(temporal::end_of_year::EndOfYear)),
        pattern::duplicates::NAME => Some(Box::new(pattern::duplicates::DuplicateContracts)),
        compliance::compliance_rules::NAME => Some(Box::new(compliance::compliance_rules::ComplianceRules)),
        compliance::splitting::NAME => Some(Box::new(compliance::splitting::PurchaseSplitting)),
        relationship::bid_rigging::NAME => Some(Box::new(relationship::bid_rigging::BidRigging)),
        relationship::relationships::NAME => Some(Box::new(relationship::relationships::RelationshipNetwork)),
        relationship::phantom::NAME => Some(Box::new(relationship::phantom::PhantomSuppliers)),
        pattern::round_values::NAME => Some(Box::new(pattern::round_values::RoundValues)),
        pattern::benford::NAME => Some(Box::new(pattern::benford::BenfordFirstDigit)),
        pattern::outliers::NAME => Some(Box::new(pattern::outliers::LearnedOutlier)),
        pattern::short_contract::NAME => Some(Box::new(pattern::short_contract::ShortContract)),
        temporal::spikes::NAME => Some(Box::new(temporal::spikes::SpendingSpike)),
        temporal::regime::NAME => Some(Box::new(temporal::regime::RegimeChange)),
        temporal::periodicity::NAME => Some(Box::new(temporal::periodicity::UnnaturalPeriodicity)),
        temporal::dates::NAME => Some(Box::new(temporal::dates::DateInconsistency)),
        temporal::forecast::NAME => Some(Box::new(temporal::forecast::ForecastDeviation)),
        pattern::text_flags::VAGUE => Some(Box::new(pattern::text_flags::VagueObject)),
        pattern::text_flags::BRAND => Some(Box::new(pattern::text_flags::BrandRestriction)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_resolves_to_a_detector_of_that_name() {
        assert_eq!(all().len(), NAMES.len());
        for n in NAMES {
            assert_eq!(by_name(n).map(|d| d.name()), Some(*n));
        }
        assert!(by_name("nope").is_none());
    }
}
