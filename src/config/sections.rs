//! The sections of `config.toml`, one struct each, with their defaults.

use std::net::SocketAddr;
use std::path::PathBuf;

use secrecy::SecretString;
use serde::Deserialize;

/// `[server]`
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ServerConfig {
    /// Listen address (`VIGIA_ADDR`).
    pub addr: SocketAddr,
    /// Largest accepted request body in bytes.
    pub body_limit_bytes: usize,
    /// Seconds a shutdown may take before in-flight investigations are left for resumption.
    pub shutdown_grace_secs: f64,
    /// Seconds between keep-alive comments on streams.
    pub keep_alive_secs: f64,
}

impl Default for ServerConfig {
    fn default() -> Self {
        Self {
            addr: SocketAddr::from(([127, 0, 0, 1], 8000)),
            body_limit_bytes: 1 << 20,
            shutdown_grace_secs: 5.0,
            keep_alive_secs: 15.0,
        }
    }
}

/// `[storage]`
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct StorageConfig {
    /// Directory of the sled database and generated keys (`VIGIA_DATA_DIR`).
    pub data_dir: PathBuf,
    /// sled page cache in MiB (sled's own default is 1 GiB, far above what Vigia needs).
    pub cache_capacity_mb: u64,
}

impl Default for StorageConfig {
    fn default() -> Self {
        Self { data_dir: PathBuf::from("./data"), cache_capacity_mb: 16 }
    }
}

/// `[demo]`
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DemoConfig {
    /// Seed of the synthetic data generator (`VIGIA_DEMO_SEED`).
    pub seed: u64,
    /// Contracts generated for one demo investigation.
    pub records: usize,
}

impl Default for DemoConfig {
    fn default() -> Self {
        Self { seed: 42, records: 2000 }
    }
}

/// Log output format.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    /// One JSON object per line.
    Json,
    /// Human-readable.
    Pretty,
}

/// `[log]`
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LogConfig {
    /// `EnvFilter` directive (`VIGIA_LOG`).
    pub filter: String,
    /// `json` or `pretty` (`VIGIA_LOG_FORMAT`); unset: pretty on a terminal, else json.
    pub format: Option<LogFormat>,
}

impl Default for LogConfig {
    fn default() -> Self {
        Self { filter: "info".into(), format: None }
    }
}

/// `[agents]`
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AgentsConfig {
    /// Idle minutes before a loaded agent is stopped (fractions allowed).
    pub unload_after_minutes: f64,
    /// Most agents loaded at once; the least recently used goes first.
    pub max_loaded_agents: usize,
    /// Failures within `failure_window_secs` that make an agent unavailable.
    pub max_failures: usize,
    /// The window failures are counted in.
    pub failure_window_secs: f64,
    /// How long an agent stays unavailable after too many failures.
    pub unavailable_secs: f64,
    /// Most seconds one agent analysis may take before it counts as failed.
    pub analysis_timeout_secs: f64,
    /// Seconds an agent's output is kept for an identical analysis (same data, agent and
    /// parameters); 0 turns the analysis cache off.
    pub analysis_cache_ttl_secs: u64,
}

impl Default for AgentsConfig {
    fn default() -> Self {
        Self {
            unload_after_minutes: 15.0,
            max_loaded_agents: 10,
            max_failures: 3,
            failure_window_secs: 60.0,
            unavailable_secs: 60.0,
            analysis_timeout_secs: 120.0,
            analysis_cache_ttl_secs: 300,
        }
    }
}

/// `[investigations]`
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct InvestigationsConfig {
    /// Investigations processing at once; more are refused with RATE_LIMIT_EXCEEDED.
    pub max_concurrent: usize,
    /// Fewer records than this fail the investigation with INSUFFICIENT_DATA.
    pub min_records: usize,
}

impl Default for InvestigationsConfig {
    fn default() -> Self {
        Self { max_concurrent: 16, min_records: 10 }
    }
}

