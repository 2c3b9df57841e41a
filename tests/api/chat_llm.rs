//! The optional language model phrasing chat answers, against a local stand-in speaking the
//! OpenAI streaming format: its text is streamed as the answer's chunks (SSE, WebSocket and the
//! one-document answer alike); a figure it invents
//! never reaches the client (drummond's built-in phrasing finishes the answer); a server that
//! is down, fails, stalls, ends early or says nothing changes nothing but `complete.phrasing`; the key goes to the model
//! as a bearer header and nowhere else; without `llm.base_url` nothing changes.

use std::time::Duration;

use serde_json::{Value, json};

use crate::chat::turn;
use crate::chat_llm_stand_in::{Behaviour, INVENTED, LLM_KEY, MODEL_MARK, model_stand_in, rephrasing};
use crate::crash::{free_port, serve_logged};
use crate::helpers::{TestApp, spawn_app, spawn_app_with};

const QUESTION: &str = "Investigue contratos suspeitos do Ministério da Saúde em 2024";

async fn app_with_model(url: &str, timeout_ms: u64) -> TestApp {
    let url = url.to_string();
    spawn_app_with(move |c| {
        c.llm.base_url = Some(url);
        c.llm.model = "stand-in".into();
        c.llm.api_key = Some(LLM_KEY.to_string().into());
        c.llm.timeout_ms = timeout_ms;
    })
    .await
}

fn chunks(events: &[(String, Value)]) -> Vec<String> {
    events.iter().filter(|(n, _)| n == "chunk").map(|(_, d)| d["content"].as_str().unwrap().to_string()).collect()
}

/// The turn ended with `complete` (never `error`), its chunks' progress never went back, and
/// the closing is drummond's built-in one.
fn assert_built_in_answer(events: &[(String, Value)], fallback: &str) {
    let (last, done) = events.last().unwrap();
    assert_eq!(last, "complete", "{events:?}");
    assert_eq!(done["status"], "completed");
    assert_eq!(done["phrasing"], json!({"source": "built_in", "model": "stand-in", "fallback": fallback}));
    let text = chunks(events).join("\n");
    assert!(text.contains("Analisei") && text.contains("Você pode pedir o relatório"), "{text}");
    let progress: Vec<f64> = events.iter().filter_map(|(_, d)| d["progress"].as_f64()).collect();
    assert!(progress.windows(2).all(|w| w[0] <= w[1]), "{progress:?}");
}

/// One chat turn over the WebSocket: its messages up to `complete` or `error`.
async fn websocket_turn(app: &TestApp, message: &str) -> Vec<Value> {
    use futures::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::Message;
    let (mut ws, _) = tokio_tungstenite::connect_async(format!("ws://{}/api/v1/chat/ws", app.addr)).await.unwrap();
    ws.send(Message::Text(json!({"type": "chat", "message": message}).to_string().into())).await.unwrap();
    let mut out = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(90);
    while let Ok(Some(Ok(msg))) = tokio::time::timeout_at(deadline, ws.next()).await {
        let Message::Text(t) = msg else { continue };
        let v: Value = serde_json::from_str(t.as_str()).unwrap();
        let end = v["type"] == "complete" || v["type"] == "error";
        out.push(v);
        if end {
            break;
        }
    }
    out
}

#[tokio::test]
async fn the_models_text_is_streamed_as_the_answers_chunks_and_complete_is_normal() {
    let (url, stand) = model_stand_in(Behaviour::Rephrase).await;
    let app = app_with_model(&url, 10_000).await;
    let events = turn(&app, json!({"message": QUESTION})).await;
    let done = &events.last().unwrap().1;
    assert_eq!(done["type"], "complete", "{events:?}");
    assert_eq!((done["status"].as_str(), done["anomalies"].is_u64()), (Some("completed"), true));
    assert!(done["investigation_id"].is_string());
    assert_eq!(done["phrasing"], json!({"source": "model", "model": "stand-in"}));
    let requests = stand.requests();
    assert_eq!(requests.len(), 1, "one closing, one request");
    let body = &requests[0].1;
    assert_eq!((body["stream"].as_bool(), body["model"].as_str()), (Some(true), Some("stand-in")));
    assert!(body["messages"][1]["content"].as_str().unwrap().contains("\"records_analysed\""));
    let all = chunks(&events);
    let from = all.iter().position(|c| MODEL_MARK.starts_with(c.as_str())).expect("the model's text is in the answer");
    let streamed = &all[from..];
    assert!(streamed.len() > 10, "piece by piece, not one block: {}", streamed.len());
    assert_eq!(streamed.concat(), rephrasing(body).trim_end(), "the chunks are the model's text");
    let progress: Vec<f64> = events.iter().filter_map(|(_, d)| d["progress"].as_f64()).collect();
    assert!(progress.windows(2).all(|w| w[0] <= w[1]) && progress.iter().all(|p| *p <= 100.0), "{progress:?}");
    // One document joins the model's pieces as one text.
    let r: Value = app.post("/api/v1/chat/message", &json!({"message": QUESTION})).await.json().await.unwrap();
    assert!(r["content"].as_str().unwrap().contains(rephrasing(&stand.requests()[1].1).trim_end()), "{r}");
    assert_eq!(r["phrasing"]["source"], "model");
    // The WebSocket carries the same pieces.
    let ws = websocket_turn(&app, QUESTION).await;
    assert_eq!(ws.last().unwrap()["phrasing"]["source"], "model", "{:?}", ws.last());
    let pieces: Vec<&str> = ws.iter().filter(|m| m["type"] == "chunk").filter_map(|m| m["content"].as_str()).collect();
    let from = pieces.iter().position(|c| MODEL_MARK.starts_with(c)).expect("the model's text");
    assert_eq!(pieces[from..].concat(), rephrasing(&stand.requests()[2].1).trim_end());
    // A greeting has no summary to phrase: no request, no phrasing.
    let hello = turn(&app, json!({"message": "olá, bom dia!"})).await;
    assert!(hello.last().unwrap().1.get("phrasing").is_none());
    assert_eq!(stand.requests().len(), 3);
    app.shutdown().await;
}

