//! A first start with no user and no `VIGIA_ADMIN_*`: the real binary creates an admin with a
//! generated password, prints it once on standard output (not in the log), and that admin
//! signs in and starts an investigation, which an anonymous call cannot.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

use serde_json::{Value, json};

use crate::crash::{free_port, serve_command, wait_ready};

fn serve_fresh(dir: &std::path::Path, port: u16) -> Child {
    serve_command(dir, port, 600)
        .env("VIGIA_LOG", "info")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts")
}

/// Stops the child and returns (stdout, stderr).
fn stop(child: Child) -> (String, String) {
    Command::new("kill").arg("-TERM").arg(child.id().to_string()).status().unwrap();
    let out = child.wait_with_output().unwrap();
    (String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[tokio::test]
async fn a_first_start_prints_a_generated_admin_password_once_and_it_signs_in_to_start_investigations() {
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let client = reqwest::Client::new();
    let mut child = serve_fresh(dir.path(), port);
    // The credentials come on stdout before the server is ready.
    let mut line = String::new();
    BufReader::new(child.stdout.as_mut().unwrap()).read_line(&mut line).unwrap();
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = |w: &str| words.iter().position(|x| *x == w).map(|i| words[i + 1]).expect(&line);
    let (email, password) = (at("admin").to_string(), at("password").to_string());
    assert_eq!(email, "admin@vigia.local");
    assert!(password.len() >= 16, "{line}");
    wait_ready(&client, &base).await;

    let query = json!({"query": "contratos da saúde", "data_source": "portal_transparencia"});
    let r = client.post(format!("{base}/api/v1/investigations/start")).json(&query).send().await.unwrap();
    assert_eq!(r.status(), 401, "anonymous calls cannot start investigations");
    let login = json!({"email": email, "senha": password});
    let r = client.post(format!("{base}/api/v1/auth/login")).json(&login).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let token = r.json::<Value>().await.unwrap()["token_acesso"].as_str().unwrap().to_string();
    let r = client.post(format!("{base}/api/v1/investigations/start")).bearer_auth(&token).json(&query).send();
    assert_eq!(r.await.unwrap().status(), 201);
    let (_, log) = stop(child);
    assert!(!log.contains(&password), "the password is not in the log");

    // The next start finds a user and prints nothing.
    let child = serve_fresh(dir.path(), port);
    wait_ready(&client, &base).await;
    let (out, _) = stop(child);
    assert!(!out.contains("password"), "printed once: {out}");
}
