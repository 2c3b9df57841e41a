//! The regional facts lampião and dandara read in production: population by state and
//! municipality and the 2022 Census literacy rate by state from IBGE, attached to every batch
//! of real records a [`DataProvider`] fetches.
//! Demo batches (demo mode, or a fallback) keep `regional: None` and the analysts use the
//! offline table; an IBGE failure is logged with its class and the batch goes on without facts.

use std::sync::Arc;

use futures::FutureExt;
use futures::future::BoxFuture;
use vigia_agents::agents::lampiao::ibge::tables;
use vigia_agents::model::regional::{Indicator, RegionalFacts};

use super::FederalSources;
use super::ibge::{IbgeClient, Places};
use crate::domain::ports::{DataBatch, DataProvider, DataQuery, PortError};

/// How the IBGE aggregates' population figures are cited.
pub const IBGE_POPULATION_SOURCE: &str = "IBGE API, agregado 6579, variável 9324 (população residente estimada)";

/// A provider whose production batches carry IBGE's population figures.
pub struct WithRegionalFacts<P> {
    inner: Arc<P>,
    ibge: Option<IbgeClient>,
}

impl<P> WithRegionalFacts<P> {
    /// Over `inner`; without sources (demo mode) batches pass unchanged.
    pub fn new(inner: Arc<P>, sources: Option<&FederalSources>) -> Self {
        WithRegionalFacts { inner, ibge: sources.map(|s| s.ibge.clone()) }
    }
}

impl<P: DataProvider> DataProvider for WithRegionalFacts<P> {
    fn fetch<'a>(&'a self, query: &'a DataQuery) -> BoxFuture<'a, Result<DataBatch, PortError>> {
        async move {
            let mut batch = self.inner.fetch(query).await?;
            if let Some(ibge) = &self.ibge
                && !batch.provenance.demo_mode
            {
                Arc::make_mut(&mut batch.dataset).regional = regional_facts(ibge).await;
            }
            Ok(batch)
        }
        .boxed()
    }
}

/// How the literacy rate is cited.
pub const IBGE_LITERACY_SOURCE: &str = "IBGE, Censo 2022, agregado 9543, variável 2513";

/// Population by state (required), by municipality and the literacy rate by state (best
/// effort) from IBGE, latest figures.
pub async fn regional_facts(ibge: &IbgeClient) -> Option<Arc<RegionalFacts>> {
    let t = tables();
    let (states, cities, literacy) = futures::join!(
        ibge.population(&Places::States, None),
        ibge.population(&Places::AllMunicipalities, None),
        ibge.literacy(&Places::States)
    );
    let states = match states {
        Ok(p) => p.value,
        Err(e) => {
            tracing::warn!(class = e.class(), error = %e, "IBGE population unavailable; the offline table serves");
            return None;
        }
    };
    let year = states.iter().map(|p| p.year).max();
    let state_population =
        states.iter().filter_map(|p| Some((t.uf_of_code(p.code)?.to_string(), p.population))).collect();
    let municipal_population = match cities {
        Ok(p) => p.value.iter().map(|p| (p.code, p.population)).collect(),
        Err(e) => {
            tracing::warn!(class = e.class(), error = %e, "IBGE municipal population unavailable");
            Default::default()
        }
    };
    let indicators = match literacy {
        Ok(f) => vec![Indicator {
            key: "literacy_rate".into(),
            name: "taxa de alfabetização (15 anos ou mais, %)".into(),
            area: "education".into(),
            source: IBGE_LITERACY_SOURCE.into(),
            by_state: f.value.iter().filter_map(|f| Some((t.uf_of_code(f.code)?.to_string(), f.value))).collect(),
            rate: true,
        }],
        Err(e) => {
            tracing::warn!(class = e.class(), error = %e, "IBGE literacy rate unavailable");
            Vec::new()
        }
    };
    Some(Arc::new(RegionalFacts {
        population_source: format!("{IBGE_POPULATION_SOURCE}{}", year.map_or(String::new(), |y| format!(", {y}"))),
        population_year: year,
        state_population,
        municipal_population,
        indicators,
    }))
}
