//! `/api/v1/transparency/{contracts, expenses, agreements}`: one page of the Portal da
//! Transparência's records through the service's own filters. The filters are checked first
//! (the upstream's minimum filters included, so a request it would refuse is a 400 here in
//! both modes), then mapped to the upstream's parameters. Production mode reads the page
//! through the keyed client; demo mode, or a production call that fails for a reason other
//! than the request itself (5xx after retries, timeout, 429, 403, malformed body), answers from
//! the demo data with `data_status: completed_fallback` and a warning naming the cause. An
//! upstream 400 is the request's fault and comes back as the validation error envelope.

use chrono::{Datelike, NaiveDate, Utc};
use serde_json::{Value, json};
use vigia_agents::Dataset;
use vigia_agents::demo::{DemoSpec, generate};
use vigia_agents::model::agreement::agreement_to_upstream;
use vigia_agents::model::expense::expense_to_upstream;
use vigia_agents::model::upstream::{contract_to_upstream, parse_money};

use super::federal::{Mode, Query, answer, upstream_failure};
use super::federal_demo::{DemoCache, json_bytes};
use crate::config::DemoConfig;
use crate::error::{Error, Result};
use crate::upstream::federal::FederalSources;
use crate::upstream::federal::portal::{Endpoint, PAGE_SIZE, dmy, period};

/// The record kinds the routes page through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Records {
    /// `/contratos`.
    Contracts,
    /// `/despesas/documentos`.
    Expenses,
    /// `/convenios`.
    Agreements,
}

impl Records {
    fn endpoint(self) -> Endpoint {
        match self {
            Records::Contracts => Endpoint::Contracts,
            Records::Expenses => Endpoint::Expenses,
            Records::Agreements => Endpoint::Agreements,
        }
    }
}

/// Demo datasets held at most (one per distinct organ and year asked).
const DEMO_ENTRIES: usize = 8;
/// Bytes of demo datasets held at most (as their JSON would weigh).
const DEMO_BYTES: usize = 64 << 20;

/// The transparency routes' service.
pub struct TransparencyService {
    sources: Option<FederalSources>,
    demo: DemoConfig,
    /// Demo datasets by organ and year: generated once each, then filtered per request.
    demo_data: DemoCache<Dataset>,
}

/// A validated request: the upstream parameters, the client-side minimum value and the page.
struct Request {
    kind: Records,
    params: Vec<(&'static str, String)>,
    min_value: Option<f64>,
    page: u32,
    organ: Option<String>,
    year: Option<i32>,
}

impl TransparencyService {
    /// Production mode when `sources` is given.
    pub fn new(sources: Option<FederalSources>, demo: DemoConfig) -> Self {
        TransparencyService { sources, demo, demo_data: DemoCache::new(DEMO_ENTRIES, DEMO_BYTES) }
    }

    /// One page of `kind`'s records filtered by `q`: `{data, meta}`.
    pub async fn page(&self, kind: Records, q: &Query) -> Result<Value> {
        let req = request(kind, q)?;
        let Some(sources) = &self.sources else {
            return self.demo_page(&req, Mode::Demo).await;
        };
        match sources.portal.page(kind.endpoint(), &req.params).await {
            Ok(got) => {
                let total = got.value.len();
                let rows: Vec<Value> = got.value.into_iter().filter(|r| at_least(kind, r, req.min_value)).collect();
                Ok(answer(
                    Value::Array(rows.clone()),
                    Mode::Production { source: "portal_transparencia_api", cache_hit: got.cache_hit },
                    json!({"page": req.page, "page_size": PAGE_SIZE, "count": rows.len(), "upstream_count": total,
                        "has_more": total >= PAGE_SIZE, "filters": upstream_filters(&req.params)}),
                ))
            }
            Err(e) => {
                let cause = upstream_failure(e)?;
                self.demo_page(&req, Mode::Fallback(cause)).await
            }
        }
    }

