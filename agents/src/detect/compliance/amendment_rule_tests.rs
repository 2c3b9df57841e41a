//! Tests of the amendment rule on hand-made contract histories shaped like the DPU's
//! Contratos.gov.br histories (qualificação VIGÊNCIA, ACRÉSCIMO / SUPRESSÃO, REAJUSTE) and the
//! Portal's TermoAditivo objects.

use chrono::NaiveDate;

use super::*;
use crate::model::amendment::Amendment;
use crate::testutil::contract;

fn d(y: i32, m: u32, day: u32) -> Option<NaiveDate> {
    NaiveDate::from_ymd_opt(y, m, day)
}

fn term(kinds: &[K], value: Option<f64>, until: Option<NaiveDate>) -> Amendment {
    Amendment { kinds: kinds.to_vec(), new_global_value: value, new_valid_until: until, ..Amendment::default() }
}

/// A 12-month continuing service of R$ 120,000 signed on 2021-01-10.
fn service(object: &str) -> Contract {
    let mut c = contract("c", object, "00000000000191", "29000", 120_000.0, (2021, 1, 10));
    c.valid_until = d(2022, 1, 10);
    c
}

#[test]
fn yearly_prorrogacoes_and_reajustes_are_not_amendments_over_the_cap() {
    // Real pattern: four 12-month prorrogações with reajustes, the global value quadrupling.
    let mut c = service("PRESTAÇÃO DE SERVIÇOS CONTINUADOS DE LIMPEZA");
    c.amendments = vec![
        term(&[K::Extension], Some(240_000.0), d(2023, 1, 10)),
        term(&[K::Readjustment], Some(252_000.0), None),
        term(&[K::Extension], Some(378_000.0), d(2024, 1, 10)),
        term(&[K::Extension, K::Readjustment], Some(520_000.0), d(2025, 1, 10)),
    ];
    c.final_value = 520_000.0;
    assert!(amendment_breach(&c, 0.7).is_none());
}

#[test]
fn acrescimos_are_summed_on_the_updated_base_and_suppressions_do_not_offset_them() {
    let mut c = service("PRESTAÇÃO DE SERVIÇOS DE APOIO ADMINISTRATIVO");
    // Reajuste to 132,000 (base 132,000), then +20% and +10% of it, then a supressão.
    c.amendments = vec![
        term(&[K::Readjustment], Some(132_000.0), None),
        term(&[K::Addition, K::Suppression], Some(158_400.0), None),
        term(&[K::Addition, K::Suppression], Some(171_600.0), None),
        term(&[K::Addition, K::Suppression], Some(140_000.0), None),
    ];
    c.final_value = 140_000.0;
    let b = amendment_breach(&c, 0.7).expect("30% of acréscimos");
    assert!((b.observed - 0.30).abs() < 1e-9, "{}", b.observed);
    assert!(b.confidence >= 0.9 && b.law.contains("749/2010"));
    // 25% exactly, as many real aditivos write it, is legal.
    c.amendments.truncate(1);
    c.amendments.push(term(&[K::Addition], Some(165_000.0), None));
    assert!(amendment_breach(&c, 0.7).is_none());
}

#[test]
fn an_acrescimo_with_a_prorrogacao_is_split_by_value_per_month() {
    let mut c = service("PRESTAÇÃO DE SERVIÇOS DE VIGILÂNCIA");
    c.amendments = vec![term(&[K::Extension], Some(240_000.0), d(2023, 1, 10))];
    // Another year (x2 of 240,000 at the same monthly value would be 480,000) plus 100,000.
    c.amendments.push(term(&[K::Extension, K::Addition], Some(580_000.0), d(2025, 1, 10)));
    let b = amendment_breach(&c, 0.7);
    let share = b.as_ref().map_or(0.0, |b| b.observed);
    assert!(share < 0.25, "100,000 on a 480,000 base is 20.8%: {share}");
    c.amendments[1].new_global_value = Some(640_000.0);
    assert!(amendment_breach(&c, 0.7).is_some_and(|b| b.observed > 0.3));
}

#[test]
fn renovations_have_a_fifty_percent_cap() {
    let mut c = service("OBRA DE REFORMA DO EDIFÍCIO SEDE");
    c.amendments = vec![term(&[K::Addition], Some(168_000.0), None)];
    assert!(amendment_breach(&c, 0.7).is_none());
    c.amendments = vec![term(&[K::Addition], Some(190_000.0), None)];
    assert!(amendment_breach(&c, 0.7).is_some_and(|b| b.threshold == 0.5));
}

#[test]
fn amendments_known_by_kind_explain_growth_unless_all_are_acrescimos() {
    let mut c = service("AQUISIÇÃO DE MATERIAL");
    c.final_value = 180_000.0;
    // Portal TermoAditivo: "PRORROGAÇÃO DO PRAZO DE VIGÊNCIA" (no values).
    c.amendments = vec![term(&[K::Extension], None, None), term(&[K::Addition], None, None)];
    assert!(amendment_breach(&c, 0.7).is_none());
    // "ACRÉSCIMO DE SERVIÇOS" twice, nothing else: the growth is acréscimo.
    c.amendments = vec![term(&[K::Addition], None, None), term(&[K::Addition], None, None)];
    assert!(amendment_breach(&c, 0.7).is_some_and(|b| b.confidence >= 0.88));
    // An amendment the reader could not qualify may be anything.
    c.amendments.push(term(&[], None, None));
    assert!(amendment_breach(&c, 0.7).is_none());
}

#[test]
fn totals_alone_are_judged_only_within_a_first_year_and_with_low_confidence() {
    let mut c = service("AQUISIÇÃO DE MATERIAL");
    c.final_value = 180_000.0;
    assert!(amendment_breach(&c, 0.7).is_some_and(|b| b.confidence < 0.8));
    c.valid_until = d(2023, 1, 10);
    assert!(amendment_breach(&c, 0.7).is_none(), "a 24-month vigência may hold a prorrogação");
    c.valid_until = None;
    assert!(amendment_breach(&c, 0.7).is_none());
}

#[test]
fn building_leases_and_unit_switches_of_the_global_value_are_not_acrescimos() {
    // Real DPU lease (00067/2019): the global value is restated for a year, then for the term.
    let mut lease = service("LOCAÇÃO DE IMÓVEL, PARA INSTALAÇÃO DA DEFENSORIA PÚBLICA DA UNIÃO");
    lease.amendments = vec![term(&[K::Addition], Some(600_000.0), None)];
    assert!(amendment_breach(&lease, 1.0).is_none());
    let mut c = service("PRESTAÇÃO DE SERVIÇOS DE APOIO");
    c.amendments = vec![term(&[K::Addition], Some(600_000.0), None)];
    assert!(amendment_breach(&c, 1.0).is_none(), "a 400% step is a change of unit");
    // "RETIFICAR PUBLICAÇÃO ..." qualified ACRÉSCIMO and FORNECEDOR at once.
    c.amendments = vec![term(&[K::Addition, K::SupplierChange], Some(180_000.0), None)];
    assert!(amendment_breach(&c, 1.0).is_none());
    assert_eq!(walk_values(&c).map(|a| a.skipped), Some(1));
}
