//! Tests of the conversation as a whole: the classifier's held-out accuracy, routing,
//! follow-ups through nanã's memory, and the conversational agents under the runtime's trait.

use super::classifier::{TRAINING, parse_labelled};
use super::*;
use crate::agents::roster::AgentId;
use crate::cancel::CancelFlag;
use crate::demo::{DemoSpec, generate};
use crate::detect::context::AnalysisContext;
use crate::model::params::DetectionParams;

const HELD_OUT: &str = include_str!("../../data/intents_test.tsv");

fn senna() -> &'static Senna {
    shared_senna()
}

/// Accuracy on the held-out file, printed (run with `--nocapture` to see it) and asserted.
#[test]
fn the_classifier_gets_at_least_85_percent_of_the_held_out_utterances_right() {
    let test = parse_labelled(HELD_OUT);
    assert!(test.len() >= 80, "the held-out file was read");
    let train: Vec<String> = parse_labelled(TRAINING).into_iter().map(|l| crate::text::fold(&l.text)).collect();
    assert!(test.iter().all(|t| !train.contains(&crate::text::fold(&t.text))), "no held-out phrasing is in training");
    let mut wrong = Vec::new();
    for t in &test {
        let (intent, p, _) = senna().classify(&t.text);
        if intent != t.intent {
            wrong.push(format!("{:?} -> {:?} ({p:.2}): {}", t.intent, intent, t.text));
        }
    }
    let accuracy = 1.0 - wrong.len() as f64 / test.len() as f64;
    // Through the router, with the confidence floor: an unsure guess becomes help or out of scope.
    let routed = test.iter().filter(|t| senna().route(&t.text, None).intent == t.intent).count();
    let unsure = test.iter().filter(|t| senna().classify(&t.text).1 < senna::CONFIDENCE_FLOOR).count();
    let started = std::time::Instant::now();
    let _trained = Senna::new();
    println!(
        "training: {:?}; routed correctly: {routed} of {}; below the floor: {unsure}",
        started.elapsed(),
        test.len()
    );
    println!(
        "held-out intent accuracy: {accuracy:.3} ({} of {})\n{}",
        test.len() - wrong.len(),
        test.len(),
        wrong.join("\n")
    );
    assert!(accuracy >= 0.85, "accuracy {accuracy:.3}");
}

#[test]
fn the_training_file_covers_every_intent_in_both_languages() {
    let examples = parse_labelled(TRAINING);
    assert!(examples.len() >= 300);
    for intent in Intent::ALL {
        for lang in [Language::Pt, Language::En] {
            assert!(
                examples.iter().filter(|e| e.intent == intent && e.language == lang).count() >= 15,
                "{intent:?} {lang:?}"
            );
        }
    }
}

#[test]
fn the_language_follows_the_user() {
    assert_eq!(senna().classify("quais contratos da saúde são suspeitos?").2, Language::Pt);
    assert_eq!(senna().classify("which health contracts are suspicious?").2, Language::En);
}

#[test]
fn an_investigation_question_goes_to_zumbi_with_its_entities_in_the_reason() {
    let r =
        senna().route("Investigue os contratos do Ministério da Saúde acima de R$ 1 milhão em dezembro de 2024", None);
    assert_eq!(
        (r.intent, r.agent, r.language, r.follow_up),
        (Intent::Investigation, AgentId::Zumbi, Language::Pt, false)
    );
    assert_eq!(r.entities.organ_codes, vec!["36000"]);
    assert_eq!((r.entities.year, r.entities.month, r.entities.min_value), (Some(2024), Some(12), Some(1e6)));
    assert!(
        r.reason.contains("investigação") && r.reason.contains("36000") && r.reason.contains("R$ 1.000.000,00"),
        "{}",
        r.reason
    );
    assert!(r.confidence >= CONFIDENCE_FLOOR_FOR_TESTS);
}

const CONFIDENCE_FLOOR_FOR_TESTS: f64 = senna::CONFIDENCE_FLOOR;

#[test]
fn english_organ_names_are_understood() {
    let r = senna().route("what's the spending trend of the health ministry in 2023?", None);
    assert_eq!(
        (r.intent, r.language, r.entities.organ_codes.clone()),
        (Intent::Analysis, Language::En, vec!["36000".to_string()])
    );
}

#[test]
fn greetings_help_and_out_of_scope_go_to_drummond_and_recall_to_nana() {
    assert_eq!(senna().route("bom dia!", None).agent, AgentId::Drummond);
    assert_eq!(senna().route("what can you do?", None).intent, Intent::Help);
    let r = senna().route("me conta uma piada de futebol", None);
    assert_eq!((r.intent, r.agent), (Intent::OutOfScope, AgentId::Drummond));
    assert_eq!(senna().route("o que eu perguntei antes?", None).agent, AgentId::Nana);
}

