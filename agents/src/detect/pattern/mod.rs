//! Patterns in values, suppliers and texts: supplier concentration, duplicate contracts (with
//! their text statistics and similarity join), round values, first digits, learned outliers and
//! the contract-text detectors.

pub mod benford;
pub mod concentration;
pub mod doc_freq;
pub mod duplicates;
pub mod duplicates_cross;
pub mod item_lines;
pub mod outliers;
pub mod pair_groups;
pub mod round_values;
pub mod service_term;
pub mod short_contract;
pub mod simjoin;
pub mod text_flags;
pub mod word_sets;
