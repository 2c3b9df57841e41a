//! Rules of procurement and transfer law ([`compliance_rules`] and the rules it combines:
//! dispensa limits, amendment caps, sanctions, agreements) and purchase splitting.

pub mod agreement_rules;
pub mod amendment_rule;
pub mod compliance_rules;
pub mod dispensa_rule;
pub mod sanction_rule;
pub mod splitting;
