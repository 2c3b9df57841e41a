//! Why an upstream could not deliver, one enum for every upstream client (the Portal da
//! Transparência and the federal sources). Messages name the source, the path (no query: a
//! query could one day carry something private) and the cause, never the key, which only
//! ever travels in a sensitive request header.

/// An upstream failure.
#[derive(Debug, Clone, thiserror::Error)]
pub enum UpstreamError {
    /// The client could not be built (bad base URL, key not a header value, ...).
    #[error("{source_name}: client set-up failed: {reason}")]
    Setup {
        /// Which upstream.
        source_name: &'static str,
        /// What is wrong.
        reason: String,
    },
    /// The request lacks a parameter the upstream requires; nothing was sent.
    #[error("{source_name}: {path} needs {reason}")]
    MissingParameters {
        /// Which upstream.
        source_name: &'static str,
        /// Endpoint.
        path: String,
        /// The parameters required.
        reason: String,
    },
    /// No answer within the configured timeout.
    #[error("{source_name}: {path} did not answer within {secs:.1} s")]
    Timeout {
        /// Which upstream.
        source_name: &'static str,
        /// Endpoint.
        path: String,
        /// The timeout.
        secs: f64,
    },
    /// 429 after the retries, or a `Retry-After` longer than the request timeout.
    #[error("{source_name}: {path} is rate limited (HTTP 429)")]
    RateLimited {
        /// Which upstream.
        source_name: &'static str,
        /// Endpoint.
        path: String,
    },
    /// 401, 403 or 405: the key is refused, the endpoint is not allowed for it, or a WAF
    /// turned the client away.
    #[error("{source_name}: {path} refused access (HTTP {status})")]
    Blocked {
        /// Which upstream.
        source_name: &'static str,
        /// Endpoint.
        path: String,
        /// HTTP status.
        status: u16,
    },
    /// 5xx after the retries.
    #[error("{source_name}: {path} failed with HTTP {status} after {attempts} attempts")]
    ServerError {
        /// Which upstream.
        source_name: &'static str,
        /// Endpoint.
        path: String,
        /// Last HTTP status.
        status: u16,
        /// Requests sent.
        attempts: u32,
    },
    /// Another 4xx (400 on wrong filters, 404): the request was wrong; retrying will not help.
    #[error("{source_name}: {path} rejected the request (HTTP {status}): {message}")]
    Rejected {
        /// Which upstream.
        source_name: &'static str,
        /// Endpoint.
        path: String,
        /// HTTP status.
        status: u16,
        /// The upstream's message (its `{"Erro na API": ...}` text when present), shortened.
        message: String,
    },
    /// The body is not the JSON expected (HTML from a WAF, truncated JSON, wrong shape).
    #[error("{source_name}: {path} sent an unexpected body: {reason}")]
    Malformed {
        /// Which upstream.
        source_name: &'static str,
        /// Endpoint.
        path: String,
        /// What was wrong.
        reason: String,
    },
    /// Connection refused, reset, DNS, TLS: after the retries.
    #[error("{source_name}: {path} unreachable: {reason}")]
    Transport {
        /// Which upstream.
        source_name: &'static str,
        /// Endpoint.
        path: String,
        /// The transport error (without the URL).
        reason: String,
    },
}

impl UpstreamError {
    /// A short, stable name of the failure kind for health reports, warnings and metrics.
    pub fn class(&self) -> &'static str {
        match self {
            UpstreamError::Setup { .. } => "setup",
            UpstreamError::MissingParameters { .. } => "missing_parameters",
            UpstreamError::Timeout { .. } => "timeout",
            UpstreamError::RateLimited { .. } => "rate_limited",
            UpstreamError::Blocked { .. } => "blocked",
            UpstreamError::ServerError { .. } => "server_error",
            UpstreamError::Rejected { .. } => "rejected",
            UpstreamError::Malformed { .. } => "malformed",
            UpstreamError::Transport { .. } => "transport",
        }
    }
}
