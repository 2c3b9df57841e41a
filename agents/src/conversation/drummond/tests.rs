//! Drummond's phrasing: every figure comes from the facts, the language follows the user, demo
//! mode is said.

use super::*;
use crate::conversation::{Entities, SessionMemory};
use crate::model::report::BySeverity;

fn brief(id: &str, severity: &str, value: Option<f64>) -> AnomalyBrief {
    AnomalyBrief {
        id: id.into(),
        anomaly_type: "price_anomaly".into(),
        severity: severity.into(),
        description: "Preço unitário muito acima da mediana dos pares.".into(),
        description_en: None,
        contract_id: Some(format!("CT-{id}")),
        supplier: Some("Beta Serviços Ltda".into()),
        value,
    }
}

fn facts(demo: bool) -> AnswerFacts {
    AnswerFacts {
        intent: Intent::Investigation,
        entities: Entities {
            organ_codes: vec!["36000".into()],
            organ_names: vec!["Ministério da Saúde".into()],
            year: Some(2024),
            month: Some(12),
            min_value: Some(1e6),
            cnpj: Some("11222333000181".into()),
            ..Entities::default()
        },
        demo,
        investigation_id: Some("inv-7f3a".into()),
        records_analysed: 1234,
        anomalies: vec![
            brief("price-901", "critical", Some(4_321_000.5)),
            brief("price-17", "high", Some(88_000.0)),
            brief("dup-3", "medium", None),
        ],
        total_anomalies: 5,
        money_at_stake: 4_500_123.45,
        top_suppliers: vec![("Alfa Engenharia".into(), 9_876_543.21)],
        status_lines: Vec::new(),
        by_severity: BySeverity { critical: 1, high: 2, medium: 1, low: 1 },
    }
}

/// The text has no figure the facts do not hold.
fn assert_figures_come_from_facts(text: &str, f: &AnswerFacts) {
    assert_eq!(invented_figures(text, f), Vec::<String>::new(), "{text}");
}

#[test]
fn every_figure_of_the_closing_comes_from_the_facts_in_both_languages() {
    for lang in [Language::Pt, Language::En] {
        let text = closing(&facts(false), lang).join(" ");
        assert_figures_come_from_facts(&text, &facts(false));
        assert!(text.contains("inv-7f3a") && text.contains("price-901"), "{text}");
    }
    let pt = closing(&facts(false), Language::Pt).join(" ");
    assert!(pt.contains("R$ 4.500.123,45") && pt.contains("1 crítica, 2 altas, 1 média e 1 baixa"), "{pt}");
    assert!(pt.contains("Alfa Engenharia") && pt.contains("R$ 9.876.543,21"));
}

#[test]
fn an_english_question_gets_an_english_answer_with_english_money() {
    let text = closing(&facts(false), Language::En).join(" ");
    assert!(text.starts_with("I analysed 1234 records"), "{text}");
    assert!(
        text.contains("R$ 4,500,123.45 at stake") && text.contains("1 critical, 2 high, 1 medium and 1 low"),
        "{text}"
    );
    assert!(!text.contains("Encontrei"), "{text}");
    // The detector's Portuguese explanation is there only as a quote, said to be one.
    let quoted = text.matches("in Portuguese: \"Preço unitário").count();
    assert!(quoted > 0 && quoted == text.matches("Preço unitário").count(), "{text}");
}

#[test]
fn demo_mode_is_said_in_the_opening_and_the_closing() {
    let route = crate::conversation::shared_senna().route("investigue a saúde em 2024", None);
    assert!(opening(&route, true).contains("Modo demonstração"));
    assert!(!opening(&route, false).contains("demonstração"));
    assert!(closing(&facts(true), Language::Pt).join(" ").contains("Modo demonstração"));
    assert!(closing(&facts(true), Language::En).join(" ").contains("Demo mode"));
}

#[test]
fn the_opening_names_the_entities_and_the_agents_of_the_plan() {
    let route =
        crate::conversation::shared_senna().route("investigate MEC contracts in 2023 above R$ 500 thousand", None);
    let text = opening(&route, false);
    assert_eq!(
        text,
        "I will investigate with Zumbi dos Palmares, Oxóssi and José Bonifácio. Scope: Ministério da Educação (26000), 2023, above R$ 500,000.00."
    );
}

