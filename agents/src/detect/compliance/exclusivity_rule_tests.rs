use super::*;
use crate::CancelFlag;
use crate::detect::Detector;
use crate::detect::legal_basis::parse;

#[test]
fn only_the_exclusive_supplier_incisos_claim_exclusivity() {
    assert!(claims_exclusive_supplier(&parse("Lei 14.133/2021, Art. 74, I")));
    assert!(claims_exclusive_supplier(&parse("LEI 8.666 / 1993 - Artigo: 25 - Inciso: I")));
    assert!(!claims_exclusive_supplier(&parse("LEI 14.133/2021 - Artigo: 74 - Inciso: III - Alinea: F")));
    assert!(!claims_exclusive_supplier(&parse("Lei 14.133/2021, Art. 74, V")));
    assert!(!claims_exclusive_supplier(&parse("")));
}

#[test]
fn an_object_naming_a_maker_brand_licence_or_court_order_states_its_exclusivity() {
    assert!(states_exclusivity("AQUISIÇÃO DE ITENS DA MARCA SARTORIUS"));
    assert!(states_exclusivity("LICENCIAMENTO ANUAL DO SISTEMA WEB GESTÃO TRIBUTÁRIA"));
    assert!(states_exclusivity("MEDICAMENTO PARA CUMPRIMENTO DE DECISÃO JUDICIAL"));
    assert!(states_exclusivity("MANUTENÇÃO DO EQUIPAMENTO MODELO JXA-8230 DE FABRICAÇÃO DA JEOL"));
    // A highlighter is not a brand; outsourced staff is not an exclusive supplier.
    assert!(!states_exclusivity("COMPRA DE ARTIGOS DE ESCRITA (PRANCHETA, MARCA-TEXTO E BORRACHA)"));
    assert!(!states_exclusivity("SERVIÇOS DE LIMPEZA COM DEDICAÇÃO EXCLUSIVA DE MÃO DE OBRA"));
    assert!(!states_exclusivity("AQUISIÇÃO DE MATERIAL DE EXPEDIENTE (LÁPIS GRAFITE E CLIPES)"));
}

#[test]
fn the_binomial_tail_matches_its_closed_forms() {
    assert!((binomial_cdf(0, 100, 0.05) - 0.95f64.powi(100)).abs() < 1e-12);
    let one = 0.95f64.powi(50) + 50.0 * 0.05 * 0.95f64.powi(49);
    assert!((binomial_cdf(1, 50, 0.05) - one).abs() < 1e-12);
    assert_eq!(binomial_cdf(5, 5, 0.05), 1.0);
}

fn market(others: usize, claims: usize, suppliers: usize) -> Market {
    Market { others, claims, suppliers, goods: "\"LÁPIS GRAFITE\"".into(), by_items: true }
}

fn claim() -> Contract {
    let mut c = crate::testutil::contract(
        "1",
        "AQUISIÇÃO DE MATERIAL DE EXPEDIENTE",
        "11222333000181",
        "26000",
        120_000.0,
        (2024, 5, 10),
    );
    c.modality = "Inexigibilidade de Licitação".into();
    c.legal_basis = "Lei 14.133/2021, Art. 74, I".into();
    c
}

#[test]
fn goods_many_suppliers_sell_without_claims_contradict_an_exclusive_supplier() {
    let b = breach(&claim(), &market(200, 0, 40), 0.7).expect("contradicted");
    assert_eq!(b.rule, RULE);
    assert!(b.confidence >= 0.82 && b.confidence < 0.9, "{}", b.confidence);
}

#[test]
fn goods_for_which_buyers_claim_exclusivity_now_and_then_do_not_contradict_it() {
    // A catalogue class with a model only its maker supplies: 7% of its purchases claim it.
    assert!(breach(&claim(), &market(300, 21, 60), 0.7).is_none());
    // Too few other purchases to say.
    assert!(breach(&claim(), &market(40, 0, 20), 0.7).is_none());
    // Many purchases from fewer than five other suppliers: maybe the maker's representatives.
    assert!(breach(&claim(), &market(500, 0, 4), 0.7).is_none());
}

#[test]
fn raising_the_sensitivity_only_raises_the_confidence() {
    let low = breach(&claim(), &market(200, 0, 40), 0.5).map(|b| b.confidence);
    let high = breach(&claim(), &market(200, 0, 40), 0.9).map(|b| b.confidence);
    assert!(low < high);
}

/// `n` purchases of one item from ten suppliers, the first `inexigible` of them by
/// inexigibilidade, and one claim of an exclusive supplier for the same item.
fn market_data(item: &str, n: usize, inexigible: usize, claim_object: &str) -> Vec<Contract> {
    let line = |value: f64| crate::model::amendment::ContractItem {
        code: "".into(),
        description: item.into(),
        complement: "".into(),
        quantity: 100.0,
        value,
    };
    let mut cs: Vec<Contract> = (0..n)
        .map(|k| {
            let mut c = crate::testutil::contract(
                &format!("c{k}"),
                &format!("AQUISIÇÃO DE {item} PARA A UNIDADE {k}"),
                &format!("1122233300{:04}", k % 10),
                "26000",
                50_000.0,
                (2024, 1 + (k % 12) as u32, 10),
            );
            if k < inexigible {
                c.modality = "Inexigibilidade de Licitação".into();
            }
            c.items = vec![line(50_000.0)];
            c
        })
        .collect();
    let mut c = claim();
    c.object = claim_object.into();
    c.items = vec![line(120_000.0)];
    cs.push(c);
    cs
}

fn judged(cs: Vec<Contract>) -> Vec<String> {
    let ds = crate::model::dataset::Dataset::from_contracts(cs);
    let found = super::super::ComplianceRules.run(&ds, &crate::DetectionParams::default(), &CancelFlag::new()).unwrap();
    found
        .iter()
        .filter(|a| a.technical_details["rule"] == RULE)
        .map(|a| a.affected_entities.primary.id.clone())
        .collect()
}

#[test]
fn a_claim_for_an_item_many_suppliers_sell_in_competition_is_flagged_through_the_engine_path() {
    assert_eq!(judged(market_data("LÁPIS GRAFITE", 150, 0, "AQUISIÇÃO DE LÁPIS GRAFITE")), vec!["1"]);
    // Buyers of this class claim a maker's exclusivity now and then: not contradicted.
    assert!(judged(market_data("MONITOR MULTIPARAMÉTRICO", 150, 12, "AQUISIÇÃO DE MONITORES")).is_empty());
    // The object names the brand whose maker is exclusive: for the attestation to show.
    assert!(judged(market_data("LÁPIS GRAFITE", 150, 0, "AQUISIÇÃO DE LÁPIS GRAFITE MARCA FABER")).is_empty());
}
