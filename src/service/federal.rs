//! `/api/v1/federal/*`: IBGE demographics, PNCP contracts, DataSUS health establishments and
//! INEP's education datasets, each through its own client in production mode. In demo mode the
//! offline IBGE table (or, for PNCP, the demo contracts) answers with `demo_mode: true`; when a
//! source fails for a reason other than the request itself, the same answer comes with
//! `data_status: completed_fallback` and a warning naming the cause.

use std::collections::HashMap;

use chrono::{Duration, Utc};
use serde_json::{Value, json};
use vigia_agents::agents::lampiao::ibge::{Ibge, tables};
use vigia_agents::agents::lampiao::spending::OFFLINE_POPULATION_SOURCE;

use super::federal_demo::{DemoCache, json_bytes, pncp_records};
pub use super::federal_params::{Mode, Query, answer, upstream_failure};
use crate::config::DemoConfig;
use crate::error::{Error, Result};
use crate::upstream::federal::FederalSources;
use crate::upstream::federal::datasus::EstablishmentsQuery;
use crate::upstream::federal::ibge::{Places, Population};
use crate::upstream::federal::pncp::ContractsQuery;
use crate::upstream::federal::regional::IBGE_POPULATION_SOURCE;

/// Demo PNCP pages held at most (one per distinct period asked).
const DEMO_ENTRIES: usize = 16;
/// Bytes of demo PNCP records held at most (as JSON).
const DEMO_BYTES: usize = 32 << 20;

/// The federal routes' service.
pub struct FederalService {
    sources: Option<FederalSources>,
    demo: DemoConfig,
    /// PNCP-shaped demo contracts by period: generated once per period, then served from here.
    demo_pncp: DemoCache<Vec<Value>>,
}

/// The place a demographics or health request is about.
enum Place {
    Country,
    State(&'static str),
    Municipality(u32),
}

impl FederalService {
    /// Production mode when `sources` is given.
    pub fn new(sources: Option<FederalSources>, demo: DemoConfig) -> Self {
        FederalService { sources, demo, demo_pncp: DemoCache::new(DEMO_ENTRIES, DEMO_BYTES) }
    }

    /// `GET /federal/ibge/demographics?uf=&municipio=&ano=`.
    pub async fn demographics(&self, q: &Query) -> Result<Value> {
        let place = place(q)?;
        let year = q.year("ano")?;
        let Some(s) = &self.sources else { return Ok(offline_demographics(&place, Mode::Demo)) };
        let t = tables();
        let fetched = match &place {
            Place::Country => s.ibge.population(&Places::States, year).await.map(|p| (p.value, p.cache_hit, None)),
            Place::State(uf) => {
                // The list of municipalities and their figures are independent: asked together.
                let within = Places::MunicipalitiesOf(uf_code(t, uf));
                let (names, figures) = futures::join!(s.ibge.municipalities(uf), s.ibge.population(&within, year));
                match (names, figures) {
                    (Ok(n), Ok(p)) => Ok((p.value, p.cache_hit && n.cache_hit, Some(n.value))),
                    (Err(e), _) | (_, Err(e)) => Err(e),
                }
            }
            Place::Municipality(code) => {
                s.ibge.population(&Places::Municipality(*code), year).await.map(|p| (p.value, p.cache_hit, None))
            }
        };
        match fetched {
            Ok((rows, cache_hit, names)) => {
                let places: Vec<Value> = match names {
                    // A state's municipalities as localidades lists them, each with its figure
                    // when the aggregates have one.
                    Some(names) => {
                        let by_code: HashMap<u32, &Population> = rows.iter().map(|p| (p.code, p)).collect();
                        names
                            .iter()
                            .map(|l| {
                                let p = by_code.get(&l.code);
                                json!({"code": l.code, "name": l.name, "uf": l.uf,
                                    "population": p.map(|p| p.population), "year": p.map(|p| p.year)})
                            })
                            .collect()
                    }
                    None => rows.iter().map(|p| place_json(t, p)).collect(),
                };
                Ok(answer(
                    json!({"level": level(&place), "places": places}),
                    Mode::Production { source: "ibge_api", cache_hit },
                    json!({"count": places.len(), "population_source": IBGE_POPULATION_SOURCE}),
                ))
            }
            Err(e) => Ok(offline_demographics(&place, Mode::Fallback(upstream_failure(e)?))),
        }
    }

