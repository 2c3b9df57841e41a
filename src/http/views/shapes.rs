//! The investigation routes' response types, English and Portuguese (see `bilingual.rs`).
//! Status, phase and severity values are written in the route's language by the views.

use std::collections::BTreeMap;

use vigia_agents::Anomaly;

use super::anomaly::Anomalia;
use super::bilingual::{bilingual, same_in_both};
use crate::domain::{Filters, InvestigationId};

/// The top-level response types and their Portuguese twins: the document shows the second on
/// the Portuguese routes.
pub const SCHEMA_PAIRS: [(&str, &str); 6] = [
    ("InvestigationStarted", "InvestigacaoIniciada"),
    ("InvestigationStatus", "StatusInvestigacao"),
    ("InvestigationResults", "ResultadosInvestigacao"),
    ("InvestigationCancelled", "InvestigacaoCancelada"),
    ("InvestigationPage", "PaginaInvestigacoes"),
    ("InvestigationCursorPage", "PaginaCursorInvestigacoes"),
];

bilingual! {
    /// The answer to a start.
    InvestigationStarted / InvestigacaoIniciada {
        /// Investigation id.
        #[schema(value_type = uuid::Uuid)]
        investigation_id / id_investigacao: InvestigationId => InvestigationId,
        /// `pending` (`pendente`).
        status / status: &'static str => &'static str,
        /// Estimated completion (RFC 3339), when known.
        estimated_completion / conclusao_estimada: Option<String> => Option<String>,
        /// Path of the investigation's event stream.
        stream_url / url_stream: String => String,
    }
}

bilingual! {
    /// Why a run failed.
    RunError / ErroExecucao {
        /// Error code.
        code / codigo: String => String,
        /// What happened.
        message / mensagem: String => String,
        /// Whether starting again may succeed.
        recoverable / recuperavel: bool => bool,
    }
}

bilingual! {
    /// How far a run is.
    ProgressView / Progresso {
        /// 0-100.
        percentage / porcentagem: f64 => f64,
        /// The phase running now.
        current_phase / fase_atual: Option<&'static str> => Option<&'static str>,
        /// Phases done, in order.
        phases_completed / fases_concluidas: Vec<&'static str> => Vec<&'static str>,
    }
}

bilingual! {
    /// A run's counters.
    StatisticsView / Estatisticas {
        /// Records read.
        records_processed / registros_processados: usize => usize,
        /// Anomalies found so far.
        anomalies_found / anomalias_encontradas: usize => usize,
        /// Agents that ran.
        agents_invoked / agentes_invocados: usize => usize,
        /// Milliseconds since the run started (to its end when done).
        processing_time_ms / tempo_processamento_ms: u64 => u64,
    }
}

bilingual! {
    /// InvestigationStatus.
    InvestigationStatus / StatusInvestigacao {
        /// Investigation id.
        #[schema(value_type = uuid::Uuid)]
        investigation_id / id_investigacao: InvestigationId => InvestigationId,
        /// pending, running, completed, failed or cancelled (Portuguese names on the Portuguese routes).
        status / status: &'static str => &'static str,
        /// Progress.
        progress / progresso: ProgressView => Progresso,
        /// Counters.
        statistics / estatisticas: StatisticsView => Estatisticas,
        /// Created (RFC 3339).
        created_at / criado_em: String => String,
        /// Started (RFC 3339).
        started_at / iniciado_em: Option<String> => Option<String>,
        /// Ended (RFC 3339).
        completed_at / concluido_em: Option<String> => Option<String>,
        /// Why it failed.
        error / erro: Option<RunError> => Option<ErroExecucao>,
        /// Where its records came from, once it finished.
        metadata / metadados: Option<DataOrigin> => Option<OrigemDados>,
    }
}

bilingual! {
    /// Where a run's records came from, and whether all of them were analysed.
    DataOrigin / OrigemDados {
        /// portal_transparencia_api or demo_data.
        source / origem: String => String,
        /// Whether the records are synthetic.
        demo_mode / modo_demo: bool => bool,
        /// completed, or completed_fallback when the upstream failed and demo data stood in.
        data_status / situacao_dados: &'static str => &'static str,
        /// What the caller should know about the data (fallback cause, truncation).
        warning / aviso: Option<String> => Option<String>,
        /// Rows the upstream had (at least), when it was read.
        records_available / registros_disponiveis: Option<usize> => Option<usize>,
        /// Whether a budget stopped the fetch before every record was read.
        truncated / truncado: bool => bool,
        /// Where each cut happened.
        data_notes / notas_dados: Vec<String> => Vec<String>,
    }
}

/// An agent that failed during a run (same keys in both variants).
#[derive(Debug, Clone, serde::Serialize, utoipa::ToSchema)]
pub struct FailedAgent {
    /// Agent id.
    pub agent: String,
    /// Why it failed.
    pub reason: String,
}

same_in_both!(FailedAgent);

