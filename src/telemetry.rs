//! Logging set-up: tracing with an `EnvFilter` from `VIGIA_LOG`, JSON or pretty output.

use std::io::IsTerminal;

use tracing_subscriber::EnvFilter;

use crate::config::{LogConfig, LogFormat};

/// Installs the global subscriber once; later calls (tests) are no-ops.
pub fn init(cfg: &LogConfig) {
    let filter = EnvFilter::try_new(&cfg.filter).unwrap_or_else(|_| EnvFilter::new("info"));
    let format =
        cfg.format.unwrap_or(if std::io::stderr().is_terminal() { LogFormat::Pretty } else { LogFormat::Json });
    let builder = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr);
    let _ = match format {
        LogFormat::Json => builder.json().flatten_event(true).try_init(),
        LogFormat::Pretty => builder.try_init(),
    };
}
