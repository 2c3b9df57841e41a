//! Lampião, the regional analyst: where federal money lands, per state, region and municipality.
//!
//! Method. Agreements are the records whose model says where the money goes (the grantee's
//! `uf`, municipality name and IBGE code); each is placed by [`spending::regional_spending`]
//! (state by acronym or name; municipality by IBGE code, by folded name within the state, or by
//! a name unique in Brazil when no state is given) and its agreed value summed per municipality, state and region.
//! Per-capita figures divide by the state's resident population: the figures the service fetched
//! from IBGE when the dataset carries them ([`crate::model::regional::RegionalFacts`], also
//! municipal populations then), else the 2022 Census figures of the offline table ([`ibge`]);
//! the artifact's `population_source` says which. A state without a known population keeps its
//! total but no per-capita. Inequality across states is
//! measured on per-capita spending weighted by population ([`inequality`]: Gini and Theil T).
//! A state is an outlier when its per-capita is at least [`OUTLIER_RATIO`] times that of the
//! rest of its region (or the rest of its region received nothing). Contracts and expenses carry
//! no region in the model: they are counted as records without region, never guessed.

pub mod ibge;
pub mod inequality;
pub mod spending;

use serde_json::json;

use crate::agents::Agent;
use crate::agents::roster::AgentId;
use crate::cancel::AnalysisError;
use crate::detect::context::AnalysisContext;
use crate::lang::Language;
use crate::model::report::{AgentOutput, Artifact, Insight};
use crate::text::format_brl;
use spending::{RegionalSpending, StateSpending, regional_spending};

/// A state whose per-capita is at least this many times the rest of its region's is an outlier.
pub const OUTLIER_RATIO: f64 = 3.0;
/// Most municipalities listed in the artifact (the rest are summed in `others`).
pub const MAX_MUNICIPALITIES: usize = 100;

/// The regional analyst.
#[derive(Debug, Clone, Copy, Default)]
pub struct Lampiao;

impl Lampiao {
    /// A new regional analyst.
    pub fn new() -> Self {
        Lampiao
    }
}

/// A state far above the rest of its region.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Outlier {
    /// The state.
    pub uf: &'static str,
    /// Its region.
    pub region: &'static str,
    /// Its R$ per inhabitant.
    pub per_capita: f64,
    /// The rest of its region's R$ per inhabitant.
    pub rest_of_region_per_capita: f64,
    /// How many times; `None` when the rest of the region received nothing.
    pub ratio: Option<f64>,
    /// The largest agreements behind it.
    pub records: Vec<String>,
}

/// The states whose per-capita is far above the rest of their region's.
pub fn outliers(r: &RegionalSpending) -> Vec<Outlier> {
    let mut out = Vec::new();
    for s in &r.states {
        let (Some(pc), Some(pop)) = (s.per_capita, s.population) else { continue };
        if s.value <= 0.0 {
            continue;
        }
        let rest: Vec<&StateSpending> =
            r.states.iter().filter(|o| o.region == s.region && o.uf != s.uf && o.population.is_some()).collect();
        let rest_pop: u64 = rest.iter().filter_map(|o| o.population).sum();
        if rest_pop == 0 || pop == 0 {
            continue;
        }
        let rest_pc = rest.iter().map(|o| o.value).sum::<f64>() / rest_pop as f64;
        let ratio = (rest_pc > 0.0).then(|| pc / rest_pc);
        if ratio.is_none_or(|x| x >= OUTLIER_RATIO) {
            out.push(Outlier {
                uf: s.uf,
                region: s.region,
                per_capita: pc,
                rest_of_region_per_capita: rest_pc,
                ratio,
                records: s.top_records.clone(),
            });
        }
    }
    out.sort_by(|a, b| b.ratio.unwrap_or(f64::INFINITY).total_cmp(&a.ratio.unwrap_or(f64::INFINITY)));
    out
}

impl Agent for Lampiao {
    fn id(&self) -> AgentId {
        AgentId::Lampiao
    }

