//! Benchmarks of authentication (issue [3]); prints figures, asserts nothing.
//!
//! `cargo run --release --example bench_auth`
//!
//! - RS256 token verification per second on one thread: the full check (signature, algorithm,
//!   issuer, expiry), and the check of a token already verified (cache hit, expiry only)
//! - full bearer authentication per second on one thread (verification plus the session,
//!   revocation and user lookups in sled), as every authenticated request pays it
//! - the latency a JWT check adds to a request: the same route (`GET /api/v1/investigations`,
//!   optional authentication, empty store) over loopback without a token, with the same token
//!   every time (as a client sends it) and with a never-seen token every time (full signature
//!   check), interleaved, medians and 99th percentiles

use std::time::{Duration, Instant};

use vigia::auth::{Claims, JwtKeys, TokenKind};
use vigia::config::Config;
use vigia::domain::ClientContext;
use vigia::service::auth::LoginRequest;
use vigia::service::{AuditService, AuthService};
use vigia::startup::App;
use vigia::storage::Store;

const EMAIL: &str = "bench@vigia.test";
const PASSWORD: &str = "bench-password-123";

fn pct(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

fn per_second(n: usize, mut f: impl FnMut()) -> (f64, f64) {
    for _ in 0..n / 10 {
        f();
    }
    let start = Instant::now();
    for _ in 0..n {
        f();
    }
    let secs = start.elapsed().as_secs_f64();
    (n as f64 / secs, secs / n as f64 * 1e6)
}

fn main() -> anyhow::Result<()> {
    println!("machine: {} cores, {}", std::thread::available_parallelism()?.get(), std::env::consts::ARCH);
    verification()?;
    request_latency()
}

fn verification() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let keys = JwtKeys::load_or_generate(dir.path(), "vigia")?;
    let now = chrono::Utc::now().timestamp();
    let claims = Claims {
        sub: uuid::Uuid::now_v7(),
        email: EMAIL.into(),
        role: "analista".into(),
        permissoes: vec!["ler:investigacoes".into(), "escrever:investigacoes".into()],
        iat: now,
        exp: now + 900,
        jti: uuid::Uuid::new_v4().to_string(),
        iss: "vigia".into(),
        sid: uuid::Uuid::now_v7(),
        typ: TokenKind::Access,
    };
    let token = keys.sign(&claims)?;
    let (rate, us) = per_second(20_000, || {
        keys.verify_uncached(&token).expect("valid");
    });
    println!("RS256 verify, full (one thread):    {rate:>9.0} tokens/s  ({us:.1} µs each)");
    let (rate, us) = per_second(200_000, || {
        keys.verify(&token).expect("valid");
    });
    println!("RS256 verify, seen before (cache):  {rate:>9.0} tokens/s  ({us:.2} µs each)");

    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let store = Store::temporary()?;
    let audit = std::sync::Arc::new(AuditService::new(store.clone()));
    let auth = AuthService::new(store, std::sync::Arc::new(keys), audit, &Config::default().auth);
    let token = rt.block_on(async {
        auth.bootstrap_admin(EMAIL, PASSWORD).await?;
        let req = LoginRequest { email: EMAIL.into(), password: PASSWORD.into(), code: None };
        auth.login(req, &ClientContext::default()).await.map(|t| t.access_token)
    })?;
    let (rate, us) = per_second(20_000, || {
        auth.authenticate_bearer(&token).expect("valid");
    });
    println!("bearer authentication (one thread): {rate:>9.0} requests/s ({us:.1} µs each)");
    Ok(())
}

fn request_latency() -> anyhow::Result<()> {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    rt.block_on(async {
        let dir = tempfile::tempdir()?;
        let mut cfg = Config::default();
        cfg.server.addr = "127.0.0.1:0".parse()?;
        cfg.storage.data_dir = dir.path().to_path_buf();
        cfg.rate_limit.enabled = false;
        cfg.auth.admin_email = Some(EMAIL.into());
        cfg.auth.admin_password = Some(secrecy::SecretString::from(PASSWORD));
        let app = App::build(cfg).await?;
        let base = format!("http://{}", app.local_addr());
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let server = tokio::spawn(app.run_until_stopped(async move {
            let _ = stopped.await;
        }));
        let client = reqwest::Client::new();
        while client.get(format!("{base}/health/ready")).send().await.is_err() {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let login: serde_json::Value = client
            .post(format!("{base}/api/v1/auth/login"))
            .json(&serde_json::json!({"email": EMAIL, "senha": PASSWORD}))
            .send()
            .await?
            .json()
            .await?;
        let token = login["token_acesso"].as_str().unwrap_or_default().to_string();
        // Fresh tokens of the same session, signed with the server's own key (it is in the data
        // directory), so each of them costs the server a full signature check.
        let keys = JwtKeys::load_or_generate(dir.path(), "vigia")?;
        let claims = keys.verify_uncached(&token)?;
        const N: usize = 3_000;
        let fresh: Vec<String> = (0..N)
            .map(|_| keys.sign(&Claims { jti: uuid::Uuid::new_v4().to_string(), ..claims.clone() }))
            .collect::<Result<_, _>>()?;
        let url = format!("{base}/api/v1/investigations?limit=1");
        let mut times: [Vec<f64>; 3] = Default::default();
        for i in 0..3 * N {
            let (variant, n) = (i % 3, i / 3);
            let req = match variant {
                0 => client.get(&url),
                1 => client.get(&url).bearer_auth(&token),
                _ => client.get(&url).bearer_auth(&fresh[n]),
            };
            let start = Instant::now();
            let r = req.send().await?;
            anyhow::ensure!(r.status() == 200, "status {}", r.status());
            r.bytes().await?;
            if n >= N / 6 {
                times[variant].push(start.elapsed().as_secs_f64() * 1e6);
            }
        }
        for t in &mut times {
            t.sort_by(f64::total_cmp);
        }
        let p50: Vec<f64> = times.iter().map(|t| pct(t, 0.5)).collect();
        println!("GET /api/v1/investigations over loopback, {} requests each, interleaved:", times[0].len());
        for (name, t) in ["without token", "same token", "new token"].iter().zip(&times) {
            println!("  {name:<14} p50 {:>7.1} µs  p99 {:>7.1} µs", pct(t, 0.5), pct(t, 0.99));
        }
        println!("  added by the JWT check (median difference), token seen before: {:.1} µs", p50[1] - p50[0]);
        println!("  added by the JWT check (median difference), new token:        {:.1} µs", p50[2] - p50[0]);
        let _ = stop.send(());
        server.await??;
        Ok(())
    })
}
