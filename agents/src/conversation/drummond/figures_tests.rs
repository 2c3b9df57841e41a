//! The figure check: formatting variants of the facts' own figures pass, anything else is
//! caught, and a streamed text never lets part of an invented figure through.

use super::*;
use crate::conversation::{Entities, Intent};

fn facts() -> AnswerFacts {
    let mut f = AnswerFacts::empty(Intent::Investigation, Entities { year: Some(2024), ..Entities::default() }, false);
    (f.records_analysed, f.total_anomalies, f.money_at_stake) = (120, 3, 4_500_123.45);
    f.top_suppliers = vec![("Alfa".into(), 1_234_567.89)];
    f.investigation_id = Some("inv-7f3a".into());
    f
}

#[test]
fn the_facts_figures_pass_in_every_usual_writing() {
    let f = facts();
    for text in [
        "Em 2024 analisei 120 registros; Alfa recebeu R$ 1.234.567,89.",
        "In 2024 Alfa got R$ 1,234,567.89 of 120 records.",
        "Alfa: 1234567.89 reais; total em jogo 4500123,45.",
        "Alfa recebeu cerca de R$ 1,2 milhão; em jogo, R$ 4,5 mi (R$ 4.500.123).",
        "About R$ 1.23 million went to Alfa; 3 anomalies; see inv-7f3a.",
    ] {
        assert_eq!(invented_figures(text, &f), Vec::<String>::new(), "{text}");
    }
}

#[test]
fn a_made_up_or_badly_rounded_figure_is_caught() {
    let f = facts();
    assert_eq!(invented_figures("Alfa recebeu cerca de R$ 1,5 milhão.", &f), vec!["1,5"]);
    assert_eq!(invented_figures("Encontrei 7 anomalias.", &f), vec!["7"]);
    assert_eq!(invented_figures("R$ 4 milhões em jogo", &f), vec!["4"], "4.5 rounds to 5, not 4");
    assert_eq!(invented_figures("em 2023", &f), vec!["2023"]);
    assert_eq!(invented_figures("1,2 mil", &f), vec!["1,2"], "the scale is checked too");
    assert_eq!(invented_figures("veja inv-7f3a; 7x mais caro; inv-7f3b", &f), vec!["7", "7"], "ids are checked whole");
}

#[test]
fn a_streamed_figure_is_held_back_until_complete_then_checked() {
    let f = facts();
    let mut g = FigureGuard::new(&f);
    assert_eq!(g.push("Analisei 1").unwrap(), "Analisei ");
    assert_eq!(g.push("2").unwrap(), "");
    assert_eq!(g.push("0 registros e R$ 1.").unwrap(), "120 registros e R$ ");
    assert_eq!(g.push("234.567,").unwrap(), "");
    assert_eq!(g.push("89 par").unwrap(), "", "a scale word could still follow");
    assert_eq!(g.push("a Alfa.").unwrap(), "1.234.567,89 para Alfa.");
    assert_eq!(g.push(" Cerca de R$ 1,2 mi").unwrap(), " Cerca de R$ ");
    assert_eq!(g.push("lhão.").unwrap(), "1,2 milhão.");
    assert_eq!(g.push(" Fim em 2024").unwrap(), " Fim em ");
    assert_eq!(g.finish().unwrap(), "2024");
}

#[test]
fn no_part_of_an_invented_figure_is_let_through() {
    let f = facts();
    let mut g = FigureGuard::new(&f);
    let mut shown = g.push("Desviaram R$ 31.").unwrap();
    shown.push_str(&g.push("415.").unwrap());
    assert_eq!(shown, "Desviaram R$ ");
    assert_eq!(g.push("926,53 ontem.").unwrap_err(), "31.415.926,53");
    let mut g = FigureGuard::new(&f);
    assert_eq!(g.push("Foram 9").unwrap(), "Foram ");
    assert_eq!(g.finish().unwrap_err(), "9");
    let mut g = FigureGuard::new(&f);
    assert_eq!(g.push("Veja inv-").unwrap(), "Veja inv-");
    assert_eq!(g.push("7f3a e inv-7").unwrap(), "7f3a e inv-", "an id of the facts, cut between pieces");
    assert_eq!(g.push("f").unwrap(), "");
    assert_eq!(g.push("9").unwrap_err(), "7", "no id of the facts starts inv-7f9");
}

#[test]
fn drummonds_own_summary_of_real_findings_passes_the_check_in_both_languages() {
    use crate::cancel::CancelFlag;
    use crate::demo::{DemoSpec, generate};
    use crate::model::params::DetectionParams;
    for seed in [1, 9, 42] {
        let data = generate(&DemoSpec { seed, contracts: 600, ..DemoSpec::default() });
        let (all, _) = crate::engine::analyse(&data.dataset, &DetectionParams::default(), &CancelFlag::new()).unwrap();
        let route = crate::conversation::shared_senna().route("Investigue o Ministério da Saúde em 2024", None);
        let f = AnswerFacts::from_findings(
            Intent::Investigation,
            route.entities.clone(),
            true,
            Some("0193a1f2-7c4e-7d3b-9f00-12ab34cd56ef".into()),
            &data.dataset,
            &all,
        );
        for lang in [Language::Pt, Language::En] {
            let draft = crate::conversation::drummond::closing(&f, lang).join("\n");
            assert_eq!(invented_figures(&draft, &f), Vec::<String>::new(), "seed {seed}: {draft}");
        }
    }
}

/// A measurement, not a check (run with `--release -- --ignored --nocapture`).
#[test]
#[ignore]
fn how_long_the_guard_takes_over_a_real_summary() {
    use crate::cancel::CancelFlag;
    use crate::demo::{DemoSpec, generate};
    use crate::model::params::DetectionParams;
    let data = generate(&DemoSpec { seed: 1, contracts: 600, ..DemoSpec::default() });
    let (all, _) = crate::engine::analyse(&data.dataset, &DetectionParams::default(), &CancelFlag::new()).unwrap();
    let f = AnswerFacts::from_findings(Intent::Investigation, Entities::default(), true, None, &data.dataset, &all);
    let draft = crate::conversation::drummond::closing(&f, Language::Pt).join(" ");
    let pieces: Vec<&str> = draft.split_inclusive(' ').collect();
    let n = 2000;
    let t = std::time::Instant::now();
    for _ in 0..n {
        let mut g = FigureGuard::new(&f);
        for p in &pieces {
            g.push(p).unwrap();
        }
        g.finish().unwrap();
    }
    let per = t.elapsed() / n;
    println!("guard: {} pieces, {} bytes: {per:?} per answer (KnownFigures::of included)", pieces.len(), draft.len());
    let t = std::time::Instant::now();
    for _ in 0..n {
        std::hint::black_box(KnownFigures::of(&f));
    }
    println!("KnownFigures::of alone: {:?}", t.elapsed() / n);
}
