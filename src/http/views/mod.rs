//! How investigations look on the wire, in each naming variant. One function per shape; the
//! English and Portuguese keys sit side by side so the two variants cannot drift apart.

use chrono::{DateTime, SecondsFormat, Utc};
use serde_json::{Map, Value, json};
use vigia_agents::Anomaly;

use super::error::Lang;
use crate::domain::{Investigation, InvestigationHead, Phase, Status};
use crate::service::investigations::{Cancelled, Started};

mod events;
mod lists;

pub use events::event;
pub use lists::{cursor_list, list};

/// An instant as RFC 3339 UTC with milliseconds (`2024-05-01T12:00:00.000Z`).
pub(crate) fn ts(t: &DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Millis, true)
}

fn opt_ts(t: &Option<DateTime<Utc>>) -> Value {
    t.as_ref().map_or(Value::Null, |t| Value::String(ts(t)))
}

fn status(lang: Lang, s: Status) -> &'static str {
    if lang == Lang::Pt { s.as_pt() } else { s.as_str() }
}

fn phase(lang: Lang, p: Phase) -> &'static str {
    if lang == Lang::Pt { p.as_pt() } else { p.as_str() }
}

/// Builds an object from `(english, portuguese, value)` triples.
fn obj(lang: Lang, fields: Vec<(&str, &str, Value)>) -> Value {
    let mut m = Map::new();
    for (en, pt, v) in fields {
        m.insert(if lang == Lang::Pt { pt } else { en }.to_string(), v);
    }
    Value::Object(m)
}

/// Path of the stream endpoint of an investigation.
pub fn stream_path(lang: Lang, inv: &Investigation) -> String {
    match lang {
        Lang::En => format!("/api/v1/investigations/stream/{}", inv.id),
        Lang::Pt => format!("/api/v1/investigacoes/stream/{}", inv.id),
    }
}

/// Start response.
pub fn started(lang: Lang, s: &Started) -> Value {
    let inv = &s.investigation;
    obj(
        lang,
        vec![
            ("investigation_id", "id_investigacao", json!(inv.id)),
            ("status", "status", json!(status(lang, inv.status))),
            ("estimated_completion", "conclusao_estimada", json!(s.estimated_completion.as_ref().map(ts))),
            ("stream_url", "url_stream", json!(stream_path(lang, inv))),
        ],
    )
}

/// InvestigationStatus, from the head (results are never read for it).
pub fn status_view(lang: Lang, inv: &InvestigationHead) -> Value {
    let p = &inv.progress;
    let processing_ms = match (inv.started_at, inv.completed_at) {
        (Some(s), Some(c)) => (c - s).num_milliseconds().max(0),
        (Some(s), None) => (Utc::now() - s).num_milliseconds().max(0),
        _ => 0,
    };
    let error = inv.error.as_ref().map_or(Value::Null, |e| {
        obj(
            lang,
            vec![
                ("code", "codigo", json!(e.code)),
                ("message", "mensagem", json!(e.message)),
                ("recoverable", "recuperavel", json!(e.recoverable)),
            ],
        )
    });
    obj(
        lang,
        vec![
            ("investigation_id", "id_investigacao", json!(inv.id)),
            ("status", "status", json!(status(lang, inv.status))),
            (
                "progress",
                "progresso",
                obj(
                    lang,
                    vec![
                        ("percentage", "porcentagem", json!(p.percentage)),
                        ("current_phase", "fase_atual", json!(p.current_phase.map(|ph| phase(lang, ph)))),
                        (
                            "phases_completed",
                            "fases_concluidas",
                            json!(p.phases_completed.iter().map(|ph| phase(lang, *ph)).collect::<Vec<_>>()),
                        ),
                    ],
                ),
            ),
            (
                "statistics",
                "estatisticas",
                obj(
                    lang,
                    vec![
                        ("records_processed", "registros_processados", json!(p.records_processed)),
                        ("anomalies_found", "anomalias_encontradas", json!(inv.anomalies_found)),
                        ("agents_invoked", "agentes_invocados", json!(p.agents_invoked)),
                        ("processing_time_ms", "tempo_processamento_ms", json!(processing_ms)),
                    ],
                ),
            ),
            ("created_at", "criado_em", json!(ts(&inv.created_at))),
            ("started_at", "iniciado_em", opt_ts(&inv.started_at)),
            ("completed_at", "concluido_em", opt_ts(&inv.completed_at)),
            ("error", "erro", error),
            ("metadata", "metadados", inv.provenance.as_ref().map_or(Value::Null, |p| data_origin(lang, p))),
        ],
    )
}