    /// `GET /federal/pncp/contracts?data_inicial=&data_final=&pagina=&tamanho_pagina=&cnpj_orgao=&codigo_unidade=`.
    pub async fn pncp_contracts(&self, q: &Query) -> Result<Value> {
        let to = q.date("data_final")?.unwrap_or_else(|| Utc::now().date_naive());
        let from = q.date("data_inicial")?.unwrap_or(to - Duration::days(30));
        let query = ContractsQuery {
            from,
            to,
            page: q.page("pagina")?,
            page_size: q.int("tamanho_pagina", 10..=500)?.unwrap_or(10),
            cnpj_orgao: q.digits("cnpj_orgao", 14)?,
            unit: q.get("codigo_unidade").map(str::to_string),
        };
        if let Some((field, reason)) = query.problem() {
            return Err(Error::validation(field, reason));
        }
        let period = json!({"data_inicial": from.to_string(), "data_final": to.to_string()});
        let Some(s) = &self.sources else { return self.demo_pncp(&query, Mode::Demo, period).await };
        match s.pncp.contracts(&query).await {
            Ok(got) => {
                let p = got.value;
                Ok(answer(
                    Value::Array(p.data),
                    Mode::Production { source: "pncp_api", cache_hit: got.cache_hit },
                    json!({"page": query.page, "page_size": query.page_size, "total_records": p.total_records,
                        "total_pages": p.total_pages, "remaining_pages": p.remaining_pages, "period": period}),
                ))
            }
            Err(e) => self.demo_pncp(&query, Mode::Fallback(upstream_failure(e)?), period).await,
        }
    }

    async fn demo_pncp(&self, q: &ContractsQuery, mode: Mode, period: Value) -> Result<Value> {
        let (seed, records) = (self.demo.seed, self.demo.records);
        let years: Vec<i32> = (chrono::Datelike::year(&q.from)..=chrono::Datelike::year(&q.to)).collect();
        let (from, to) = (q.from, q.to);
        let key = format!("{seed}|{records}|{from}|{to}");
        let (rows, hit) = self
            .demo_pncp
            .get_or_make(key, move || {
                let rows = pncp_records(seed, records, &years, from, to);
                let bytes = json_bytes(&rows);
                (rows, bytes)
            })
            .await?;
        let total = rows.len() as u64;
        let size = q.page_size as usize;
        let shown: Vec<Value> = rows.iter().skip((q.page as usize - 1) * size).take(size).cloned().collect();
        let pages = total.div_ceil(size as u64);
        Ok(answer(
            Value::Array(shown),
            mode,
            json!({"page": q.page, "page_size": q.page_size, "total_records": total, "total_pages": pages,
                "remaining_pages": pages.saturating_sub(q.page.into()), "period": period,
                "demo_cache": self.demo_pncp.figures(hit),
                "notice": "[DEMO] contratos sintéticos no formato do PNCP, não registros reais"}),
        ))
    }

    /// `GET /federal/datasus/health-metrics?uf=&municipio=&tipo_unidade=&pagina=`.
    pub async fn health_metrics(&self, q: &Query) -> Result<Value> {
        let place = place(q)?;
        let t = tables();
        let query = EstablishmentsQuery {
            uf_code: match &place {
                Place::State(uf) => Some(uf_code(t, uf)),
                _ => None,
            },
            municipality: match &place {
                Place::Municipality(code) => Some(*code),
                _ => None,
            },
            unit_type: q.int("tipo_unidade", 1..=99)?,
            page: q.page("pagina")?,
        };
        if matches!(place, Place::Country) {
            return Err(Error::validation("uf", "required: a state (uf) or a municipality (municipio)"));
        }
        let offline = |mode| {
            answer(
                json!({"place": offline_place(&place), "establishments": [], "by_unit_type": {}, "available": false}),
                mode,
                json!({"page": query.page, "source": "ibge_offline_table",
                    "note": "DataSUS was not reached: the place is the offline table's, no establishment figures are shown"}),
            )
        };
        let Some(s) = &self.sources else { return Ok(offline(Mode::Demo)) };
        match s.datasus.establishments(&query).await {
            Ok(got) => Ok(answer(
                json!({"place": offline_place(&place), "establishments": got.value.establishments,
                    "by_unit_type": got.value.by_unit_type, "available": true}),
                Mode::Production { source: "datasus_cnes_api", cache_hit: got.cache_hit },
                json!({"page": query.page, "page_size": crate::upstream::federal::datasus::PAGE_SIZE,
                    "has_more": got.value.more}),
            )),
            Err(e) => Ok(offline(Mode::Fallback(upstream_failure(e)?))),
        }
    }