#[test]
fn a_finding_line_has_its_severity_figures_and_id() {
    let line = finding_line(&brief("price-901", "critical", Some(4_321_000.5)), Language::Pt);
    assert_eq!(
        line,
        "[crítica] preço fora do padrão: Preço unitário muito acima da mediana dos pares (contrato CT-price-901; fornecedor Beta Serviços Ltda; R$ 4.321.000,50 em jogo) [id price-901]"
    );
    let en = finding_line(&brief("dup-3", "medium", None), Language::En);
    assert_eq!(
        en,
        "[medium] price anomaly (contract CT-dup-3; supplier Beta Serviços Ltda) [id dup-3] — in Portuguese: \"Preço unitário muito acima da mediana dos pares\""
    );
    // With the detector's English explanation, the English line uses it in the description's place.
    let mut with_en = brief("dup-3", "medium", None);
    with_en.description_en = Some("The unit price is far above the peers' median.".into());
    assert_eq!(
        finding_line(&with_en, Language::En),
        "[medium] price anomaly: The unit price is far above the peers' median (contract CT-dup-3; supplier Beta Serviços Ltda) [id dup-3]"
    );
}

#[test]
fn no_findings_say_so_without_inventing_counts() {
    let mut f = facts(false);
    (f.anomalies, f.total_anomalies, f.money_at_stake, f.by_severity) = (Vec::new(), 0, 0.0, BySeverity::default());
    let text = closing(&f, Language::Pt).join(" ");
    assert!(text.contains("Não encontrei anomalias"), "{text}");
    assert_figures_come_from_facts(&text, &f);
}

#[test]
fn direct_answers_recall_the_session_and_report_status_lines() {
    let senna = crate::conversation::shared_senna();
    let memory = SessionMemory {
        entities: facts(false).entities,
        last_intent: Some(Intent::Investigation),
        investigation_ids: vec!["inv-7f3a".into()],
        turns: 4,
        last_answer_facts: Some(facts(false)),
        ..SessionMemory::default()
    };
    let recall = senna.route("o que eu perguntei antes?", Some(&memory));
    let text = direct_answer(&recall, Some(&memory), None).join(" ");
    assert!(text.contains("4 mensagens") && text.contains("inv-7f3a") && text.contains("36000"), "{text}");
    assert_figures_come_from_facts(&text.replace("4 mensagens", ""), &facts(false));
    let status = senna.route("qual o status da minha investigação?", Some(&memory));
    let mut f = AnswerFacts::empty(Intent::Status, Entities::default(), false);
    f.status_lines = vec!["inv-7f3a: running, 3 de 7 agentes".into()];
    assert_eq!(direct_answer(&status, Some(&memory), Some(&f)), f.status_lines);
    assert!(direct_answer(&status, None, None)[0].contains("Nenhuma investigação"));
    let about = senna.route("who are you?", None);
    assert!(direct_answer(&about, None, None).join(" ").contains(&format!("{} agents", AgentId::ALL.len())));
}

#[test]
fn follow_ups_read_the_same_answers_from_what_a_session_remembers() {
    let senna = crate::conversation::shared_senna();
    let full = facts(false);
    let kept = full.remembered(Language::En);
    assert_eq!(kept.anomalies, full.anomalies[..crate::conversation::facts::BRIEFS_REMEMBERED]);
    // A Portuguese session does not keep the English explanations its answers never show.
    let mut explained = full.clone();
    explained.anomalies[0].description_en = Some("The unit price is far above the peers' median.".into());
    assert!(explained.remembered(Language::En).anomalies[0].description_en.is_some());
    assert_eq!(explained.remembered(Language::Pt).anomalies, kept.anomalies);
    let memory = |f: &AnswerFacts| SessionMemory {
        entities: f.entities.clone(),
        last_intent: Some(Intent::Investigation),
        turns: 2,
        last_answer_facts: Some(f.clone()),
        ..SessionMemory::default()
    };
    let (with_all, with_kept) = (memory(&full), memory(&kept));
    for question in
        ["e o maior fornecedor?", "and how much was at stake?", "e qual o achado mais grave?", "what did I ask before?"]
    {
        let r = senna.route(question, Some(&with_kept));
        assert_eq!(r.intent, Intent::MemoryRecall, "{question}");
        assert_eq!(direct_answer(&r, Some(&with_kept), None), direct_answer(&r, Some(&with_all), None), "{question}");
    }
}
