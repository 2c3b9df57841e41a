//! Tests of entity extraction.

use super::*;

fn pt(m: &str) -> Entities {
    extract(m, Language::Pt)
}

#[test]
fn mil_inside_a_word_is_not_an_amount() {
    let e = pt("gastos com saúde da família em 2024");
    assert_eq!((e.min_value, e.max_value, e.year), (None, None, Some(2024)));
}

#[test]
fn amounts_with_units_currency_and_brazilian_grouping_are_values() {
    assert_eq!(pt("contratos de R$ 1,5 milhão").min_value, Some(1_500_000.0));
    assert_eq!(pt("acima de 500 mil").min_value, Some(500_000.0));
    assert_eq!(extract("over R$ 2 million", Language::En).min_value, Some(2e6));
    assert_eq!(pt("valor 1.000.000,00").min_value, Some(1e6));
    assert_eq!(extract("contracts above $1,000,000.00", Language::En).min_value, Some(1e6));
    assert_eq!(pt("mais de 300 reais").min_value, Some(300.0));
}

#[test]
fn upper_bounds_and_ranges_fill_max_value() {
    let e = pt("contratos até R$ 100 mil");
    assert_eq!((e.min_value, e.max_value), (None, Some(100_000.0)));
    let e = extract("contracts below 2 million in 2023", Language::En);
    assert_eq!((e.max_value, e.year), (Some(2e6), Some(2023)));
    let e = pt("entre 1 e 2 milhões");
    assert_eq!((e.min_value, e.max_value), (Some(1e6), Some(2e6)));
}

#[test]
fn a_year_is_not_an_amount_and_an_amount_is_not_a_year() {
    let e = pt("acima de R$ 2000 em 2023");
    assert_eq!((e.min_value, e.year), (Some(2000.0), Some(2023)));
    assert_eq!(pt("contratos de 1999").year, None);
    assert_eq!(pt("órgão 36000").min_value, None);
    assert_eq!(pt("3 contratos").min_value, None);
}

#[test]
fn months_are_read_in_portuguese_and_english_but_may_only_as_a_month() {
    assert_eq!(pt("gastos de março de 2024").month, Some(3));
    assert_eq!(extract("and in December?", Language::En).month, Some(12));
    assert_eq!(extract("may I ask something", Language::En).month, None);
    assert_eq!(extract("contracts in may", Language::En).month, Some(5));
}

#[test]
fn a_cnpj_needs_valid_check_digits_with_or_without_punctuation() {
    assert_eq!(pt("fornecedor 11.222.333/0001-81").cnpj.as_deref(), Some("11222333000181"));
    assert_eq!(pt("cnpj 11222333000181").cnpj.as_deref(), Some("11222333000181"));
    assert_eq!(pt("cnpj 11.222.333/0001-82").cnpj, None);
    assert_eq!(pt("cnpj 11222333000181").min_value, None);
}

#[test]
fn a_supplier_is_the_name_after_fornecedor_empresa_or_supplier() {
    assert_eq!(pt("investigue a empresa Alfa Engenharia em 2023").supplier.as_deref(), Some("Alfa Engenharia"));
    assert_eq!(pt("o fornecedor Beta Serviços tem contratos?").supplier.as_deref(), Some("Beta Serviços"));
    assert_eq!(extract("check supplier Gamma Ltda for fraud", Language::En).supplier.as_deref(), Some("Gamma Ltda"));
    assert_eq!(pt("e o maior fornecedor?").supplier, None);
    assert_eq!(extract("and the biggest supplier?", Language::En).supplier, None);
    assert_eq!(pt("tem empresa de fachada?").supplier, None);
}

#[test]
fn organs_come_with_code_and_name() {
    let e = pt("contratos do MEC e da saúde");
    assert_eq!(e.organ_codes, vec!["26000", "36000"]);
    assert_eq!(e.organ_names[0], "Ministério da Educação");
    let e = extract("spending of the health ministry and of defense", Language::En);
    assert_eq!(e.organ_codes, vec!["36000", "52000"]);
    assert!(extract("healthy contracts", Language::En).organ_codes.is_empty());
}

#[test]
fn numbers_read_the_brazilian_and_the_english_way() {
    assert_eq!(parse_number("1.500", Language::Pt), Some(1500.0));
    assert_eq!(parse_number("1,500", Language::En), Some(1500.0));
    assert_eq!(parse_number("1,5", Language::Pt), Some(1.5));
    assert_eq!(parse_number("2.5", Language::En), Some(2.5));
    assert_eq!(parse_number("1.234.567,89", Language::En), Some(1_234_567.89));
    assert_eq!(parse_number("12/2024", Language::Pt), None);
}