#[test]
fn an_unsure_guess_becomes_help_or_out_of_scope_and_the_reason_says_so() {
    for gibberish in ["xyzzy", "asdf qwer zxcv"] {
        let r = senna().route(gibberish, None);
        assert!(r.unsure && matches!(r.intent, Intent::Help | Intent::OutOfScope), "{gibberish}: {r:?}");
        assert!(r.reason.contains("certeza"), "{}", r.reason);
        assert!(drummond::direct_answer(&r, None, None)[0].starts_with("N"), "{gibberish}");
    }
    assert!(!senna().route("investigue a saúde", None).unsure);
}

fn after(first: &str) -> SessionMemory {
    let route = senna().route(first, None);
    let mut facts = AnswerFacts::empty(route.intent, route.entities.clone(), true);
    facts.investigation_id = Some("inv-1".into());
    facts.top_suppliers = vec![("Alfa Engenharia Ltda".into(), 2_500_000.0)];
    nana::remember(None, &route, Some(&facts))
}

#[test]
fn a_follow_up_reuses_the_previous_organ() {
    let memory = after("investigue os contratos da saúde em 2024");
    let r = senna().route("e em 2023?", Some(&memory));
    assert!(r.follow_up);
    assert_eq!(
        (r.intent, r.entities.organ_codes.clone(), r.entities.year),
        (Intent::Investigation, vec!["36000".to_string()], Some(2023))
    );
    let r = senna().route("e o MEC?", Some(&memory));
    assert_eq!(
        (r.intent, r.entities.organ_codes.clone(), r.entities.year),
        (Intent::Investigation, vec!["26000".to_string()], Some(2024))
    );
}

#[test]
fn an_english_follow_up_about_the_biggest_supplier_is_answered_from_the_last_facts() {
    let memory = after("investigate the health ministry contracts in 2024");
    let r = senna().route("and the biggest supplier?", Some(&memory));
    assert_eq!(
        (r.intent, r.agent, r.asks, r.language),
        (Intent::MemoryRecall, AgentId::Nana, Some(Ask::TopSupplier), Language::En)
    );
    let answer = drummond::direct_answer(&r, Some(&memory), None).join(" ");
    assert!(answer.contains("Alfa Engenharia Ltda") && answer.contains("R$ 2,500,000.00"), "{answer}");
}

#[test]
fn memory_counts_turns_keeps_investigations_and_survives_a_greeting() {
    let memory = after("investigue o MEC em 2023");
    let hello = senna().route("obrigado!", Some(&memory));
    let memory = nana::remember(Some(memory), &hello, None);
    assert_eq!((memory.turns, memory.last_intent), (2, Some(Intent::Investigation)));
    assert_eq!(memory.investigation_ids, vec!["inv-1"]);
    assert_eq!(memory.entities.organ_codes, vec!["26000"]);
    let json = serde_json::to_string(&memory).unwrap();
    assert_eq!(serde_json::from_str::<SessionMemory>(&json).unwrap(), memory);
}

#[test]
fn an_explicit_agent_is_kept_and_said_in_the_reason() {
    let r = senna().route_to("tendência de gastos do MEC", None, AgentId::Anita);
    assert!(r.explicit && r.agent == AgentId::Anita && r.reason.contains("Anita Garibaldi"));
}

#[test]
fn the_conversational_agents_load_answer_a_question_and_say_when_there_is_none() {
    let data = generate(&DemoSpec { seed: 3, contracts: 400, ..DemoSpec::default() });
    let (params, cancel) = (DetectionParams::default(), CancelFlag::new());
    for (id, kind) in [
        (AgentId::Senna, "route"),
        (AgentId::Nana, "memory"),
        (AgentId::Abaporu, "plan"),
        (AgentId::Drummond, "answer"),
    ] {
        let agent = crate::instantiate(id).unwrap();
        assert_eq!(agent.id(), id);
        let ctx = AnalysisContext {
            question: Some("investigue a saúde em 2024"),
            ..AnalysisContext::new(&data.dataset, &params, &cancel)
        };
        let out = agent.analyse(&ctx).unwrap();
        assert_eq!(out.artifacts.len(), 1, "{id}");
        assert_eq!(out.artifacts[0].kind, kind);
        assert!(!out.insights.is_empty());
        let none = agent.analyse(&AnalysisContext::new(&data.dataset, &params, &cancel)).unwrap();
        assert!(none.insights[0].insight.contains("Nenhuma pergunta"), "{id}");
    }
}

