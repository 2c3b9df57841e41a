//! What drummond needs to let an optional language model (an OpenAI-compatible chat endpoint
//! the host calls) phrase an answer without adding figures: the messages to send, built from
//! the structured facts only. The check the host runs on the model's text as it streams is in
//! [`super::figures`]; with any invented figure, or no model, the built-in phrasing answers.

use serde::{Deserialize, Serialize};

use super::closing;
use crate::conversation::{AnswerFacts, Language, Route};

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
            "Você é Carlos Drummond de Andrade, o comunicador do Vigia, que investiga gastos públicos federais. Reescreva o rascunho em português claro e curto, em prosa, sem títulos Markdown. Use somente os números, valores e ids que aparecem nos fatos (JSON), escritos como no rascunho (R$ 1.234,56); não invente nem arredonde números, não calcule nada novo, não numere listas nem cite datas que não estejam nos fatos. Se os dados forem de demonstração (demo), diga que é modo demonstração."
        }
        Language::En => {
            "You are Carlos Drummond de Andrade, the communicator of Vigia, which investigates Brazilian federal spending. Rewrite the draft in clear, short English prose, without Markdown headings. Use only the numbers, amounts and ids that appear in the facts (JSON), written as in the draft (R$ 1,234.56); do not invent or round numbers, do not compute anything new, do not number lists or cite dates that are not in the facts. If the data are demo data, say it is demo mode."
        }
    };
    let facts_json = serde_json::to_string(facts).unwrap_or_default();
    let draft = closing(facts, lang).join("\n");
    vec![
        ChatMessage { role: "system".into(), content: rules.into() },
        ChatMessage { role: "user".into(), content: format!("Facts: {facts_json}\n\nDraft:\n{draft}") },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conversation::Intent;

    #[test]
    fn the_messages_carry_the_rules_in_the_users_language_and_the_facts() {
        let route = crate::conversation::shared_senna().route("investigate health contracts", None);
        let f = AnswerFacts::empty(Intent::Investigation, route.entities.clone(), true);
        let m = llm_messages(&route, &f);
        assert_eq!((m[0].role.as_str(), m[1].role.as_str()), ("system", "user"));
        assert!(m[0].content.contains("English") && m[1].content.contains("\"demo\":true"));
    }
}
