//! Response compression for administrators: what the HTTP compression layer did (counted by
//! [`CompressionMeter`], which the layer's wrappers feed), the algorithms it offers with the
//! ratio and time it measured for each, recommendations drawn from those counts, and a codec
//! test that compresses a sample with one algorithm at one level using the same codec crates
//! the layer uses (flate2 for gzip and deflate, brotli for br).

use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::Instant;

use crate::error::{Error, Result};

/// An algorithm the layer can answer with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Algorithm {
    /// `Content-Encoding: gzip`.
    Gzip,
    /// `Content-Encoding: br`.
    Brotli,
    /// `Content-Encoding: deflate` (zlib-wrapped, as HTTP means it).
    Deflate,
}

/// The algorithms, in the order they are reported.
pub const ALGORITHMS: [Algorithm; 3] = [Algorithm::Gzip, Algorithm::Brotli, Algorithm::Deflate];

impl Algorithm {
    /// The name routes use.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Gzip => "gzip",
            Algorithm::Brotli => "brotli",
            Algorithm::Deflate => "deflate",
        }
    }

    /// The algorithm of a `Content-Encoding` value, or of a name routes use.
    pub fn parse(raw: &str) -> Option<Algorithm> {
        match raw.trim().to_ascii_lowercase().as_str() {
            "gzip" => Some(Algorithm::Gzip),
            "br" | "brotli" => Some(Algorithm::Brotli),
            "deflate" => Some(Algorithm::Deflate),
            _ => None,
        }
    }

    /// Levels the codec accepts.
    pub fn levels(self) -> std::ops::RangeInclusive<u32> {
        match self {
            Algorithm::Brotli => 1..=11,
            Algorithm::Gzip | Algorithm::Deflate => 1..=9,
        }
    }

    /// The level the layer compresses with: tower-http's default, which is flate2's default
    /// (6) for gzip and deflate and quality 4 for brotli (tower-http lowers brotli's 11,
    /// which is too slow for responses).
    pub fn layer_level(self) -> u32 {
        match self {
            Algorithm::Brotli => 4,
            Algorithm::Gzip | Algorithm::Deflate => 6,
        }
    }

    fn index(self) -> usize {
        match self {
            Algorithm::Gzip => 0,
            Algorithm::Brotli => 1,
            Algorithm::Deflate => 2,
        }
    }
}

/// Compresses `input` with `algorithm` at `level` (already checked against its range).
pub fn compress(algorithm: Algorithm, level: u32, input: &[u8]) -> std::io::Result<Vec<u8>> {
    match algorithm {
        Algorithm::Gzip => {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(level));
            e.write_all(input)?;
            e.finish()
        }
        Algorithm::Deflate => {
            let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::new(level));
            e.write_all(input)?;
            e.finish()
        }
        Algorithm::Brotli => {
            let mut out = Vec::new();
            let params = brotli::enc::BrotliEncoderParams { quality: level as i32, ..Default::default() };
            brotli::BrotliCompress(&mut &input[..], &mut out, &params)?;
            Ok(out)
        }
    }
}

/// Per-algorithm totals of compressed responses.
#[derive(Debug, Default, Clone, Copy)]
pub struct AlgorithmTotals {
    /// Responses compressed with it.
    pub responses: u64,
    /// Their bytes before compression.
    pub original_bytes: u64,
    /// Their bytes on the wire.
    pub compressed_bytes: u64,
    /// Sum of per-response ratios (compressed / original), for the mean.
    pub ratio_sum: f64,
    /// Microseconds spent producing the compressed body (polling the encoder).
    pub encode_micros: u64,
}

/// Counters fed by the HTTP compression layer's wrappers.
#[derive(Debug, Default)]
pub struct CompressionMeter {
    total: AtomicU64,
    uncompressed: AtomicU64,
    /// Bytes of large responses sent without compression (the client did not ask for any).
    uncompressed_large_bytes: AtomicU64,
    per_algorithm: Mutex<[AlgorithmTotals; 3]>,
}

/// Responses at least this large would have been compressed had the client asked (the
/// layer's size predicate).
pub const MIN_COMPRESSED_SIZE: u64 = 1024;

impl CompressionMeter {
    /// A response went through the layer.
    pub fn response(&self) {
        self.total.fetch_add(1, Ordering::Relaxed);
    }

