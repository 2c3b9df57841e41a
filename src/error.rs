//! The transport-neutral error of the service layer: a stable code, a message safe to show
//! to a client, and details. Every transport maps it exhaustively (see `http::error`).

use serde_json::{Map, Value};

/// Stable error codes (English names; transports add the Portuguese variants).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    /// The request is malformed or a field is out of range (details: field, reason).
    Validation,
    /// A resource does not exist (details: id).
    ResourceNotFound,
    /// No route at this path.
    RouteNotFound,
    /// The method is not allowed on this path.
    MethodNotAllowed,
    /// The body is larger than allowed.
    PayloadTooLarge,
    /// The investigation id is unknown.
    InvestigationNotFound,
    /// Results asked for while the investigation still runs.
    InvestigationInProgress,
    /// Too few records to analyse (details: records_found, minimum_required, suggestion).
    InsufficientData,
    /// Too many concurrent investigations or requests.
    RateLimitExceeded,
    /// The data source is not available in this deployment.
    InvalidDataSource,
    /// The agent name resolves to no known agent.
    AgentNotFound,
    /// The agent is known but cannot run now (not implemented, or failing repeatedly).
    AgentUnavailable,
    /// The operation conflicts with the resource's state (e.g. cancelling a finished run).
    Conflict,
    /// The service is shutting down or a dependency is not ready.
    ServiceUnavailable,
    /// Credentials are required and none were sent.
    Unauthorized,
    /// Wrong e-mail, password or second factor.
    InvalidCredentials,
    /// The access token expired (details: expirou_em, token_renovacao_valido).
    TokenExpired,
    /// The token is malformed, tampered with, revoked or of the wrong kind.
    TokenInvalid,
    /// The caller lacks a permission, or the resource belongs to someone else.
    InsufficientPermissions,
    /// Too many failed logins: the account is locked for a while.
    AccountLocked,
    /// The account uses MFA and the login carried no TOTP or backup code.
    MfaRequired,
    /// Anything else; the message is generic, the cause goes to the log.
    Internal,
}

impl ErrorCode {
    /// Every code.
    pub const ALL: [ErrorCode; 22] = [
        ErrorCode::Validation,
        ErrorCode::ResourceNotFound,
        ErrorCode::RouteNotFound,
        ErrorCode::MethodNotAllowed,
        ErrorCode::PayloadTooLarge,
        ErrorCode::InvestigationNotFound,
        ErrorCode::InvestigationInProgress,
        ErrorCode::InsufficientData,
        ErrorCode::RateLimitExceeded,
        ErrorCode::InvalidDataSource,
        ErrorCode::AgentNotFound,
        ErrorCode::AgentUnavailable,
        ErrorCode::Conflict,
        ErrorCode::ServiceUnavailable,
        ErrorCode::Unauthorized,
        ErrorCode::InvalidCredentials,
        ErrorCode::TokenExpired,
        ErrorCode::TokenInvalid,
        ErrorCode::InsufficientPermissions,
        ErrorCode::AccountLocked,
        ErrorCode::MfaRequired,
        ErrorCode::Internal,
    ];

    /// The code with this stable name, if any.
    pub fn parse(name: &str) -> Option<ErrorCode> {
        ErrorCode::ALL.into_iter().find(|c| c.as_str() == name)
    }

