//! Whole answers for the intents that need no analysis: greeting, help, about, out of scope,
//! memory recall (from the [`SessionMemory`]) and status (from the host's status lines). Any
//! figure here comes from the memory, the facts or the roster.

use super::{closing, finding_line, opening};
use crate::agents::roster::AgentId;
use crate::conversation::phrases::{entities_phrase, intent_label};
use crate::conversation::{AnswerFacts, Ask, Intent, Language, Route, SessionMemory};

fn examples(lang: Language) -> String {
    match lang {
        Language::Pt => "Por exemplo: \"investigue os contratos do Ministério da Saúde em 2024 acima de R$ 1 milhão\", \"qual a tendência de gastos do MEC?\", \"gere um relatório da investigação\" ou, depois de uma resposta, \"e em 2023?\".".into(),
        Language::En => "For example: \"investigate the health ministry's contracts in 2024 above R$ 1 million\", \"what is MEC's spending trend?\", \"generate a report of the investigation\" or, after an answer, \"and in 2023?\".".into(),
    }
}

fn greeting(lang: Language) -> Vec<String> {
    match lang {
        Language::Pt => vec!["Olá! Sou o Vigia: procuro anomalias nos gastos públicos federais (contratos, despesas, convênios, licitações).".into(), examples(lang)],
        Language::En => vec!["Hello! I am Vigia: I look for anomalies in Brazilian federal public spending (contracts, expenses, agreements, tenders).".into(), examples(lang)],
    }
}

fn help(route: &Route) -> Vec<String> {
    let lang = route.language;
    let mut out = Vec::new();
    if route.unsure {
        out.push(if lang == Language::En {
            "I am not sure what you asked.".into()
        } else {
            "Não tenho certeza do que você pediu.".to_string()
        });
    }
    out.push(match lang {
        Language::Pt => "Posso investigar anomalias (preços, fracionamento, conluio, conformidade legal), analisar tendências e concentração de gastos, escrever relatórios e lembrar o contexto da conversa. Diga o órgão, o ano, o mês, valores, o fornecedor ou o CNPJ.".into(),
        Language::En => "I can investigate anomalies (prices, splitting, collusion, legal compliance), analyse spending trends and concentration, write reports and remember our conversation's context. Name the organ, year, month, values, supplier or CNPJ.".into(),
    });
    out.push(examples(lang));
    out
}

fn about(lang: Language) -> Vec<String> {
    let n = AgentId::ALL.len();
    let names: Vec<&str> = AgentId::ALL.iter().map(|a| a.display_name()).collect();
    match lang {
        Language::Pt => vec![
            "O Vigia investiga os gastos públicos federais com dados do Portal da Transparência e de outras fontes oficiais, ou com dados sintéticos no modo demonstração.".into(),
            format!("São {n} agentes: {}.", names.join(", ")),
            "Cada anomalia traz a evidência, o método estatístico e a regra que a disparou.".into(),
        ],
        Language::En => vec![
            "Vigia investigates Brazilian federal spending with data from the Portal da Transparência and other official sources, or with synthetic data in demo mode.".into(),
            format!("There are {n} agents: {}.", names.join(", ")),
            "Every anomaly comes with its evidence, the statistical method and the rule that fired.".into(),
        ],
    }
}

fn out_of_scope(route: &Route) -> Vec<String> {
    let lang = route.language;
    let first = match (lang, route.unsure) {
        (Language::Pt, true) => "Não entendi o pedido, e ele não parece ser sobre gastos públicos.",
        (Language::Pt, false) => "Isso foge do que eu faço: só trato de gastos públicos federais.",
        (Language::En, true) => "I did not understand the request, and it does not seem to be about public spending.",
        (Language::En, false) => "That is outside what I do: I only deal with Brazilian federal public spending.",
    };
    vec![first.into(), examples(lang)]
}