    /// `GET /federal/inep/education-stats?tema=&limite=`.
    pub async fn education_stats(&self, q: &Query) -> Result<Value> {
        let theme = q.get("tema").unwrap_or("censo escolar").to_string();
        let rows = q.int("limite", 1..=50)?.unwrap_or(10);
        let offline = |mode| {
            answer(
                json!({"theme": theme, "datasets": [], "available": false}),
                mode,
                json!({"source": "none", "note": "INEP's catalogue was not reached: no datasets are listed"}),
            )
        };
        let Some(s) = &self.sources else { return Ok(offline(Mode::Demo)) };
        match s.inep.datasets(&theme, rows).await {
            Ok(got) => Ok(answer(
                json!({"theme": theme, "datasets": got.value.1, "available": true}),
                Mode::Production { source: "inep_catalogue", cache_hit: got.cache_hit },
                json!({"count": got.value.1.len(), "total": got.value.0}),
            )),
            Err(e) => Ok(offline(Mode::Fallback(upstream_failure(e)?))),
        }
    }
}

/// The place named by `uf` or `municipio` (not both).
fn place(q: &Query) -> Result<Place> {
    let t = tables();
    match (q.get("uf"), q.get("municipio")) {
        (Some(_), Some(_)) => Err(Error::validation("municipio", "give uf or municipio, not both")),
        (Some(uf), None) => {
            t.state(uf).map(|s| Place::State(s.uf)).ok_or_else(|| Error::validation("uf", "a state acronym or name"))
        }
        (None, Some(m)) => match t.municipality(m, None) {
            Some((m, vigia_agents::agents::lampiao::ibge::Resolution::Code)) => Ok(Place::Municipality(m.code)),
            _ => Err(Error::validation("municipio", "a municipality's 7-digit IBGE code")),
        },
        (None, None) => Ok(Place::Country),
    }
}

fn level(p: &Place) -> &'static str {
    match p {
        Place::Country => "states",
        Place::State(_) => "municipalities",
        Place::Municipality(_) => "municipality",
    }
}

/// A state's 2-digit IBGE code (0 for an acronym the table does not know, which never reaches
/// here: places are resolved through the table first).
fn uf_code(t: &Ibge, uf: &str) -> u32 {
    t.uf_code(uf).unwrap_or(0)
}

fn place_json(t: &Ibge, p: &Population) -> Value {
    if p.code < 100 {
        let s = t.uf_of_code(p.code).and_then(|uf| t.state(uf));
        json!({"code": p.code, "uf": s.map(|s| s.uf), "name": p.name, "region": s.map(|s| s.region),
            "population": p.population, "year": p.year})
    } else {
        let m = t.municipality(&p.code.to_string(), None).map(|m| m.0);
        json!({"code": p.code, "name": m.map_or(p.name.as_str(), |m| m.name), "uf": m.map(|m| m.uf),
            "population": p.population, "year": p.year})
    }
}

fn offline_place(p: &Place) -> Value {
    let t = tables();
    match p {
        Place::Country => json!({"level": "country"}),
        Place::State(uf) => {
            let s = t.state(uf);
            json!({"level": "state", "uf": uf, "code": uf_code(t, uf), "name": s.map(|s| s.name), "region": s.map(|s| s.region)})
        }
        Place::Municipality(code) => {
            let m = t.municipality(&code.to_string(), None).map(|m| m.0);
            json!({"level": "municipality", "code": code, "name": m.map(|m| m.name), "uf": m.map(|m| m.uf)})
        }
    }
}

/// Demographics from the offline table: states with their population (Censo 2022 as written
/// in the table), municipalities without (the table has none).
fn offline_demographics(p: &Place, mode: Mode) -> Value {
    let t = tables();
    let places: Vec<Value> = match p {
        Place::Country => t
            .states
            .iter()
            .map(|s| {
                json!({"code": uf_code(t, s.uf), "uf": s.uf, "name": s.name, "region": s.region,
                "population": s.population, "year": 2022})
            })
            .collect(),
        Place::State(uf) => t
            .municipalities
            .iter()
            .filter(|m| m.uf == *uf)
            .map(|m| json!({"code": m.code, "name": m.name, "uf": m.uf, "population": null, "year": null}))
            .collect(),
        Place::Municipality(_) => {
            let mut v = offline_place(p);
            v["population"] = Value::Null;
            vec![v]
        }
    };
    answer(
        json!({"level": level(p), "places": places}),
        mode,
        json!({"count": places.len(), "source": "ibge_offline_table", "population_source": OFFLINE_POPULATION_SOURCE,
            "population_note": "the offline table has state populations only; municipal populations need the IBGE API (production mode)"}),
    )
}
