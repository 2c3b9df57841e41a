use vigia_agents::demo::{DemoSpec, generate};

use super::*;

/// Demo contracts whose suppliers and values are set: (document, value) each.
fn contracts(rows: &[(&str, f64)]) -> Vec<Contract> {
    let data = generate(&DemoSpec { seed: 1, contracts: rows.len(), ..DemoSpec::default() });
    let mut out = data.dataset.contracts;
    out.truncate(rows.len());
    for (c, (doc, value)) in out.iter_mut().zip(rows) {
        c.supplier.document = (*doc).into();
        c.initial_value = *value;
        c.final_value = 0.0;
    }
    out
}

#[test]
fn suppliers_are_chosen_most_money_first_skipping_cpfs_within_the_budget() {
    let cs = contracts(&[
        ("11111111000111", 100.0),
        ("22222222000122", 500.0),
        ("11111111000111", 450.0),
        ("12345678901", 9_000.0),
        ("***456789**", 9_000.0),
        ("", 9_000.0),
        ("33333333000133", 10.0),
    ]);
    assert_eq!(cs.len(), 7);
    assert_eq!(select(&cs, 10), (vec!["11111111000111".into(), "22222222000122".into(), "33333333000133".into()], 0));
    assert_eq!(select(&cs, 2), (vec!["11111111000111".into(), "22222222000122".into()], 1));
    assert_eq!(select(&cs, 0), (Vec::new(), 3));
}

#[test]
fn equal_sums_are_ordered_by_cnpj_so_a_cut_is_the_same_every_run() {
    let cs = contracts(&[("99999999000199", 5.0), ("44444444000144", 5.0)]);
    assert_eq!(select(&cs, 1), (vec!["44444444000144".into()], 1));
}
