//! Tests of the look-alikes the duplicate search leaves out: the next bidder taking over a
//! rescinded contract, and contracts made with a supplier because of who it is or what it
//! leases.

use crate::detect::Detector;
use crate::detect::pattern::duplicates::DuplicateContracts;
use crate::model::amendment::{Amendment, AmendmentKind, ContractItem};
use crate::model::contract::Contract;
use crate::testutil::contract;
use crate::{Anomaly, CancelFlag, Dataset, DetectionParams};

const TEXT: &str = "AQUISIÇÃO DE MEDICAMENTOS DA ATENÇÃO ESPECIALIZADA (DIPIRONA SÓDICA 500 MG, OMEPRAZOL 20 MG E \
                    INSULINA HUMANA NPH) PARA ATENDIMENTO À DEMANDA DO HOSPITAL FEDERAL, EM RIO DE JANEIRO, QUANTIDADE \
                    ESTIMADA DE 1200 UNIDADES, LOTE 7, CONFORME TERMO DE REFERÊNCIA Nº 01234/2024";

fn run(cs: Vec<Contract>) -> Vec<Anomaly> {
    DuplicateContracts.run(&Dataset::from_contracts(cs), &DetectionParams::default(), &CancelFlag::new()).unwrap()
}

fn in_process(mut c: Contract) -> Contract {
    c.process_number = "P1".into();
    c.items = vec![ContractItem {
        code: "P1-00001".into(),
        description: "MEDICAMENTO".into(),
        complement: "".into(),
        quantity: 1.0,
        value: c.initial_value,
    }];
    c
}

#[test]
fn the_next_bidder_taking_over_a_rescinded_contract_is_not_a_duplicate() {
    let first = in_process(contract("1", TEXT, "S1", "36000", 100_000.0, (2024, 3, 1)));
    let second = in_process(contract("2", &TEXT.replace("1200", "1250"), "S2", "36000", 104_000.0, (2024, 3, 25)));
    assert_eq!(run(vec![first.clone(), second.clone()]).len(), 1, "the same purchase contracted twice");
    let mut rescinded = first;
    rescinded.amendments.push(Amendment {
        kinds: vec![AmendmentKind::Termination],
        signed_on: chrono::NaiveDate::from_ymd_opt(2024, 3, 20),
        ..Amendment::default()
    });
    assert!(run(vec![rescinded, second]).is_empty());
}

#[test]
fn two_leases_or_utility_contracts_of_one_supplier_are_not_duplicates_by_their_text() {
    let lease = "LOCAÇÃO DE IMÓVEL COMERCIAL DESTINADO AO FUNCIONAMENTO DA SEDE REGIONAL DA UNIDADE EM BRASILIA";
    let power = "FORNECIMENTO DE ENERGIA ELÉTRICA EM ALTA TENSÃO PELA CONCESSIONÁRIA LOCAL PARA A UNIDADE EM BRASILIA";
    for text in [lease, power] {
        let cs = vec![
            contract("1", text, "S1", "36000", 300_000.0, (2024, 3, 1)),
            contract("2", text, "S1", "36000", 310_000.0, (2024, 3, 20)),
        ];
        assert!(run(cs).is_empty(), "{text}");
    }
    // The same text for goods is a duplicate.
    let cs = vec![
        contract("1", TEXT, "S1", "36000", 300_000.0, (2024, 3, 1)),
        contract("2", TEXT, "S1", "36000", 310_000.0, (2024, 3, 20)),
    ];
    assert_eq!(run(cs).len(), 1);
}