    /// A response went out uncompressed with `bytes` of body.
    pub fn uncompressed(&self, bytes: u64) {
        self.uncompressed.fetch_add(1, Ordering::Relaxed);
        if bytes >= MIN_COMPRESSED_SIZE {
            self.uncompressed_large_bytes.fetch_add(bytes, Ordering::Relaxed);
        }
    }

    /// A compressed response finished: its size before and after, and encoding time.
    pub fn compressed(&self, algorithm: Algorithm, original: u64, compressed: u64, encode_micros: u64) {
        let mut all = self.per_algorithm.lock().unwrap_or_else(|p| p.into_inner());
        let t = &mut all[algorithm.index()];
        t.responses += 1;
        t.original_bytes += original;
        t.compressed_bytes += compressed;
        if original > 0 {
            t.ratio_sum += compressed as f64 / original as f64;
        }
        t.encode_micros += encode_micros;
    }

    /// A consistent read of every count.
    fn snapshot(&self) -> Snapshot {
        Snapshot {
            total: self.total.load(Ordering::Relaxed),
            uncompressed_large_bytes: self.uncompressed_large_bytes.load(Ordering::Relaxed),
            per_algorithm: *self.per_algorithm.lock().unwrap_or_else(|p| p.into_inner()),
        }
    }
}

/// A consistent read of the meter.
#[derive(Debug, Clone)]
pub struct Snapshot {
    /// Responses through the layer.
    pub total: u64,
    /// Bytes of large responses sent uncompressed.
    pub uncompressed_large_bytes: u64,
    /// Totals per algorithm, in [`ALGORITHMS`] order.
    pub per_algorithm: [AlgorithmTotals; 3],
}

impl Snapshot {
    /// Totals over every algorithm.
    pub fn all(&self) -> AlgorithmTotals {
        self.per_algorithm.iter().fold(AlgorithmTotals::default(), |mut a, t| {
            a.responses += t.responses;
            a.original_bytes += t.original_bytes;
            a.compressed_bytes += t.compressed_bytes;
            a.ratio_sum += t.ratio_sum;
            a.encode_micros += t.encode_micros;
            a
        })
    }

    /// The totals of one algorithm.
    pub fn of(&self, algorithm: Algorithm) -> AlgorithmTotals {
        self.per_algorithm[algorithm.index()]
    }
}

/// One codec test.
#[derive(Debug, Clone)]
pub struct CodecTest {
    /// Algorithm used.
    pub algorithm: Algorithm,
    /// Level used.
    pub level: u32,
    /// Sample bytes.
    pub original_size: usize,
    /// Compressed bytes.
    pub compressed_size: usize,
    /// Milliseconds the compression took.
    pub compression_time_ms: f64,
}

impl CodecTest {
    /// compressed / original.
    pub fn ratio(&self) -> f64 {
        self.compressed_size as f64 / self.original_size.max(1) as f64
    }
}

/// The compression facade.
#[derive(Default)]
pub struct CompressionService {
    meter: std::sync::Arc<CompressionMeter>,
}

/// Contracts in the codec-test sample.
const SAMPLE_CONTRACTS: usize = 200;

/// The sample the codec test compresses: the JSON of demo contracts, the kind of body the
/// data and investigation routes send. Generated once.
fn sample() -> &'static [u8] {
    static SAMPLE: OnceLock<Vec<u8>> = OnceLock::new();
    SAMPLE.get_or_init(|| {
        let spec = vigia_agents::demo::DemoSpec {
            seed: 7,
            contracts: SAMPLE_CONTRACTS,
            organ_codes: Vec::new(),
            year: Some(2024),
        };
        let data = vigia_agents::demo::generate(&spec);
        serde_json::to_vec(&data.dataset.contracts).unwrap_or_default()
    })
}

impl CompressionService {
    /// The meter the HTTP layer feeds.
    pub fn meter(&self) -> std::sync::Arc<CompressionMeter> {
        self.meter.clone()
    }

    /// What the layer counted.
    pub fn metrics(&self) -> Snapshot {
        self.meter.snapshot()
    }

    /// Compresses the sample with `algorithm` at `level`; VALIDATION_ERROR for an unknown
    /// algorithm or a level outside its range.
    pub async fn test(&self, algorithm: &str, level: Option<u32>) -> Result<CodecTest> {
        let algorithm = Algorithm::parse(algorithm)
            .ok_or_else(|| Error::validation("algorithm", "must be gzip, brotli or deflate"))?;
        let level = level.unwrap_or(algorithm.layer_level());
        if !algorithm.levels().contains(&level) {
            let (lo, hi) = algorithm.levels().into_inner();
            return Err(Error::validation("level", format!("must be {lo}-{hi} for {}", algorithm.name())));
        }
        // CPU-bound (brotli 11 takes a while): off the async threads.
        tokio::task::spawn_blocking(move || run_test(algorithm, level))
            .await
            .map_err(Error::internal)?
            .map_err(Error::internal)
    }
}

