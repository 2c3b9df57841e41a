//! Tests of the first-digit detector.

use super::*;
use crate::model::contract::Contract;
use crate::testutil::contract;

/// 30 suppliers with 40 contracts each whose values spread evenly over three orders of
/// magnitude on the log scale (so their first digits follow Benford's law).
fn market() -> Vec<Contract> {
    let mut cs = Vec::new();
    for s in 0..30 {
        for k in 0..40 {
            let u = ((s * 40 + k) as f64 * 0.618_033_988_7).fract();
            let v = 10f64.powf(3.0 + 3.0 * u);
            let month = 1 + (k % 6) as u32;
            cs.push(contract(
                &format!("{s}-{k}"),
                "LIMPEZA PREDIAL",
                &format!("S{s:02}"),
                "26000",
                v,
                (2024, month, 1),
            ));
        }
    }
    cs
}

#[test]
fn first_digits_and_benford_probabilities() {
    assert_eq!(first_digit(1234.5), Some(1));
    assert_eq!(first_digit(9.99), Some(9));
    assert_eq!(first_digit(0.5), None);
    let b = benford();
    assert!((b.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    assert!((b[0] - std::f64::consts::LOG10_2).abs() < 1e-12);
    let expected = b.map(|q| q * 100.0);
    assert_eq!(pooled_chi2(&expected, &expected).0, 0.0);
}

#[test]
fn a_supplier_whose_values_all_start_with_nine_is_flagged() {
    let ds = Dataset::from_contracts(market());
    assert!(BenfordFirstDigit.run(&ds, &DetectionParams::default(), &CancelFlag::new()).unwrap().is_empty());
    let mut cs = market();
    cs.extend((0..40).map(|k| {
        let v = 9_000.0 + 97.0 * k as f64 + 10f64.powi(k % 3) * 0.0;
        let month = 1 + (k % 6) as u32;
        contract(&format!("n{k}"), "LIMPEZA PREDIAL", "NINES", "26000", v * 10f64.powi(k % 3), (2024, month, 1))
    }));
    let found =
        BenfordFirstDigit.run(&Dataset::from_contracts(cs), &DetectionParams::default(), &CancelFlag::new()).unwrap();
    let a = found.iter().find(|a| a.affected_entities.primary.id == "NINES").expect("flagged");
    assert_eq!(a.id, "benford_first_digit-supplier-NINES");
    assert!(a.technical_details["mad"].as_f64().unwrap() > MAD.at(0.7));
    assert!(a.technical_details["significance"].as_f64().unwrap() > SIGNIFICANCE.at(0.7));
    assert_eq!(a.affected_entities.related.len(), 40);
    assert!(
        found.iter().all(|a| a.affected_entities.primary.id == "NINES" || a.affected_entities.primary.kind == "organ")
    );
}

#[test]
fn a_price_list_repeated_or_a_single_month_is_too_little_to_judge() {
    let mut cs = market();
    // 40 contracts at three standard prices starting with 9: three amounts, not forty.
    cs.extend((0..40).map(|k| {
        let v = [9_500.0, 95_000.0, 950.0][k % 3];
        contract(&format!("p{k}"), "LIMPEZA PREDIAL", "LIST", "26000", v, (2024, 1 + (k % 6) as u32, 1))
    }));
    // 40 distinct amounts starting with 9, all signed in one month.
    cs.extend((0..40).map(|k| {
        let v = (9_000.0 + 97.0 * k as f64) * 10f64.powi(k % 3);
        contract(&format!("m{k}"), "LIMPEZA PREDIAL", "MONTH", "26000", v, (2024, 3, 1))
    }));
    let all = DetectionParams { confidence_threshold: 0.0, ..DetectionParams::default() };
    let found = BenfordFirstDigit.run(&Dataset::from_contracts(cs), &all, &CancelFlag::new()).unwrap();
    assert!(found.iter().all(|a| !["LIST", "MONTH"].contains(&a.affected_entities.primary.id.as_str())), "{found:?}");
}
