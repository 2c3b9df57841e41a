//! `vigia detect`: the detection engine over records given as data: contracts, biddings,
//! expenses, agreements, servants, supplier profiles and sanctions, in the upstream's shapes,
//! from files and folders in any mix of the formats `model::load` recognises, or stdin.

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

use vigia_agents::Dataset;
use vigia_agents::model::load::{absorb, load_paths};
use vigia_agents::model::records_text::records_from_text;
use vigia_agents::{AnomalyType, CancelFlag, DetectionParams};

use super::DetectArgs;

/// Reads the records, runs every detector, prints `{anomalies, summary}`; exit 2 on bad input.
pub fn detect(args: DetectArgs) -> ExitCode {
    match run(&args) {
        Ok(out) => {
            println!("{out}");
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("vigia detect: {message}");
            ExitCode::from(2)
        }
    }
}

fn run(args: &DetectArgs) -> Result<String, String> {
    for (name, v) in [("--sensitivity", args.sensitivity), ("--confidence-threshold", args.confidence_threshold)] {
        if !(0.0..=1.0).contains(&v) {
            return Err(format!("{name} must be between 0.0 and 1.0, got {v}"));
        }
    }
    let mut types = Vec::new();
    for t in args.types.iter().map(|t| t.trim()).filter(|t| !t.is_empty()) {
        types.push(AnomalyType::parse(t).ok_or_else(|| format!("--types: '{t}' is not an anomaly type"))?);
    }
    let dataset = read_input(&args.files)?;
    let params = DetectionParams {
        sensitivity: args.sensitivity,
        confidence_threshold: args.confidence_threshold,
        anomaly_types: (!types.is_empty()).then_some(types),
    };
    let (anomalies, summary) =
        vigia_agents::engine::analyse(&dataset, &params, &CancelFlag::new()).map_err(|e| e.to_string())?;
    let out = serde_json::json!({"anomalies": anomalies, "summary": summary});
    serde_json::to_string_pretty(&out).map_err(|e| e.to_string())
}

/// The records of every path (`-` is stdin, read as JSON records), or of stdin when none is
/// given. Files of a folder that are not recognised are noted on stderr and skipped.
fn read_input(paths: &[PathBuf]) -> Result<Dataset, String> {
    let stdin = |ds: &mut Dataset| -> Result<(), String> {
        let mut s = String::new();
        std::io::stdin().read_to_string(&mut s).map_err(|e| format!("cannot read stdin: {e}"))?;
        absorb(ds, records_from_text(&s).map_err(|e| format!("stdin: {e}"))?);
        Ok(())
    };
    let files: Vec<PathBuf> = paths.iter().filter(|p| p.as_os_str() != "-").cloned().collect();
    let mut dataset = Dataset::default();
    if !files.is_empty() {
        let loaded = load_paths(&files).map_err(|e| e.to_string())?;
        for (path, reason) in &loaded.skipped {
            eprintln!("vigia detect: skipped {}: {reason}", path.display());
        }
        if loaded.unjoined > 0 {
            eprintln!(
                "vigia detect: {} items, amendments or histories not joined: no contract of the input, or several, has their key",
                loaded.unjoined
            );
        }
        if loaded.files.is_empty() {
            return Err("no records read: no file of the given paths is in a recognised format".to_string());
        }
        dataset = loaded.dataset;
    }
    if files.len() < paths.len() || paths.is_empty() {
        stdin(&mut dataset)?;
        dataset.share_text();
    }
    Ok(dataset)
}
