//! Tests of the legal-basis parser and of the grounds it gives, on the real spellings of
//! Contratos.gov.br `amparo_legal` (DPU, 2019-2025) and of the Portal's `Fundamento Legal`
//! (Compras, January 2024), copied here as literals.

use super::*;
use crate::detect::legal_grounds::{Ground, cites_inexigibility, ground, inferred_ground, names_only_a_law};

fn first(text: &str) -> (Law, Option<u32>, Option<u32>, Option<u32>) {
    let b = parse(text);
    let c = b.citations.first().unwrap_or_else(|| panic!("no citation in {text:?}"));
    (c.law.clone(), c.article, c.inciso, c.paragraph)
}

#[test]
fn contratos_gov_br_amparo_legal_spellings_are_read() {
    use Law::*;
    assert_eq!(first("LEI 14.133/2021 - Artigo: 75 - Inciso: II"), (L14133, Some(75), Some(2), None));
    assert_eq!(first("LEI 14.133/2021 - Artigo: 28 - Inciso: I"), (L14133, Some(28), Some(1), None));
    assert_eq!(first("LEI 10.520 / 2002 - Artigo: 1"), (L10520, Some(1), None, None));
    assert_eq!(first("LEI 8.666 / 1993 - Artigo: 24 - Inciso: XXII"), (L8666, Some(24), Some(22), None));
    assert_eq!(first("LEI 8.666 / 1993 - Artigo: 25 - Inciso: I"), (L8666, Some(25), Some(1), None));
    assert_eq!(first("LEI 14.133/2021 - Artigo: 74 - Inciso: III - Alinea: F"), (L14133, Some(74), Some(3), None));
    assert_eq!(first("LEI 8.666 / 1993 - Artigo: 17 - Parágrafo: 3"), (L8666, Some(17), None, Some(3)));
    assert_eq!(first("LEI 8.666 / 1993 - Artigo: 24 - Inciso: XVIII"), (L8666, Some(24), Some(18), None));
    assert_eq!(first("MP 1.221/2024 - Artigo: 2 - Inciso: I"), (OtherLaw("1221/2024".into()), Some(2), Some(1), None));
    assert_eq!(first("LEI 14.133/2021"), (L14133, None, None, None));
    let two = parse("LEI 8.666 / 1993 - Artigo: 23 - Inciso: I e LEI 14.133/2021 - Artigo: 75 - Inciso: X");
    assert_eq!(two.citations.len(), 2);
    assert_eq!((two.citations[1].law.clone(), two.citations[1].inciso), (L14133, Some(10)));
    assert!(parse("").missing && parse("NÃO SE APLICA").missing && !parse("LEI 14.133/2021").missing);
}

#[test]
fn portal_and_free_text_spellings_are_read() {
    use Law::*;
    assert_eq!(first("Art. 24, inciso II da Lei 8666/93"), (L8666, Some(24), Some(2), None));
    assert_eq!(first("8666/93 - 24 - XXII"), (L8666, Some(24), Some(22), None));
    assert_eq!(first("Lei 14.133/2021, art. 75, II"), (L14133, Some(75), Some(2), None));
    assert_eq!(first("Fundamento Legal: Art. 29, Inciso II da Lei 13..303/2016"), (L13303, Some(29), Some(2), None));
    assert_eq!(first("Fundamento Legal: Artigo 29, Inciso XV da Lei 13.303/2016"), (L13303, Some(29), Some(15), None));
    assert_eq!(first("ARTIGO 30, INCISO II DA LEI 13303/16"), (L13303, Some(30), Some(2), None));
    assert_eq!(first("Fundamento Legal: LEI N¿ 13.303/2016, ART. 30, INCISO I"), (L13303, Some(30), Some(1), None));
    assert_eq!(
        first("Fundamento Legal: Artigo 28, parágrafo terceiroinciso I, da Lei nº 13.303/2016"),
        (L13303, Some(28), None, Some(3))
    );
    assert_eq!(first("Lei 8.666/1993, art. 24, § 1º"), (L8666, Some(24), None, Some(1)));
    assert!(parse("Fundamento Legal: RILC CBTU").citations.is_empty());
    assert_eq!(first("Fundamento Legal: Lei13303/2016,Decr8945/2016, LC123/2006,RILC CBTU").0, L13303);
}

