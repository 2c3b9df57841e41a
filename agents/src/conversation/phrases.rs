//! Small phrasing pieces senna's reasons and drummond's answers share, in both languages:
//! percentages, intent labels and a description of the entities asked about (money is
//! [`Language::brl`]).

use super::{Entities, Intent, Language};
use crate::model::cnpj::format_cnpj;
use crate::text::{MONTHS_EN, MONTHS_PT};

/// A probability as a whole percentage (`92%`).
pub fn pct(p: f64) -> String {
    format!("{:.0}%", (p * 100.0).clamp(0.0, 100.0))
}

/// What an intent is called in an answer.
pub fn intent_label(intent: Intent, lang: Language) -> &'static str {
    let (pt, en) = match intent {
        Intent::Greeting => ("saudação", "greeting"),
        Intent::Help => ("pedido de ajuda", "request for help"),
        Intent::About => ("pergunta sobre o Vigia", "question about Vigia"),
        Intent::Investigation => ("pedido de investigação", "investigation request"),
        Intent::Analysis => ("pedido de análise", "analysis request"),
        Intent::Report => ("pedido de relatório", "report request"),
        Intent::Status => ("pergunta de status", "status question"),
        Intent::MemoryRecall => ("pergunta sobre a conversa", "question about our conversation"),
        Intent::OutOfScope => ("assunto fora do escopo", "out-of-scope request"),
    };
    if lang == Language::Pt { pt } else { en }
}

/// The entities as a phrase ("Ministério da Saúde (36000), dezembro de 2024, acima de
/// R$ 1.000.000,00"), or `None` when nothing was named.
pub fn entities_phrase(e: &Entities, lang: Language) -> Option<String> {
    let en = lang == Language::En;
    let mut parts: Vec<String> =
        e.organ_codes.iter().zip(&e.organ_names).map(|(code, name)| format!("{name} ({code})")).collect();
    let month = e
        .month
        .and_then(|m| m.checked_sub(1))
        .and_then(|m| if en { MONTHS_EN.get(m as usize) } else { MONTHS_PT.get(m as usize) });
    match (month, e.year) {
        (Some(m), Some(y)) => parts.push(if en { format!("{m} {y}") } else { format!("{m} de {y}") }),
        (Some(m), None) => parts.push(m.to_string()),
        (None, Some(y)) => parts.push(y.to_string()),
        (None, None) => {}
    }
    if let Some(v) = e.min_value {
        parts.push(format!("{} {}", if en { "above" } else { "acima de" }, lang.brl(v)));
    }
    if let Some(v) = e.max_value {
        parts.push(format!("{} {}", if en { "up to" } else { "até" }, lang.brl(v)));
    }
    if let Some(s) = &e.supplier {
        parts.push(format!("{} {s}", if en { "supplier" } else { "fornecedor" }));
    }
    if let Some(c) = &e.cnpj {
        parts.push(format!("CNPJ {}", format_cnpj(c)));
    }
    (!parts.is_empty()).then(|| parts.join(", "))
}
