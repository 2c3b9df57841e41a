//! Dandara, the social equity analyst: whether the money of agreements (transfers to states,
//! municipalities and non-profits) follows the population or concentrates.
//!
//! Method. The agreements are placed by Lampião's one computation
//! ([`crate::agents::lampiao::spending::regional_spending`]); each state with a known 2022 Census
//! population is a unit of people and money. The units ranked by money per person give the
//! Lorenz curve; the concentration index is the Gini read from it (0: money in proportion to
//! people; 1: all of it to one state), beside the Theil T index and the share the least-served
//! 40% and 20% of the population received. Each region's share of the money is set against its
//! share of the population (the service ratio: 1 is proportional). Flags, only with at least
//! [`MIN_PLACED`] placed agreements: a concentration index at or above [`MARKED_GINI`] (0.4, the
//! alert line usually drawn for income inequality), and a region served at under [`UNDERSERVED`]
//! or over [`OVERSERVED`] times its population share, with the figures and the largest
//! agreements as evidence. States without agreements count as zero: the figures describe the
//! data analysed, not all federal transfers. When the dataset carries indicators by state
//! (production: the 2022 Census literacy rate from IBGE), the money per person is also ranked
//! against each of them ([`services`]): does the money go where the indicator is low?

use serde::Serialize;
use serde_json::json;

use crate::agents::Agent;
use crate::agents::lampiao::inequality::{self, LorenzPoint};
use crate::agents::lampiao::spending::{RegionalSpending, regional_spending};
use crate::agents::roster::AgentId;
use crate::cancel::AnalysisError;
use crate::detect::context::AnalysisContext;
use crate::lang::Language;
use crate::model::report::{AgentOutput, Artifact, Insight};

/// Fewer placed agreements than this give figures but no judgement.
pub const MIN_PLACED: usize = 30;
/// A concentration index at or above this is markedly unequal.
pub const MARKED_GINI: f64 = 0.4;
/// A region whose share of the money is under this fraction of its share of the people is
/// under-served.
pub const UNDERSERVED: f64 = 0.5;
/// A region whose share of the money is over this multiple of its share of the people is
/// over-served.
pub const OVERSERVED: f64 = 2.0;

/// The equity analyst.
#[derive(Debug, Clone, Copy, Default)]
pub struct Dandara;

impl Dandara {
    /// A new equity analyst.
    pub fn new() -> Self {
        Dandara
    }
}

/// A share of money against a share of people.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Share {
    /// State acronym or region code.
    pub code: &'static str,
    /// Name.
    pub name: &'static str,
    /// R$ received.
    #[serde(serialize_with = "crate::detect::common::serialize_cents")]
    pub value: f64,
    /// Share of the money, 0 to 1.
    pub value_share: f64,
    /// Share of the population, 0 to 1.
    pub population_share: f64,
    /// `value_share / population_share`.
    pub service_ratio: f64,
}

/// One flagged inequality with its evidence.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Flag {
    /// `marked_concentration`, `underserved_region` or `overserved_region`.
    pub kind: &'static str,
    /// The sentence.
    pub text: String,
    /// The sentence in English.
    pub text_en: String,
    /// The largest agreements behind it (ids), when there are any.
    pub records: Vec<String>,
}

/// The equity measures of a placed distribution.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Equity {
    /// The Lorenz curve over states.
    pub lorenz: Vec<LorenzPoint>,
    /// Gini of money per person across people (by state).
    pub concentration_index: Option<f64>,
    /// Theil T.
    pub theil: Option<f64>,
    /// Share of the money received by the least-served 40% of the population.
    pub least_served_40: Option<f64>,
    /// Share of the money received by the least-served 20%.
    pub least_served_20: Option<f64>,
    /// Per region.
    pub regions: Vec<Share>,
    /// Per state with known population.
    pub states: Vec<Share>,
    /// What is markedly unequal.
    pub flags: Vec<Flag>,
}

