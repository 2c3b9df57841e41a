//! `vigia investigate`: one investigation in-process, through the same runtime and
//! orchestrator as the server, over a temporary store. A progress bar on a terminal.

use std::io::IsTerminal;
use std::process::ExitCode;

use indicatif::{ProgressBar, ProgressStyle};

use super::InvestigateArgs;
use crate::config::Config;
use crate::domain::{EventKind, InvestigationRequest};
use crate::http::error::Lang;
use crate::http::views;
use crate::runtime::default_factory;
use crate::startup::Core;
use crate::storage::Store;

/// Runs the investigation and prints the results (JSON with `--json`).
pub fn investigate(mut config: Config, args: InvestigateArgs) -> ExitCode {
    config.demo.records = args.records.max(1);
    if let Some(seed) = args.seed {
        config.demo.seed = seed;
    }
    config.investigations.min_records = config.investigations.min_records.min(config.demo.records);
    let rt = match tokio::runtime::Runtime::new() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("vigia investigate: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match rt.block_on(run(config, args)) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("vigia investigate: {e:#}");
            ExitCode::FAILURE
        }
    }
}

async fn run(config: Config, args: InvestigateArgs) -> anyhow::Result<ExitCode> {
    let store = Store::temporary()?;
    let core = Core::build(&config, default_factory(), store).await?;
    let mut request = InvestigationRequest::new(args.query.clone());
    request.data_source = args.data_source.clone();
    request.include_explanations = Some(true);
    let started = match core.investigations.start(request, None).await {
        Ok(s) => s,
        Err(e) => {
            eprintln!("vigia investigate: {}", e.message);
            return Ok(ExitCode::from(2));
        }
    };
    let id = started.investigation.id;
    let bar = std::io::stderr().is_terminal().then(|| {
        let bar = ProgressBar::new(100);
        bar.set_style(
            ProgressStyle::with_template("{bar:40.cyan/blue} {pos:>3}% {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar
    });
    let events = core.investigations.stream(id, 0, None).map_err(|e| anyhow::anyhow!("{}", e.message))?;
    futures::pin_mut!(events);
    while let Some(event) = futures::StreamExt::next(&mut events).await {
        if let (Some(bar), EventKind::Progress { percentage, current_phase, .. }) = (&bar, &event.kind) {
            bar.set_position(*percentage as u64);
            bar.set_message(current_phase.as_str());
        }
    }
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let inv = core.investigations.get(id, None).map_err(|e| anyhow::anyhow!("{}", e.message))?;
    core.runtime.shutdown(std::time::Duration::from_secs(1)).await;
    if inv.results.is_none() {
        let why = inv.error.map(|e| format!("{}: {}", e.code, e.message)).unwrap_or_else(|| inv.status.as_str().into());
        eprintln!("vigia investigate: the investigation ended without results ({why})");
        return Ok(ExitCode::FAILURE);
    }
    let body = views::results(Lang::En, &inv);
    if args.json {
        println!("{}", serde_json::to_string_pretty(&body)?);
    } else {
        print!("{}", super::investigate_text::render(&inv));
    }
    Ok(ExitCode::SUCCESS)
}
