//! Prices out of line: `price_zscore` ([`zscore`]) compares a contract with its learned peer
//! group ([`price_groups`]), its supplier's own prices and reference prices ([`price_baselines`])
//! and, where items are listed, unit prices ([`price_items`]: specifications set apart by
//! [`item_specs`], the finding built by [`price_item_finding`]).

pub mod item_specs;
pub mod price_baselines;
pub mod price_groups;
pub mod price_item_finding;
pub mod price_items;
pub mod zscore;
