//! The methodology section of a report: each detector's rule in one line (in Portuguese) and the
//! thresholds in force at the requested sensitivity, read from the detectors' own constants so
//! the report states what actually ran.

use crate::detect::sensitivity::Threshold;
use crate::detect::{compliance, pattern, price, relationship, temporal};
use crate::text::{format_decimal, format_pct};

/// What bounds a detector's findings.
enum Limits {
    /// Thresholds moved by sensitivity, each with a label.
    Moving(&'static [(&'static str, Threshold)]),
    /// The limits of the law in force when the record was signed.
    Law,
    /// Fixed constants of the detector, written out from them.
    Fixed(fn() -> String),
}

/// One detector's rule and its thresholds.
struct Rule {
    detector: &'static str,
    rule: &'static str,
    limits: Limits,
}

fn bid_rigging_limits() -> String {
    use relationship::bid_rigging::{COVER_GAP, MAX_GROUP, MAX_WIN_SHARE};
    format!(
        "grupos de até {MAX_GROUP} licitantes; um membro com até {} das vitórias; perdedores ao menos {} acima do vencedor",
        format_pct(MAX_WIN_SHARE),
        format_pct(COVER_GAP)
    )
}

fn relationship_limits() -> String {
    let links: Vec<&str> = relationship::relationships::LINKS.iter().map(|(name, _)| *name).collect();
    format!("vínculos considerados: {}", links.join(", "))
}

fn phantom_limits() -> String {
    "número de sinais exigido, prazo de abertura e fornecedores por endereço conforme a sensibilidade".to_string()
}

const RULES: &[Rule] = &[
    Rule {
        detector: price::zscore::NAME,
        rule: "Preço do contrato (ou de seus itens) comparado ao do grupo de pares: z-score robusto do log do valor e razão sobre a mediana",
        limits: Limits::Moving(&[
            ("z-score robusto", price::zscore::ROBUST),
            ("razão mínima sobre a mediana", price::zscore::MIN_RATIO),
        ]),
    },
    Rule {
        detector: pattern::concentration::NAME,
        rule: "Fornecedor com parcela do gasto competitivo anual do órgão muito acima da maior parcela usual entre os pares",
        limits: Limits::Moving(&[
            ("parcela", pattern::concentration::SHARE),
            ("fator sobre os pares", pattern::concentration::PEER_FACTOR),
        ]),
    },
    Rule {
        detector: temporal::end_of_year::NAME,
        rule: "Órgão que concentra o gasto em dezembro muito além dos seus dezembros anteriores e do dezembro dos pares",
        limits: Limits::Moving(&[
            ("fator sobre a base", temporal::end_of_year::FACTOR),
            ("-log10 p", temporal::end_of_year::SIGNIFICANCE),
        ]),
    },
    Rule {
        detector: pattern::duplicates::NAME,
        rule: "Mesmo objeto comprado duas vezes (similaridade de Jaccard do texto) do mesmo fornecedor, ou de fornecedores diferentes a valor e data próximos",
        limits: Limits::Moving(&[("similaridade", pattern::duplicates::SIMILARITY)]),
    },
    Rule {
        detector: compliance::compliance_rules::NAME,
        rule: "Regras da lei de licitações vigente na assinatura (limites de dispensa, teto de aditivos, fornecedor sancionado, convênios)",
        limits: Limits::Law,
    },
    Rule {
        detector: compliance::splitting::NAME,
        rule: "Compras diretas do mesmo objeto pela mesma unidade no exercício cuja soma ultrapassa o limite de dispensa (Lei 14.133, art. 75, §1º)",
        limits: Limits::Law,
    },
    Rule {
        detector: relationship::bid_rigging::NAME,
        rule: "Mesmo pequeno grupo de licitantes que se reencontra, com vencedor em rodízio e perdedores sempre acima (propostas de cobertura)",
        limits: Limits::Fixed(bid_rigging_limits),
    },
    Rule {
        detector: relationship::relationships::NAME,
        rule: "Fornecedores ligados no cadastro (sócio, telefone, endereço, raiz do CNPJ) que disputam entre si; servidores sócios de fornecedores do próprio órgão",
        limits: Limits::Fixed(relationship_limits),
    },
    Rule {
        detector: relationship::phantom::NAME,
        rule: "Empresas com sinais de fachada no cadastro (aberta pouco antes do primeiro contrato, sem sócios, endereço ou telefone de outros fornecedores)",
        limits: Limits::Fixed(phantom_limits),
    },
    Rule {
        detector: pattern::round_values::NAME,
        rule: "Fornecedor ou órgão com excesso de valores redondos (múltiplos de R$ 1.000) em contratos competitivos, por teste binomial",
        limits: Limits::Moving(&[
            ("parcela redonda", pattern::round_values::SHARE),
            ("-log10 p", pattern::round_values::SIGNIFICANCE),
        ]),
    },
    Rule {
        detector: pattern::benford::NAME,
        rule: "Primeiros dígitos dos valores de um fornecedor ou órgão fora da lei de Newcomb-Benford (qui-quadrado e desvio médio)",
        limits: Limits::Moving(&[
            ("-log10 p", pattern::benford::SIGNIFICANCE),
            ("desvio médio", pattern::benford::MAD),
        ]),
    },
    Rule {
        detector: pattern::outliers::NAME,
        rule: "Contrato distante de todo grupo aprendido dos dados (k-means do linfa)",
        limits: Limits::Moving(&[("distância ao centróide", pattern::outliers::DISTANCE)]),
    },
    Rule {
        detector: pattern::short_contract::NAME,
        rule: "Serviço contínuo de valor material com vigência de poucos dias",
        limits: Limits::Moving(&[
            ("dias", pattern::short_contract::DAYS),
            ("razão valor/dia sobre os pares", pattern::short_contract::RATIO),
        ]),
    },
    Rule {
        detector: temporal::spikes::NAME,
        rule: "Mês (ou dia) em que o órgão contratou muito mais que no seu mês usual (z-score modificado)",
        limits: Limits::Moving(&[("z modificado", temporal::spikes::Z)]),
    },
    Rule {
        detector: temporal::regime::NAME,
        rule: "Mudança duradoura do patamar mensal de gasto de um órgão (estatística de postos)",
        limits: Limits::Moving(&[
            ("estatística", temporal::regime::Z),
            ("razão das medianas", temporal::regime::RATIO),
        ]),
    },
    Rule {
        detector: temporal::periodicity::NAME,
        rule: "Contratos de um fornecedor com um órgão em ritmo de relógio (periodograma, teste de Fisher)",
        limits: Limits::Moving(&[
            ("-log10 p", temporal::periodicity::SIGNIFICANCE),
            ("amplitude", temporal::periodicity::AMPLITUDE),
        ]),
    },
    Rule {
        detector: temporal::dates::NAME,
        rule: "Datas fora de ordem: publicação antes da assinatura, vigência retroativa ou invertida",
        limits: Limits::Moving(&[
            ("dias de publicação antes", temporal::dates::PUBLISHED),
            ("dias de retroação", temporal::dates::RETROACTIVE),
        ]),
    },
    Rule {
        detector: temporal::forecast::NAME,
        rule: "Mês em que o órgão gastou muito acima da previsão feita pela sua própria série",
        limits: Limits::Moving(&[("erros-padrão acima", temporal::forecast::Z)]),
    },
    Rule {
        detector: pattern::text_flags::VAGUE,
        rule: "Objeto que diz o tipo de compra mas não o que se compra, acima de um valor material",
        limits: Limits::Moving(&[("valor mínimo (R$)", pattern::text_flags::VALUE)]),
    },
    Rule {
        detector: pattern::text_flags::BRAND,
        rule: "Objeto que indica marca sem a ressalva de similar ou equivalente",
        limits: Limits::Moving(&[("pontuação de marca", pattern::text_flags::BRAND_SCORE)]),
    },
];

