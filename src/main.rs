//! The `vigia` binary: `serve` (default), `investigate` and `detect` (CONTRACT.md).

use clap::Parser;
use vigia::cli::{Cli, Command};
use vigia::config::Config;
use vigia::startup::{App, shutdown_signal};

fn main() -> std::process::ExitCode {
    vigia::runtime::memory::tune_allocator();
    let cli = Cli::parse();
    let config = match Config::load() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("vigia: {e}");
            return std::process::ExitCode::from(2);
        }
    };
    match cli.command.unwrap_or(Command::Serve) {
        Command::Serve => serve(config),
        Command::Investigate(args) => vigia::cli::investigate(config, args),
        Command::Detect(args) => vigia::cli::detect(args),
    }
}

fn serve(config: Config) -> std::process::ExitCode {
    vigia::telemetry::init(&config.log);
    let rt = match tokio::runtime::Runtime::new() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("vigia: cannot start the async runtime: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let result = rt.block_on(async { App::build(config).await?.run_until_stopped(shutdown_signal()).await });
    // The store is flushed and closed by now; work still on the blocking pool (a demo generation
    // between two of its cancellation checks) must not hold the exit.
    rt.shutdown_timeout(std::time::Duration::from_secs(1));
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!(error = format!("{e:#}"), "vigia stopped with an error");
            eprintln!("vigia: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