#[test]
fn drummonds_agent_answer_cites_the_findings_of_the_dataset() {
    let data = generate(&DemoSpec { seed: 5, contracts: 600, ..DemoSpec::default() });
    let (params, cancel) = (DetectionParams::default(), CancelFlag::new());
    let ctx = AnalysisContext {
        question: Some("find anomalies in all contracts"),
        ..AnalysisContext::new(&data.dataset, &params, &cancel)
    };
    let out = crate::instantiate(AgentId::Drummond).unwrap().analyse(&ctx).unwrap();
    let facts: AnswerFacts = serde_json::from_value(out.artifacts[0].content["facts"].clone()).unwrap();
    let (all, _) = crate::engine::analyse(&data.dataset, &params, &cancel).unwrap();
    assert_eq!(facts.total_anomalies, all.len());
    assert_eq!(facts.records_analysed, data.dataset.len());
    assert!(out.insights[0].insight.starts_with("I analysed"), "{}", out.insights[0].insight);
}

/// 5-fold cross-validation on the training file itself, printed: a harsher measure than the
/// held-out file, since every fold loses a fifth of each intent's phrasings.
#[test]
fn cross_validation_on_the_training_file_stays_well_above_chance() {
    use super::classifier::IntentModel;
    let all = parse_labelled(TRAINING);
    // (right, probability of the guess) per utterance, each predicted by a model that never saw it.
    let mut guesses = Vec::new();
    for k in 0..5 {
        let train: Vec<_> = all.iter().enumerate().filter(|(i, _)| i % 5 != k).map(|(_, l)| l.clone()).collect();
        let model = IntentModel::train(&train);
        for (_, t) in all.iter().enumerate().filter(|(i, _)| i % 5 == k) {
            let best = model.probabilities(&t.text).first().copied();
            guesses.push(best.map_or((false, 0.0), |(i, p)| (i == t.intent, p)));
        }
    }
    let right = guesses.iter().filter(|g| g.0).count();
    let accuracy = right as f64 / all.len() as f64;
    let floor = senna::CONFIDENCE_FLOOR;
    let kept = guesses.iter().filter(|g| g.0 && g.1 >= floor).count();
    let turned_away = guesses.iter().filter(|g| !g.0 && g.1 < floor).count();
    println!(
        "5-fold cross-validation accuracy on the training file: {accuracy:.3} ({right} of {}); the floor {floor} keeps {kept} of the {right} right guesses and turns away {turned_away} of the {} wrong ones",
        all.len(),
        all.len() - right
    );
    assert!(accuracy > 0.6, "{accuracy}");
}

#[test]
fn carried_entities_become_a_query_the_investigation_reads_back_exactly() {
    let memory = after("investigue os contratos da saúde acima de R$ 1,5 milhão em dezembro de 2024");
    let r = senna().route("e em 2023?", Some(&memory));
    let q = r.entities.as_query();
    assert_eq!(crate::query::interpret(&q), r.entities.query_intent(), "{q}");
    assert_eq!(r.entities.query_intent().min_value, Some(1_500_000.0));
    assert_eq!(senna().route(&q, None).entities, r.entities, "{q}");
}

#[test]
fn an_analysis_question_goes_to_the_analyst_of_what_it_asks_to_see() {
    use super::senna::analyst_for;
    assert_eq!(analyst_for("qual a distribuição regional dos convênios por estado em 2024?"), AgentId::Lampiao);
    assert_eq!(analyst_for("gasto per capita nos municípios do Nordeste"), AgentId::Lampiao);
    assert_eq!(analyst_for("há desigualdade entre as regiões nos repasses?"), AgentId::Dandara);
    assert_eq!(analyst_for("mostre um gráfico dos gastos por fornecedor do MEC"), AgentId::OscarNiemeyer);
    assert_eq!(analyst_for("forecast of the health ministry's spending"), AgentId::Ceuci);
    assert_eq!(analyst_for("qual a tendência de gastos do MEC?"), AgentId::Anita);
    // Whole words only: "estadual" and "grafica" are not "estado" and "grafico".
    assert_eq!(analyst_for("contratos com a gráfica estadual"), AgentId::Anita);
    let route = senna().route("qual a distribuição regional dos convênios por estado em 2024?", None);
    assert_eq!((route.intent, route.agent), (Intent::Analysis, AgentId::Lampiao));
    let agents: Vec<AgentId> = abaporu::plan(&route).steps.iter().map(|s| s.agent).collect();
    assert_eq!(agents, [AgentId::Lampiao, AgentId::Drummond]);
}