/// `[auth]`
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AuthConfig {
    /// Access token life in seconds.
    pub access_token_ttl_secs: u64,
    /// Refresh token life in seconds.
    pub refresh_token_ttl_secs: u64,
    /// Multiplies the 0/1/5/15/60/300 s failed-login delay schedule (and the 300 s lock).
    pub login_delay_scale: f64,
    /// Seconds without a request after which a session ends.
    pub session_idle_secs: u64,
    /// The `iss` claim of issued tokens, and the only one accepted.
    pub issuer: String,
    /// Bootstrap admin e-mail (`VIGIA_ADMIN_EMAIL`).
    pub admin_email: Option<String>,
    /// Bootstrap admin password (`VIGIA_ADMIN_PASSWORD`, environment only).
    #[serde(skip)]
    pub admin_password: Option<SecretString>,
}

impl Default for AuthConfig {
    fn default() -> Self {
        Self {
            access_token_ttl_secs: 900,
            refresh_token_ttl_secs: 604_800,
            login_delay_scale: 1.0,
            session_idle_secs: 7200,
            issuer: "vigia".into(),
            admin_email: None,
            admin_password: None,
        }
    }
}

/// `[rate_limit]`
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RateLimitConfig {
    /// Whether request rate limits apply.
    pub enabled: bool,
}

impl Default for RateLimitConfig {
    fn default() -> Self {
        Self { enabled: true }
    }
}

/// `[upstream]`
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct UpstreamConfig {
    /// Base URL (`TRANSPARENCY_API_URL`).
    pub api_url: String,
    /// The key (`TRANSPARENCY_API_KEY`, environment only); set = production mode.
    #[serde(skip)]
    pub api_key: Option<SecretString>,
    /// Seconds per upstream request.
    pub timeout_secs: f64,
    /// Upstream requests per minute; the client waits when reached.
    pub requests_per_minute: u32,
    /// Seconds an upstream answer is cached.
    pub cache_ttl_secs: u64,
    /// Retries of a failed upstream request (5xx, 429, transport errors).
    pub retries: u32,
    /// Most pages (15 records each) of one list (an organ's contracts, a month of its
    /// licitações, ...); a list cut here is reported as truncated.
    pub max_pages: u32,
    /// Most records fetched per investigation, all kinds together (shared by kind: contracts
    /// 45 %, licitações 20 %, convênios 10 %, despesas 15 %, servidores 10 %); a cut is
    /// reported as truncated.
    pub record_budget: usize,
    /// Most upstream requests per investigation (pages and per-record details together, shared
    /// by kind: contracts with their aditivos 45 %, licitações with participants 20 %,
    /// convênios 5 %, despesas 20 %, servidores 10 %). At 90 a minute, 450 requests take five
    /// minutes.
    pub request_budget: usize,
    /// Seconds between refreshes of the CEIS and CNEP lists kept in the store.
    pub sanctions_refresh_secs: u64,
    /// Most pages of each sanctions list read per refresh.
    pub sanctions_max_pages: u32,
    /// Seconds between refreshes of the SIAFI and SIAPE organ lists kept in the store (they
    /// map an investigation's SIAFI organs to the SIAPE codes `/servidores` takes).
    pub organ_codes_refresh_secs: u64,
    /// Organs searched when a query names none (contract search needs an organ code).
    pub default_organs: Vec<String>,
}

impl Default for UpstreamConfig {
    fn default() -> Self {
        Self {
            api_url: "https://api.portaldatransparencia.gov.br/api-de-dados".into(),
            api_key: None,
            timeout_secs: 30.0,
            requests_per_minute: 90,
            cache_ttl_secs: 3600,
            retries: 3,
            max_pages: 1000,
            record_budget: 5000,
            request_budget: 450,
            sanctions_refresh_secs: 86_400,
            sanctions_max_pages: 2000,
            organ_codes_refresh_secs: 604_800,
            default_organs: vec!["36000".into(), "26000".into(), "52000".into()],
        }
    }
}

/// `[security]`
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
pub struct SecurityConfig {
    /// Whether admin routes require a whitelisted caller address.
    pub ip_whitelist_enabled: bool,
}