    fn analyse(&self, ctx: &AnalysisContext<'_>) -> Result<AgentOutput, AnalysisError> {
        (ctx.progress)(0.0);
        let r = regional_spending(ctx.dataset, ctx.cancel)?;
        (ctx.progress)(0.7);
        let units = r.state_units();
        let (gini, theil) = (inequality::gini(&units), inequality::theil(&units));
        let found = outliers(&r);
        let mut insights = vec![coverage_insight(&r)];
        if r.coverage.placed > 0 {
            insights.extend(spending_insights(&r, gini, theil));
            insights.extend(found.iter().map(|o| outlier_insight(&r, o)));
        }
        let recommendations = found
            .iter()
            .map(|o| {
                format!(
                    "Verificar os critérios de distribuição dos convênios destinados a {} ({} por habitante), a começar por {}",
                    o.uf,
                    format_brl(o.per_capita),
                    o.records.join(", ")
                )
            })
            .collect();
        let shown = r.municipalities.iter().take(MAX_MUNICIPALITIES);
        let rest = r.municipalities.iter().skip(MAX_MUNICIPALITIES);
        let content = json!({
            "unit": "BRL",
            "value_field": "valor pactuado dos convênios",
            "population_source": r.population_source,
            "population_fetched": r.population_fetched,
            "states": r.states,
            "regions": r.regions,
            "municipalities": shown.collect::<Vec<_>>(),
            "municipalities_others": {
                "count": r.municipalities.len().saturating_sub(MAX_MUNICIPALITIES),
                "value": rest.clone().map(|m| m.value).sum::<f64>(),
                "records": rest.map(|m| m.records).sum::<usize>(),
            },
            "indices": {"gini": gini, "theil": theil, "states_without_population": r.states_without_population()},
            "outliers": found,
            "coverage": r.coverage,
        });
        (ctx.progress)(1.0);
        Ok(AgentOutput {
            anomalies: Vec::new(),
            insights,
            recommendations,
            artifacts: vec![Artifact { kind: "regional".into(), title: "Gastos por região".into(), content }],
        })
    }
}

/// An insight written by `text` in both languages.
fn say(text: impl Fn(Language) -> String, confidence: f64) -> Insight {
    crate::agents::insight_in_both(AgentId::Lampiao, text, confidence)
}

/// What was placed and what could not be.
fn coverage_insight(r: &RegionalSpending) -> Insight {
    let c = &r.coverage;
    say(
        |l| {
            let biddings = if c.biddings_with_region + c.biddings_without_region == 0 {
                String::new()
            } else {
                let all = c.biddings_with_region + c.biddings_without_region;
                if l.is_en() {
                    format!(
                        "; {} of {all} bidding processes give a state, counted but not summed (their value is the \
                         process's estimate)",
                        c.biddings_with_region
                    )
                } else {
                    format!(
                        "; {} de {all} licitações trazem UF, contadas mas não somadas (o valor é a estimativa do \
                         processo)",
                        c.biddings_with_region
                    )
                }
            };
            let contracts = l.count(c.contracts_without_region, ("contrato", "contratos"), ("contract", "contracts"));
            let expenses = l.count(c.expenses_without_region, ("despesa", "despesas"), ("expense", "expenses"));
            let (placed, unplaced) = (l.brl(c.placed_value), l.brl(c.agreements_without_region_value));
            let (n, all, none) = (c.placed, c.agreements, c.agreements_without_region);
            if l.is_en() {
                format!(
                    "{n} of {all} agreements placed in a state ({placed}); {none} with no recognisable state or \
                     municipality ({unplaced}); {contracts} and {expenses} carry no region in the data and stay out \
                     of the regional analysis{biddings}"
                )
            } else {
                format!(
                    "{n} de {all} convênios localizados por UF ({placed}); {none} sem UF nem município reconhecível \
                     ({unplaced}); {contracts} e {expenses} não trazem região nos dados e ficam fora da análise \
                     regional{biddings}"
                )
            }
        },
        0.95,
    )
}