/// Where an investigation's data came from: source, demo flag, `data_status` (`completed` or
/// `completed_fallback`: the state stays `completed` either way), the warning, and how much of
/// what the upstream holds was analysed.
fn data_origin(lang: Lang, p: &crate::domain::investigation::Provenance) -> Value {
    let fields = vec![
        ("source", "origem", json!(p.source)),
        ("demo_mode", "modo_demo", json!(p.demo_mode)),
        ("data_status", "situacao_dados", json!(p.data_status())),
        ("warning", "aviso", json!(p.warning())),
        ("records_available", "registros_disponiveis", json!(p.records_available)),
        ("truncated", "truncado", json!(p.truncated)),
        ("data_notes", "notas_dados", json!(p.notes)),
    ];
    obj(lang, fields)
}

/// One AnomalyResult.
pub fn anomaly(lang: Lang, a: &Anomaly) -> Value {
    if lang == Lang::En {
        return serde_json::to_value(a).unwrap_or(Value::Null);
    }
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

/// InvestigationResponse (callers make sure results exist).
pub fn results(lang: Lang, inv: &Investigation) -> Value {
    let Some(r) = &inv.results else { return Value::Null };
    let s = &r.summary;
    let by_type: Map<String, Value> = s
        .by_type
        .iter()
        .map(|(t, n)| ((if lang == Lang::Pt { t.as_pt() } else { t.as_str() }).to_string(), json!(n)))
        .collect();
    let b = &s.by_severity;
    let by_severity = match lang {
        Lang::En => json!({"critical": b.critical, "high": b.high, "medium": b.medium, "low": b.low}),
        Lang::Pt => json!({"critica": b.critical, "alta": b.high, "media": b.medium, "baixa": b.low}),
    };
    let insights: Vec<Value> = r
        .insights
        .iter()
        .map(|i| {
            obj(
                lang,
                vec![
                    ("agent", "agente", json!(i.agent)),
                    ("insight", "insight", json!(i.insight)),
                    ("confidence", "confianca", json!(i.confidence)),
                    ("supporting_evidence", "evidencia_suporte", json!(i.supporting_evidence)),
                ],
            )
        })
        .collect();
    let demo = r.provenance.demo_mode;
    let mut out = obj(
        lang,
        vec![
            ("investigation_id", "id_investigacao", json!(inv.id)),
            ("status", "status", json!(status(lang, inv.status))),
            (
                "metadata",
                "metadados",
                obj(
                    lang,
                    vec![
                        ("query", "consulta", json!(inv.request.query)),
                        ("data_source", "fonte_dados", json!(inv.request.data_source)),
                        ("filters", "filtros", json!(inv.request.filters)),
                        ("execution_time_ms", "tempo_execucao_ms", json!(r.execution_time_ms)),
                        ("total_records_analyzed", "total_registros_analisados", json!(r.records_analyzed)),
                        ("source", "origem", json!(r.provenance.source)),
                        ("demo_mode", "modo_demo", json!(demo)),
                        ("agents_used", "agentes_utilizados", json!(r.agents_used)),
                        (
                            "agents_failed",
                            "agentes_falharam",
                            json!(
                                r.agents_failed
                                    .iter()
                                    .map(|(a, e)| json!({"agent": a, "reason": e}))
                                    .collect::<Vec<_>>()
                            ),
                        ),
                        ("fallback_reason", "motivo_fallback", json!(r.provenance.fallback_reason)),
                        ("data_status", "situacao_dados", json!(r.provenance.data_status())),
                        ("warning", "aviso", json!(r.provenance.warning())),
                        ("records_available", "registros_disponiveis", json!(r.provenance.records_available)),
                        ("truncated", "truncado", json!(r.provenance.truncated)),
                        ("data_notes", "notas_dados", json!(r.provenance.notes)),
                    ],
                ),
            ),
            ("anomalies", "anomalias", Value::Array(r.anomalies.iter().map(|a| anomaly(lang, a)).collect())),
            (
                "summary",
                "resumo",
                obj(
                    lang,
                    vec![
                        ("total_anomalies", "total_anomalias", json!(s.total_anomalies)),
                        ("by_type", "por_tipo", Value::Object(by_type)),
                        ("by_severity", "por_severidade", by_severity),
                        ("risk_score", "pontuacao_risco", json!(s.risk_score)),
                    ],
                ),
            ),
            ("insights", "insights", Value::Array(insights)),
            ("recommendations", "recomendacoes", json!(r.recommendations)),
        ],
    );
    if let Some(warning) = r.provenance.warning()
        && let Some(m) = out.as_object_mut()
    {
        let key = if lang == Lang::Pt { "aviso" } else { "warning" };
        m.insert(key.into(), json!(warning));
    }
    if inv.request.include_explanations.unwrap_or(false)
        && let Some(m) = out.as_object_mut()
    {
        let key = if lang == Lang::Pt { "explicacoes" } else { "explanations" };
        m.insert(key.into(), explanations(lang, inv));
    }
    out
}

/// The run-level explanation: method, confidence interval of the mean confidence per type,
/// and the share of anomalies each detector contributed.
fn explanations(lang: Lang, inv: &Investigation) -> Value {
    let Some(r) = &inv.results else { return Value::Null };
    let mut intervals = Map::new();
    let mut importance = Map::new();
    for t in vigia_agents::AnomalyType::ALL {
        let c: Vec<f64> = r.anomalies.iter().filter(|a| a.kind == t).map(|a| a.confidence).collect();
        if c.is_empty() {
            continue;
        }
        let n = c.len() as f64;
        let mean = c.iter().sum::<f64>() / n;
        let sd = (c.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n).sqrt();
        let half = 1.96 * sd / n.sqrt();
        intervals.insert(t.as_str().into(), json!([(mean - half).max(0.0), (mean + half).min(1.0)]));
    }
    let total = r.anomalies.len().max(1) as f64;
    for a in &r.anomalies {
        let e = importance.entry(a.detector().to_string()).or_insert(json!(0.0));
        *e = json!(e.as_f64().unwrap_or(0.0) + 1.0 / total);
    }
    obj(
        lang,
        vec![
            (
                "methodology",
                "metodologia",
                json!(
                    "Peer-grouped statistical detectors over normalised records: z-scores of log values per object category and modality (price), supplier shares per organ and year (concentration), a binomial test on December signings (end of year) and text similarity with same supplier and close value or date (duplicates)."
                ),
            ),
            ("confidence_intervals", "intervalos_confianca", Value::Object(intervals)),
            ("feature_importance", "importancia_caracteristicas", Value::Object(importance)),
        ],
    )
}

/// Paged list.
/// Cancel response.
pub fn cancelled(lang: Lang, c: &Cancelled) -> Value {
    let message = match lang {
        Lang::En => "investigation cancelled",
        Lang::Pt => "investigação cancelada",
    };
    obj(
        lang,
        vec![
            ("message", "mensagem", json!(message)),
            ("investigation_id", "id_investigacao", json!(c.id)),
            ("status", "status", json!(status(lang, c.status))),
            ("partial_results_available", "resultados_parciais_disponiveis", json!(c.partial_results_available)),
        ],
    )
}
