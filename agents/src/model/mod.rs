//! Spending records, the anomaly result of the spec and the shapes an analysis returns.

pub mod anomaly;
pub mod cnpj;
pub mod contract;
pub mod dataset;
pub mod params;
pub mod report;
pub mod upstream;
