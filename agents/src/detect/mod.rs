//! The anomaly detectors, one per file, behind one trait: the spec's four built-in heuristics
//! (price z-score, supplier concentration, end-of-year rush, duplicate contracts), the pattern,
//! temporal and text detectors (round values, first digits, learned outliers, short continuing
//! services, spikes, regime changes, periodicity, dates, forecasts, vague objects, brands) and the relationship and
//! compliance detectors. How sensitivity moves every threshold: [`sensitivity`]; facts several
//! detectors share within one analysis: [`shared`].

pub mod agreement_rules;
pub mod amendment_rule;
pub mod benford;
pub mod bid_auctions;
pub mod bid_markets;
pub mod bid_rigging;
pub mod bid_screens;
pub mod category;
pub mod common;
pub mod compliance_rules;
pub mod concentration;
pub mod contract_text;
pub mod coverage;
pub mod dates;
pub mod dispensa_rule;
pub mod distributions;
pub mod doc_freq;
pub mod duplicates;
pub mod duplicates_cross;
pub mod finding;
pub mod forecast;
pub mod item_lines;
pub mod item_specs;
pub mod law_limits;
pub mod learn;
pub mod legal;
pub mod legal_basis;
pub mod legal_grounds;
pub mod market;
pub mod object_signature;
pub mod outliers;
pub mod peer_groups;
pub mod periodicity;
pub mod phantom;
pub mod price;
pub mod price_baselines;
pub mod price_groups;
pub mod price_item_finding;
pub mod price_items;
pub mod regime;
pub mod relationships;
pub mod round_values;
pub mod sanction_rule;
pub mod sensitivity;
pub mod series;
pub mod service_term;
pub mod shared;
pub mod short_contract;
pub mod simjoin;
pub mod spikes;
pub mod spikes_daily;
pub mod splitting;
pub mod stats;
pub mod temporal;
pub mod text_flags;

use crate::agent::{AnalysisError, CancelFlag};
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
    price::NAME,
    concentration::NAME,
    temporal::NAME,
    duplicates::NAME,
    compliance_rules::NAME,
    splitting::NAME,
    bid_rigging::NAME,
    relationships::NAME,
    phantom::NAME,
    round_values::NAME,
    benford::NAME,
    outliers::NAME,
    short_contract::NAME,
    spikes::NAME,
    regime::NAME,
    periodicity::NAME,
    dates::NAME,
    forecast::NAME,
    text_flags::VAGUE,
    text_flags::BRAND,
];

/// Every detector.
pub fn all() -> Vec<Box<dyn Detector>> {
    NAMES.iter().filter_map(|n| by_name(n)).collect()
}

/// The detector with this name.
pub fn by_name(name: &str) -> Option<Box<dyn Detector>> {
    match name {
        price::NAME => Some(Box::new(price::PriceZScore)),
        concentration::NAME => Some(Box::new(concentration::SupplierConcentration)),
        temporal::NAME => Some(Box::new(temporal::EndOfYear)),
        duplicates::NAME => Some(Box::new(duplicates::DuplicateContracts)),
        compliance_rules::NAME => Some(Box::new(compliance_rules::ComplianceRules)),
        splitting::NAME => Some(Box::new(splitting::PurchaseSplitting)),
        bid_rigging::NAME => Some(Box::new(bid_rigging::BidRigging)),
        relationships::NAME => Some(Box::new(relationships::RelationshipNetwork)),
        phantom::NAME => Some(Box::new(phantom::PhantomSuppliers)),
        round_values::NAME => Some(Box::new(round_values::RoundValues)),
        benford::NAME => Some(Box::new(benford::BenfordFirstDigit)),
        outliers::NAME => Some(Box::new(outliers::LearnedOutlier)),
        short_contract::NAME => Some(Box::new(short_contract::ShortContract)),
        spikes::NAME => Some(Box::new(spikes::SpendingSpike)),
        regime::NAME => Some(Box::new(regime::RegimeChange)),
        periodicity::NAME => Some(Box::new(periodicity::UnnaturalPeriodicity)),
        dates::NAME => Some(Box::new(dates::DateInconsistency)),
        forecast::NAME => Some(Box::new(forecast::ForecastDeviation)),
        text_flags::VAGUE => Some(Box::new(text_flags::VagueObject)),
        text_flags::BRAND => Some(Box::new(text_flags::BrandRestriction)),
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
