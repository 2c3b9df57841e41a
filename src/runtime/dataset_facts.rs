//! What a run derives from its dataset besides the agents' findings: the largest suppliers
//! (the results' `top_suppliers`) and where each contract is (the contract a finding's event
//! names). Runs over data the analysis cache keeps share the very dataset (one `Arc`), so the
//! facts of the latest datasets are kept by that identity and derived once for all of them
//! rather than once per run (summing every contract by supplier and indexing every contract
//! took about 3% of the server's time per chat investigation answered from the cache).
//!
//! The `anomaly` event of a finding over a dataset is kept with the dataset's facts too: the
//! runs the analysis cache answers emit the very findings (the same `Arc`s) of the run before
//! them, and each made its events again (the contract looked up, five strings copied, for
//! every finding).

use std::collections::HashMap;
use std::hash::{BuildHasher, RandomState};
use std::sync::{Arc, Weak};

use vigia_agents::{Anomaly, Contract, Dataset};

use crate::domain::AnomalyFound;
use crate::domain::bounded::{Derived, Recent};

/// Suppliers listed in a run's results.
const TOP_SUPPLIERS: usize = 10;
/// Datasets whose facts are kept.
const KEPT: usize = 8;
/// Findings whose events are kept per dataset (more than a demo investigation's tens; a run
/// with more findings makes the rest each time).
const KEPT_FOUND: usize = 1024;

/// The facts of one dataset.
pub(crate) struct DatasetFacts {
    /// The ten suppliers with the most money in contracts, largest first.
    pub top_suppliers: Vec<(String, f64)>,
    /// Contract positions by the hash of their id (no id copied; a lookup checks the id).
    by_id: HashMap<u64, usize>,
    hasher: RandomState,
    /// The events of findings over the dataset, by the finding's identity.
    found: Derived<Anomaly, (), Arc<AnomalyFound>>,
}

impl DatasetFacts {
    pub fn of(ds: &Dataset) -> Self {
        let hasher = RandomState::new();
        let by_id = ds.contracts.iter().enumerate().map(|(i, c)| (hasher.hash_one(c.id.as_str()), i)).collect();
        let top_suppliers = vigia_agents::conversation::top_suppliers(ds, TOP_SUPPLIERS);
        DatasetFacts { top_suppliers, by_id, hasher, found: Derived::new(KEPT_FOUND) }
    }

    /// The `anomaly` event of the finding `a` over `ds` (the dataset these facts are of): the
    /// one made before for this very finding, else made now and kept.
    pub fn found(&self, ds: &Dataset, a: &Arc<Anomaly>) -> Arc<AnomalyFound> {
        self.found.get_or(a, (), || Arc::new(self.found_of(ds, a)))
    }

    /// The event of a finding: the contract behind it (primary, else first related), the
    /// supplier (or an agreement's grantee) it concerns, and the contract's value (else the
    /// money at stake).
    fn found_of(&self, ds: &Dataset, a: &Anomaly) -> AnomalyFound {
        let entities = || std::iter::once(&a.affected_entities.primary).chain(&a.affected_entities.related);
        let contract = entities().filter(|e| e.kind == "contract").find_map(|e| self.contract(ds, e.id.as_str()));
        let party = entities().find(|e| e.kind == "supplier" || e.kind == "grantee").map(|e| e.name.clone());
        let supplier = match a.affected_entities.primary.kind.as_str() {
            "supplier" | "grantee" => party,
            _ => contract.map(|c| c.supplier.name.to_string()).or(party),
        };
        let at_stake = Some(a.value_at_stake()).filter(|v| *v > 0.0);
        AnomalyFound {
            id: a.id.clone(),
            anomaly_type: a.kind.as_str().into(),
            severity: a.severity.as_str().into(),
            confidence: a.confidence,
            description: a.description.clone(),
            description_en: a.explanation_en().map(str::to_string),
            contract_id: contract.map(|c| c.id.to_string()),
            supplier,
            value: contract.map(Contract::value).or(at_stake),
            at_stake,
        }
    }

