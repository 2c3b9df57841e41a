//! Carlos Drummond de Andrade, the communicator: phrases answers in Portuguese (English when
//! the user writes English) from structured facts only. Every figure and id it writes comes
//! from the [`AnswerFacts`], the [`Route`] or the [`SessionMemory`] it is given; money is
//! written with [`crate::text::format_brl`] (swapped separators in English). The opening and
//! the per-finding lines are here; whole answers that need no analysis are in [`direct`], and
//! what an optional language model needs in [`llm`] (messages) and [`figures`] (the check for
//! invented figures, whole or streamed).

mod direct;
mod figures;
mod llm;

pub use direct::direct_answer;
pub use figures::{FigureGuard, KnownFigures, invented_figures};
pub use llm::{ChatMessage, llm_messages};

use super::phrases::entities_phrase;
use super::{AnomalyBrief, AnswerFacts, Intent, Language, Route, abaporu};
use crate::agents::roster::AgentId;
use crate::model::report::BySeverity;

/// The sentence that says the data are synthetic.
pub fn demo_notice(lang: Language) -> &'static str {
    match lang {
        Language::Pt => {
            "Modo demonstração: os dados são sintéticos, com anomalias plantadas; nenhum valor se refere a contratos reais."
        }
        Language::En => {
            "Demo mode: the data are synthetic, with planted anomalies; no figure refers to real contracts."
        }
    }
}

/// "A, B e C" / "A, B and C".
fn list(items: &[String], lang: Language) -> String {
    let and = if lang == Language::En { " and " } else { " e " };
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{}{and}{last}", init.join(", ")),
    }
}

/// The first sentence(s), before any work: what will be done, for which entities and by whom;
/// says so when the data are the demo's.
pub fn opening(route: &Route, demo: bool) -> String {
    let lang = route.language;
    let en = lang == Language::En;
    let scope = entities_phrase(&route.entities, lang)
        .map(|p| if en { format!(" Scope: {p}.") } else { format!(" Escopo: {p}.") })
        .unwrap_or_default();
    let names = |writers: bool| {
        let steps = abaporu::plan(route).steps;
        let picked: Vec<String> = steps
            .iter()
            .filter(|s| s.agent != AgentId::Drummond && (s.agent == AgentId::Tiradentes) == writers)
            .map(|s| s.agent.display_name().to_string())
            .collect();
        list(&picked, lang)
    };
    let who = names(false);
    let mut s = match (route.intent, en) {
        _ if route.explicit && en => format!("{who} will answer.{scope}"),
        _ if route.explicit => format!("{who} vai responder.{scope}"),
        (Intent::Investigation, false) => format!("Vou investigar com {who}.{scope}"),
        (Intent::Investigation, true) => format!("I will investigate with {who}.{scope}"),
        (Intent::Analysis, false) => format!("Vou analisar os gastos com {who}.{scope}"),
        (Intent::Analysis, true) => format!("I will analyse the spending with {who}.{scope}"),
        (Intent::Report, false) => {
            format!("Vou preparar um relatório: análise de {who}, texto de {}.{scope}", names(true))
        }
        (Intent::Report, true) => {
            format!("I will prepare a report: analysis by {who}, written by {}.{scope}", names(true))
        }
        (Intent::Status, false) => "Vou verificar o andamento.".to_string(),
        (Intent::Status, true) => "Let me check the progress.".to_string(),
        (Intent::MemoryRecall, false) => "Vou buscar o que conversamos.".to_string(),
        (Intent::MemoryRecall, true) => "Let me recall what we discussed.".to_string(),
        (_, false) => "Um momento.".to_string(),
        (_, true) => "One moment.".to_string(),
    };
    if demo {
        s.push(' ');
        s.push_str(demo_notice(lang));
    }
    s
}

fn type_label(anomaly_type: &str, lang: Language) -> String {
    let (pt, en) = match anomaly_type {
        "price_anomaly" => ("preço fora do padrão", "price anomaly"),
        "pattern_anomaly" => ("padrão suspeito", "suspicious pattern"),
        "temporal_anomaly" => ("anomalia temporal", "timing anomaly"),
        "relationship_anomaly" => ("relacionamento suspeito", "suspicious relationship"),
        "compliance_violation" => ("violação de conformidade", "compliance violation"),
        other => (other, other),
    };
    if lang == Language::En { en.to_string() } else { pt.to_string() }
}

fn severity_label(severity: &str, lang: Language) -> &str {
    match (severity, lang) {
        ("critical", Language::Pt) => "crítica",
        ("high", Language::Pt) => "alta",
        ("medium", Language::Pt) => "média",
        ("low", Language::Pt) => "baixa",
        (s, _) => s,
    }
}