/// The rule of `detector` in one line, and its thresholds at `sensitivity` as text
/// (`"z-score robusto 2,4; razão mínima sobre a mediana 3,0"`); `None` for an unknown name.
pub fn rule_of(detector: &str, sensitivity: f64) -> Option<(&'static str, String)> {
    let r = RULES.iter().find(|r| r.detector == detector)?;
    let thresholds = match &r.limits {
        Limits::Moving(list) => list
            .iter()
            .map(|(label, t)| {
                let v = t.at(sensitivity);
                let places = if v.abs() >= 100.0 {
                    0
                } else if v.abs() >= 1.0 {
                    1
                } else {
                    3
                };
                format!("{label} {}", format_decimal(v, places))
            })
            .collect::<Vec<_>>()
            .join("; "),
        Limits::Law => "limites da lei vigente na assinatura".to_string(),
        Limits::Fixed(text) => text(),
    };
    Some((r.rule, thresholds))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_registered_detector_has_a_rule_and_its_thresholds_follow_the_sensitivity() {
        for name in crate::detect::NAMES {
            assert!(rule_of(name, 0.7).is_some(), "{name} has no rule line");
        }
        assert_eq!(RULES.len(), crate::detect::NAMES.len());
        let (_, at_default) = rule_of(price::zscore::NAME, 0.7).unwrap();
        assert_eq!(at_default, "z-score robusto 2,4; razão mínima sobre a mediana 3,0");
        let (_, literal) = rule_of(price::zscore::NAME, 1.0).unwrap();
        assert_eq!(literal, "z-score robusto 1,5; razão mínima sobre a mediana 1,0");
        assert!(rule_of("nope", 0.7).is_none());
        let (_, rigging) = rule_of(relationship::bid_rigging::NAME, 0.7).unwrap();
        assert_eq!(
            rigging,
            "grupos de até 6 licitantes; um membro com até 75,0% das vitórias; perdedores ao menos 5,0% acima do vencedor"
        );
        assert_eq!(rule_of(compliance::splitting::NAME, 0.7).unwrap().1, "limites da lei vigente na assinatura");
    }
}