bilingual! {
    /// Where the results came from and how long they took.
    ResultsMetadata / MetadadosResultados {
        /// The query.
        query / consulta: String => String,
        /// The data source.
        data_source / fonte_dados: String => String,
        /// The filters as sent.
        filters / filtros: Filters => Filters,
        /// Milliseconds the run took.
        execution_time_ms / tempo_execucao_ms: u64 => u64,
        /// Records analysed.
        total_records_analyzed / total_registros_analisados: usize => usize,
        /// Where the records came from.
        source / origem: String => String,
        /// Whether the records are synthetic.
        demo_mode / modo_demo: bool => bool,
        /// Agents that ran.
        agents_used / agentes_utilizados: Vec<String> => Vec<String>,
        /// Agents that failed.
        agents_failed / agentes_falharam: Vec<FailedAgent> => Vec<FailedAgent>,
        /// Agents whose output came from an identical analysis moments before (same records,
        /// agent and parameters) instead of a new run.
        agents_cached / agentes_em_cache: Vec<String> => Vec<String>,
        /// Why the demo data stood in, if it did.
        fallback_reason / motivo_fallback: Option<String> => Option<String>,
        /// completed, or completed_fallback when the upstream failed and demo data stood in.
        data_status / situacao_dados: &'static str => &'static str,
        /// What the caller should know about the data (fallback cause, truncation).
        warning / aviso: Option<String> => Option<String>,
        /// Rows the upstream had (at least), when it was read.
        records_available / registros_disponiveis: Option<usize> => Option<usize>,
        /// Whether a budget stopped the fetch before every record was read.
        truncated / truncado: bool => bool,
        /// Where each cut happened.
        data_notes / notas_dados: Vec<String> => Vec<String>,
    }
}

bilingual! {
    /// Anomalies per severity.
    SeverityCounts / ContagemSeveridade {
        /// Critical.
        critical / critica: usize => usize,
        /// High.
        high / alta: usize => usize,
        /// Medium.
        medium / media: usize => usize,
        /// Low.
        low / baixa: usize => usize,
    }
}

bilingual! {
    /// The results in numbers.
    ResultsSummary / ResumoResultados {
        /// Anomalies found.
        total_anomalies / total_anomalias: usize => usize,
        /// Anomalies per type (type names in the route's language).
        by_type / por_tipo: BTreeMap<String, usize> => BTreeMap<String, usize>,
        /// Anomalies per severity.
        by_severity / por_severidade: SeverityCounts => ContagemSeveridade,
        /// 0-100.
        risk_score / pontuacao_risco: u8 => u8,
    }
}

bilingual! {
    /// An agent's insight.
    InsightView / Percepcao {
        /// Agent id.
        agent / agente: String => String,
        /// The insight.
        insight / insight: String => String,
        /// 0-1.
        confidence / confianca: f64 => f64,
        /// Evidence behind it.
        supporting_evidence / evidencia_suporte: Vec<String> => Vec<String>,
    }
}

bilingual! {
    /// InvestigationResponse: a finished run's anomalies with evidence, summary and insights.
    InvestigationResults / ResultadosInvestigacao {
        /// Investigation id.
        #[schema(value_type = uuid::Uuid)]
        investigation_id / id_investigacao: InvestigationId => InvestigationId,
        /// The run's status.
        status / status: &'static str => &'static str,
        /// Query, source, timing and provenance.
        metadata / metadados: ResultsMetadata => MetadadosResultados,
        /// AnomalyResult objects (type, severity, confidence, evidence, context, explanation).
        anomalies / anomalias: Vec<Anomaly> => Vec<Anomalia>,
        /// Counts and risk.
        summary / resumo: ResultsSummary => ResumoResultados,
        /// Agents' insights.
        insights / insights: Vec<InsightView> => Vec<Percepcao>,
        /// What to do next.
        recommendations / recomendacoes: Vec<String> => Vec<String>,
        /// Present when the records are synthetic or were cut by a budget.
        #[serde(skip_serializing_if = "Option::is_none")]
        warning / aviso: Option<String> => Option<String>,
        /// Methodology, confidence intervals and detector shares, when asked for.
        #[serde(skip_serializing_if = "Option::is_none")]
        explanations / explicacoes: Option<Explanations> => Option<Explicacoes>,
    }
}

bilingual! {
    /// How a run's findings were reached, when the request asked for explanations.
    Explanations / Explicacoes {
        /// The detectors' method in a paragraph.
        methodology / metodologia: &'static str => &'static str,
        /// Per anomaly type (English name) present: the 95% confidence interval of its
        /// findings' mean confidence, `[low, high]` within 0 to 1.
        confidence_intervals / intervalos_confianca: BTreeMap<String, [f64; 2]> => BTreeMap<String, [f64; 2]>,
        /// Per detector: the share of the run's findings it made (they sum to 1).
        feature_importance / importancia_caracteristicas: BTreeMap<String, f64> => BTreeMap<String, f64>,
    }
}

bilingual! {
    /// The answer to a cancel.
    InvestigationCancelled / InvestigacaoCancelada {
        /// What happened.
        message / mensagem: &'static str => &'static str,
        /// Investigation id.
        #[schema(value_type = uuid::Uuid)]
        investigation_id / id_investigacao: InvestigationId => InvestigationId,
        /// `cancelled` (`cancelada`).
        status / status: &'static str => &'static str,
        /// Whether anomalies found before the cancel can be read.
        partial_results_available / resultados_parciais_disponiveis: bool => bool,
    }
}