#[test]
fn value_limits_bind_only_value_incisos_and_special_laws_are_other_grounds() {
    let g = |t: &str| ground(&parse(t));
    assert!(matches!(g("LEI 14.133/2021 - Artigo: 75 - Inciso: II"), Ground::ByValue { engineering: false, .. }));
    assert!(matches!(g("LEI 14.133/2021 - Artigo: 75 - Inciso: I"), Ground::ByValue { engineering: true, .. }));
    assert!(matches!(g("LEI 8.666 / 1993 - Artigo: 24 - Inciso: II"), Ground::ByValue { law: Law::L8666, .. }));
    assert!(matches!(g("Art. 29, Inciso II da Lei 13.303/2016"), Ground::ByValue { law: Law::L13303, .. }));
    assert_eq!(
        g("LEI 8.666 / 1993 - Artigo: 24 - Inciso: XXII"),
        Ground::Other("Lei 8.666/1993, art. 24, XXII".into())
    );
    assert!(matches!(g("LEI 14.133/2021 - Artigo: 75 - Inciso: VIII"), Ground::Other(_)));
    assert!(matches!(g("MP 1.221/2024 - Artigo: 2 - Inciso: I"), Ground::Other(_)));
    assert!(matches!(g("LEI 14.981/2024 - Artigo: 21"), Ground::Other(_)));
    assert!(matches!(
        g("LEI 8.666 / 1993 - Artigo: 23 - Inciso: I e LEI 14.133/2021 - Artigo: 75 - Inciso: X"),
        Ground::Other(_)
    ));
    assert_eq!(g("LEI 14.133/2021"), Ground::Unknown);
    assert_eq!(g("LEI 10.520 / 2002 - Artigo: 1"), Ground::Unknown);
    assert_eq!(g(""), Ground::Missing);
    assert_eq!(g("NÃO SE APLICA"), Ground::Missing);
}

#[test]
fn an_inexigibility_ground_is_its_article_with_or_without_inciso() {
    let b = |t: &str| parse(t);
    assert!(cites_inexigibility(&b("LEI 14.133/2021 - Artigo: 74 - Inciso: I")));
    assert!(cites_inexigibility(&b("Lei 14.133/2021, art. 74")));
    assert!(cites_inexigibility(&b("LEI 8.666 / 1993 - Artigo: 25")));
    assert!(cites_inexigibility(&b("ARTIGO 30, INCISO II DA LEI 13303/16")));
    assert!(!cites_inexigibility(&b("LEI 14.133/2021 - Artigo: 75 - Inciso: II")));
    assert!(!cites_inexigibility(&b("LEI 14.133/2021")) && names_only_a_law(&b("LEI 14.133/2021")));
}

