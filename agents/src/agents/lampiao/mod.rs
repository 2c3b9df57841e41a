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
use crate::model::report::{AgentOutput, Artifact, Insight};
use crate::text::{count_of, format_brl, format_decimal, format_pct};
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

fn say(text: String, confidence: f64) -> Insight {
    crate::agents::insight(AgentId::Lampiao, text, confidence, &[])
}

/// What was placed and what could not be.
fn coverage_insight(r: &RegionalSpending) -> Insight {
    let c = &r.coverage;
    let biddings = if c.biddings_with_region + c.biddings_without_region == 0 {
        String::new()
    } else {
        format!(
            "; {} de {} licitações trazem UF, contadas mas não somadas (o valor é a estimativa do processo)",
            c.biddings_with_region,
            c.biddings_with_region + c.biddings_without_region
        )
    };
    say(
        format!(
            "{} de {} convênios localizados por UF ({}); {} sem UF nem município reconhecível ({}); {} e {} não \
             trazem região nos dados e ficam fora da análise regional{}",
            c.placed,
            c.agreements,
            format_brl(c.placed_value),
            c.agreements_without_region,
            format_brl(c.agreements_without_region_value),
            count_of(c.contracts_without_region, "contrato", "contratos"),
            count_of(c.expenses_without_region, "despesa", "despesas"),
            biddings
        ),
        0.95,
    )
}

/// Per-capita leaders, regions and the inequality indices.
fn spending_insights(r: &RegionalSpending, gini: Option<f64>, theil: Option<f64>) -> Vec<Insight> {
    let mut out = Vec::new();
    let mut ranked: Vec<&StateSpending> = r.states.iter().filter(|s| s.per_capita.is_some()).collect();
    ranked.sort_by(|a, b| b.per_capita.unwrap_or(0.0).total_cmp(&a.per_capita.unwrap_or(0.0)));
    let with_money = ranked.iter().filter(|s| s.value > 0.0).count();
    let top: Vec<String> = ranked
        .iter()
        .filter(|s| s.value > 0.0)
        .take(3)
        .map(|s| {
            format!("{} ({} por habitante, {})", s.uf, format_brl(s.per_capita.unwrap_or(0.0)), format_brl(s.value))
        })
        .collect();
    out.push(say(
        format!(
            "Maiores valores per capita: {}; {} das {} UFs com população conhecida receberam convênios",
            top.join("; "),
            with_money,
            ranked.len()
        ),
        0.9,
    ));
    let regions: Vec<String> = r
        .regions
        .iter()
        .map(|g| match g.per_capita {
            Some(pc) => format!("{} {} ({} por habitante)", g.name, format_brl(g.value), format_brl(pc)),
            None => format!("{} {}", g.name, format_brl(g.value)),
        })
        .collect();
    out.push(say(format!("Por região: {}", regions.join("; ")), 0.9));
    if let (Some(g), Some(t)) = (gini, theil) {
        out.push(say(
            format!(
                "Desigualdade do valor per capita entre as UFs (ponderada pela população): índice de Gini {} e de \
                 Theil {}; UFs sem convênios contam como zero",
                format_decimal(g, 3),
                format_decimal(t, 3)
            ),
            0.85,
        ));
    }
    if let Some(m) = r.municipalities.first() {
        let share = m.value / r.coverage.placed_value.max(f64::MIN_POSITIVE);
        out.push(say(
            format!(
                "{} municípios identificados; o maior destino é {}-{} (código IBGE {}), com {} ({} do valor localizado)",
                r.municipalities.len(),
                m.name,
                m.uf,
                m.code,
                format_brl(m.value),
                format_pct(share)
            ),
            0.9,
        ));
    }
    let mut per_person: Vec<_> = r.municipalities.iter().filter(|m| m.per_capita.is_some()).collect();
    if !per_person.is_empty() {
        per_person.sort_by(|a, b| b.per_capita.unwrap_or(0.0).total_cmp(&a.per_capita.unwrap_or(0.0)));
        let top: Vec<String> = per_person
            .iter()
            .take(3)
            .map(|m| format!("{}-{} ({} por habitante)", m.name, m.uf, format_brl(m.per_capita.unwrap_or(0.0))))
            .collect();
        out.push(say(
            format!(
                "Per capita municipal ({} de {} municípios com população conhecida, {}): maiores {}",
                per_person.len(),
                r.municipalities.len(),
                r.population_source,
                top.join("; ")
            ),
            0.85,
        ));
    }
    out
}

fn outlier_insight(r: &RegionalSpending, o: &Outlier) -> Insight {
    let region = r.regions.iter().find(|g| g.code == o.region).map_or(o.region, |g| g.name);
    let against = match o.ratio {
        Some(x) => format!(
            "{} vezes os {} por habitante do restante da região {}",
            format_decimal(x, 1),
            format_brl(o.rest_of_region_per_capita),
            region
        ),
        None => format!("enquanto o restante da região {region} não recebeu convênios"),
    };
    say(
        format!(
            "{} recebeu {} por habitante, {}; maiores convênios: {}",
            o.uf,
            format_brl(o.per_capita),
            against,
            o.records.join(", ")
        ),
        0.8,
    )
}

#[cfg(test)]
mod tests;