/// The answer to a short follow-up about a fact of the last answer.
fn asked(ask: Ask, f: &AnswerFacts, lang: Language) -> String {
    let en = lang == Language::En;
    match ask {
        Ask::TopSupplier => match f.top_suppliers.first() {
            Some((name, v)) if en => format!("The biggest supplier was {name}, with {} in contracts.", lang.brl(*v)),
            Some((name, v)) => format!("O maior fornecedor foi {name}, com {} em contratos.", lang.brl(*v)),
            None if en => "The last answer named no supplier.".into(),
            None => "A última resposta não trazia fornecedores.".into(),
        },
        Ask::MoneyAtStake if en => {
            format!("The last answer had {} at stake in {} anomalies.", lang.brl(f.money_at_stake), f.total_anomalies)
        }
        Ask::MoneyAtStake => format!(
            "A última resposta tinha {} em jogo em {} anomalias.",
            lang.brl(f.money_at_stake),
            f.total_anomalies
        ),
        Ask::MostSevere => match f.anomalies.first() {
            Some(a) if en => format!("The most severe finding: {}.", finding_line(a, lang)),
            Some(a) => format!("O achado mais grave: {}.", finding_line(a, lang)),
            None if en => "The last answer had no anomaly.".into(),
            None => "A última resposta não tinha anomalias.".into(),
        },
    }
}

fn recall(route: &Route, memory: Option<&SessionMemory>) -> Vec<String> {
    let lang = route.language;
    let en = lang == Language::En;
    let Some(m) = memory.filter(|m| m.turns > 0) else {
        return vec![if en {
            "We have not talked about any data in this session yet.".into()
        } else {
            "Ainda não conversamos sobre nenhum dado nesta sessão.".into()
        }];
    };
    if let (Some(ask), Some(f)) = (route.asks, &m.last_answer_facts) {
        return vec![asked(ask, f, lang)];
    }
    let mut out = vec![if en {
        format!("We have exchanged {} messages in this session.", m.turns)
    } else {
        format!("Trocamos {} mensagens nesta sessão.", m.turns)
    }];
    if let (Some(i), Some(p)) = (m.last_intent, entities_phrase(&m.entities, lang)) {
        out.push(if en {
            format!("Your last {} was about {p}.", intent_label(i, lang))
        } else {
            format!("Seu último {} foi sobre {p}.", intent_label(i, lang))
        });
    }
    if !m.investigation_ids.is_empty() {
        let ids = m.investigation_ids.join(", ");
        out.push(if en {
            format!("Investigations started: {ids}.")
        } else {
            format!("Investigações iniciadas: {ids}.")
        });
    }
    if let Some(f) = &m.last_answer_facts {
        out.extend(closing(f, lang).into_iter().take(1));
    }
    out
}

fn status(route: &Route, memory: Option<&SessionMemory>, facts: Option<&AnswerFacts>) -> Vec<String> {
    let en = route.language == Language::En;
    if let Some(lines) = facts.map(|f| &f.status_lines).filter(|l| !l.is_empty()) {
        return lines.clone();
    }
    match memory.map(|m| &m.investigation_ids).filter(|ids| !ids.is_empty()) {
        Some(ids) if en => vec![format!(
            "Investigations of this conversation: {}. Ask for one by its id to see its state.",
            ids.join(", ")
        )],
        Some(ids) => {
            vec![format!("Investigações desta conversa: {}. Consulte uma pelo id para ver o estado.", ids.join(", "))]
        }
        None if en => vec!["No investigation was started in this conversation.".into()],
        None => vec!["Nenhuma investigação foi iniciada nesta conversa.".into()],
    }
}

/// Whole answers for intents that need no analysis (greeting, help, about, out of scope,
/// memory recall from `memory`, status from `facts.status_lines`); for the others, the
/// closing summary of `facts` when given, else the opening.
pub fn direct_answer(route: &Route, memory: Option<&SessionMemory>, facts: Option<&AnswerFacts>) -> Vec<String> {
    match route.intent {
        Intent::Greeting => greeting(route.language),
        Intent::Help => help(route),
        Intent::About => about(route.language),
        Intent::OutOfScope => out_of_scope(route),
        Intent::MemoryRecall => recall(route, memory),
        Intent::Status => status(route, memory, facts),
        Intent::Investigation | Intent::Analysis | Intent::Report => match facts {
            Some(f) => closing(f, route.language),
            None => vec![opening(route, false)],
        },
    }
}
