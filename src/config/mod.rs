//! Typed configuration, loaded once: built-in defaults < `config.toml` < environment
//! (CONTRACT.md). Secrets (the upstream key, the bootstrap admin password) come only from the
//! environment and are held as `SecretString`, whose `Debug` is redacted; the model's key
//! (`llm.api_key`) may also be in the file, `VIGIA_LLM_API_KEY` winning.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use secrecy::SecretString;
use serde::Deserialize;

mod registry;
mod sections;

pub use registry::RegistryConfig;
pub use sections::*;

/// The whole configuration. Every section has defaults, so an empty file is valid.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// Listener and request limits.
    pub server: ServerConfig,
    /// The sled store.
    pub storage: StorageConfig,
    /// Synthetic data used in demo mode.
    pub demo: DemoConfig,
    /// Logging.
    pub log: LogConfig,
    /// Agent lazy loading and supervision.
    pub agents: AgentsConfig,
    /// Investigations.
    pub investigations: InvestigationsConfig,
    /// Token lifetimes and login throttling.
    pub auth: AuthConfig,
    /// Request rate limiting.
    pub rate_limit: RateLimitConfig,
    /// The Portal da Transparência client.
    pub upstream: UpstreamConfig,
    /// Admin surface protection.
    pub security: SecurityConfig,
    /// GraphQL limits and switches.
    pub graphql: GraphqlConfig,
    /// How long finished records are kept.
    pub retention: RetentionConfig,
    /// The federal data sources (IBGE, PNCP, DataSUS, INEP).
    pub federal: FederalConfig,
    /// The optional language model that phrases chat answers.
    pub llm: LlmConfig,
    /// The company register read for suppliers' facts in production mode.
    pub registry: RegistryConfig,
}

/// A configuration that cannot be used; the message names the key.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file or a value could not be read or has the wrong type.
    #[error("invalid configuration: {0}")]
    Load(#[from] config::ConfigError),
    /// The config file cannot be read.
    #[error("cannot read the configuration file {path}: {reason}")]
    File {
        /// The path given.
        path: String,
        /// The I/O error.
        reason: String,
    },
    /// A value is out of range.
    #[error("invalid configuration: key `{key}`: {reason}")]
    Invalid {
        /// Dotted key, e.g. `agents.max_loaded_agents`.
        key: &'static str,
        /// What is wrong with it.
        reason: String,
    },
}

/// Plain environment variables of CONTRACT.md and the config key each one sets.
const ENV_KEYS: &[(&str, &str)] = &[
    ("VIGIA_ADDR", "server.addr"),
    ("VIGIA_DATA_DIR", "storage.data_dir"),
    ("VIGIA_DEMO_SEED", "demo.seed"),
    ("VIGIA_LOG", "log.filter"),
    ("VIGIA_LOG_FORMAT", "log.format"),
    ("VIGIA_ADMIN_EMAIL", "auth.admin_email"),
    ("TRANSPARENCY_API_URL", "upstream.api_url"),
    ("GRAPHQL_MAX_DEPTH", "graphql.max_depth"),
    ("GRAPHQL_MAX_COMPLEXITY", "graphql.max_complexity"),
    ("GRAPHQL_INTROSPECTION_ENABLED", "graphql.introspection_enabled"),
    ("GRAPHQL_PLAYGROUND_ENABLED", "graphql.playground_enabled"),
    ("IBGE_API_URL", "federal.ibge_url"),
    ("PNCP_API_URL", "federal.pncp_url"),
    ("DATASUS_API_URL", "federal.datasus_url"),
    ("INEP_API_URL", "federal.inep_url"),
    ("VIGIA_LLM_BASE_URL", "llm.base_url"),
    ("VIGIA_LLM_MODEL", "llm.model"),
];

impl Config {
    /// Loads from the process environment (and the file it names).
    pub fn load() -> Result<Config, ConfigError> {
        Config::from_env(&std::env::vars().collect())
    }