#[tokio::test]
async fn an_invented_figure_never_reaches_the_client_and_the_built_in_answer_finishes() {
    let (url, _stand) = model_stand_in(Behaviour::Invent).await;
    let app = app_with_model(&url, 10_000).await;
    let events = turn(&app, json!({"message": QUESTION})).await;
    assert_built_in_answer(&events, "invented_figure");
    let text = chunks(&events).concat();
    assert!(text.contains("foram desviados R$"), "the text before the figure was streamed: {text}");
    for part in INVENTED {
        assert!(!text.contains(part), "part of the invented figure reached the client: {part}");
    }
    let history = app.get(&format!("/api/v1/chat/history/{}", events[0].1["session_id"].as_str().unwrap())).await;
    assert!(!history.text().await.unwrap().contains("31.415"), "nor the stored answer");
    let metrics = app.get("/metrics").await.text().await.unwrap();
    assert!(
        metrics.lines().any(|l| l.starts_with("vigia_chat_llm_answers_total")
            && l.contains("result=\"built_in\"")
            && l.contains("reason=\"invented_figure\"")),
        "the fallback is counted"
    );
    app.shutdown().await;
}

#[tokio::test]
async fn a_model_that_is_down_fails_stalls_ends_early_or_says_nothing_leaves_the_built_in_answer() {
    let down = format!("http://127.0.0.1:{}/v1", free_port());
    let app = app_with_model(&down, 2_000).await;
    assert_built_in_answer(&turn(&app, json!({"message": QUESTION})).await, "connect_error");
    app.shutdown().await;
    let (url, stand) = model_stand_in(Behaviour::Fail).await;
    let app = app_with_model(&url, 1_500).await;
    assert_built_in_answer(&turn(&app, json!({"message": QUESTION})).await, "http_error");
    stand.set(Behaviour::Stall);
    let started = std::time::Instant::now();
    let events = turn(&app, json!({"message": QUESTION})).await;
    assert_built_in_answer(&events, "timeout");
    assert!(started.elapsed() < Duration::from_secs(30), "the stall is cut at llm.timeout_ms");
    stand.set(Behaviour::NoDone);
    assert_built_in_answer(&turn(&app, json!({"message": QUESTION})).await, "malformed_stream");
    stand.set(Behaviour::Blank);
    assert_built_in_answer(&turn(&app, json!({"message": QUESTION})).await, "empty_answer");
    app.shutdown().await;
}

#[tokio::test]
async fn without_a_model_configured_nothing_changes() {
    let app = spawn_app().await;
    let events = turn(&app, json!({"message": QUESTION})).await;
    let done = &events.last().unwrap().1;
    assert_eq!(done["type"], "complete");
    assert!(done.get("phrasing").is_none(), "{done}");
    let text = chunks(&events).join("\n");
    assert!(text.contains("Analisei") && !text.contains(MODEL_MARK), "{text}");
    let r: Value = app.post("/api/v1/chat/message", &json!({"message": QUESTION})).await.json().await.unwrap();
    assert!(r.get("phrasing").is_none() && r["content"].as_str().unwrap().contains("Analisei"), "{r}");
    app.shutdown().await;
}

/// The real binary, configured through the environment, logging at debug level: the key is
/// sent to the model as a bearer header, and no log line or response holds it.
#[tokio::test]
async fn the_key_goes_to_the_model_as_a_bearer_header_and_nowhere_else() {
    let (url, stand) = model_stand_in(Behaviour::Fail).await;
    let client = reqwest::Client::new();
    let url = url.as_str();
    let server = serve_logged(
        &client,
        &[("VIGIA_LLM_BASE_URL", url), ("VIGIA_LLM_API_KEY", LLM_KEY), ("VIGIA__LLM__TIMEOUT_MS", "5000")],
    )
    .await;
    let base = server.base.clone();
    let mut bodies = Vec::new();
    for b in [Behaviour::Fail, Behaviour::Rephrase] {
        stand.set(b);
        for path in ["/api/v1/chat/message", "/api/v1/chat/stream"] {
            let r = client.post(format!("{base}{path}")).json(&json!({"message": QUESTION})).send().await.unwrap();
            bodies.push(format!("{:?}", r.headers()));
            bodies.push(r.text().await.unwrap());
        }
    }
    for path in ["/health/detailed", "/metrics"] {
        bodies.push(client.get(format!("{base}{path}")).send().await.unwrap().text().await.unwrap());
    }
    let logs = server.logs();
    let seen = stand.requests();
    assert_eq!(seen.len(), 4);
    let bearer = format!("Bearer {LLM_KEY}");
    assert!(seen.iter().all(|(auth, _)| auth.as_deref() == Some(bearer.as_str())), "the key is sent as a bearer");
    assert!(bodies.iter().any(|b| b.contains("\"source\":\"model\"")), "the model answered once it could");
    assert!(logs.contains("language model"), "the failure was logged: {}", &logs[..logs.len().min(2000)]);
    assert!(!logs.contains(LLM_KEY), "the key is in the logs");
    for b in &bodies {
        assert!(!b.contains(LLM_KEY), "the key is in a response: {b}");
    }
}
