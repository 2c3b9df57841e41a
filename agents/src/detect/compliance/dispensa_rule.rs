//! `dispensa_above_limit`: a dispensa "em razão do valor" above the limit of the law under
//! which it was made, in force on the day it was signed ([`crate::detect::law_limits`]).
//!
//! - The legal basis cites a value inciso (Lei 8.666 art. 24 I/II, Lei 14.133 art. 75 I/II, Lei
//!   13.303 art. 29 I/II): held to that law's limit of the signing date, for the nature the
//!   inciso or the object shows (engineering: inciso I or an engineering object). A clear
//!   breach: confidence 0.90-0.98 with the excess (0.05 less under Lei 13.303, whose companies
//!   may update their limits). A citation of Lei 14.133 on a purchase signed before it came into
//!   force (01/04/2021) is not judged.
//!   When the object or the supplier shows a non-value ground (a state company such as
//!   Dataprev, a lease), the cited inciso is most likely miscoded and the finding drops to the
//!   unknown-ground confidence below, saying so.
//! - The basis cites another ground (a non-value inciso, an inexigibility article, a special
//!   law of calamity): no value limit applies, nothing is reported.
//! - The basis is missing or names no ground: the usual non-value grounds are recognised from
//!   the object and the supplier ([`crate::detect::legal_grounds::inferred_ground`]) and nothing is
//!   reported; otherwise the value is compared with the limit of the law in force at signing
//!   and a finding says the ground is unknown, with confidence 0.6 (below the default
//!   threshold: shown only when asked for).

use chrono::NaiveDate;

use crate::detect::compliance::compliance_rules::Breach;
use crate::detect::finding::legal_confidence;
use crate::detect::law_limits::{self, DispensaLimits};
use crate::detect::legal;
use crate::detect::legal_basis::Law;
use crate::detect::legal_grounds::{Ground, inferred_ground};
use crate::model::cnpj::{DocumentKind, document_kind};
use crate::model::contract::Contract;
use crate::text::format_brl;

/// Confidence of a value finding whose legal ground is unknown.
pub const UNKNOWN_GROUND_CONFIDENCE: f64 = 0.6;

struct Judged {
    limit: f64,
    table: &'static DispensaLimits,
    engineering: bool,
    base: f64,
    ground_text: String,
}

/// The limit a dispensa signed on `d` is held to and why, or `None` when none applies or the
/// value is within it (checked before the object is read, the costlier step).
fn judge(c: &Contract, ground: &Ground, d: NaiveDate) -> Option<Judged> {
    // The lower limit (other purchases) is checked before the object is read for engineering.
    let object_eng = || legal::is_engineering(&c.object);
    let pick = |l: &'static DispensaLimits, eng: bool| if eng { l.engineering } else { l.other };
    let within = |limit: f64| c.initial_value <= limit + 0.005;
    let ground_shown = || {
        let public = document_kind(&c.supplier.document) == DocumentKind::UgCode;
        inferred_ground(&c.object, &c.supplier.name, public)
    };
    match ground {
        Ground::Other(_) => None,
        Ground::ByValue { law, engineering, citation } => {
            let table = law_limits::limits(law, d)?;
            if within(table.other) {
                return None;
            }
            let eng = *engineering || object_eng();
            let limit = pick(table, eng);
            if within(limit) {
                return None;
            }
            // A value inciso cited for what the object or supplier shows is bought on another
            // ground (a state company, a lease) is most likely miscoded: not a clear breach.
            let (base, ground_text) = match ground_shown() {
                Some(g) => (
                    UNKNOWN_GROUND_CONFIDENCE,
                    format!(
                        "o fundamento cita {citation}, mas o objeto ou o fornecedor indicam {g}: o inciso pode estar mal registrado"
                    ),
                ),
                None if *law == Law::L13303 => (0.85, format!("dispensa por valor ({citation})")),
                None => (0.90, format!("dispensa por valor ({citation})")),
            };
            Some(Judged { limit, table, engineering: eng, base, ground_text })
        }
        g @ (Ground::Unknown | Ground::Missing) => {
            let law = law_limits::law_in_force(d);
            let table = law_limits::limits(&law, d)?;
            if within(table.other) {
                return None;
            }
            let object_eng = object_eng();
            let limit = pick(table, object_eng);
            if within(limit) || ground_shown().is_some() {
                return None;
            }
            let what = if *g == Ground::Missing {
                "fundamento legal ausente"
            } else {
                "fundamento legal sem o inciso da dispensa"
            };
            Some(Judged {
                limit,
                table,
                engineering: object_eng,
                base: UNKNOWN_GROUND_CONFIDENCE,
                ground_text: format!(
                    "{what}: fundamento desconhecido, comparado ao limite da {} em vigor",
                    law.label()
                ),
            })
        }
    }
}

/// The breach of a dispensa above its limit, if any (`ground`: what its legal basis cites).
pub(super) fn dispensa_breach(c: &Contract, ground: &Ground, s: f64) -> Option<Breach<'static>> {
    let d = c.signed_on?;
    if legal::modality(&c.modality) != legal::Modality::Dispensa || c.initial_value <= 0.0 {
        return None;
    }
    let j = judge(c, ground, d)?;
    let excess = c.initial_value / j.limit - 1.0;
    let confidence =
        if j.base < 0.8 { legal_confidence(j.base, s) } else { legal_confidence(j.base + (excess * 0.4).min(0.08), s) };
    let nature = if j.engineering { "obras e serviços de engenharia" } else { "compras e outros serviços" };
    let number = if c.number.is_empty() { c.id.as_str() } else { c.number.as_str() };
    let unknown = j.base < 0.8;
    Some(Breach {
        rule: "dispensa_above_limit",
        confidence,
        at_stake: c.initial_value,
        threshold: j.limit,
        observed: c.initial_value,
        law: format!("{} ({}, {})", j.table.act, nature, d.format("%d/%m/%Y")),
        pt: format!(
            "O contrato {} foi feito por dispensa de licitação por {}, acima do limite de {} vigente em {} para {} ({}); {}.{}",
            number,
            format_brl(c.initial_value),
            format_brl(j.limit),
            d.format("%d/%m/%Y"),
            nature,
            j.table.act,
            j.ground_text,
            if unknown {
                " Se a contratação se apoiou em outro inciso (emergência, locação, empresa pública, fornecedor exclusivo), o limite não se aplica."
            } else {
                " Acima do limite a lei exige licitação."
            }
        ),
        en: format!(
            "Contract {} was a direct purchase (dispensa) of {}, above the {} limit in force on {} ({}){}.",
            number,
            format_brl(c.initial_value),
            format_brl(j.limit),
            d.format("%Y-%m-%d"),
            j.table.act,
            if unknown { "; its legal ground is uncertain, and another ground would carry no value limit" } else { "" }
        ),
        technical: format!(
            "basis '{}' -> {}: valorInicialCompra {:.2} > limit {:.2} ({}, {}), excess {:.1}%",
            c.legal_basis,
            j.ground_text,
            c.initial_value,
            j.limit,
            j.table.act,
            d,
            excess * 100.0
        ),
        sanction: None,
    })
}