/// One optimisation hint.
#[derive(Debug, Clone)]
pub struct Recommendation {
    /// What it is about: `client_encoding`, `algorithm` or `level`.
    pub kind: &'static str,
    /// The hint, with the figures behind it.
    pub message: String,
    /// MiB that compressing would have saved, where the hint is about bytes already sent.
    pub potential_savings_mb: Option<f64>,
    /// Why, where the hint is a trade-off.
    pub reasoning: Option<String>,
}

impl CompressionService {
    /// Hints drawn from the layer's counts and from codec runs on the sample: bytes sent
    /// uncompressed, the best algorithm for the sample, and what gzip's top level buys.
    pub async fn optimize(&self) -> Result<Vec<Recommendation>> {
        let snap = self.metrics();
        let runs = tokio::task::spawn_blocking(|| -> std::io::Result<Vec<CodecTest>> {
            let mut runs: Vec<CodecTest> =
                ALGORITHMS.iter().map(|a| run_test(*a, a.layer_level())).collect::<std::io::Result<_>>()?;
            runs.push(run_test(Algorithm::Gzip, 9)?);
            Ok(runs)
        })
        .await
        .map_err(Error::internal)?
        .map_err(Error::internal)?;
        let mut out = Vec::new();
        let all = snap.all();
        if snap.uncompressed_large_bytes > 0 {
            // The layer's own ratio where it compressed anything, else gzip's on the sample.
            let ratio = if all.original_bytes > 0 {
                all.compressed_bytes as f64 / all.original_bytes as f64
            } else {
                runs[0].ratio()
            };
            let mb = snap.uncompressed_large_bytes as f64 / (1024.0 * 1024.0);
            out.push(Recommendation {
                kind: "client_encoding",
                message: format!(
                    "{mb:.3} MiB of responses over 1 KiB went out uncompressed because the clients sent no \
                     Accept-Encoding; ask clients to accept gzip or br"
                ),
                potential_savings_mb: Some(mb * (1.0 - ratio)),
                reasoning: None,
            });
        }
        let best = runs[..ALGORITHMS.len()]
            .iter()
            .min_by(|a, b| a.compressed_size.cmp(&b.compressed_size))
            .cloned()
            .unwrap_or_else(|| runs[0].clone());
        out.push(Recommendation {
            kind: "algorithm",
            message: format!("prefer {} for clients that accept it", best.algorithm.name()),
            potential_savings_mb: None,
            reasoning: Some(
                runs[..ALGORITHMS.len()]
                    .iter()
                    .map(|t| {
                        format!(
                            "{} {}: {:.1}% of the sample in {:.2} ms",
                            t.algorithm.name(),
                            t.level,
                            t.ratio() * 100.0,
                            t.compression_time_ms
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("; "),
            ),
        });
        let (g6, g9) = (&runs[0], &runs[ALGORITHMS.len()]);
        let gain = g6.compressed_size.saturating_sub(g9.compressed_size) as f64 / g6.compressed_size.max(1) as f64;
        out.push(Recommendation {
            kind: "level",
            message: if gain < 0.02 {
                "keep gzip at level 6: level 9 saves under 2% more".to_string()
            } else {
                format!("gzip level 9 saves {:.1}% more than level 6 on the sample", gain * 100.0)
            },
            potential_savings_mb: None,
            reasoning: Some(format!(
                "gzip 6: {} bytes in {:.2} ms; gzip 9: {} bytes in {:.2} ms",
                g6.compressed_size, g6.compression_time_ms, g9.compressed_size, g9.compression_time_ms
            )),
        });
        Ok(out)
    }
}

/// Compresses the sample once and times it.
pub fn run_test(algorithm: Algorithm, level: u32) -> std::io::Result<CodecTest> {
    let input = sample();
    let started = Instant::now();
    let out = compress(algorithm, level, input)?;
    Ok(CodecTest {
        algorithm,
        level,
        original_size: input.len(),
        compressed_size: out.len(),
        compression_time_ms: started.elapsed().as_secs_f64() * 1000.0,
    })
}

#[cfg(test)]
#[path = "compression_tests.rs"]
mod tests;