    /// Loads with `env` standing in for the process environment (tests use this).
    pub fn from_env(env: &HashMap<String, String>) -> Result<Config, ConfigError> {
        let file = env.get("VIGIA_CONFIG").map(PathBuf::from);
        let default_file = Path::new("config.toml");
        let mut builder = config::Config::builder();
        let path = file.as_deref().or(default_file.exists().then_some(default_file));
        if let Some(path) = path {
            let text = std::fs::read_to_string(path)
                .map_err(|e| ConfigError::File { path: path.display().to_string(), reason: e.to_string() })?;
            builder = builder.add_source(config::File::from_str(&text, config::FileFormat::Toml));
        }
        let nested: config::Map<String, String> =
            env.iter().filter(|(k, _)| k.starts_with("VIGIA__")).map(|(k, v)| (k.clone(), v.clone())).collect();
        builder = builder.add_source(
            config::Environment::with_prefix("VIGIA")
                .prefix_separator("__")
                .separator("__")
                .try_parsing(true)
                .source(Some(nested)),
        );
        for (var, key) in ENV_KEYS {
            builder = builder.set_override_option(*key, env.get(*var).cloned())?;
        }
        let mut cfg: Config = builder.build()?.try_deserialize()?;
        let secret = |name: &str| env.get(name).filter(|v| !v.is_empty()).map(|v| SecretString::from(v.clone()));
        cfg.upstream.api_key = secret("TRANSPARENCY_API_KEY");
        cfg.auth.admin_password = secret("VIGIA_ADMIN_PASSWORD");
        if let Some(key) = secret("VIGIA_LLM_API_KEY") {
            cfg.llm.api_key = Some(key);
        }
        cfg.validate()?;
        Ok(cfg)
    }