    /// English code string.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::Validation => "VALIDATION_ERROR",
            ErrorCode::ResourceNotFound => "RESOURCE_NOT_FOUND",
            ErrorCode::RouteNotFound => "ROUTE_NOT_FOUND",
            ErrorCode::MethodNotAllowed => "METHOD_NOT_ALLOWED",
            ErrorCode::PayloadTooLarge => "PAYLOAD_TOO_LARGE",
            ErrorCode::InvestigationNotFound => "INVESTIGATION_NOT_FOUND",
            ErrorCode::InvestigationInProgress => "INVESTIGATION_IN_PROGRESS",
            ErrorCode::InsufficientData => "INSUFFICIENT_DATA",
            ErrorCode::RateLimitExceeded => "RATE_LIMIT_EXCEEDED",
            ErrorCode::InvalidDataSource => "INVALID_DATA_SOURCE",
            ErrorCode::AgentNotFound => "AGENT_NOT_FOUND",
            ErrorCode::AgentUnavailable => "AGENT_UNAVAILABLE",
            ErrorCode::Conflict => "CONFLICT",
            ErrorCode::ServiceUnavailable => "SERVICE_UNAVAILABLE",
            ErrorCode::Internal => "INTERNAL_ERROR",
            ErrorCode::Unauthorized => "UNAUTHORIZED",
            ErrorCode::InvalidCredentials => "CREDENCIAIS_INVALIDAS",
            ErrorCode::TokenExpired => "TOKEN_EXPIRADO",
            ErrorCode::TokenInvalid => "TOKEN_INVALIDO",
            ErrorCode::InsufficientPermissions => "PERMISSOES_INSUFICIENTES",
            ErrorCode::AccountLocked => "CONTA_BLOQUEADA",
            ErrorCode::MfaRequired => "MFA_OBRIGATORIO",
        }
    }
    /// Portuguese code string.
    pub fn as_pt(self) -> &'static str {
        match self {
            ErrorCode::Validation => "ERRO_VALIDACAO",
            ErrorCode::ResourceNotFound => "RECURSO_NAO_ENCONTRADO",
            ErrorCode::RouteNotFound => "ROTA_NAO_ENCONTRADA",
            ErrorCode::MethodNotAllowed => "METODO_NAO_PERMITIDO",
            ErrorCode::PayloadTooLarge => "CORPO_MUITO_GRANDE",
            ErrorCode::InvestigationNotFound => "INVESTIGACAO_NAO_ENCONTRADA",
            ErrorCode::InvestigationInProgress => "INVESTIGACAO_EM_ANDAMENTO",
            ErrorCode::InsufficientData => "DADOS_INSUFICIENTES",
            ErrorCode::RateLimitExceeded => "LIMITE_TAXA_EXCEDIDO",
            ErrorCode::InvalidDataSource => "FONTE_DADOS_INVALIDA",
            ErrorCode::AgentNotFound => "AGENTE_NAO_ENCONTRADO",
            ErrorCode::AgentUnavailable => "AGENTE_INDISPONIVEL",
            ErrorCode::Conflict => "CONFLITO",
            ErrorCode::ServiceUnavailable => "SERVICO_INDISPONIVEL",
            ErrorCode::Internal => "ERRO_INTERNO",
            // The spec names the authentication codes in Portuguese for both variants.
            ErrorCode::Unauthorized => "UNAUTHORIZED",
            ErrorCode::InvalidCredentials => "CREDENCIAIS_INVALIDAS",
            ErrorCode::TokenExpired => "TOKEN_EXPIRADO",
            ErrorCode::TokenInvalid => "TOKEN_INVALIDO",
            ErrorCode::InsufficientPermissions => "PERMISSOES_INSUFICIENTES",
            ErrorCode::AccountLocked => "CONTA_BLOQUEADA",
            ErrorCode::MfaRequired => "MFA_OBRIGATORIO",
        }
    }
}

/// A service-layer error: code, client-safe message, details object.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{code:?}: {message}")]
pub struct Error {
    /// Stable code.
    pub code: ErrorCode,
    /// Safe to show to a client: never contains secrets or internal causes.
    pub message: String,
    /// Structured details (field, reason, id, ...).
    pub details: Map<String, Value>,
}

impl Error {
    /// An error with no details.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self { code, message: message.into(), details: Map::new() }
    }
    /// Adds one detail.
    pub fn with(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.details.insert(key.to_string(), value.into());
        self
    }
    /// `VALIDATION_ERROR` with details `{field, reason}`.
    pub fn validation(field: &str, reason: impl Into<String>) -> Self {
        let reason = reason.into();
        Self::new(ErrorCode::Validation, format!("invalid field '{field}': {reason}"))
            .with("field", field)
            .with("reason", reason)
    }
    /// `INVESTIGATION_NOT_FOUND` with details `{id}`.
    pub fn investigation_not_found(id: impl std::fmt::Display) -> Self {
        Self::new(ErrorCode::InvestigationNotFound, format!("investigation {id} not found")).with("id", id.to_string())
    }
    /// `INTERNAL_ERROR`: logs the cause, returns a generic message.
    pub fn internal(cause: impl std::fmt::Display) -> Self {
        tracing::error!(error = %cause, "internal error");
        Self::new(ErrorCode::Internal, "internal server error")
    }
}

/// Service-layer result.
pub type Result<T, E = Error> = std::result::Result<T, E>;