#[test]
fn usual_non_value_grounds_are_recognised_from_object_and_supplier() {
    assert!(inferred_ground("LOCAÇÃO DE IMÓVEL PARA SEDIAR A DPU EM MANAUS", "JOSE DA SILVA", false).is_some());
    assert!(inferred_ground("FORNECIMENTO DE ENERGIA ELÉTRICA", "X", false).is_some());
    assert!(inferred_ground("SERVIÇOS DE INFORMÁTICA", "SERPRO - SEDE - BRASILIA", false).is_some());
    assert!(
        inferred_ground("SERVIÇOS DE TI", "EMPRESA DE TECNOLOGIA E INFORMACOES DA PREVIDENCIA - DATAPREV", false)
            .is_some()
    );
    assert!(inferred_ground("QUALQUER", "SEOF", true).is_some());
    assert!(inferred_ground("AQUISIÇÃO DE MATERIAL DE EXPEDIENTE", "PAPELARIA LTDA", false).is_none());
    // Real traps: outsourced staff "com dedicação exclusiva", a private data-processing firm.
    let portaria = "CONTRATAÇÃO DE SERVIÇOS CONTÍNUOS DE AGENTE PORTARIA, A SEREM EXECUTADOS COM REGIME DE DEDICAÇÃO EXCLUSIVA DE MÃO DE OBRA";
    assert!(inferred_ground(portaria, "REALCE SERVICOS E TECNOLOGIA AMBIENTAL LTDA", false).is_none());
    assert!(inferred_ground("GERAÇÃO DO ARQUIVO DO SPED", "LIDER PROCESSAMENTO DE DADOS LTDA", false).is_none());
    assert!(
        inferred_ground("SERVIÇOS DE TI", "COMPANHIA DE PROCESSAMENTO DE DADOS DO ESTADO DA BAHIA", false).is_some()
    );
}

#[test]
fn missing_legal_bases_are_counted_once_per_dataset_with_the_grounds_the_records_show() {
    use crate::detect::legal_grounds::basis_coverage;
    let mut lease =
        crate::testutil::contract("a", "LOCAÇÃO DE IMÓVEL PARA A SEDE", "00000000000191", "29000", 1.0, (2024, 1, 1));
    lease.modality = "Dispensa".into();
    let mut other = lease.clone();
    other.object = "AQUISIÇÃO DE MATERIAL".into();
    let mut cited = lease.clone();
    cited.legal_basis = "LEI 14.133/2021 - Artigo: 75 - Inciso: II".into();
    let mut pregao = other.clone();
    pregao.modality = "Pregão".into();
    pregao.legal_basis = "NÃO SE APLICA".into();
    let cov = basis_coverage(&[lease, other, cited, pregao]);
    assert_eq!((cov.contracts, cov.missing, cov.direct_missing, cov.direct_inferred), (4, 3, 2, 1));
}

proptest::proptest! {
    #[test]
    fn any_text_parses_without_panicking(text in "\\PC{0,80}", digits in "[0-9./ -]{0,20}") {
        let b = parse(&format!("{text} Lei {digits} art. {digits} inciso {text}"));
        let _ = (ground(&b), cites_inexigibility(&b));
    }
}

#[test]
fn a_utility_a_state_company_a_public_body_or_a_lessor_is_contracted_for_who_it_is() {
    use crate::detect::legal_grounds::tied_to_supplier;
    assert!(tied_to_supplier("LOCAÇÃO DE IMÓVEL PARA SEDIAR A DPU EM MANAUS", "JOSE DA SILVA", false));
    assert!(tied_to_supplier("FORNECIMENTO DE ÁGUA POTÁVEL E TRATAMENTO DE ESGOTO", "X", false));
    assert!(tied_to_supplier("SERVIÇOS DE TI", "EMPRESA DE TECNOLOGIA E INFORMACOES DA PREVIDENCIA - DATAPREV", false));
    assert!(tied_to_supplier("QUALQUER", "SEOF", true));
    assert!(tied_to_supplier(
        "AQUISIÇÃO DE MEDICAMENTO DE PRODUTOR EXCLUSIVO PARA CUMPRIMENTO DE DECISÃO JUDICIAL",
        "LAB S.A.",
        false
    ));
    assert!(!tied_to_supplier("LIMPEZA COM DEDICAÇÃO EXCLUSIVA DE MÃO DE OBRA", "LIMPA LTDA", false));
    // An emergency is a ground of the purchase, not of who supplies it.
    assert!(!tied_to_supplier("CONTRATAÇÃO EMERGENCIAL DE MANUTENÇÃO PREDIAL", "ENGENHARIA LTDA", false));
    assert!(!tied_to_supplier("AQUISIÇÃO DE MATERIAL DE EXPEDIENTE", "PAPELARIA LTDA", false));
}