    async fn demo_page(&self, req: &Request, mode: Mode) -> Result<Value> {
        let spec = DemoSpec {
            seed: self.demo.seed,
            contracts: self.demo.records,
            organ_codes: req.organ.iter().cloned().collect(),
            year: req.year,
        };
        let key = format!("{spec:?}");
        let (ds, hit) = self
            .demo_data
            .get_or_make(key, move || {
                let ds = generate(&spec).dataset;
                let bytes = json_bytes(&ds);
                (ds, bytes)
            })
            .await?;
        let get = |k: &str| req.params.iter().find(|(n, _)| *n == k).map(|(_, v)| v.as_str());
        let period = period_of(get("dataInicial"), get("dataFinal"));
        let in_period = |d: Option<NaiveDate>| period.is_none_or(|(a, b)| d.is_some_and(|d| d >= a && d <= b));
        let rows: Vec<Value> = match req.kind {
            Records::Contracts => {
                ds.contracts.iter().filter(|c| in_period(c.signed_on)).map(contract_to_upstream).collect()
            }
            Records::Expenses => {
                let day = get("dataEmissao").and_then(|d| NaiveDate::parse_from_str(d, "%d/%m/%Y").ok());
                let phase = get("fase").map(phase_name);
                ds.expenses
                    .iter()
                    .filter(|e| e.date == day && phase.is_none_or(|p| *e.phase == *p))
                    .filter(|e| get("unidadeGestora").is_none_or(|u| *e.unit.code == *u))
                    .filter(|e| get("gestao").is_none_or(|g| e.id.get(6..11) == Some(g)))
                    .map(expense_to_upstream)
                    .collect()
            }
            Records::Agreements => ds
                .agreements
                .iter()
                .filter(|a| in_period(a.valid_from))
                .filter(|a| get("uf").is_none_or(|u| agreement_uf(a) == Some(u)))
                .filter(|a| get("codigoIBGE").is_none_or(|c| a.municipality_code == c))
                .filter(|a| get("numero").is_none_or(|n| a.number == n))
                .filter(|a| get("codigoOrgao").is_none_or(|o| *a.organ.code == *o))
                .map(agreement_to_upstream)
                .collect(),
        };
        let text_field = match req.kind {
            Records::Contracts => "/objeto",
            Records::Expenses => "/observacao",
            Records::Agreements => "/dimConvenio/objeto",
        };
        let rows: Vec<Value> = rows
            .into_iter()
            .filter(|r| at_least(req.kind, r, req.min_value))
            .map(|mut r| {
                // Demo records say so in their own text, as demo results do everywhere.
                if let Some(Value::String(t)) = r.pointer_mut(text_field) {
                    *t = format!("[DEMO] {t}");
                }
                r
            })
            .collect();
        let total = rows.len();
        let start = (req.page as usize - 1) * PAGE_SIZE;
        let shown: Vec<Value> = rows.into_iter().skip(start).take(PAGE_SIZE).collect();
        Ok(answer(
            Value::Array(shown.clone()),
            mode,
            json!({"page": req.page, "page_size": PAGE_SIZE, "count": shown.len(), "total": total,
                "has_more": start + PAGE_SIZE < total, "filters": upstream_filters(&req.params),
                "demo_cache": self.demo_data.figures(hit),
                "notice": "[DEMO] dados sintéticos gerados pelo serviço, não registros reais"}),
        ))
    }
}

/// The request's filters checked and mapped to the upstream's parameters.
fn request(kind: Records, q: &Query) -> Result<Request> {
    let page = q.page("pagina")?;
    let min_value = q.number("valor_inicial")?.or(q.number("valor_minimo")?);
    if min_value.is_some_and(|v| v < 0.0) {
        return Err(Error::validation("valor_inicial", "a value of at least 0"));
    }
    let mut params: Vec<(&'static str, String)> = vec![("pagina", page.to_string())];
    let organ = q.digits("codigo_orgao", 5)?;
    let (mut year, month) = (q.year("ano")?, q.month("mes")?);
    if month.is_some() && year.is_none() {
        return Err(Error::validation("mes", "a month needs its year (ano)"));
    }
    match kind {
        Records::Contracts => {
            let organ = organ
                .clone()
                .ok_or_else(|| Error::validation("codigo_orgao", "required: the organ's 5-digit SIAFI code"))?;
            params.push(("codigoOrgao", organ));
            year = Some(year.unwrap_or_else(|| Utc::now().year()));
        }
        Records::Expenses => {
            let day = q
                .date("data")?
                .ok_or_else(|| Error::validation("data", "required: the day of the documents (YYYY-MM-DD)"))?;
            let phase = q
                .get("fase")
                .ok_or_else(|| Error::validation("fase", "required: 1 empenho, 2 liquidação, 3 pagamento"))?;
            let phase = match phase.to_lowercase().as_str() {
                "1" | "empenho" => "1",
                "2" | "liquidacao" | "liquidação" => "2",
                "3" | "pagamento" => "3",
                _ => return Err(Error::validation("fase", "1 empenho, 2 liquidação or 3 pagamento")),
            };
            let (ug, gestao) = (q.digits("unidade_gestora", 6)?, q.digits("gestao", 5)?);
            if ug.is_none() && gestao.is_none() {
                return Err(Error::validation(
                    "unidade_gestora",
                    "required: unidade_gestora (6 digits) or gestao (5 digits)",
                ));
            }
            params.push(("dataEmissao", dmy(day)));
            params.push(("fase", phase.to_string()));
            params.extend(ug.map(|u| ("unidadeGestora", u)));
            params.extend(gestao.map(|g| ("gestao", g)));
            year = Some(day.year());
        }
        Records::Agreements => {
            let uf = q.get("uf").map(|u| u.trim().to_uppercase());
            if let Some(uf) = &uf
                && vigia_agents::agents::lampiao::ibge::tables().state(uf).is_none_or(|s| s.uf != uf)
            {
                return Err(Error::validation("uf", "a state acronym (MG, SP, ...)"));
            }
            let ibge = q.digits("codigo_ibge", 7)?;
            let number = q.get("numero").map(str::to_string);
            if uf.is_none() && ibge.is_none() && organ.is_none() && number.is_none() {
                return Err(Error::validation("uf", "required: one of uf, codigo_ibge, codigo_orgao or numero"));
            }
            params.extend(uf.map(|u| ("uf", u)));
            params.extend(ibge.map(|c| ("codigoIBGE", c)));
            params.extend(organ.clone().map(|o| ("codigoOrgao", o)));
            params.extend(number.map(|n| ("numero", n)));
            params.extend(q.get("convenente").map(|c| ("convenente", c.to_string())));
            params.extend(q.get("situacao").map(|s| ("situacao", s.to_string())));
        }
    }
    if kind != Records::Expenses
        && let Some(y) = year
    {
        let (from, to) = period(y, month);
        params.push(("dataInicial", dmy(from)));
        params.push(("dataFinal", dmy(to)));
    }
    Ok(Request { kind, params, min_value, page, organ, year })
}

fn period_of(from: Option<&str>, to: Option<&str>) -> Option<(NaiveDate, NaiveDate)> {
    let d = |s: &str| NaiveDate::parse_from_str(s, "%d/%m/%Y").ok();
    Some((d(from?)?, d(to?)?))
}

/// The state of a demo agreement: its `uf`, else its municipality's when the name is unique in
/// Brazil (demo grantees name their city only), as lampião places them.
fn agreement_uf(a: &vigia_agents::model::agreement::Agreement) -> Option<&'static str> {
    let t = vigia_agents::agents::lampiao::ibge::tables();
    t.state(&a.uf).map(|s| s.uf).or_else(|| t.municipality(&a.municipality, None).map(|m| m.0.uf))
}

/// The upstream's name of a phase code.
fn phase_name(code: &str) -> &'static str {
    match code {
        "1" => "Empenho",
        "2" => "Liquidação",
        _ => "Pagamento",
    }
}

/// Whether a record's value reaches the minimum (records without a readable value do not).
fn at_least(kind: Records, record: &Value, min: Option<f64>) -> bool {
    let Some(min) = min else { return true };
    let field = match kind {
        Records::Contracts => "valorInicialCompra",
        Records::Expenses | Records::Agreements => "valor",
    };
    record.get(field).and_then(parse_money).is_some_and(|v| v >= min)
}

/// The upstream parameters sent, for the answer's meta.
fn upstream_filters(params: &[(&'static str, String)]) -> Value {
    Value::Object(params.iter().map(|(k, v)| (k.to_string(), Value::String(v.clone()))).collect())
}