    /// The contract of `ds` (the dataset these facts are of) with this id.
    pub fn contract<'a>(&self, ds: &'a Dataset, id: &str) -> Option<&'a Contract> {
        let at = self.by_id.get(&self.hasher.hash_one(id)).and_then(|&i| ds.contracts.get(i));
        match at {
            Some(c) if c.id.as_str() == id => Some(c),
            // Two ids of one hash (the later kept the slot) or no such id: looked for in full.
            _ => ds.contracts.iter().find(|c| c.id.as_str() == id),
        }
    }
}

/// The facts of the latest datasets, by the dataset's identity.
pub(crate) struct KeptFacts(Recent<(Weak<Dataset>, Arc<DatasetFacts>)>);

impl Default for KeptFacts {
    fn default() -> Self {
        KeptFacts(Recent::new(KEPT))
    }
}

impl KeptFacts {
    /// The facts of `ds`: those kept for this very dataset, else derived now and kept.
    pub fn of(&self, ds: &Arc<Dataset>) -> Arc<DatasetFacts> {
        let same = |w: &Weak<Dataset>| std::ptr::eq(w.as_ptr(), Arc::as_ptr(ds));
        if let Some(facts) = self.0.find_map(|(w, facts)| same(w).then(|| facts.clone())) {
            return facts;
        }
        let facts = Arc::new(DatasetFacts::of(ds));
        // A dataset no run holds any more is gone for good: its facts go first.
        self.0.remember((Arc::downgrade(ds), facts.clone()), |(w, _)| same(w) || w.strong_count() == 0);
        facts
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vigia_agents::demo::{DemoSpec, generate};

    fn dataset(seed: u64) -> Arc<Dataset> {
        Arc::new(generate(&DemoSpec { seed, contracts: 300, ..DemoSpec::default() }).dataset)
    }

    #[test]
    fn the_facts_of_one_dataset_are_derived_once_and_find_every_contract() {
        let kept = KeptFacts::default();
        let ds = dataset(1);
        let facts = kept.of(&ds);
        assert!(Arc::ptr_eq(&facts, &kept.of(&ds.clone())), "the same dataset: the same facts");
        assert_eq!(facts.top_suppliers, vigia_agents::conversation::top_suppliers(&ds, TOP_SUPPLIERS));
        for c in &ds.contracts {
            assert_eq!(facts.contract(&ds, &c.id).map(|f| f.id.as_str()), Some(c.id.as_str()));
        }
        assert!(facts.contract(&ds, "no such contract").is_none());
    }

    #[test]
    fn a_findings_event_is_made_once_per_finding_and_names_its_contract_and_supplier() {
        let ds = dataset(4);
        let facts = KeptFacts::default().of(&ds);
        let params = vigia_agents::DetectionParams::default();
        let (findings, _) =
            vigia_agents::engine::analyse(&ds, &params, &vigia_agents::CancelFlag::new()).expect("the engine runs");
        let a = findings.into_iter().find(|a| a.affected_entities.primary.kind == "contract").map(Arc::new);
        let a = a.expect("demo data has a finding about a contract");
        let found = facts.found(&ds, &a);
        assert!(Arc::ptr_eq(&found, &facts.found(&ds, &a)), "made once for this very finding");
        let contract = ds.contracts.iter().find(|c| c.id == a.affected_entities.primary.id).expect("its contract");
        assert_eq!(found.id, a.id);
        assert_eq!(found.contract_id.as_deref(), Some(contract.id.as_str()));
        assert_eq!(found.supplier.as_deref(), Some(&*contract.supplier.name));
        assert_eq!(found.value, Some(contract.value()));
        let equal = Arc::new((*a).clone());
        let again = facts.found(&ds, &equal);
        assert!(!Arc::ptr_eq(&found, &again) && *found == *again, "an equal finding elsewhere: an equal event");
    }

    #[test]
    fn an_equal_dataset_elsewhere_gets_facts_of_its_own_and_gone_datasets_leave() {
        let kept = KeptFacts::default();
        let (a, b) = (dataset(2), dataset(2));
        assert!(!Arc::ptr_eq(&kept.of(&a), &kept.of(&b)));
        drop(a);
        let c = dataset(3);
        kept.of(&c);
        assert_eq!(kept.0.len(), 2, "the dropped dataset's facts went");
        for n in 0..KEPT + 2 {
            kept.of(&dataset(10 + n as u64));
        }
        assert!(kept.0.len() <= KEPT);
    }
}
