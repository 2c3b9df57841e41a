//! Amendment histories of clean contracts, as real contracts have them: continuing services
//! renewed by successive prorrogações of their period (Lei 14.133 art. 106-107; Lei 8.666 art.
//! 57 II) with their reajustes, apostilamentos of reajuste on long contracts, and acréscimos
//! within the legal cap (25%, 50% for renovations; Lei 14.133 art. 125). Each amendment is
//! recorded in `Contract::amendments` with its kind, date and the new global value, so the
//! final value is the sum of what the history says.

use chrono::{Days, NaiveDate};
use rand::Rng;
use rand_chacha::ChaCha8Rng;

use super::law;
use crate::model::amendment::{Amendment, AmendmentKind};
use crate::model::contract::Contract;
use crate::model::intern::ArcStr;

/// The last day amendments may bear (the data's publication horizon).
pub fn horizon() -> NaiveDate {
    NaiveDate::from_ymd_opt(2025, 12, 31).unwrap_or(NaiveDate::MAX)
}

fn cents(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// Appends one amendment and moves the contract's final value (and end of vigência) with it.
pub fn push(
    c: &mut Contract,
    kinds: Vec<AmendmentKind>,
    on: NaiveDate,
    added: f64,
    until: Option<NaiveDate>,
    text: ArcStr,
) {
    // Static texts: a million contracts share them instead of allocating one each.
    const NUMBERS: [ArcStr; 6] = [
        arcstr::literal!("1"),
        arcstr::literal!("2"),
        arcstr::literal!("3"),
        arcstr::literal!("4"),
        arcstr::literal!("5"),
        arcstr::literal!("6"),
    ];
    let n = c.amendments.len();
    let number = NUMBERS.get(n).cloned().unwrap_or_else(|| arcstr::format!("{}", n + 1));
    c.final_value = cents(c.final_value + added);
    if let Some(u) = until {
        c.valid_until = Some(u);
    }
    c.amendments.push(Amendment {
        number,
        instrument: if kinds == [AmendmentKind::Readjustment] {
            arcstr::literal!("Termo de Apostilamento")
        } else {
            arcstr::literal!("Termo Aditivo")
        },
        kinds,
        signed_on: Some(on),
        new_global_value: Some(c.final_value),
        new_valid_until: c.valid_until,
        description: text,
    });
}

/// Gives a clean contract its history: a continuing service is renewed period after period
/// while the renewal falls within the horizon (each renewal adds a period's value, most with a
/// 3-6% reajuste); other contracts of more than a year may get a reajuste; one in twenty gets
/// an acréscimo within the cap.
pub fn history(c: &mut Contract, continuing: bool, renovation: bool, rng: &mut ChaCha8Rng) {
    let (Some(from), Some(until)) = (c.valid_from, c.valid_until) else { return };
    let period = (until - from).num_days().max(30) as u64;
    if continuing && rng.gen_bool(0.7) {
        let mut end = until;
        let mut per_period = c.initial_value;
        while end <= horizon() && c.amendments.len() < 4 {
            let readjust = rng.gen_bool(0.6);
            if readjust {
                per_period = cents(per_period * rng.gen_range(1.03..1.06));
            }
            let new_end = end + Days::new(period);
            let on = end - Days::new(rng.gen_range(5..40));
            let kinds = if readjust {
                vec![AmendmentKind::Extension, AmendmentKind::Readjustment]
            } else {
                vec![AmendmentKind::Extension]
            };
            let text = if readjust {
                arcstr::literal!("PRORROGAÇÃO DA VIGÊNCIA POR MAIS UM PERÍODO E REAJUSTE CONTRATUAL PELO IPCA")
            } else {
                arcstr::literal!("PRORROGAÇÃO DO PRAZO DE VIGÊNCIA CONTRATUAL POR MAIS UM PERÍODO")
            };
            push(c, kinds, on, per_period, Some(new_end), text);
            end = new_end;
        }
    } else if period > 365 && rng.gen_bool(0.3) {
        let on = from + Days::new(365 + rng.gen_range(0..60));
        if on <= horizon() {
            let added = c.final_value * rng.gen_range(0.03..0.06);
            push(
                c,
                vec![AmendmentKind::Readjustment],
                on,
                added,
                None,
                arcstr::literal!("REAJUSTE DE PREÇOS CONFORME ÍNDICE CONTRATUAL"),
            );
        }
    }
    if rng.gen_bool(0.05) {
        let cap = if renovation { law::ADDITION_CAP_RENOVATION } else { law::ADDITION_CAP };
        let on = from + Days::new(rng.gen_range(30..(period.max(60))));
        if on <= horizon() {
            let added = c.initial_value * cap * rng.gen_range(0.2..0.95);
            push(
                c,
                vec![AmendmentKind::Addition],
                on,
                added,
                None,
                arcstr::literal!("ACRÉSCIMO QUANTITATIVO DO OBJETO DENTRO DO LIMITE LEGAL"),
            );
        }
    }
}
