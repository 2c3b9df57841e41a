//! A local server on 127.0.0.1:0 that speaks the OpenAI streaming chat-completions format
//! (`data: {choices:[{delta:{content}}]}` events, then `data: [DONE]`), standing in for a
//! language model. It rephrases the draft it is sent (so every figure is one of the facts),
//! invents a figure, fails, stalls, ends early or says nothing, as the test sets it; it
//! records what it was sent.

use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use futures::StreamExt;
use serde_json::{Value, json};

/// The key the tests give the service for the model.
pub const LLM_KEY: &str = "sk-llm-stand-in-7c41a9e0";

/// What the model starts its rephrasing with (drummond's own phrasing never writes it).
pub const MODEL_MARK: &str = "Resumo do modelo:";

/// The figure [`Behaviour::Invent`] makes up, cut across three pieces.
pub const INVENTED: [&str; 3] = ["31.", "415.", "926,53"];

/// How the stand-in answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Behaviour {
    /// [`MODEL_MARK`] then the draft it was sent, word by word, then `[DONE]`.
    Rephrase,
    /// Starts well, then writes a figure that is in no fact.
    Invent,
    /// HTTP 500.
    Fail,
    /// One piece, then nothing more (never `[DONE]`).
    Stall,
    /// The rephrasing's first words, then the body ends without `[DONE]`.
    NoDone,
    /// Only spaces, then `[DONE]`.
    Blank,
}

/// One request: its `Authorization` header and JSON body.
pub type Seen = (Option<String>, Value);

/// The stand-in's state, shared with the test.
#[derive(Clone)]
pub struct ModelStand {
    behaviour: Arc<Mutex<Behaviour>>,
    /// Each request's `Authorization` header and JSON body.
    pub seen: Arc<Mutex<Vec<Seen>>>,
}

impl ModelStand {
    pub fn set(&self, b: Behaviour) {
        *self.behaviour.lock().unwrap() = b;
    }

    /// The requests so far.
    pub fn requests(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

/// Starts the stand-in; its base URL (`…/v1`, the client adds `/chat/completions`).
pub async fn model_stand_in(b: Behaviour) -> (String, ModelStand) {
    let stand = ModelStand { behaviour: Arc::new(Mutex::new(b)), seen: Arc::default() };
    let app = Router::new().route("/v1/chat/completions", post(completions)).with_state(stand.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{addr}/v1"), stand)
}

/// The text the stand-in streams for a request in [`Behaviour::Rephrase`].
pub fn rephrasing(body: &Value) -> String {
    let user = body["messages"][1]["content"].as_str().unwrap_or_default();
    let draft = user.split_once("Draft:\n").map_or("", |(_, d)| d);
    format!("{MODEL_MARK} {}", draft.replace('\n', " "))
}

fn event(piece: &str) -> String {
    format!("data: {}\n\n", json!({"choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": null}]}))
}

async fn completions(State(s): State<ModelStand>, headers: HeaderMap, body: String) -> Response {
    let body: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
    let auth = headers.get("authorization").and_then(|v| v.to_str().ok()).map(str::to_string);
    s.seen.lock().unwrap().push((auth, body.clone()));
    let behaviour = *s.behaviour.lock().unwrap();
    let mut events = vec![format!("data: {}\n\n", json!({"choices": [{"delta": {"role": "assistant"}}]}))];
    match behaviour {
        Behaviour::Fail => return (StatusCode::INTERNAL_SERVER_ERROR, "model crashed").into_response(),
        Behaviour::Rephrase => {
            let text = rephrasing(&body);
            events.extend(text.split_inclusive(' ').map(event));
            events.push("data: [DONE]\n\n".into());
        }
        Behaviour::Invent => {
            events.extend(["Resumo ", "do modelo: ", "foram desviados R$ "].map(event));
            events.extend(INVENTED.map(event));
            events.extend([" no total.".to_string()].iter().map(|p| event(p)));
            events.push("data: [DONE]\n\n".into());
        }
        Behaviour::Stall => events.push(event("Resumo ")),
        Behaviour::NoDone => events.extend(rephrasing(&body).split_inclusive(' ').take(5).map(event)),
        Behaviour::Blank => events.extend([event(" "), event("\n"), "data: [DONE]\n\n".into()]),
    }
    let pieces = futures::stream::iter(events).then(|e| async move {
        // Pieces arrive apart, as a model's tokens do.
        tokio::time::sleep(Duration::from_millis(2)).await;
        Ok::<_, Infallible>(e)
    });
    let stream: futures::stream::BoxStream<'static, Result<String, Infallible>> =
        if behaviour == Behaviour::Stall { pieces.chain(futures::stream::pending()).boxed() } else { pieces.boxed() };
    Response::builder().header("content-type", "text/event-stream").body(Body::from_stream(stream)).unwrap()
}