/// `[graphql]`
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GraphqlConfig {
    /// `GRAPHQL_MAX_DEPTH`
    pub max_depth: usize,
    /// `GRAPHQL_MAX_COMPLEXITY`
    pub max_complexity: usize,
    /// `GRAPHQL_INTROSPECTION_ENABLED`
    pub introspection_enabled: bool,
    /// `GRAPHQL_PLAYGROUND_ENABLED`
    pub playground_enabled: bool,
}

impl Default for GraphqlConfig {
    fn default() -> Self {
        Self { max_depth: 10, max_complexity: 1000, introspection_enabled: true, playground_enabled: true }
    }
}

/// `[retention]`: how long finished records are kept; 0 keeps them for ever.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RetentionConfig {
    /// Days a finished investigation (with its events) is kept after it ended.
    pub investigations_days: f64,
    /// Days an audit record is kept.
    pub audit_days: f64,
    /// Days a login-attempt record is kept after its last throttle ended.
    pub login_attempts_days: f64,
    /// Seconds between two pruning passes.
    pub prune_interval_secs: f64,
}

impl Default for RetentionConfig {
    fn default() -> Self {
        Self { investigations_days: 90.0, audit_days: 365.0, login_attempts_days: 1.0, prune_interval_secs: 3600.0 }
    }
}

/// `[federal]`: the public federal sources behind `/api/v1/federal/*` and the regional facts of
/// lampião and dandara. None needs a key; they are reached in production mode only (demo mode
/// answers from the offline IBGE table). Timeout, retries and cache lifetime are `[upstream]`'s.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FederalConfig {
    /// IBGE service data base (`IBGE_API_URL`): localidades and aggregates.
    pub ibge_url: String,
    /// PNCP consulta base (`PNCP_API_URL`).
    pub pncp_url: String,
    /// Ministry of Health open-data API base (`DATASUS_API_URL`): CNES establishments.
    pub datasus_url: String,
    /// CKAN catalogue holding INEP's open datasets (`INEP_API_URL`).
    pub inep_url: String,
    /// Requests per minute to each of these sources; the client waits when reached.
    pub requests_per_minute: u32,
}

impl Default for FederalConfig {
    fn default() -> Self {
        Self {
            ibge_url: "https://servicodados.ibge.gov.br".into(),
            pncp_url: "https://pncp.gov.br/api/consulta".into(),
            datasus_url: "https://apidadosabertos.saude.gov.br".into(),
            inep_url: "https://dados.gov.br".into(),
            requests_per_minute: 60,
        }
    }
}

/// `[llm]`: an optional OpenAI-compatible chat-completions endpoint (e.g. a local model
/// server) that phrases drummond's closing summaries from the structured facts. Unset
/// `base_url` = off: the built-in phrasing answers, as it also does whenever the model fails
/// or writes a figure the facts do not hold.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LlmConfig {
    /// Base URL; the client posts to `{base_url}/chat/completions` (e.g.
    /// `http://127.0.0.1:8080/v1`). Unset: no model is used.
    pub base_url: Option<String>,
    /// The `model` field of the request.
    pub model: String,
    /// Sent as `Authorization: Bearer …` when set (`VIGIA_LLM_API_KEY`, which wins over the
    /// file); never logged, never in errors or responses.
    pub api_key: Option<SecretString>,
    /// Milliseconds from sending the request to the end of the answer (`[DONE]`): bounds the
    /// wait for the first token and the whole answer; past it the built-in phrasing finishes.
    pub timeout_ms: u64,
    /// `max_tokens` of the request; an answer cut at this length is not used.
    pub max_tokens: u32,
    /// `temperature` of the request, 0-2.
    pub temperature: f32,
}

impl Default for LlmConfig {
    fn default() -> Self {
        Self {
            base_url: None,
            model: "default".into(),
            api_key: None,
            timeout_ms: 20_000,
            max_tokens: 600,
            temperature: 0.2,
        }
    }
}
