//! The knobs of an analysis request: sensitivity, confidence threshold, anomaly types.

use serde::{Deserialize, Serialize};

use super::anomaly::AnomalyType;

/// Parameters every detector reads. Defaults are the spec's (sensitivity 0.7, confidence 0.8).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DetectionParams {
    /// 0 to 1; higher finds more. At 1.0 the spec's literal thresholds apply.
    pub sensitivity: f64,
    /// 0 to 1; anomalies with lower confidence are dropped.
    pub confidence_threshold: f64,
    /// Only these types are looked for; `None` means all.
    pub anomaly_types: Option<Vec<AnomalyType>>,
}

impl Default for DetectionParams {
    fn default() -> Self {
        Self { sensitivity: 0.7, confidence_threshold: 0.8, anomaly_types: None }
    }
}

impl DetectionParams {
    /// Whether anomalies of this type were asked for.
    pub fn wants(&self, kind: AnomalyType) -> bool {
        self.anomaly_types.as_ref().is_none_or(|t| t.contains(&kind))
    }

    /// The parameters as a cache key: equal keys, equal parameters (floats by their bits).
    pub fn cache_key(&self) -> String {
        format!("{}|{}|{:?}", self.sensitivity.to_bits(), self.confidence_threshold.to_bits(), self.anomaly_types)
    }
}