/// One line per finding as it arrives: severity, type, the detector's own words (its
/// Portuguese description; in English its English explanation, else the Portuguese quoted at
/// the line's end), the records and money concerned, its id.
pub fn finding_line(a: &AnomalyBrief, lang: Language) -> String {
    use std::fmt::Write;
    let en = lang == Language::En;
    let own = if en { a.description_en.as_deref() } else { Some(a.description.as_str()) };
    // One buffer for the whole line (it is written for every finding streamed).
    let mut line = String::with_capacity(a.description.len() + a.id.len() + 160);
    let _ = write!(line, "[{}] {}", severity_label(&a.severity, lang), type_label(&a.anomaly_type, lang));
    if let Some(text) = own.filter(|t| !t.is_empty()) {
        let _ = write!(line, ": {}", text.trim_end_matches('.'));
    }
    let mut sep = " (";
    if let Some(c) = &a.contract_id {
        let _ = write!(line, "{sep}{} {c}", if en { "contract" } else { "contrato" });
        sep = "; ";
    }
    if let Some(s) = &a.supplier {
        let _ = write!(line, "{sep}{} {s}", if en { "supplier" } else { "fornecedor" });
        sep = "; ";
    }
    if let Some(v) = a.value {
        let _ = write!(line, "{sep}{} {}", lang.brl(v), if en { "at stake" } else { "em jogo" });
        sep = "; ";
    }
    if sep == "; " {
        line.push(')');
    }
    let _ = write!(line, " [id {}]", a.id);
    // A finding without an English explanation: the Portuguese one is quoted (the rule, the
    // figures and the dates behind it) rather than the reader left without it.
    if own.is_none() && !a.description.is_empty() {
        let _ = write!(line, " — in Portuguese: \"{}\"", a.description.trim_end_matches('.'));
    }
    line
}

/// The severity counts: the facts' own when they cover every finding, else those of the
/// briefs when the briefs are every finding, else none.
fn severity_counts(f: &AnswerFacts) -> Option<BySeverity> {
    let s = f.by_severity;
    if s.critical + s.high + s.medium + s.low == f.total_anomalies {
        return Some(s);
    }
    (f.anomalies.len() == f.total_anomalies).then(|| {
        let mut s = BySeverity::default();
        for a in &f.anomalies {
            match a.severity.as_str() {
                "critical" => s.critical += 1,
                "high" => s.high += 1,
                "medium" => s.medium += 1,
                _ => s.low += 1,
            }
        }
        s
    })
}

/// The closing summary from the structured results, in chunks of a few sentences: counts by
/// severity and money at stake, the most severe findings, the biggest supplier, what next.
pub fn closing(facts: &AnswerFacts, lang: Language) -> Vec<String> {
    let en = lang == Language::En;
    let scope = entities_phrase(&facts.entities, lang).map(|p| format!(" ({p})")).unwrap_or_default();
    let records = facts.records_analysed;
    let mut first = if en {
        format!("I analysed {records} record{}{scope}.", if records == 1 { "" } else { "s" })
    } else {
        format!("Analisei {records} registro{}{scope}.", if records == 1 { "" } else { "s" })
    };
    let total = facts.total_anomalies;
    if total == 0 {
        first.push_str(if en {
            " I found no anomaly above the confidence threshold."
        } else {
            " Não encontrei anomalias acima do limiar de confiança."
        });
    } else {
        let counts = severity_counts(facts).map(|s| {
            let named = [
                (s.critical, "crítica", "críticas", "critical"),
                (s.high, "alta", "altas", "high"),
                (s.medium, "média", "médias", "medium"),
                (s.low, "baixa", "baixas", "low"),
            ];
            let items: Vec<String> = named
                .iter()
                .filter(|(n, ..)| *n > 0)
                .map(
                    |(n, one, many, e)| {
                        if en { format!("{n} {e}") } else { format!("{n} {}", if *n == 1 { one } else { many }) }
                    },
                )
                .collect();
            format!(" ({})", list(&items, lang))
        });
        let counts = counts.unwrap_or_default();
        let stake = lang.brl(facts.money_at_stake);
        first.push_str(&if en {
            format!(" I found {total} anomal{}{counts}, with {stake} at stake.", if total == 1 { "y" } else { "ies" })
        } else {
            format!(" Encontrei {total} anomalia{}{counts}, com {stake} em jogo.", if total == 1 { "" } else { "s" })
        });
    }
    let mut chunks = vec![first];
    let worst: Vec<String> = facts.anomalies.iter().take(3).map(|a| finding_line(a, lang)).collect();
    if !worst.is_empty() {
        let head = if en { "Most severe:" } else { "As mais graves:" };
        chunks.push(format!("{head} {}.", worst.join("; ")));
    }
    if let Some((name, value)) = facts.top_suppliers.first() {
        chunks.push(if en {
            format!("The biggest supplier in the data is {name}, with {} in contracts.", lang.brl(*value))
        } else {
            format!("O maior fornecedor nos dados é {name}, com {} em contratos.", lang.brl(*value))
        });
    }
    chunks.push(next_steps(facts, lang));
    chunks
}

fn next_steps(facts: &AnswerFacts, lang: Language) -> String {
    let en = lang == Language::En;
    let mut s = match (&facts.investigation_id, en) {
        (Some(id), false) => format!("Os detalhes e as evidências estão na investigação {id}. "),
        (Some(id), true) => format!("The details and evidence are in investigation {id}. "),
        (None, _) => String::new(),
    };
    s.push_str(if en {
        "You can ask for the report, or ask again about another year, month or organ."
    } else {
        "Você pode pedir o relatório ou perguntar de novo sobre outro ano, mês ou órgão."
    });
    if facts.demo {
        s.push(' ');
        s.push_str(demo_notice(lang));
    }
    s
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
