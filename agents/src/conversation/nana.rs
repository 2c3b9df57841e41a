//! Nanã, the memory keeper of a conversation: merges each turn into the session's
//! [`SessionMemory`] and decides what a follow-up ("e em 2023?", "and in December?",
//! "e o MEC?", "and the biggest supplier?") carries over from the previous turn.

use super::{AnswerFacts, Entities, Route, SessionMemory};
use crate::text::words;

/// Words that open a follow-up: the message continues the previous question.
const CONTINUATIONS: &[&str] =
    &["e", "and", "agora", "now", "tambem", "also", "same", "mesmo", "mesma", "idem", "entao", "then"];
/// Phrases that point back at the previous question's entities.
const BACK_REFERENCES: &[&str] = &[
    "esse orgao",
    "este orgao",
    "nesse periodo",
    "mesmo periodo",
    "mesmo orgao",
    "same agency",
    "same period",
    "that agency",
    "that organ",
    "those contracts",
    "esses contratos",
    "desse fornecedor",
    "that supplier",
    "what about",
    "how about",
    "e quanto",
    "e no",
    "e na",
    "e em",
    "e o",
    "e a",
    "e os",
    "e as",
    "e de",
    "e do",
    "e da",
    "and in",
    "and the",
    "and for",
    "and what",
    "and who",
];

/// The longest message still read as a follow-up by its opening word alone.
const SHORT: usize = 8;

/// Whether a message continues the previous one: it opens with a continuation or points back,
/// or it is short and names a period or a value but nothing to look at (no organ, company).
fn continues(current: &Entities, message: &str) -> bool {
    let w = words(message);
    let joined = format!(" {} ", w.join(" "));
    let opens = w.first().is_some_and(|f| CONTINUATIONS.contains(&f.as_str())) && w.len() <= SHORT;
    let points_back = BACK_REFERENCES.iter().any(|p| joined.contains(&format!(" {p} ")));
    let names_subject = !current.organ_codes.is_empty() || current.cnpj.is_some() || current.supplier.is_some();
    let only_filters = (current.year.is_some()
        || current.month.is_some()
        || current.min_value.is_some()
        || current.max_value.is_some())
        && !names_subject
        && w.len() <= SHORT / 2;
    opens || points_back || only_filters
}

/// The carry-over rule senna uses: a follow-up keeps the previous entities it does not
/// override (a new organ replaces the organs, a new year the year, ...); another message keeps
/// only its own. Returns the entities in force and whether anything was carried.
pub fn carry_over(previous: &Entities, current: &Entities, message: &str) -> (Entities, bool) {
    if previous.is_empty() || !continues(current, message) {
        return (current.clone(), false);
    }
    let mut merged = current.clone();
    if merged.organ_codes.is_empty() {
        merged.organ_codes.clone_from(&previous.organ_codes);
        merged.organ_names.clone_from(&previous.organ_names);
    }
    // A new company replaces the old one whichever way it was named.
    if merged.cnpj.is_none() && merged.supplier.is_none() {
        merged.cnpj.clone_from(&previous.cnpj);
        merged.supplier.clone_from(&previous.supplier);
    }
    merged.year = merged.year.or(previous.year);
    // A month belongs to its year: a follow-up naming another year drops the old month.
    if current.year.is_none() || current.year == previous.year {
        merged.month = merged.month.or(previous.month);
    }
    merged.min_value = merged.min_value.or(previous.min_value);
    merged.max_value = merged.max_value.or(previous.max_value);
    let carried = merged != *current;
    (merged, carried)
}

/// Merges this turn into the memory (called after routing): the route's entities (already
/// carried over) when it names any, its language, the investigation the facts come from, and
/// the facts themselves for the next follow-up. Greetings, help and the like leave the last
/// substantive intent in place, so "obrigado" between two questions breaks no follow-up.
pub fn remember(memory: Option<SessionMemory>, route: &Route, facts: Option<&AnswerFacts>) -> SessionMemory {
    let mut m = memory.unwrap_or_default();
    m.turns += 1;
    m.language = route.language;
    if !route.entities.is_empty() {
        m.entities = route.entities.clone();
    }
    if route.intent.needs_analysis() {
        m.last_intent = Some(route.intent);
    }
    if let Some(f) = facts {
        if let Some(id) = &f.investigation_id
            && !m.investigation_ids.contains(id)
        {
            m.investigation_ids.push(id.clone());
        }
        if f.intent.needs_analysis() {
            m.last_answer_facts = Some(f.remembered(route.language));
        }
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    fn health_2024() -> Entities {
        Entities {
            organ_codes: vec!["36000".into()],
            organ_names: vec!["Ministério da Saúde".into()],
            year: Some(2024),
            month: Some(12),
            ..Entities::default()
        }
    }

    #[test]
    fn a_follow_up_naming_another_year_keeps_the_organ_and_drops_the_month() {
        let now = Entities { year: Some(2023), ..Entities::default() };
        let (merged, carried) = carry_over(&health_2024(), &now, "e em 2023?");
        assert!(carried);
        assert_eq!((merged.organ_codes, merged.year, merged.month), (vec!["36000".to_string()], Some(2023), None));
    }

    #[test]
    fn a_follow_up_naming_another_organ_keeps_the_period() {
        let now =
            Entities { organ_codes: vec!["26000".into()], organ_names: vec!["MEC".into()], ..Entities::default() };
        let (merged, carried) = carry_over(&health_2024(), &now, "e o MEC?");
        assert!(carried);
        assert_eq!((merged.organ_codes, merged.year, merged.month), (vec!["26000".to_string()], Some(2024), Some(12)));
    }

    #[test]
    fn an_english_follow_up_keeps_everything_it_does_not_name() {
        let (merged, carried) = carry_over(&health_2024(), &Entities::default(), "and the biggest supplier?");
        assert!(carried);
        assert_eq!(merged, health_2024());
    }

    #[test]
    fn a_new_full_question_carries_nothing() {
        let now = Entities { organ_codes: vec!["52000".into()], year: Some(2022), ..Entities::default() };
        let (merged, carried) = carry_over(&health_2024(), &now, "investigue os contratos da defesa em 2022");
        assert!(!carried);
        assert_eq!(merged, now);
    }
}
