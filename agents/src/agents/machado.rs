//! Machado de Assis, the contract text analyst: objects that do not say what is bought
//! (`vague_object`) and brands required without an equivalent (`brand_restriction`), found
//! through the engine; plus what the object texts name (CNPJs, money amounts, brands, laws) and
//! how specific they are, read from the texts themselves.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::Value;

use crate::agents::{Agent, insight};

use crate::cancel::AnalysisError;

use crate::agents::narrative::by_detector;
use crate::agents::narrative_detectors as more;
use crate::agents::roster::AgentId;
use crate::detect::context::AnalysisContext;
use crate::detect::contract_text::{entities, read};
use crate::detect::engine;
use crate::detect::pattern::text_flags::{BRAND, VAGUE};
use crate::model::anomaly::Anomaly;
use crate::model::dataset::Dataset;
use crate::model::report::{AgentOutput, Insight};
use crate::text::{format_brl, format_pct};

/// Most object texts read in full for entities (taken at a fixed stride beyond that).
pub const MAX_READ: usize = 50_000;

/// The contract text agent.
#[derive(Debug, Clone, Copy, Default)]
pub struct Machado;

impl Machado {
    /// A new text analyst.
    pub fn new() -> Self {
        Machado
    }
}

/// What the object texts name, over the texts read.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TextCensus {
    /// Texts read.
    pub read: usize,
    /// Texts citing at least one CNPJ.
    pub with_cnpj: usize,
    /// Texts quoting an amount in R$.
    pub with_amount: usize,
    /// Texts with a number (quantity, lot, reference).
    pub with_numbers: usize,
    /// Texts with at most one specific word.
    pub generic: usize,
    /// Laws and decrees cited, with how many texts cite them.
    pub laws: BTreeMap<String, usize>,
    /// Brands named, with how many texts name them.
    pub brands: BTreeMap<String, usize>,
}

/// Reads at most [`MAX_READ`] object texts (at a fixed stride) and counts what they name.
pub fn census(ds: &Dataset, ctx: &AnalysisContext<'_>) -> Result<TextCensus, AnalysisError> {
    let n = ds.contracts.len();
    let step = n.div_ceil(MAX_READ).max(1);
    let mut c = TextCensus::default();
    for (k, contract) in ds.contracts.iter().step_by(step).enumerate() {
        if k % 4096 == 0 {
            ctx.cancel.check()?;
        }
        let e = entities(&contract.object);
        let f = read(&contract.object);
        c.read += 1;
        c.with_cnpj += usize::from(!e.cnpjs.is_empty());
        c.with_amount += usize::from(!e.amounts.is_empty());
        c.with_numbers += usize::from(f.has_numbers);
        c.generic += usize::from(f.specific_words <= 1);
        for law in e.laws {
            *c.laws.entry(law).or_default() += 1;
        }
        for b in e.brands {
            *c.brands.entry(b).or_default() += 1;
        }
    }
    Ok(c)
}

fn top(map: &BTreeMap<String, usize>, k: usize) -> Vec<String> {
    let mut v: Vec<(&String, &usize)> = map.iter().collect();
    v.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    v.into_iter().take(k).map(|(name, n)| format!("{} ({n})", name.to_uppercase())).collect()
}

/// Insights on the brands required and on what the texts name.
fn text_insights(anomalies: &[Arc<Anomaly>], c: &TextCensus) -> Vec<Insight> {
    let mut out = Vec::new();
    let brand = by_detector(anomalies, BRAND);
    if !brand.is_empty() {
        let mut brands: BTreeMap<String, usize> = BTreeMap::new();
        for a in &brand {
            for b in a.technical_details.get("brands").and_then(Value::as_array).into_iter().flatten() {
                *brands.entry(b.as_str().unwrap_or("").to_string()).or_default() += 1;
            }
        }
        let at_stake: f64 = brand.iter().map(|a| a.value_at_stake()).sum();
        out.push(insight(
            AgentId::Machado,
            format!(
                "As marcas mais exigidas sem \"ou similar\" são {}, em contratos que somam {}",
                top(&brands, 5).join(", "),
                format_brl(at_stake)
            ),
            0.85,
            &brand.iter().take(20).copied().collect::<Vec<_>>(),
        ));
    }
    if c.read > 0 {
        let share = |k: usize| format_pct(k as f64 / c.read as f64);
        let laws = top(&c.laws, 3);
        out.push(insight(
            AgentId::Machado,
            format!(
                "Em {} objetos lidos: {} citam quantidades ou referências, {} são genéricos (no máximo uma palavra \
                 específica), {} citam CNPJ e {} citam valores em R$; normas citadas: {}",
                c.read,
                share(c.with_numbers),
                share(c.generic),
                share(c.with_cnpj),
                share(c.with_amount),
                if laws.is_empty() { "nenhuma".to_string() } else { laws.join(", ") }
            ),
            0.9,
            &[],
        ));
    }
    out
}

