//! What drummond needs to let an optional language model (an OpenAI-compatible chat endpoint
//! the host calls) phrase an answer without adding figures: the messages to send, built from
//! the structured facts only, and the check the host runs on the model's text before using it
//! ([`invented_figures`]); with any invented figure, or no model, the built-in phrasing answers.

use serde::{Deserialize, Serialize};

use super::closing;
use crate::conversation::phrases::money;
use crate::conversation::{AnswerFacts, Language, Route};
use crate::model::cnpj::format_cnpj;

/// One chat-completions message (`{role, content}`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatMessage {
    /// `system` or `user`.
    pub role: String,
    /// The text.
    pub content: String,
}

/// The messages asking a model to phrase the answer: the rules (language, only the facts'
/// figures and ids, money format) and the facts as JSON, with the built-in answer as a draft.
pub fn llm_messages(route: &Route, facts: &AnswerFacts) -> Vec<ChatMessage> {
    let lang = route.language;
    let rules = match lang {
        Language::Pt => {
            "Você é Carlos Drummond de Andrade, o comunicador do Vigia, que investiga gastos públicos federais. Reescreva o rascunho em português claro e curto. Use somente os números, valores e ids que aparecem nos fatos (JSON), escritos como no rascunho (R$ 1.234,56); não invente nem arredonde números, não calcule nada novo. Se os dados forem de demonstração (demo), diga que é modo demonstração."
        }
        Language::En => {
            "You are Carlos Drummond de Andrade, the communicator of Vigia, which investigates Brazilian federal spending. Rewrite the draft in clear, short English. Use only the numbers, amounts and ids that appear in the facts (JSON), written as in the draft (R$ 1,234.56); do not invent or round numbers, do not compute anything new. If the data are demo data, say it is demo mode."
        }
    };
    let facts_json = serde_json::to_string(facts).unwrap_or_default();
    let draft = closing(facts, lang).join("\n");
    vec![
        ChatMessage { role: "system".into(), content: rules.into() },
        ChatMessage { role: "user".into(), content: format!("Facts: {facts_json}\n\nDraft:\n{draft}") },
    ]
}

/// The numbers of a text: runs of digits with the `.` and `,` between them.
fn numbers(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if !chars[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len()
            && (chars[i].is_ascii_digit()
                || (".,".contains(chars[i]) && chars.get(i + 1).is_some_and(char::is_ascii_digit)))
        {
            i += 1;
        }
        out.push(chars[start..i].iter().collect());
    }
    out
}

/// Every number the facts hold, written as drummond writes them in either language: counts,
/// money, ids, codes and the figures inside the detectors' own descriptions.
fn known_numbers(f: &AnswerFacts) -> Vec<String> {
    let s = f.by_severity;
    let mut texts: Vec<String> = [f.records_analysed, f.total_anomalies, s.critical, s.high, s.medium, s.low]
        .iter()
        .map(ToString::to_string)
        .collect();
    let mut amounts = vec![f.money_at_stake];
    amounts.extend(f.top_suppliers.iter().map(|(_, v)| *v));
    amounts.extend(f.anomalies.iter().filter_map(|a| a.value));
    amounts.extend(f.entities.min_value);
    amounts.extend(f.entities.max_value);
    for v in amounts {
        texts.extend([money(v, Language::Pt), money(v, Language::En)]);
    }
    for a in &f.anomalies {
        texts.extend([a.id.clone(), a.description.clone()]);
        texts.extend(a.contract_id.clone());
        texts.extend(a.supplier.clone());
    }
    texts.extend(f.top_suppliers.iter().map(|(n, _)| n.clone()));
    texts.extend(f.investigation_id.clone());
    texts.extend(f.entities.organ_codes.clone());
    texts.extend(f.entities.year.map(|y| y.to_string()));
    texts.extend(f.entities.supplier.clone());
    texts.extend(f.entities.cnpj.iter().flat_map(|c| [c.clone(), format_cnpj(c)]));
    texts.extend(f.status_lines.clone());
    texts.iter().flat_map(|t| numbers(t)).collect()
}

/// The numbers of `text` that the facts do not hold (empty when every figure comes from them).
/// The host rejects a model's answer that invents any.
pub fn invented_figures(text: &str, facts: &AnswerFacts) -> Vec<String> {
    let known = known_numbers(facts);
    numbers(text).into_iter().filter(|n| !known.contains(n)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conversation::{Entities, Intent};

    #[test]
    fn a_made_up_amount_is_caught_and_the_facts_own_figures_pass() {
        let mut f =
            AnswerFacts::empty(Intent::Investigation, Entities { year: Some(2024), ..Entities::default() }, false);
        (f.records_analysed, f.total_anomalies, f.money_at_stake) = (120, 0, 0.0);
        f.top_suppliers = vec![("Alfa".into(), 1_234_567.89)];
        assert!(invented_figures("Em 2024 analisei 120 registros; Alfa recebeu R$ 1.234.567,89.", &f).is_empty());
        assert!(invented_figures("In 2024 Alfa got R$ 1,234,567.89.", &f).is_empty());
        assert_eq!(invented_figures("Alfa recebeu cerca de R$ 1,2 milhão.", &f), vec!["1,2"]);
        assert_eq!(invented_figures("Encontrei 7 anomalias.", &f), vec!["7"]);
    }

    #[test]
    fn the_messages_carry_the_rules_in_the_users_language_and_the_facts() {
        let route = crate::conversation::shared_senna().route("investigate health contracts", None);
        let f = AnswerFacts::empty(Intent::Investigation, route.entities.clone(), true);
        let m = llm_messages(&route, &f);
        assert_eq!((m[0].role.as_str(), m[1].role.as_str()), ("system", "user"));
        assert!(m[0].content.contains("English") && m[1].content.contains("\"demo\":true"));
    }
}