/// The equity measures and flags of `r`.
pub fn equity(r: &RegionalSpending) -> Equity {
    let units = r.state_units();
    let people: f64 = units.iter().map(|u| u.population).sum();
    let money: f64 = units.iter().map(|u| u.value).sum();
    let share = |code, name, value: f64, population: f64| {
        let (v, p) = (value / money.max(f64::MIN_POSITIVE), population / people.max(f64::MIN_POSITIVE));
        Share { code, name, value, value_share: v, population_share: p, service_ratio: v / p.max(f64::MIN_POSITIVE) }
    };
    let states: Vec<Share> =
        r.states.iter().filter_map(|s| s.population.map(|p| share(s.uf, s.name, s.value, p as f64))).collect();
    let regions: Vec<Share> = r
        .regions
        .iter()
        .map(|g| {
            let known: f64 =
                r.states.iter().filter(|s| s.region == g.code && s.population.is_some()).map(|s| s.value).sum();
            share(g.code, g.name, known, g.population as f64)
        })
        .collect();
    let concentration_index = inequality::gini(&units);
    let mut flags = Vec::new();
    if r.coverage.placed >= MIN_PLACED && money > 0.0 {
        if let Some(g) = concentration_index.filter(|g| *g >= MARKED_GINI) {
            let mut top: Vec<&Share> = states.iter().collect();
            top.sort_by(|a, b| b.service_ratio.total_cmp(&a.service_ratio));
            let text = |l: Language| {
                let named: Vec<String> = top
                    .iter()
                    .take(3)
                    .map(|s| {
                        let (v, p) = (l.pct(s.value_share), l.pct(s.population_share));
                        let (of_value, of_people) =
                            (l.pick("do valor", "of the value"), l.pick("da população", "of the population"));
                        format!("{} ({v} {of_value}, {p} {of_people})", s.code)
                    })
                    .collect();
                let (g, limit, named) = (l.dec(g, 3), l.dec(MARKED_GINI, 1), named.join(", "));
                if l.is_en() {
                    format!(
                        "Markedly unequal distribution: concentration index {g} (threshold {limit}); the best served \
                         per inhabitant are {named}"
                    )
                } else {
                    format!(
                        "Distribuição marcadamente desigual: índice de concentração {g} (limiar {limit}); os mais \
                         atendidos por habitante são {named}"
                    )
                }
            };
            flags.push(Flag {
                kind: "marked_concentration",
                text: text(Language::Pt),
                text_en: text(Language::En),
                records: top.iter().take(3).flat_map(|s| records_of(r, &[s.code])).collect(),
            });
        }
        for g in &regions {
            let kind = if g.service_ratio < UNDERSERVED {
                "underserved_region"
            } else if g.service_ratio > OVERSERVED {
                "overserved_region"
            } else {
                continue;
            };
            let ufs: Vec<&'static str> = r.states.iter().filter(|s| s.region == g.code).map(|s| s.uf).collect();
            let text = |l: Language| {
                let region = l.region(g.code, g.name);
                let (people, value, brl) = (l.pct(g.population_share), l.pct(g.value_share), l.brl(g.value));
                let ratio = l.dec(g.service_ratio, 2);
                if l.is_en() {
                    format!(
                        "The {region} region has {people} of the population and received {value} of the value \
                         ({brl}), {ratio} times its share"
                    )
                } else {
                    format!(
                        "A região {region} tem {people} da população e recebeu {value} do valor ({brl}), {ratio} vezes \
                         a sua parcela"
                    )
                }
            };
            flags.push(Flag {
                kind,
                text: text(Language::Pt),
                text_en: text(Language::En),
                records: records_of(r, &ufs),
            });
        }
    }
    Equity {
        lorenz: inequality::lorenz(&units),
        concentration_index,
        theil: inequality::theil(&units),
        least_served_40: inequality::share_of_least_served(&units, 0.4),
        least_served_20: inequality::share_of_least_served(&units, 0.2),
        regions,
        states,
        flags,
    }
}

/// The largest agreements of these states.
fn records_of(r: &RegionalSpending, ufs: &[&str]) -> Vec<String> {
    r.states.iter().filter(|s| ufs.contains(&s.uf)).flat_map(|s| s.top_records.iter().take(2).cloned()).collect()
}

impl Agent for Dandara {
    fn id(&self) -> AgentId {
        AgentId::Dandara
    }

