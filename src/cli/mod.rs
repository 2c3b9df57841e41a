//! The command line of CONTRACT.md: `serve` (default), `investigate` and `detect`.

mod detect;
mod investigate;
mod investigate_text;

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

pub use detect::detect;
pub use investigate::investigate;

/// `vigia [COMMAND]`
#[derive(Debug, Parser)]
#[command(
    name = "vigia",
    version,
    about = "Investigates Brazilian federal public spending and reports anomalies with evidence"
)]
pub struct Cli {
    /// What to do; `serve` when omitted.
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Start the HTTP server.
    Serve,
    /// Run one investigation in-process and print the results.
    Investigate(InvestigateArgs),
    /// Run the detectors on records given as data (every record kind) and print the anomalies as JSON.
    Detect(DetectArgs),
}

/// `vigia investigate`
#[derive(Debug, Args)]
pub struct InvestigateArgs {
    /// The natural-language query, e.g. "contratos do Ministério da Saúde".
    pub query: String,
    /// Data source (portal_transparencia, tcu, cgu, compras_gov).
    #[arg(long, default_value = "portal_transparencia")]
    pub data_source: String,
    /// Demo records to generate (demo mode).
    #[arg(long, default_value_t = 2000)]
    pub records: usize,
    /// Seed of the demo data (defaults to VIGIA_DEMO_SEED / demo.seed).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Print the spec's InvestigationResponse as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `vigia detect`
#[derive(Debug, Args)]
pub struct DetectArgs {
    /// Files or folders of records, any mix: the Portal da Transparência's JSON of any record
    /// kind (JSON array, NDJSON, or an object of arrays keyed by resource name), its monthly
    /// "Compras" download CSVs, Contratos.gov.br contracts and histories, PNCP contract pages.
    /// Folders are read recursively. `-` or nothing reads JSON from stdin.
    pub files: Vec<PathBuf>,
    /// 0.0 to 1.0 (default 0.7).
    #[arg(long, default_value_t = 0.7)]
    pub sensitivity: f64,
    /// 0.0 to 1.0 (default 0.8).
    #[arg(long, default_value_t = 0.8)]
    pub confidence_threshold: f64,
    /// Anomaly types to look for, comma-separated (English or Portuguese names).
    #[arg(long, value_delimiter = ',')]
    pub types: Vec<String>,
}
