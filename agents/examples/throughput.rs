//! Throughput of the detection engine: times each detector alone and the whole engine
//! (`engine::analyse`, detectors in parallel) over demo datasets of 10k, 100k and 1M
//! contracts, and prints records per second and the peak resident memory.
//!
//! `cargo run --release -p vigia-agents --example throughput -- [--sizes 10000,100000,1000000] [--seed 42] [--runs 3] [--contracts-only] [--detectors a,b] [--no-agents] [--cache-only] [--no-engine] [--digest] [--agents-digest] [--sections] [--warm-agents]`
//!
//! `--detectors` times only the named detectors alone (the whole engine still runs all of
//! them), `--no-agents` leaves out the seven-agent rows and `--no-engine` the whole-engine
//! row, `--cache-only` runs the seven agents only with the findings cache: all for profiling
//! one part.
//! `--digest` prints a hash of every anomaly the whole engine reports (all their fields), to
//! check that a change meant for speed changed no finding. `--agents-digest` prints, for the
//! seven agents run in parallel over one findings cache, how many anomalies they report and a
//! hash of all of them (each serialised, sorted by agent and JSON so thread order does not
//! matter), and a hash of their insights and recommendations.
//! `--sections` first times each fact the detectors share (computed once per analysis), then
//! each detector over those facts already computed: what every part adds to the whole engine;
//! then each agent over a findings cache the seven agents already filled (`--warm-agents`
//! prints only these).
//!
//! `--contracts-only` keeps only the contracts of the demo data (the other record kinds are
//! dropped before analysing), to measure the engine on N contracts alone.
//!
//! Memory: the peak resident set (`VmHWM` of /proc/self/status) is reset (by writing 5 to
//! /proc/self/clear_refs) after the data is generated, so each figure is the peak while
//! analysing, the dataset itself included. Each timing is the best of `--runs` runs, with the
//! CPU time (user + system, all threads) of that run. The last rows run the seven agents on
//! parallel threads, as an investigation does, without and with one findings cache.

use std::time::Instant;

/// The allocator the service uses under its counting layer (see src/runtime/memory.rs), so
/// these figures are the service's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use vigia_agents::agents::roster::COVERAGE;
use vigia_agents::demo::{DemoSpec, generate};
use vigia_agents::detect::shared::Shared;
use vigia_agents::detect::{NAMES, all};
use vigia_agents::model::report::AgentOutput;
use vigia_agents::{AnalysisContext, CancelFlag, Dataset, DetectionParams, FindingsCache, engine, instantiate};

/// `VmHWM` (peak resident set) in MiB, if the platform has it.
fn peak_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

/// CPU time (user + system) of the whole process so far, in seconds.
fn cpu_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else { return f64::NAN };
    // Fields after the command name (which is in parentheses and may hold spaces).
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |k: usize| f.get(k).and_then(|x| x.parse::<f64>().ok()).unwrap_or(f64::NAN);
    // utime and stime are fields 14 and 15 of the stat line, 12 and 13 after the name.
    (ticks(11) + ticks(12)) / 100.0
}

/// Resets the peak resident set to the current one (Linux 4.0 and later).
fn reset_peak() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

fn arg<T: std::str::FromStr>(args: &[String], flag: &str) -> Option<T> {
    args.iter().position(|a| a == flag).and_then(|k| args.get(k + 1)).and_then(|v| v.parse().ok())
}