    fn analyse(&self, ctx: &AnalysisContext<'_>) -> Result<AgentOutput, AnalysisError> {
        (ctx.progress)(0.0);
        let r = regional_spending(ctx.dataset, ctx.cancel)?;
        (ctx.progress)(0.7);
        let e = equity(&r);
        let say = |text: &dyn Fn(Language) -> String, confidence: f64| {
            crate::agents::insight_in_both(AgentId::Dandara, text, confidence)
        };
        let mut insights: Vec<Insight> = Vec::new();
        let c = &r.coverage;
        match (e.concentration_index, e.least_served_40) {
            (Some(g), Some(least)) => insights.push(say(
                &|l| {
                    let (g, t) = (l.dec(g, 3), l.dec(e.theil.unwrap_or(0.0), 3));
                    let (l40, l20) = (l.pct(least), l.pct(e.least_served_20.unwrap_or(0.0)));
                    if l.is_en() {
                        format!(
                            "Concentration index of agreements per inhabitant across the states: {g} (Theil {t}); the \
                             least served 40% of the population received {l40} of the value and the least served \
                             20% {l20}, over {} placed agreements",
                            c.placed
                        )
                    } else {
                        format!(
                            "Índice de concentração dos convênios por habitante entre as UFs: {g} (Theil {t}); os 40% \
                             da população menos atendidos receberam {l40} do valor e os 20% menos atendidos {l20}, \
                             em {} convênios localizados",
                            c.placed
                        )
                    }
                },
                0.85,
            )),
            _ => insights.push(say(
                &|l| {
                    let (n, none) = (c.agreements, c.agreements_without_region);
                    if l.is_en() {
                        format!(
                            "No agreements placed in a state ({n} agreements, {none} without a region): there is no \
                             regional distribution to measure"
                        )
                    } else {
                        format!(
                            "Sem convênios localizados por UF ({n} convênios, {none} sem região): não há distribuição \
                             regional a medir"
                        )
                    }
                },
                0.9,
            )),
        }
        if c.placed > 0 && c.placed < MIN_PLACED {
            insights.push(say(
                &|l| {
                    if l.is_en() {
                        format!(
                            "Only {} agreements placed (minimum {MIN_PLACED}): the figures are descriptive, with no \
                             judgement of equity",
                            c.placed
                        )
                    } else {
                        format!(
                            "Apenas {} convênios localizados (mínimo {MIN_PLACED}): os números são descritivos, sem \
                             julgamento de equidade",
                            c.placed
                        )
                    }
                },
                0.9,
            ));
        }
        insights.extend(e.flags.iter().map(|f| {
            let records = f.records.join(", ");
            say(
                &|l| {
                    let (text, largest) =
                        if l.is_en() { (&f.text_en, "largest agreements") } else { (&f.text, "maiores convênios") };
                    format!("{text}; {largest}: {records}")
                },
                0.8,
            )
        }));
        let recommendations = e
            .flags
            .iter()
            .filter(|f| f.kind == "underserved_region")
            .map(|f| format!("Avaliar se os critérios de repartição atendem a população da região: {}", f.text))
            .collect();
        let alignment = match ctx.dataset.regional.as_deref() {
            Some(facts) if r.coverage.placed > 0 => services::service_alignment(&r, facts),
            _ => Vec::new(),
        };
        insights.extend(alignment.iter().filter_map(|a| {
            let rho = a.spearman?;
            Some(say(
                &|l| {
                    let reading = if rho <= -services::NOTABLE {
                        l.pick(
                            "o dinheiro vai mais para onde o indicador é baixo",
                            "the money goes more where the indicator is low",
                        )
                    } else if rho >= services::NOTABLE {
                        l.pick(
                            "o dinheiro acompanha onde o indicador já é alto",
                            "the money follows where the indicator is already high",
                        )
                    } else {
                        l.pick(
                            "sem relação clara entre o dinheiro e o indicador",
                            "no clear relation between the money and the indicator",
                        )
                    };
                    let per = if a.rate { "" } else { l.pick(" por 100 mil habitantes", " per 100,000 inhabitants") };
                    let (name, states, source, rho, lowest) =
                        (&a.name, a.states, &a.source, l.dec(rho, 2), a.lowest.join(", "));
                    if l.is_en() {
                        format!(
                            "Agreements per inhabitant against {name}{per} in {states} states ({source}): Spearman \
                             correlation {rho}, {reading}; lowest values in {lowest}"
                        )
                    } else {
                        format!(
                            "Convênios por habitante contra {name}{per} em {states} UFs ({source}): correlação de \
                             Spearman {rho}, {reading}; menores valores em {lowest}"
                        )
                    }
                },
                0.75,
            ))
        }));
        let content = json!({"equity": e, "coverage": r.coverage, "min_placed": MIN_PLACED, "marked_gini": MARKED_GINI,
            "population_source": r.population_source, "services": alignment});
        (ctx.progress)(1.0);
        Ok(AgentOutput {
            anomalies: Vec::new(),
            insights,
            recommendations,
            artifacts: vec![Artifact {
                kind: "equity".into(),
                title: "Equidade regional dos convênios".into(),
                content,
            }],
        })
    }
}

#[path = "dandara_services.rs"]
pub mod services;

#[cfg(test)]
#[path = "dandara_tests.rs"]
mod tests;
