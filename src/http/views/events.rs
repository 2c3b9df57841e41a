//! Stream events on the wire, in each naming variant.

use serde_json::{Value, json};

use super::{obj, phase, status};
use crate::domain::{AnomalyFound, EventKind, InvestigationEvent};
use crate::http::error::Lang;

/// An event's SSE name and data.
pub fn event(lang: Lang, e: &InvestigationEvent) -> (&'static str, Value) {
    let pt = lang == Lang::Pt;
    match &e.kind {
        EventKind::Progress { percentage, current_phase, agents_active } => (
            if pt { "progresso" } else { "progress" },
            obj(
                lang,
                vec![
                    ("percentage", "porcentagem", json!(percentage)),
                    ("current_phase", "fase_atual", json!(phase(lang, *current_phase))),
                    ("agents_active", "agentes_ativos", json!(agents_active)),
                ],
            ),
        ),
        EventKind::Anomaly(found) => {
            let AnomalyFound {
                id, anomaly_type, severity, confidence, description, contract_id, supplier, value, ..
            } = &**found;
            let kind = vigia_agents::AnomalyType::parse(anomaly_type);
            let sev = match severity.as_str() {
                "critical" if pt => "critica",
                "high" if pt => "alta",
                "medium" if pt => "media",
                "low" if pt => "baixa",
                s => s,
            };
            (
                if pt { "anomalia" } else { "anomaly" },
                obj(
                    lang,
                    vec![
                        ("id", "id", json!(id)),
                        (
                            "type",
                            "tipo",
                            json!(kind.map_or(anomaly_type.as_str(), |k| if pt { k.as_pt() } else { k.as_str() })),
                        ),
                        ("severity", "severidade", json!(sev)),
                        ("confidence", "confianca", json!(confidence)),
                        ("description", "descricao", json!(description)),
                        (
                            "affected_record",
                            "registro_afetado",
                            obj(
                                lang,
                                vec![
                                    ("contract_id", "id_contrato", json!(contract_id)),
                                    ("supplier", "fornecedor", json!(supplier)),
                                    ("value", "valor", json!(value)),
                                ],
                            ),
                        ),
                    ],
                ),
            )
        }
        EventKind::Insight { agent, message, confidence } => (
            "insight",
            obj(
                lang,
                vec![
                    ("agent", "agente", json!(agent)),
                    ("message", "mensagem", json!(message)),
                    ("confidence", "confianca", json!(confidence)),
                ],
            ),
        ),
        EventKind::Complete { total_anomalies, processing_time, agents_used, status: st } => (
            if pt { "completo" } else { "complete" },
            obj(
                lang,
                vec![
                    ("total_anomalies", "total_anomalias", json!(total_anomalies)),
                    ("processing_time", "tempo_processamento", json!(processing_time)),
                    ("agents_used", "agentes_utilizados", json!(agents_used)),
                    ("status", "status", json!(status(lang, *st))),
                ],
            ),
        ),
        EventKind::Error { code, message, recoverable } => (
            if pt { "erro" } else { "error" },
            obj(
                lang,
                vec![
                    ("code", "codigo", json!(code)),
                    ("message", "mensagem", json!(message)),
                    ("recoverable", "recuperavel", json!(recoverable)),
                ],
            ),
        ),
        EventKind::Cancelled { partial_results_available } => (
            if pt { "cancelado" } else { "cancelled" },
            obj(
                lang,
                vec![(
                    "partial_results_available",
                    "resultados_parciais_disponiveis",
                    json!(partial_results_available),
                )],
            ),
        ),
    }
}
