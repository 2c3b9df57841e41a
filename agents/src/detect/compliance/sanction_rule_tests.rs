//! Tests of the sanction rule's dates, types and scopes on hand-made sanctions shaped like the
//! real lists (CEIS 2018 without start dates, CNEP 2021 with them).

use chrono::NaiveDate;

use super::*;

fn d(y: i32, m: u32, day: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(y, m, day).unwrap()
}

fn sanction(kind: &str, authority: &str, from: Option<NaiveDate>, to: Option<NaiveDate>) -> Sanction {
    Sanction {
        id: "1".into(),
        register: "CEIS".into(),
        document: "00000000000191".into(),
        name: "X".into(),
        kind: kind.into(),
        starts_on: from,
        ends_on: to,
        published_on: from,
        authority: authority.into(),
        legal_basis: String::new(),
        process_number: String::new(),
        fine: None,
    }
}

const ORGAN: [&str; 2] = ["MINISTÉRIO DA SAÚDE", "DEPARTAMENTO DE LOGÍSTICA"];

#[test]
fn a_contract_signed_while_a_federal_impedimento_was_in_force_is_barred() {
    let s =
        sanction("Impedimento - Lei do Pregão", "Ministério da Economia", Some(d(2024, 1, 1)), Some(d(2024, 12, 31)));
    assert!(matches!(judge(&[&s], d(2024, 6, 1), &ORGAN), Some(Verdict::Barred(_, c)) if c >= 0.9));
    assert_eq!(judge(&[&s], d(2025, 1, 1), &ORGAN), None);
    assert_eq!(judge(&[&s], d(2023, 12, 31), &ORGAN), None);
}

#[test]
fn a_state_or_municipal_impedimento_does_not_bind_a_federal_contract() {
    let state = sanction("Impedimento - Lei do Pregão", "Governo do Estado de Goiás (GO)", Some(d(2024, 1, 1)), None);
    let city = sanction("Impedimento - Lei do Pregão", "Prefeitura Municipal de Natal", Some(d(2024, 1, 1)), None);
    let state_law = sanction("Inidoneidade - Legislação Estadual", "Secretaria da Fazenda", Some(d(2024, 1, 1)), None);
    assert_eq!(judge(&[&state, &city, &state_law], d(2024, 6, 1), &ORGAN), None);
    let tcu = sanction("Inidoneidade - Lei Orgânica TCU", "Tribunal de Contas da União", Some(d(2024, 1, 1)), None);
    assert!(matches!(judge(&[&tcu], d(2024, 6, 1), &ORGAN), Some(Verdict::Barred(..))));
}

#[test]
fn a_suspension_binds_only_the_body_that_applied_it() {
    let other = sanction("Suspensão - Lei de Licitações", "Ministério da Educação (DF)", Some(d(2024, 1, 1)), None);
    assert_eq!(judge(&[&other], d(2024, 6, 1), &ORGAN), None);
    let same = sanction("Suspensão - Lei de Licitações", "Ministério da Saúde (DF)", Some(d(2024, 1, 1)), None);
    assert!(matches!(judge(&[&same], d(2024, 6, 1), &ORGAN), Some(Verdict::Barred(..))));
}

#[test]
fn a_list_without_start_dates_is_undecidable_never_barred() {
    let ceis2018 =
        sanction("Inidoneidade - Lei de Licitações", "Controladoria-Geral da União (DF)", None, Some(d(2026, 1, 1)));
    assert!(matches!(judge(&[&ceis2018], d(2024, 6, 1), &ORGAN), Some(Verdict::Undecidable(..))));
    let ended =
        sanction("Inidoneidade - Lei de Licitações", "Controladoria-Geral da União (DF)", None, Some(d(2020, 1, 1)));
    assert_eq!(judge(&[&ended], d(2024, 6, 1), &ORGAN), None);
    let unknown_scope = sanction("Impedimento - Lei do Pregão", "", Some(d(2024, 1, 1)), None);
    assert!(matches!(judge(&[&unknown_scope], d(2024, 6, 1), &ORGAN), Some(Verdict::Undecidable(..))));
}

#[test]
fn spheres_are_read_from_the_sanctioning_body() {
    assert_eq!(sphere_of("Tribunal de Justiça do Estado de São Paulo / 1º Grau (SP)"), Sphere::State);
    assert_eq!(sphere_of("Prefeitura Municipal de Cardoso"), Sphere::Municipal);
    assert_eq!(sphere_of("Empresa Brasileira de Infra-Estrutura Aeroportuária - INFRAERO"), Sphere::Federal);
    assert_eq!(sphere_of("Governo do Distrito Federal"), Sphere::State);
    assert_eq!(sphere_of("CGE"), Sphere::Unknown);
}

#[test]
fn the_real_ceis_and_cnep_types_bind_as_their_laws_say() {
    let on = |kind: &str, auth: &str| {
        let s = sanction(kind, auth, Some(d(2024, 1, 1)), None);
        (s.bars_contracting(), binding(&s, &ORGAN))
    };
    assert_eq!(on("Impedimento - Legislação Estadual", "Ministério X"), (true, Binding::No));
    assert_eq!(on("Suspensão - Legislação Municipal", "Ministério X"), (true, Binding::No));
    assert_eq!(on("Proibição - Lei 12.846/13", "Ministério X"), (true, Binding::No));
    assert_eq!(on("Decisão judicial liminar/cautelar que impeça contratação", "TJ"), (true, Binding::Yes(0.85)));
    assert_eq!(on("Proibição - Lei Eleitoral", "TRE"), (true, Binding::Yes(0.85)));
    assert_eq!(on("Proibição - Lei Antitruste - Escopo Limitado", "CADE"), (true, Binding::Unknown));
    assert!(!on("Publicação Extraordinária - Lei 12.846/13", "CGU").0);
    assert!(!on("Multa - Lei 12.846/13", "CGU").0);
    assert!(!on("Requisição - Ministério Público", "MPF").0);
}

#[test]
fn parties_match_sanctions_by_cnpj_root_or_by_cpf_however_padded() {
    assert_eq!(party_key("00000000000191"), "00000000");
    assert_eq!(party_key("00052998224725"), "52998224725");
    assert_eq!(party_key("52998224725"), "52998224725");
    assert_eq!(party_key("806030"), "806030");
}
