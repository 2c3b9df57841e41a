//! The release server the load benchmarks drive: started on a free port with a temporary data
//! directory (demo mode, rate limits off, a bootstrap admin), its readiness, its RSS and a
//! login. Included by `bench_load` and `bench_chat` with `#[path]`.

#![allow(dead_code)]

use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

/// The bootstrap admin's e-mail.
pub const EMAIL: &str = "bench@vigia.test";
/// Its password.
pub const PASSWORD: &str = "bench-password-123";

/// A port nobody listens on.
pub fn free_port() -> anyhow::Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// The release binary beside the example (`target/release/examples/..` -> `target/release/vigia`).
fn binary() -> anyhow::Result<std::path::PathBuf> {
    let exe = std::env::current_exe()?;
    let dir = exe.parent().and_then(|p| p.parent()).ok_or_else(|| anyhow::anyhow!("no target directory"))?;
    Ok(dir.join("vigia"))
}

/// Starts `vigia serve` on `port` over `dir` with `records` demo contracts per fetch.
pub fn serve(dir: &std::path::Path, port: u16, records: usize) -> anyhow::Result<Child> {
    serve_with(dir, port, records, &[])
}

/// [`serve`] with more environment variables (e.g. a setting turned off).
pub fn serve_with(dir: &std::path::Path, port: u16, records: usize, env: &[(&str, &str)]) -> anyhow::Result<Child> {
    Ok(Command::new(binary()?)
        .arg("serve")
        .env_clear()
        .env("VIGIA_CONFIG", "/dev/null")
        .env("VIGIA_ADDR", format!("127.0.0.1:{port}"))
        .env("VIGIA_DATA_DIR", dir)
        .env("VIGIA__DEMO__RECORDS", records.to_string())
        .env("VIGIA__RATE_LIMIT__ENABLED", "false")
        .env("VIGIA__INVESTIGATIONS__MAX_CONCURRENT", "4096")
        .env("VIGIA_ADMIN_EMAIL", EMAIL)
        .env("VIGIA_ADMIN_PASSWORD", PASSWORD)
        .env("VIGIA_LOG", "error")
        .envs(env.iter().copied())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()?)
}

/// Resident memory of a process, MiB.
pub fn rss_mb(pid: u32) -> Option<f64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let kb: f64 = status.lines().find(|l| l.starts_with("VmRSS:"))?.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

/// Waits for `/health/ready`.
pub async fn wait_ready(client: &reqwest::Client, base: &str) -> anyhow::Result<()> {
    for _ in 0..2000 {
        if client.get(format!("{base}/health/ready")).send().await.is_ok_and(|r| r.status() == 200) {
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    anyhow::bail!("the server never became ready")
}

/// The bootstrap admin's access token.
pub async fn login(client: &reqwest::Client, base: &str) -> anyhow::Result<String> {
    let r: Value = client
        .post(format!("{base}/api/v1/auth/login"))
        .json(&json!({"email": EMAIL, "senha": PASSWORD}))
        .send()
        .await?
        .json()
        .await?;
    r["token_acesso"].as_str().map(str::to_string).ok_or_else(|| anyhow::anyhow!("no token in {r}"))
}
