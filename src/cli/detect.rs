//! `vigia detect`: the detection engine over records given as data: contracts, biddings,
//! expenses, agreements, servants, supplier profiles and sanctions, in the upstream's shapes.

use std::io::Read;
use std::process::ExitCode;

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
    let text = match args.file.as_deref() {
        Some(p) if p.as_os_str() != "-" => {
            std::fs::read_to_string(p).map_err(|e| format!("cannot read {}: {e}", p.display()))?
        }
        _ => {
            let mut s = String::new();
            std::io::stdin().read_to_string(&mut s).map_err(|e| format!("cannot read stdin: {e}"))?;
            s
        }
    };
    let dataset = records_from_text(&text).map_err(|e| e.to_string())?;
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
