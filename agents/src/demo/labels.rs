//! What the generator planted, recorded from the act of planting: the scheme (the kind of
//! irregularity the law or the literature describes), the anomaly type, the records it
//! concerns and a sentence saying what was done. Labels never name a detector.

use crate::model::anomaly::AnomalyType;
use crate::model::dataset::Dataset;

/// The irregularity a plant reproduces, named after what was done, not after who finds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scheme {
    /// Items bought at a multiple of the market unit price their peers pay.
    Overprice,
    /// The same purchase contracted twice with the same supplier.
    RepeatedContract,
    /// An organ's purchase contracted again with another supplier at about the same value and time.
    CopiedContract,
    /// One supplier given most of an organ-year's value.
    Concentration,
    /// An organ-year's contracts moved into December beyond the organ's own habit.
    DecemberRush,
    /// A month given a third of its organ-year's value.
    MonthSpike,
    /// Many processes of a month signed on one day.
    DayBurst,
    /// An organ's spending moved to a new level.
    LevelShift,
    /// A supplier signing with an organ at a fixed cadence.
    Cadence,
    /// A supplier whose values were rounded.
    RoundedValues,
    /// A supplier whose values were nudged to start with high digits.
    FirstDigits,
    /// A contract lasting days for the value of a year.
    ShortContract,
    /// Dates published before signing, retroactive or inverted.
    DateError,
    /// A generic object text.
    VagueObject,
    /// A brand required without "ou similar".
    BrandRequirement,
    /// A dispensa above the value limit of the value inciso it cites, under the law in force.
    DispensaOverLimit,
    /// Acréscimos beyond the legal cap.
    IllegalAddition,
    /// A contract signed while the supplier was barred.
    SanctionedSigning,
    /// A supplier CNPJ with wrong check digits.
    InvalidCnpj,
    /// A convite or tomada de preços after Lei 8.666's repeal.
    ExtinctModality,
    /// An inexigibilidade citing art. 74 without its inciso.
    UnjustifiedInexigibilidade,
    /// A purchase split into dispensas under the limit.
    SplitPurchase,
    /// A freshly opened company with no partners winning contracts.
    PhantomSupplier,
    /// A bidding ring: cover bids, rotation, lockstep.
    BidRing,
    /// Related firms bidding against each other.
    RelatedBidders,
    /// A servant who is partner of a supplier of his own organ.
    ServantPartner,
    /// An agreement released above its value.
    ReleaseAboveAgreed,
    /// An agreement with a barred grantee.
    SanctionedGrantee,
}

/// One planted anomaly, as the act of planting recorded it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Planted {
    /// What was planted.
    pub scheme: Scheme,
    /// Its anomaly type.
    pub kind: AnomalyType,
    /// Ids of the records involved (contracts, biddings, expenses, agreements, suppliers).
    pub record_ids: Vec<String>,
    /// Supplier CNPJ or organ code, for anomalies about a group.
    pub entity_id: Option<String>,
    /// What was done, in a sentence (values, law, dates).
    pub what: String,
}

/// The id of every record of a dataset, in kind order: what labels name (contracts, biddings,
/// expenses, agreements, servants by id; supplier profiles by CNPJ; sanctions by id).
pub fn record_ids(ds: &Dataset) -> impl Iterator<Item = &str> {
    ds.contracts
        .iter()
        .map(|c| c.id.as_str())
        .chain(ds.biddings.iter().map(|b| b.id.as_str()))
        .chain(ds.expenses.iter().map(|e| e.id.as_str()))
        .chain(ds.agreements.iter().map(|a| a.id.as_str()))
        .chain(ds.servants.iter().map(|s| s.id.as_str()))
        .chain(ds.suppliers.iter().map(|p| p.cnpj.as_str()))
        .chain(ds.sanctions.iter().map(|s| s.id.as_str()))
}

/// A label.
pub fn label(
    scheme: Scheme,
    kind: AnomalyType,
    record_ids: Vec<String>,
    entity_id: Option<String>,
    what: String,
) -> Planted {
    Planted { scheme, kind, record_ids, entity_id, what }
}
