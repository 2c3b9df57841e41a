//! An engine finding (the spec's AnomalyResult) on the investigation routes: the engine's own
//! [`Anomaly`] on the English routes, [`Anomalia`] (Portuguese keys, type and severity in
//! Portuguese) on the Portuguese ones.
//!
//! `Anomalia` writes exactly the bytes the `json!` object it replaced wrote: its own levels
//! declare their fields in alphabetical order (a `json!` object's keys are sorted), and the
//! engine's nested records (entities, data points, the statistical test, factors) are kept as
//! their JSON values, whose keys are sorted the same way; the document names their types.

use serde::Serialize;
use serde_json::{Map, Value};
use vigia_agents::Anomaly;
use vigia_agents::model::anomaly::{DataPoint, EntityRef, Factor, StatisticalEvidence};

use super::bilingual::Rename;

/// AnomalyResult on the Portuguese routes.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct Anomalia {
    /// 0 a 1.
    pub confianca: f64,
    /// Comparações (objetos livres: o motor não fixa seus campos).
    pub contexto: ContextoAnomalia,
    /// Uma frase.
    pub descricao: String,
    /// Medidas próprias do detector.
    pub detalhes_tecnicos: Map<String, Value>,
    /// A entidade principal e as relacionadas.
    pub entidades_afetadas: EntidadesAfetadas,
    /// Medidas, padrões e o teste estatístico.
    pub evidencia: Evidencia,
    /// Explicação, quando pedida.
    pub explicacao: Option<Explicacao>,
    /// `<detector>-<chave>`.
    pub id: String,
    /// `baixa`, `media`, `alta`, `critica`.
    pub severidade: &'static str,
    /// O tipo (`anomalia_preco`, ...).
    pub tipo: &'static str,
}

/// `{comparacao_historica, comparacao_pares, contexto_regulatorio}`.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct ContextoAnomalia {
    /// Com o passado da mesma entidade.
    pub comparacao_historica: Option<Value>,
    /// Com o grupo de pares.
    pub comparacao_pares: Option<Value>,
    /// A regra ou lei aplicável.
    pub contexto_regulatorio: Option<Value>,
}

/// `{primaria, relacionadas}`.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct EntidadesAfetadas {
    /// A entidade de que trata.
    #[schema(value_type = EntityRef)]
    pub primaria: Value,
    /// Os outros registros por trás dela.
    #[schema(value_type = Vec<EntityRef>)]
    pub relacionadas: Value,
}

/// `{analise_estatistica, padroes, pontos_dados}`.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct Evidencia {
    /// O teste estatístico, quando se aplica.
    #[schema(value_type = Option<StatisticalEvidence>)]
    pub analise_estatistica: Value,
    /// Padrões vistos (objetos livres).
    pub padroes: Vec<Value>,
    /// Medidas por trás do achado.
    #[schema(value_type = Vec<DataPoint>)]
    pub pontos_dados: Value,
}

/// `{fatores_contribuintes, legivel_humano, tecnico}`.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct Explicacao {
    /// O que pesou na pontuação.
    #[schema(value_type = Vec<Factor>)]
    pub fatores_contribuintes: Value,
    /// Para um jornalista ou cidadão.
    pub legivel_humano: String,
    /// Para um auditor.
    pub tecnico: String,
}

/// An engine record as the JSON value the `json!` object held (keys sorted).
fn value(v: &impl Serialize) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}

impl Rename for Anomaly {
    type Out = Anomalia;
    fn rename(self) -> Anomalia {
        let (ev, ctx) = (&self.evidence, self.context);
        Anomalia {
            confianca: self.confidence,
            contexto: ContextoAnomalia {
                comparacao_historica: ctx.historical_comparison,
                comparacao_pares: ctx.peer_comparison,
                contexto_regulatorio: ctx.regulatory_context,
            },
            descricao: self.description,
            detalhes_tecnicos: self.technical_details,
            entidades_afetadas: EntidadesAfetadas {
                primaria: value(&self.affected_entities.primary),
                relacionadas: value(&self.affected_entities.related),
            },
            evidencia: Evidencia {
                analise_estatistica: value(&ev.statistical_analysis),
                padroes: ev.patterns.clone(),
                pontos_dados: value(&ev.data_points),
            },
            explicacao: self.explanation.map(|x| Explicacao {
                fatores_contribuintes: value(&x.contributing_factors),
                legivel_humano: x.human_readable,
                tecnico: x.technical,
            }),
            id: self.id,
            severidade: self.severity.as_pt(),
            tipo: self.kind.as_pt(),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use vigia_agents::model::anomaly::{Explanation, Factor};

    use super::*;

    /// The `json!` object the Portuguese view was built with before it was typed.
    fn as_before(a: &Anomaly) -> Value {
        let ev = &a.evidence;
        let ctx = &a.context;
        let explanation = a.explanation.as_ref().map_or(Value::Null, |x| {
            json!({"legivel_humano": x.human_readable, "tecnico": x.technical, "fatores_contribuintes": x.contributing_factors})
        });
        json!({
            "id": a.id,
            "tipo": a.kind.as_pt(),
            "severidade": a.severity.as_pt(),
            "confianca": a.confidence,
            "descricao": a.description,
            "detalhes_tecnicos": a.technical_details,
            "entidades_afetadas": {"primaria": a.affected_entities.primary, "relacionadas": a.affected_entities.related},
            "evidencia": {"pontos_dados": ev.data_points, "padroes": ev.patterns, "analise_estatistica": ev.statistical_analysis},
            "contexto": {
                "comparacao_historica": ctx.historical_comparison,
                "comparacao_pares": ctx.peer_comparison,
                "contexto_regulatorio": ctx.regulatory_context,
            },
            "explicacao": explanation,
        })
    }

    #[test]
    fn the_portuguese_anomaly_writes_the_bytes_the_json_object_wrote() {
        let found = crate::runtime::demo_findings();
        assert!(found.len() > 3);
        let mut explained = found[0].clone();
        explained.explanation = Some(Explanation {
            human_readable: "Preço acima dos pares".into(),
            technical: "z = 4.1".into(),
            contributing_factors: vec![Factor { factor: "preço".into(), impact: 0.8, description: "alto".into() }],
        });
        explained.context.peer_comparison = Some(json!({"grupo": "obras", "mediana": 1.5}));
        for a in found.into_iter().chain([explained]) {
            let before = serde_json::to_string(&as_before(&a)).unwrap();
            let now = serde_json::to_string(&a.rename()).unwrap();
            assert_eq!(now, before);
        }
    }
}
