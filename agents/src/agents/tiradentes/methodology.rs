//! The methodology section of a report: each detector's rule in one line (in Portuguese) and the
//! thresholds in force at the requested sensitivity, read from the detectors' own constants so
//! the report states what actually ran.

use crate::detect::sensitivity::Threshold;
use crate::detect::{compliance, pattern, price, relationship, temporal};
use crate::text::format_decimal;

/// One detector's rule and its thresholds.
struct Rule {
    detector: &'static str,
    rule: &'static str,
    thresholds: &'static [(&'static str, Threshold)],
}

const RULES: &[Rule] = &[
    Rule {
        detector: price::zscore::NAME,
        rule: "Preço do contrato (ou de seus itens) comparado ao do grupo de pares: z-score robusto do log do valor e razão sobre a mediana",
        thresholds: &[
            ("z-score robusto", price::zscore::ROBUST),
            ("razão mínima sobre a mediana", price::zscore::MIN_RATIO),
        ],
    },
    Rule {
        detector: pattern::concentration::NAME,
        rule: "Fornecedor com parcela do gasto competitivo anual do órgão muito acima da maior parcela usual entre os pares",
        thresholds: &[
            ("parcela", pattern::concentration::SHARE),
            ("fator sobre os pares", pattern::concentration::PEER_FACTOR),
        ],
    },
    Rule {
        detector: temporal::end_of_year::NAME,
        rule: "Órgão que concentra o gasto em dezembro muito além dos seus dezembros anteriores e do dezembro dos pares",
        thresholds: &[
            ("fator sobre a base", temporal::end_of_year::FACTOR),
            ("-log10 p", temporal::end_of_year::SIGNIFICANCE),
        ],
    },
    Rule {
        detector: pattern::duplicates::NAME,
        rule: "Mesmo objeto comprado duas vezes (similaridade de Jaccard do texto) do mesmo fornecedor, ou de fornecedores diferentes a valor e data próximos",
        thresholds: &[("similaridade", pattern::duplicates::SIMILARITY)],
    },
    Rule {
        detector: compliance::compliance_rules::NAME,
        rule: "Regras da lei de licitações vigente na assinatura (limites de dispensa, teto de aditivos, fornecedor sancionado, convênios)",
        thresholds: &[],
    },
    Rule {
        detector: compliance::splitting::NAME,
        rule: "Compras diretas do mesmo objeto pela mesma unidade no exercício cuja soma ultrapassa o limite de dispensa (Lei 14.133, art. 75, §1º)",
        thresholds: &[],
    },
    Rule {
        detector: relationship::bid_rigging::NAME,
        rule: "Mesmo pequeno grupo de licitantes que se reencontra, com vencedor em rodízio e perdedores sempre acima (propostas de cobertura)",
        thresholds: &[],
    },
    Rule {
        detector: relationship::relationships::NAME,
        rule: "Fornecedores ligados no cadastro (sócio, telefone, endereço, raiz do CNPJ) que disputam entre si; servidores sócios de fornecedores do próprio órgão",
        thresholds: &[],
    },
    Rule {
        detector: relationship::phantom::NAME,
        rule: "Empresas com sinais de fachada no cadastro (aberta pouco antes do contrato, sem sócios, capital ínfimo, endereço compartilhado)",
        thresholds: &[],
    },
    Rule {
        detector: pattern::round_values::NAME,
        rule: "Fornecedor ou órgão com excesso de valores redondos (múltiplos de R$ 1.000) em contratos competitivos, por teste binomial",
        thresholds: &[
            ("parcela redonda", pattern::round_values::SHARE),
            ("-log10 p", pattern::round_values::SIGNIFICANCE),
        ],
    },
    Rule {
        detector: pattern::benford::NAME,
        rule: "Primeiros dígitos dos valores de um fornecedor ou órgão fora da lei de Newcomb-Benford (qui-quadrado e desvio médio)",
        thresholds: &[("-log10 p", pattern::benford::SIGNIFICANCE), ("desvio médio", pattern::benford::MAD)],
    },
    Rule {
        detector: pattern::outliers::NAME,
        rule: "Contrato distante de todo grupo aprendido dos dados (k-means do linfa)",
        thresholds: &[("distância ao centróide", pattern::outliers::DISTANCE)],
    },
    Rule {
        detector: pattern::short_contract::NAME,
        rule: "Serviço contínuo de valor material com vigência de poucos dias",
        thresholds: &[
            ("dias", pattern::short_contract::DAYS),
            ("razão valor/dia sobre os pares", pattern::short_contract::RATIO),
        ],
    },
    Rule {
        detector: temporal::spikes::NAME,
        rule: "Mês (ou dia) em que o órgão contratou muito mais que no seu mês usual (z-score modificado)",
        thresholds: &[("z modificado", temporal::spikes::Z)],
    },
    Rule {
        detector: temporal::regime::NAME,
        rule: "Mudança duradoura do patamar mensal de gasto de um órgão (estatística de postos)",
        thresholds: &[("estatística", temporal::regime::Z), ("razão das medianas", temporal::regime::RATIO)],
    },
    Rule {
        detector: temporal::periodicity::NAME,
        rule: "Contratos de um fornecedor com um órgão em ritmo de relógio (periodograma, teste de Fisher)",
        thresholds: &[
            ("-log10 p", temporal::periodicity::SIGNIFICANCE),
            ("amplitude", temporal::periodicity::AMPLITUDE),
        ],
    },
    Rule {
        detector: temporal::dates::NAME,
        rule: "Datas fora de ordem: publicação antes da assinatura, vigência retroativa ou invertida",
        thresholds: &[
            ("dias de publicação antes", temporal::dates::PUBLISHED),
            ("dias de retroação", temporal::dates::RETROACTIVE),
        ],
    },
    Rule {
        detector: temporal::forecast::NAME,
        rule: "Mês em que o órgão gastou muito acima da previsão feita pela sua própria série",
        thresholds: &[("erros-padrão acima", temporal::forecast::Z)],
    },
    Rule {
        detector: pattern::text_flags::VAGUE,
        rule: "Objeto que diz o tipo de compra mas não o que se compra, acima de um valor material",
        thresholds: &[("valor mínimo (R$)", pattern::text_flags::VALUE)],
    },
    Rule {
        detector: pattern::text_flags::BRAND,
        rule: "Objeto que indica marca sem a ressalva de similar ou equivalente",
        thresholds: &[("pontuação de marca", pattern::text_flags::BRAND_SCORE)],
    },
];

/// The rule of `detector` in one line, and its thresholds at `sensitivity` as text
/// (`"z-score robusto 2,4; razão mínima sobre a mediana 3,0"`); `None` for an unknown name.
pub fn rule_of(detector: &str, sensitivity: f64) -> Option<(&'static str, String)> {
    let r = RULES.iter().find(|r| r.detector == detector)?;
    let thresholds: Vec<String> = r
        .thresholds
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
        .collect();
    let thresholds = if thresholds.is_empty() { "regras da lei, fixas".to_string() } else { thresholds.join("; ") };
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
    }
}
