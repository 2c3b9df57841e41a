//! Insights and recommendations, in Portuguese, for the pattern, temporal and text detectors
//! (round values, first digits, learned outliers, short continuing services, spikes, regime
//! changes, periodicity, dates, forecasts, vague objects, brands): one insight per detector
//! that found something, naming the most serious finding, and concrete next steps naming
//! organs, suppliers and contracts.

use serde_json::Value;
use std::sync::Arc;

use crate::agents::insight;
use crate::agents::narrative::by_detector;
use crate::agents::roster::AgentId;
use crate::detect::{
    pattern::benford, pattern::outliers, pattern::round_values, pattern::short_contract, pattern::text_flags,
    temporal::dates, temporal::forecast, temporal::periodicity, temporal::regime, temporal::spikes,
};
use crate::model::anomaly::Anomaly;
use crate::model::report::Insight;
use crate::text::{count_of, format_brl};

/// Most anomaly ids cited by one insight.
const MAX_EVIDENCE: usize = 20;
/// Most recommendations per detector.
const MAX_RECOMMENDATIONS: usize = 3;

/// What each detector's findings are called, singular and plural, and what they say.
struct Wording {
    detector: &'static str,
    one: &'static str,
    many: &'static str,
    summary: &'static str,
}

const WORDINGS: &[Wording] = &[
    Wording {
        detector: round_values::NAME,
        one: "fornecedor ou órgão",
        many: "fornecedores ou órgãos",
        summary: "com excesso de valores redondos (múltiplos de R$ 1.000)",
    },
    Wording {
        detector: benford::NAME,
        one: "fornecedor ou órgão",
        many: "fornecedores ou órgãos",
        summary: "com primeiros dígitos dos valores fora do esperado (teste de Benford)",
    },
    Wording {
        detector: outliers::NAME,
        one: "contrato",
        many: "contratos",
        summary: "diferentes de qualquer grupo de contratos (modelo k-means)",
    },
    Wording {
        detector: short_contract::NAME,
        one: "contrato",
        many: "contratos",
        summary: "de serviço contínuo com vigência de poucos dias",
    },
    Wording { detector: spikes::NAME, one: "mês", many: "meses", summary: "com pico de contratações em um órgão" },
    Wording {
        detector: regime::NAME,
        one: "órgão",
        many: "órgãos",
        summary: "com mudança duradoura de patamar de gasto mensal",
    },
    Wording {
        detector: periodicity::NAME,
        one: "par órgão-fornecedor",
        many: "pares órgão-fornecedor",
        summary: "com contratos em ritmo de relógio",
    },
    Wording {
        detector: dates::NAME,
        one: "contrato",
        many: "contratos",
        summary: "com datas fora de ordem (publicação ou vigência antes da assinatura)",
    },
    Wording {
        detector: forecast::NAME,
        one: "mês",
        many: "meses",
        summary: "com gasto acima do intervalo de previsão do próprio órgão",
    },
    Wording {
        detector: text_flags::VAGUE,
        one: "contrato",
        many: "contratos",
        summary: "com objeto genérico, sem especificação do que é comprado",
    },
    Wording {
        detector: text_flags::BRAND,
        one: "contrato",
        many: "contratos",
        summary: "exigindo marca sem admitir similar",
    },
];

/// The detectors this module writes about.
pub fn detectors() -> Vec<&'static str> {
    WORDINGS.iter().map(|w| w.detector).collect()
}

fn text<'a>(a: &'a Anomaly, key: &str) -> &'a str {
    a.technical_details.get(key).and_then(Value::as_str).unwrap_or("")
}

/// One insight per detector of this module with findings, most serious finding first.
pub fn insights(agent: AgentId, anomalies: &[Arc<Anomaly>]) -> Vec<Insight> {
    let mut out = Vec::new();
    for w in WORDINGS {
        let found = by_detector(anomalies, w.detector);
        let Some(top) = found.first() else { continue };
        let at_stake: f64 = found.iter().map(|a| a.value_at_stake()).sum();
        let confidence = found.iter().map(|a| a.confidence).sum::<f64>() / found.len() as f64;
        let text = format!(
            "{} {} ({} envolvidos); o mais grave: {}",
            count_of(found.len(), w.one, w.many),
            w.summary,
            format_brl(at_stake),
            top.description
        );
        let evidence: Vec<&Anomaly> = found.iter().take(MAX_EVIDENCE).copied().collect();
        out.push(insight(agent, text, confidence, &evidence));
    }
    out
}