/// Per-capita leaders, regions and the inequality indices.
fn spending_insights(r: &RegionalSpending, gini: Option<f64>, theil: Option<f64>) -> Vec<Insight> {
    let mut out = Vec::new();
    let mut ranked: Vec<&StateSpending> = r.states.iter().filter(|s| s.per_capita.is_some()).collect();
    ranked.sort_by(|a, b| b.per_capita.unwrap_or(0.0).total_cmp(&a.per_capita.unwrap_or(0.0)));
    let with_money = ranked.iter().filter(|s| s.value > 0.0).count();
    out.push(say(
        |l| {
            let per_person = l.pick("por habitante", "per inhabitant");
            let top: Vec<String> = ranked
                .iter()
                .filter(|s| s.value > 0.0)
                .take(3)
                .map(|s| format!("{} ({} {per_person}, {})", s.uf, l.brl(s.per_capita.unwrap_or(0.0)), l.brl(s.value)))
                .collect();
            if l.is_en() {
                format!(
                    "Highest per-capita values: {}; {with_money} of the {} states with a known population received \
                     agreements",
                    top.join("; "),
                    ranked.len()
                )
            } else {
                format!(
                    "Maiores valores per capita: {}; {with_money} das {} UFs com população conhecida receberam \
                     convênios",
                    top.join("; "),
                    ranked.len()
                )
            }
        },
        0.9,
    ));
    out.push(say(
        |l| {
            let regions: Vec<String> = r
                .regions
                .iter()
                .map(|g| match g.per_capita {
                    Some(pc) => format!(
                        "{} {} ({} {})",
                        l.region(g.code, g.name),
                        l.brl(g.value),
                        l.brl(pc),
                        l.pick("por habitante", "per inhabitant")
                    ),
                    None => format!("{} {}", l.region(g.code, g.name), l.brl(g.value)),
                })
                .collect();
            format!("{}: {}", l.pick("Por região", "By region"), regions.join("; "))
        },
        0.9,
    ));
    if let (Some(g), Some(t)) = (gini, theil) {
        out.push(say(
            |l| {
                let (g, t) = (l.dec(g, 3), l.dec(t, 3));
                if l.is_en() {
                    format!(
                        "Inequality of per-capita value across the states (weighted by population): Gini index {g}, \
                         Theil index {t}; states without agreements count as zero"
                    )
                } else {
                    format!(
                        "Desigualdade do valor per capita entre as UFs (ponderada pela população): índice de Gini {g} \
                         e de Theil {t}; UFs sem convênios contam como zero"
                    )
                }
            },
            0.85,
        ));
    }
    if let Some(m) = r.municipalities.first() {
        let share = m.value / r.coverage.placed_value.max(f64::MIN_POSITIVE);
        let n = r.municipalities.len();
        out.push(say(
            |l| {
                let (value, pct) = (l.brl(m.value), l.pct(share));
                if l.is_en() {
                    format!(
                        "{n} municipalities identified; the largest destination is {}-{} (IBGE code {}), with {value} \
                         ({pct} of the placed value)",
                        m.name, m.uf, m.code
                    )
                } else {
                    format!(
                        "{n} municípios identificados; o maior destino é {}-{} (código IBGE {}), com {value} ({pct} \
                         do valor localizado)",
                        m.name, m.uf, m.code
                    )
                }
            },
            0.9,
        ));
    }
    let mut per_person: Vec<_> = r.municipalities.iter().filter(|m| m.per_capita.is_some()).collect();
    if !per_person.is_empty() {
        per_person.sort_by(|a, b| b.per_capita.unwrap_or(0.0).total_cmp(&a.per_capita.unwrap_or(0.0)));
        let (known, n, source) = (per_person.len(), r.municipalities.len(), &r.population_source);
        out.push(say(
            |l| {
                let top: Vec<String> = per_person
                    .iter()
                    .take(3)
                    .map(|m| {
                        let pc = l.brl(m.per_capita.unwrap_or(0.0));
                        format!("{}-{} ({pc} {})", m.name, m.uf, l.pick("por habitante", "per inhabitant"))
                    })
                    .collect();
                if l.is_en() {
                    format!(
                        "Municipal per capita ({known} of {n} municipalities with a known population, {source}): \
                         highest {}",
                        top.join("; ")
                    )
                } else {
                    format!(
                        "Per capita municipal ({known} de {n} municípios com população conhecida, {source}): maiores {}",
                        top.join("; ")
                    )
                }
            },
            0.85,
        ));
    }
    out
}

fn outlier_insight(r: &RegionalSpending, o: &Outlier) -> Insight {
    let name = r.regions.iter().find(|g| g.code == o.region).map_or(o.region, |g| g.name);
    say(
        |l| {
            let region = l.region(o.region, name);
            let (pc, rest) = (l.brl(o.per_capita), l.brl(o.rest_of_region_per_capita));
            let records = o.records.join(", ");
            match (l.is_en(), o.ratio) {
                (false, Some(x)) => format!(
                    "{} recebeu {pc} por habitante, {} vezes os {rest} por habitante do restante da região {region}; \
                     maiores convênios: {records}",
                    o.uf,
                    l.dec(x, 1)
                ),
                (false, None) => format!(
                    "{} recebeu {pc} por habitante, enquanto o restante da região {region} não recebeu convênios; \
                     maiores convênios: {records}",
                    o.uf
                ),
                (true, Some(x)) => format!(
                    "{} received {pc} per inhabitant, {} times the {rest} per inhabitant of the rest of the \
                     {region} region; largest agreements: {records}",
                    o.uf,
                    l.dec(x, 1)
                ),
                (true, None) => format!(
                    "{} received {pc} per inhabitant, while the rest of the {region} region received no \
                     agreements; largest agreements: {records}",
                    o.uf
                ),
            }
        },
        0.8,
    )
}

#[cfg(test)]
mod tests;