impl Agent for Machado {
    fn id(&self) -> AgentId {
        AgentId::Machado
    }

    fn analyse(&self, ctx: &AnalysisContext<'_>) -> Result<AgentOutput, AnalysisError> {
        (ctx.progress)(0.0);
        let mut anomalies = engine::detect_for(ctx, &[VAGUE, BRAND])?;
        engine::sort(&mut anomalies);
        (ctx.progress)(0.5);
        let c = census(ctx.dataset, ctx)?;
        let mut found = more::insights(AgentId::Machado, &anomalies);
        found.extend(text_insights(&anomalies, &c));
        let mut recs = more::recommendations(&anomalies);
        if c.read > 0 && c.generic as f64 / c.read as f64 > 0.2 {
            recs.push(format!(
                "Exigir dos órgãos objetos com itens, quantidades e especificações: {} dos objetos lidos são genéricos",
                format_pct(c.generic as f64 / c.read as f64)
            ));
        }
        (ctx.progress)(1.0);
        Ok(AgentOutput { anomalies, insights: found, recommendations: recs, artifacts: Vec::new() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cancel::CancelFlag;
    use crate::demo::{DemoSpec, generate};
    use crate::model::params::DetectionParams;
    use crate::testutil::analyse_cancelled;
    use crate::testutil::contract;

    #[test]
    fn machado_finds_the_planted_vague_objects_and_brands_and_reads_the_texts() {
        let data = generate(&DemoSpec { seed: 8, contracts: 3000, ..DemoSpec::default() });
        let params = DetectionParams::default();
        let cancel = CancelFlag::new();
        let out = Machado::new().analyse(&AnalysisContext::new(&data.dataset, &params, &cancel)).unwrap();
        let object_of = |id: &str| data.dataset.contracts.iter().find(|c| c.id == id).map(|c| c.object.clone());
        // A brand named for equipment in place (maintenance, support, parts) is allowed, and
        // below sensitivity 0.9 only a demanded brand ("EXCLUSIVAMENTE DA MARCA X") is a
        // restriction; plants of a merely named brand are not found at the defaults.
        let restriction = |id: &str| {
            object_of(id).is_some_and(|o| {
                let f = crate::detect::contract_text::read(&o);
                !f.serves_existing && f.exclusive
            })
        };
        // A contract whose items are listed is specified by them, whatever its object says.
        let without_items = |id: &str| data.dataset.contracts.iter().any(|c| c.id == id && c.items.is_empty());
        for p in data.planted.iter().filter(|p| {
            let d = crate::testutil::detector_of(p.scheme);
            (d == VAGUE && without_items(&p.record_ids[0])) || (d == BRAND && restriction(&p.record_ids[0]))
        }) {
            assert!(out.anomalies.iter().any(|a| a.record_ids().any(|r| r == p.record_ids[0])), "missed {p:?}");
        }
        assert!(out.anomalies.iter().all(|a| a.detector() == VAGUE || a.detector() == BRAND));
        assert!(out.insights.iter().any(|i| i.insight.starts_with("As marcas mais exigidas")));
        assert!(out.insights.iter().any(|i| i.insight.starts_with("Em 3000 objetos lidos")));
        assert!(out.recommendations.iter().any(|r| r.contains("art. 41")));
        assert_eq!(Machado::new().id(), AgentId::Machado);
    }

    #[test]
    fn the_census_counts_cnpjs_amounts_laws_and_brands() {
        let ds = Dataset::from_contracts(vec![
            contract(
                "1",
                "SERVIÇOS CONFORME LEI 14.133/2021, EMPRESA 12.345.678/0001-95, R$ 1.000,00",
                "S",
                "1",
                1.0,
                (2024, 1, 1),
            ),
            contract("2", "AQUISIÇÃO DE MATERIAL", "S", "1", 1.0, (2024, 1, 1)),
            contract("3", "TONER HP PARA IMPRESSORA, 40 UNIDADES", "S", "1", 1.0, (2024, 1, 1)),
        ]);
        let (params, cancel) = (DetectionParams::default(), CancelFlag::new());
        let c = census(&ds, &AnalysisContext::new(&ds, &params, &cancel)).unwrap();
        assert_eq!((c.read, c.with_cnpj, c.with_amount, c.generic), (3, 1, 1, 1));
        assert_eq!(c.laws.get("lei 14133"), Some(&1));
        assert_eq!(c.brands.get("hp"), Some(&1));
    }

    #[test]
    fn a_cancelled_text_analysis_returns_cancelled() {
        assert_eq!(analyse_cancelled(&Machado::new(), 300), Err(AnalysisError::Cancelled));
    }
}