/// Concrete next steps for an auditor, at most three per detector of this module.
pub fn recommendations(anomalies: &[Arc<Anomaly>]) -> Vec<String> {
    let mut out = Vec::new();
    for a in by_detector(anomalies, round_values::NAME).into_iter().take(MAX_RECOMMENDATIONS) {
        out.push(format!(
            "Pedir a memória de cálculo dos preços dos contratos de {} ({}), em sua maioria de valores redondos",
            a.affected_entities.primary.name, a.affected_entities.primary.id
        ));
    }
    for a in by_detector(anomalies, benford::NAME).into_iter().take(MAX_RECOMMENDATIONS) {
        out.push(format!(
            "Auditar por amostragem as notas e propostas de {} ({}): os valores não seguem a distribuição natural de \
             primeiros dígitos",
            a.affected_entities.primary.name, a.affected_entities.primary.id
        ));
    }
    for a in by_detector(anomalies, outliers::NAME).into_iter().take(MAX_RECOMMENDATIONS) {
        out.push(format!(
            "Conferir os dados e a execução do contrato {} ({}), atípico pelo modelo de agrupamento",
            a.affected_entities.primary.id,
            text(a, "main_feature")
        ));
    }
    for d in [spikes::NAME, forecast::NAME] {
        for a in by_detector(anomalies, d).into_iter().take(MAX_RECOMMENDATIONS) {
            out.push(format!(
                "Solicitar ao órgão {} a relação e a justificativa das contratações de {}",
                a.affected_entities.primary.id,
                text(a, "month")
            ));
        }
    }
    for a in by_detector(anomalies, regime::NAME).into_iter().take(MAX_RECOMMENDATIONS) {
        out.push(format!(
            "Pedir ao órgão {} a explicação do novo patamar de gasto a partir de {}",
            a.affected_entities.primary.id,
            text(a, "from_month")
        ));
    }
    for a in by_detector(anomalies, periodicity::NAME).into_iter().take(MAX_RECOMMENDATIONS) {
        out.push(format!(
            "Verificar se os contratos de {} com o órgão {} não fracionam uma única contratação",
            a.affected_entities.primary.name,
            text(a, "organ")
        ));
    }
    for a in by_detector(anomalies, dates::NAME).into_iter().take(MAX_RECOMMENDATIONS) {
        out.push(format!(
            "Conferir no processo do contrato {} as datas de assinatura, publicação e vigência",
            a.affected_entities.primary.id
        ));
    }
    for a in by_detector(anomalies, text_flags::VAGUE).into_iter().take(MAX_RECOMMENDATIONS) {
        out.push(format!(
            "Pedir o termo de referência do contrato {}, cujo objeto não descreve o que foi comprado",
            a.affected_entities.primary.id
        ));
    }
    for a in by_detector(anomalies, text_flags::BRAND).into_iter().take(MAX_RECOMMENDATIONS) {
        out.push(format!(
            "Pedir a justificativa técnica da indicação de marca no contrato {} (Lei 14.133/2021, art. 41, I)",
            a.affected_entities.primary.id
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cancel::CancelFlag;
    use crate::demo::{DemoSpec, generate};
    use crate::detect::engine;
    use crate::model::params::DetectionParams;

    #[test]
    fn every_detector_with_findings_gets_an_insight_and_recommendations() {
        let data = generate(&DemoSpec { seed: 3, contracts: 3000, ..DemoSpec::default() });
        let found = crate::testutil::shared(
            engine::detect(&data.dataset, &DetectionParams::default(), &CancelFlag::new(), &detectors()).unwrap(),
        );
        let with_findings: Vec<&str> = detectors().into_iter().filter(|d| !by_detector(&found, d).is_empty()).collect();
        assert!(with_findings.len() >= 4, "{with_findings:?}");
        let ins = insights(AgentId::Anita, &found);
        assert_eq!(ins.len(), with_findings.len());
        assert!(ins.iter().all(|i| i.agent == "anita" && !i.supporting_evidence.is_empty()));
        assert!(!recommendations(&found).is_empty());
        assert!(insights(AgentId::Anita, &[]).is_empty());
    }
}
