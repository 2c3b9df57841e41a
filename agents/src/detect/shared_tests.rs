//! Tests of the per-run shared facts: parallel helpers keep order, facts are computed once.

use super::*;
use crate::testutil::contract;

#[test]
fn parallel_parts_come_back_in_order() {
    let squares = par_each((0..100u64).collect(), 3, |x| x * x);
    assert_eq!(squares, (0..100u64).map(|x| x * x).collect::<Vec<_>>());
    assert_eq!(par_ranges(10, 3, |a, b| (a..b).collect()), (0..10).collect::<Vec<usize>>());
    assert_eq!(par_parts(10, 4, |a, b| (a, b)), vec![(0, 3), (3, 6), (6, 9), (9, 10)]);
    assert_eq!(par_parts(0, 4, |a, b| (a, b)), vec![(0, 0)]);
}

#[test]
fn facts_are_computed_once_and_match_the_direct_computation() {
    let ds = Dataset::from_contracts(vec![
        contract("1", "AQUISIÇÃO DE MEDICAMENTOS", "S", "36000", 10.0, (2024, 1, 5)),
        contract("2", "LIMPEZA PREDIAL", "S", "26000", 5.0, (2024, 3, 5)),
    ]);
    let shared = Shared::new(&ds);
    let cancel = CancelFlag::new();
    let a = shared.categories(&cancel).unwrap().as_ptr();
    assert_eq!(shared.categories(&cancel).unwrap(), &[Category::Medicamentos, Category::Limpeza]);
    assert_eq!(a, shared.categories(&cancel).unwrap().as_ptr());
    assert_eq!(shared.organ_months(&cancel).unwrap().1.len(), 2);
    assert_eq!(shared.suppliers().ids, vec![0, 0]);
    assert_eq!(shared.organs().names, vec!["36000", "26000"]);
    assert_eq!(shared.organs().groups(), (vec![0, 1], vec![0, 1, 2]));
    cancel.cancel();
    assert!(shared.categories(&cancel).is_err());
}