/// Best wall time, the CPU time of that run, and the result of `f` over `runs` runs.
fn best_of(runs: usize, mut f: impl FnMut() -> usize) -> (f64, f64, usize) {
    let (mut best, mut cpu) = (f64::INFINITY, f64::NAN);
    let mut found = 0;
    for _ in 0..runs.max(1) {
        let (t, c) = (Instant::now(), cpu_seconds());
        found = f();
        let wall = t.elapsed().as_secs_f64();
        if wall < best {
            best = wall;
            cpu = cpu_seconds() - c;
        }
    }
    (best, cpu, found)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let sizes: Vec<usize> = args
        .iter()
        .position(|a| a == "--sizes")
        .and_then(|k| args.get(k + 1))
        .map(|v| v.split(',').filter_map(|x| x.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![10_000, 100_000, 1_000_000]);
    let seed: u64 = arg(&args, "--seed").unwrap_or(42);
    let runs: usize = arg(&args, "--runs").unwrap_or(3);
    let threads = std::thread::available_parallelism().map_or(1, |t| t.get());
    println!("cores available: {threads}; best of {runs} runs; default parameters");
    let params = DetectionParams::default();
    let only: Option<Vec<String>> = args
        .iter()
        .position(|a| a == "--detectors")
        .and_then(|k| args.get(k + 1))
        .map(|v| v.split(',').map(|x| x.trim().to_string()).collect());
    let agents = !args.iter().any(|a| a == "--no-agents");
    for size in sizes {
        let t = Instant::now();
        let mut data = generate(&DemoSpec { seed, contracts: size, ..DemoSpec::default() });
        if args.iter().any(|a| a == "--contracts-only") {
            data.dataset = vigia_agents::Dataset::from_contracts(std::mem::take(&mut data.dataset.contracts));
        }
        let records = data.dataset.len();
        let generated = t.elapsed().as_secs_f64();
        reset_peak();
        println!(
            "\n{} contracts ({} records of every kind), generated in {:.2}s, resident with the data {:.0} MiB",
            size,
            records,
            generated,
            peak_mib().unwrap_or(f64::NAN)
        );
        if args.iter().any(|a| a == "--sections") {
            sections(&data.dataset, &params);
        }
        if args.iter().any(|a| a == "--sections" || a == "--warm-agents") {
            agents_over_warm_cache(&data.dataset, &params, runs);
        }
        println!("| detector | seconds | CPU seconds | contracts/s | anomalies | peak MiB |");
        println!("|---|---|---|---|---|---|");
        for name in NAMES.iter().filter(|n| only.as_ref().is_none_or(|o| o.iter().any(|x| x == *n))) {
            reset_peak();
            let (secs, cpu, found) = best_of(runs, || {
                engine::detect(&data.dataset, &params, &CancelFlag::new(), &[*name]).map_or(0, |a| a.len())
            });
            println!(
                "| {name} | {secs:.3} | {cpu:.2} | {:.0} | {found} | {:.0} |",
                size as f64 / secs,
                peak_mib().unwrap_or(f64::NAN)
            );
        }
        if args.iter().any(|a| a == "--digest") {
            digest(&data.dataset, &params);
        }
        if args.iter().any(|a| a == "--agents-digest") {
            agents_digest(&data.dataset, &params);
        }
        if !args.iter().any(|a| a == "--no-engine") {
            reset_peak();
            let (secs, cpu, found) = best_of(runs, || {
                engine::analyse(&data.dataset, &params, &CancelFlag::new()).map_or(0, |(a, _)| a.len())
            });
            println!(
                "| **whole engine** | **{secs:.3}** | {cpu:.2} | **{:.0}** | {found} | **{:.0}** |",
                size as f64 / secs,
                peak_mib().unwrap_or(f64::NAN)
            );
        }
        let cache_only = args.iter().any(|a| a == "--cache-only");
        for shared in [false, true].into_iter().filter(|s| agents && (*s || !cache_only)) {
            reset_peak();
            let (secs, cpu, found) = best_of(runs, || all_agents(&data.dataset, &params, shared));
            let label = if shared { "seven agents, one findings cache" } else { "seven agents, no cache" };
            println!(
                "| {label} | {secs:.3} | {cpu:.2} | {:.0} | {found} | {:.0} |",
                size as f64 / secs,
                peak_mib().unwrap_or(f64::NAN)
            );
        }
    }
}

/// Times each of the seven agents alone over a findings cache the others already filled:
/// what each agent adds on top of the detectors it shares (best of `runs`).
fn agents_over_warm_cache(ds: &Dataset, params: &DetectionParams, runs: usize) {
    let cache = FindingsCache::new();
    let cancel = CancelFlag::new();
    let agents: Vec<_> = COVERAGE.iter().filter_map(|(id, _)| instantiate(*id)).collect();
    let ctx = AnalysisContext { findings: Some(&cache), ..AnalysisContext::new(ds, params, &cancel) };
    for a in &agents {
        let _ = a.analyse(&ctx);
    }
    println!("| agent over a warm cache | seconds | CPU seconds | anomalies |");
    println!("|---|---|---|---|");
    for a in &agents {
        let (secs, cpu, found) = best_of(runs, || a.analyse(&ctx).map_or(0, |o| o.anomalies.len()));
        println!("| {} | {secs:.3} | {cpu:.2} | {found} |", a.id().as_str());
    }
}

/// Prints how many anomalies the whole engine reports and a hash of all of them, serialised.
fn digest(ds: &Dataset, params: &DetectionParams) {
    use std::hash::Hasher;
    let found = engine::analyse(ds, params, &CancelFlag::new()).map(|(a, _)| a).unwrap_or_default();
    let mut h = rustc_hash::FxHasher::default();
    let mut bytes = 0;
    for a in &found {
        let json = serde_json::to_string(a).unwrap_or_default();
        bytes += json.len();
        h.write(json.as_bytes());
    }
    println!("digest: {} anomalies ({:.0} MiB as JSON), {:016x}", found.len(), bytes as f64 / 1048576.0, h.finish());
}

/// Prints how many anomalies the seven agents report over one findings cache and a hash of all
/// of them: each anomaly serialised, sorted by agent id then JSON (so neither thread order nor
/// ties in an agent's order change it); then a hash of their insights and recommendations.
fn agents_digest(ds: &Dataset, params: &DetectionParams) {
    use std::hash::Hasher;
    let cache = FindingsCache::new();
    let outputs = agent_outputs(ds, params, Some(&cache));
    let mut lines: Vec<(&str, String)> = Vec::new();
    let mut words = rustc_hash::FxHasher::default();
    for (id, out) in &outputs {
        let Some(out) = out else {
            println!("agents digest: {id} failed");
            continue;
        };
        lines.extend(out.anomalies.iter().map(|a| (*id, serde_json::to_string(&**a).unwrap_or_default())));
        words.write(id.as_bytes());
        words.write(serde_json::to_string(&(&out.insights, &out.recommendations)).unwrap_or_default().as_bytes());
    }
    lines.sort_unstable();
    let mut h = rustc_hash::FxHasher::default();
    for (id, json) in &lines {
        h.write(id.as_bytes());
        h.write(json.as_bytes());
    }
    println!(
        "agents digest: {} anomalies, {:016x}; insights and recommendations {:016x}; {} detector runs for {} detectors",
        lines.len(),
        h.finish(),
        words.finish(),
        cache.len(),
        NAMES.len()
    );
}

/// Times each shared fact once, then each detector over the facts already computed.
fn sections(ds: &Dataset, params: &DetectionParams) {
    let cancel = CancelFlag::new();
    let shared = Shared::new(ds);
    let time = |label: &str, f: &mut dyn FnMut() -> usize| {
        reset_peak();
        let before = peak_mib().unwrap_or(f64::NAN);
        let (secs, cpu, found) = best_of(1, f);
        let added = peak_mib().unwrap_or(f64::NAN) - before;
        println!("| {label} | {secs:.3} | {cpu:.2} | {found} | {added:.0} |");
    };
    println!("| section | seconds | CPU seconds | items | peak MiB added |");
    println!("|---|---|---|---|---|");
    time("shared: suppliers", &mut || shared.suppliers().names.len());
    time("shared: organs", &mut || shared.organs().names.len());
    time("shared: organ_years", &mut || shared.organ_years().len());
    time("shared: organ_months", &mut || shared.organ_months(&cancel).map_or(0, |m| m.1.len()));
    time("shared: categories", &mut || shared.categories(&cancel).map_or(0, <[_]>::len));
    time("shared: texts", &mut || shared.texts(&cancel).map_or(0, <[_]>::len));
    time("shared: outside", &mut || shared.outside().len());
    time("shared: object_groups", &mut || shared.object_groups(&cancel).map_or(0, |g| g.groups.len()));
    for d in all() {
        time(d.name(), &mut || d.run_shared(&shared, params, &cancel).map_or(0, |a| a.len()));
    }
}

/// Runs the seven analysis agents on parallel threads, as an investigation does, with or
/// without one [`FindingsCache`] between them; returns the anomalies they report in all.
fn all_agents(ds: &Dataset, params: &DetectionParams, shared: bool) -> usize {
    let cache = FindingsCache::new();
    let outputs = agent_outputs(ds, params, shared.then_some(&cache));
    outputs.iter().filter_map(|(_, o)| o.as_ref()).map(|o| o.anomalies.len()).sum()
}

/// What each of the seven agents reports, run on parallel threads over `ds` (with one findings
/// cache when given), in roster order; `None` for an agent that failed.
fn agent_outputs(
    ds: &Dataset,
    params: &DetectionParams,
    cache: Option<&FindingsCache>,
) -> Vec<(&'static str, Option<AgentOutput>)> {
    let cancel = CancelFlag::new();
    let agents: Vec<_> = COVERAGE.iter().filter_map(|(id, _)| instantiate(*id)).collect();
    std::thread::scope(|s| {
        let handles: Vec<_> = agents
            .iter()
            .map(|a| {
                let ctx = AnalysisContext { findings: cache, ..AnalysisContext::new(ds, params, &cancel) };
                (a.id().as_str(), s.spawn(move || a.analyse(&ctx).ok()))
            })
            .collect();
        handles.into_iter().map(|(id, h)| (id, h.join().ok().flatten())).collect()
    })
}