    /// Range checks that types alone cannot express.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let bad = |key, reason: &str| Err(ConfigError::Invalid { key, reason: reason.to_string() });
        if !(self.agents.unload_after_minutes.is_finite() && self.agents.unload_after_minutes >= 0.0) {
            return bad("agents.unload_after_minutes", "must be a number of minutes >= 0");
        }
        if self.agents.max_loaded_agents == 0 {
            return bad("agents.max_loaded_agents", "must be at least 1");
        }
        if self.federal.requests_per_minute == 0 {
            return bad("federal.requests_per_minute", "must be at least 1");
        }
        if self.upstream.requests_per_minute == 0 {
            return bad("upstream.requests_per_minute", "must be at least 1");
        }
        if !(self.upstream.timeout_secs.is_finite() && self.upstream.timeout_secs > 0.0) {
            return bad("upstream.timeout_secs", "must be > 0");
        }
        if !(self.auth.login_delay_scale.is_finite() && self.auth.login_delay_scale >= 0.0) {
            return bad("auth.login_delay_scale", "must be >= 0");
        }
        // Ten years bounds every auth duration, so time arithmetic cannot overflow.
        const TEN_YEARS: std::ops::RangeInclusive<u64> = 1..=315_360_000;
        for (key, secs) in [
            ("auth.access_token_ttl_secs", self.auth.access_token_ttl_secs),
            ("auth.refresh_token_ttl_secs", self.auth.refresh_token_ttl_secs),
            ("auth.session_idle_secs", self.auth.session_idle_secs),
        ] {
            if !TEN_YEARS.contains(&secs) {
                return bad(key, "must be between 1 second and 10 years");
            }
        }
        if self.auth.issuer.trim().is_empty() {
            return bad("auth.issuer", "must not be empty");
        }
        if self.investigations.max_concurrent == 0 {
            return bad("investigations.max_concurrent", "must be at least 1");
        }
        if self.demo.records == 0 {
            return bad("demo.records", "must be at least 1");
        }
        let r = &self.retention;
        for (key, days) in [
            ("retention.investigations_days", r.investigations_days),
            ("retention.audit_days", r.audit_days),
            ("retention.login_attempts_days", r.login_attempts_days),
        ] {
            if !(days.is_finite() && days >= 0.0) {
                return bad(key, "must be a number of days >= 0 (0 keeps records for ever)");
            }
        }
        if !(r.prune_interval_secs.is_finite() && r.prune_interval_secs >= 1.0) {
            return bad("retention.prune_interval_secs", "must be at least 1 second");
        }
        if let Err((key, reason)) = self.registry.check() {
            return bad(key, reason);
        }
        self.llm_valid()
    }

    /// The `[llm]` section: an http(s) base URL when set, a positive timeout and token limit,
    /// a temperature in 0-2.
    fn llm_valid(&self) -> Result<(), ConfigError> {
        let bad = |key, reason: &str| Err(ConfigError::Invalid { key, reason: reason.to_string() });
        let l = &self.llm;
        if !registry::http_url_or_unset(l.base_url.as_deref()) {
            return bad("llm.base_url", "must be an http:// or https:// URL");
        }
        if l.timeout_ms == 0 {
            return bad("llm.timeout_ms", "must be at least 1");
        }
        if l.max_tokens == 0 {
            return bad("llm.max_tokens", "must be at least 1");
        }
        if !(l.temperature.is_finite() && (0.0..=2.0).contains(&l.temperature)) {
            return bad("llm.temperature", "must be between 0 and 2");
        }
        Ok(())
    }

    /// Production mode: an upstream key is configured.
    pub fn production_mode(&self) -> bool {
        self.upstream.api_key.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn defaults_apply_when_nothing_is_set() {
        let cfg = Config::from_env(&env(&[("VIGIA_CONFIG", "/dev/null")])).unwrap();
        assert_eq!(cfg.server.addr.to_string(), "127.0.0.1:8000");
        assert_eq!(cfg.agents.max_loaded_agents, 10);
        assert_eq!(cfg.auth.access_token_ttl_secs, 900);
        assert_eq!(cfg.auth.session_idle_secs, 7200);
        assert_eq!(cfg.auth.issuer, "vigia");
        assert!(cfg.rate_limit.enabled && !cfg.security.ip_whitelist_enabled);
        assert!(!cfg.production_mode());
    }

    #[test]
    fn environment_overrides_the_file_and_nested_keys_parse() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("c.toml");
        std::fs::write(&file, "[agents]\nmax_loaded_agents = 3\nunload_after_minutes = 2\n").unwrap();
        let cfg = Config::from_env(&env(&[
            ("VIGIA_CONFIG", file.to_str().unwrap()),
            ("VIGIA__AGENTS__UNLOAD_AFTER_MINUTES", "0.05"),
            ("VIGIA_ADDR", "127.0.0.1:9999"),
            ("GRAPHQL_MAX_DEPTH", "7"),
            ("TRANSPARENCY_API_KEY", "k"),
        ]))
        .unwrap();
        assert_eq!(cfg.agents.max_loaded_agents, 3);
        assert!((cfg.agents.unload_after_minutes - 0.05).abs() < 1e-9);
        assert_eq!(cfg.server.addr.port(), 9999);
        assert_eq!(cfg.graphql.max_depth, 7);
        assert!(cfg.production_mode());
    }

    #[test]
    fn an_invalid_value_fails_with_a_message_naming_the_key() {
        let e = Config::from_env(&env(&[("VIGIA_CONFIG", "/dev/null"), ("VIGIA__AGENTS__MAX_LOADED_AGENTS", "0")]))
            .unwrap_err()
            .to_string();
        assert!(e.contains("agents.max_loaded_agents"), "{e}");
        let e = Config::from_env(&env(&[("VIGIA_CONFIG", "/dev/null"), ("VIGIA_ADDR", "not an address")]))
            .unwrap_err()
            .to_string();
        assert!(e.contains("server.addr"), "{e}");
    }

    #[test]
    fn the_llm_section_reads_its_keys_and_its_secret_from_the_environment() {
        let cfg = Config::from_env(&env(&[("VIGIA_CONFIG", "/dev/null")])).unwrap();
        assert!(cfg.llm.base_url.is_none() && cfg.llm.api_key.is_none());
        let cfg = Config::from_env(&env(&[
            ("VIGIA_CONFIG", "/dev/null"),
            ("VIGIA_LLM_BASE_URL", "http://127.0.0.1:8080/v1"),
            ("VIGIA__LLM__TIMEOUT_MS", "1500"),
            ("VIGIA_LLM_API_KEY", "sk-llm-s3cr3t"),
        ]))
        .unwrap();
        assert_eq!(cfg.llm.base_url.as_deref(), Some("http://127.0.0.1:8080/v1"));
        assert_eq!(cfg.llm.timeout_ms, 1500);
        assert!(cfg.llm.api_key.is_some() && !format!("{cfg:?}").contains("sk-llm-s3cr3t"));
        let e = Config::from_env(&env(&[("VIGIA_CONFIG", "/dev/null"), ("VIGIA_LLM_BASE_URL", "localhost:8080")]))
            .unwrap_err()
            .to_string();
        assert!(e.contains("llm.base_url"), "{e}");
    }

    #[test]
    fn the_api_key_is_never_printed_by_debug() {
        let cfg =
            Config::from_env(&env(&[("VIGIA_CONFIG", "/dev/null"), ("TRANSPARENCY_API_KEY", "s3cr3t-key")])).unwrap();
        assert!(!format!("{cfg:?}").contains("s3cr3t-key"));
    }
}
