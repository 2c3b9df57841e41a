//! The anomaly detectors: the spec's four built-in heuristics (price z-score, supplier
//! concentration, end-of-year rush, duplicate contracts), one per file, behind one trait.

pub mod category;
pub mod common;
pub mod concentration;
pub mod duplicates;
pub mod price;
pub mod simjoin;
pub mod stats;
pub mod temporal;

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
    /// Runs over the dataset. Returns the anomalies that pass the detector's literal threshold
    /// with confidence at or above `p.confidence_threshold` (weaker findings are not built;
    /// the engine filters again), in a deterministic order. Returns `Err(Cancelled)` soon
    /// after `cancel` is set.
    fn run(&self, ds: &Dataset, p: &DetectionParams, cancel: &CancelFlag) -> Result<Vec<Anomaly>, AnalysisError>;
}

/// Names of every detector, in the order [`all`] returns them.
pub const NAMES: &[&str] = &[price::NAME, concentration::NAME, temporal::NAME, duplicates::NAME];

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
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_resolves_to_a_detector_of_that_name() {
        assert_eq!(all().len(), 4);
        for n in NAMES {
            assert_eq!(by_name(n).map(|d| d.name()), Some(*n));
        }
        assert!(by_name("nope").is_none());
    }
}
