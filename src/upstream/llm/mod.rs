//! The optional language model: a client for an OpenAI-compatible chat-completions endpoint
//! (`POST {base_url}/chat/completions` with `stream: true`), which yields the answer's text
//! piece by piece as the server sends it (events read by `eventsource-stream`, their data by
//! [`sse`]). One deadline (`llm.timeout_ms`) bounds the
//! wait for the first piece and the whole answer. The key travels only in a sensitive
//! `Authorization: Bearer` header: no error, log line or response carries it, nor anything the
//! server wrote in an error (it could echo what it was sent).

mod sse;

use std::collections::VecDeque;
use std::pin::Pin;
use std::time::Duration;

use eventsource_stream::{EventStreamError, Eventsource};
use futures::{Stream, StreamExt};
use secrecy::{ExposeSecret, SecretString};
use serde_json::json;
use tokio::time::Instant;
use vigia_agents::conversation::drummond::ChatMessage;

use self::sse::{Frame, frame};
use crate::config::LlmConfig;

/// Why the model's answer could not be had.
#[derive(Debug, Clone, thiserror::Error)]
pub enum LlmError {
    /// The client could not be built.
    #[error("language model: client set-up failed: {0}")]
    Setup(String),
    /// No connection, or it broke while the answer was read.
    #[error("language model: the server could not be reached or the connection broke")]
    Connect,
    /// The server answered with an HTTP error status.
    #[error("language model: the server answered HTTP {0}")]
    Status(u16),
    /// The answer did not end within `llm.timeout_ms`.
    #[error("language model: no whole answer within {0} ms")]
    Timeout(u64),
    /// The body is not an OpenAI-style event stream.
    #[error("language model: malformed stream: {0}")]
    Malformed(String),
    /// The answer was cut at `llm.max_tokens`.
    #[error("language model: the answer was cut at max_tokens")]
    Truncated,
    /// The stream ended before `[DONE]`.
    #[error("language model: the stream ended before [DONE]")]
    Incomplete,
}

impl LlmError {
    /// A short stable name (metrics label, `phrasing.fallback`).
    pub fn kind(&self) -> &'static str {
        match self {
            LlmError::Setup(_) => "setup",
            LlmError::Connect => "connect_error",
            LlmError::Status(_) => "http_error",
            LlmError::Timeout(_) => "timeout",
            LlmError::Malformed(_) | LlmError::Incomplete => "malformed_stream",
            LlmError::Truncated => "truncated",
        }
    }
}

/// The answer's text as it streams: pieces, then the end (`None`) after `[DONE]`, or one error.
pub type TextStream = Pin<Box<dyn Stream<Item = Result<String, LlmError>> + Send>>;

/// The client of the configured model.
pub struct LlmClient {
    http: reqwest::Client,
    url: String,
    model: String,
    key: Option<SecretString>,
    timeout: Duration,
    max_tokens: u32,
    temperature: f32,
}

impl LlmClient {
    /// The client of `llm.base_url`, or `None` when it is unset (no model).
    pub fn from_config(cfg: &LlmConfig) -> Result<Option<LlmClient>, LlmError> {
        let Some(base) = cfg.base_url.as_deref().map(str::trim).filter(|b| !b.is_empty()) else {
            return Ok(None);
        };
        let timeout = Duration::from_millis(cfg.timeout_ms.max(1));
        let http = reqwest::Client::builder()
            .connect_timeout(timeout)
            .build()
            .map_err(|e| LlmError::Setup(e.without_url().to_string()))?;
        Ok(Some(LlmClient {
            http,
            url: format!("{}/chat/completions", base.trim_end_matches('/')),
            model: cfg.model.clone(),
            key: cfg.api_key.clone().filter(|k| !k.expose_secret().trim().is_empty()),
            timeout,
            max_tokens: cfg.max_tokens,
            temperature: cfg.temperature,
        }))
    }

    /// The model asked for (`llm.model`).
    pub fn model(&self) -> &str {
        &self.model
    }

    /// `llm.max_tokens`.
    pub fn max_tokens(&self) -> u32 {
        self.max_tokens
    }

    /// Sends `messages` and returns the answer's text as the server streams it. The deadline
    /// runs from now to the end of the stream.
    pub async fn stream(&self, messages: &[ChatMessage]) -> Result<TextStream, LlmError> {
        let deadline = Instant::now() + self.timeout;
        let ms = self.timeout.as_millis() as u64;
        let body = json!({
            "model": self.model,
            "messages": messages,
            "stream": true,
            "max_tokens": self.max_tokens,
            "temperature": self.temperature,
        });
        let mut req = self.http.post(&self.url).header("accept", "text/event-stream").json(&body);
        if let Some(key) = &self.key {
            // reqwest marks a bearer header sensitive: it is redacted from Debug output.
            req = req.bearer_auth(key.expose_secret());
        }
        let resp = match tokio::time::timeout_at(deadline, req.send()).await {
            Err(_) => return Err(LlmError::Timeout(ms)),
            Ok(Err(e)) if e.is_timeout() => return Err(LlmError::Timeout(ms)),
            Ok(Err(_)) => return Err(LlmError::Connect),
            Ok(Ok(r)) => r,
        };
        if !resp.status().is_success() {
            return Err(LlmError::Status(resp.status().as_u16()));
        }
        let state = Reading {
            events: Box::pin(events(resp.bytes_stream()).eventsource()),
            queue: VecDeque::new(),
            ended: false,
            deadline,
            ms,
        };
        Ok(Box::pin(futures::stream::unfold(state, Reading::next)))
    }
}

/// The body's bytes, then an empty line: an event the server left unterminated at the end
/// of the body still counts (a cut line then reads as malformed data).
fn events<E>(body: impl Stream<Item = Result<bytes::Bytes, E>>) -> impl Stream<Item = Result<bytes::Bytes, E>> {
    body.chain(futures::stream::iter([Ok(bytes::Bytes::from_static(b"\n\n"))]))
}

type Events = Pin<Box<dyn Stream<Item = Result<eventsource_stream::Event, EventStreamError<reqwest::Error>>> + Send>>;

/// The state of a streamed answer being read.
struct Reading {
    events: Events,
    /// Items read but not yet handed out.
    queue: VecDeque<Result<String, LlmError>>,
    /// Nothing more is read: `[DONE]`, an error or the end of the body was met.
    ended: bool,
    deadline: Instant,
    ms: u64,
}

impl Reading {
    async fn next(mut self) -> Option<(Result<String, LlmError>, Reading)> {
        loop {
            if let Some(item) = self.queue.pop_front() {
                return Some((item, self));
            }
            if self.ended {
                return None;
            }
            match tokio::time::timeout_at(self.deadline, self.events.next()).await {
                Err(_) => self.fail(LlmError::Timeout(self.ms)),
                Ok(Some(Err(EventStreamError::Transport(_)))) => self.fail(LlmError::Connect),
                Ok(Some(Err(_))) => self.fail(LlmError::Malformed("not an event stream".into())),
                // An event without data (a keep-alive) says nothing.
                Ok(Some(Ok(event))) if event.data.is_empty() => {}
                Ok(Some(Ok(event))) => match frame(&event.data) {
                    Ok(f) => self.take(f),
                    Err(e) => self.fail(e),
                },
                // A body that ends without [DONE] may have been cut short.
                Ok(None) => self.fail(LlmError::Incomplete),
            }
        }
    }

    /// Queues `e` as the last item.
    fn fail(&mut self, e: LlmError) {
        self.queue.push_back(Err(e));
        self.ended = true;
    }

    /// Queues a frame's text, stops reading at `[DONE]`, fails on a cut.
    fn take(&mut self, f: Option<Frame>) {
        match f {
            Some(Frame::Text(t)) => self.queue.push_back(Ok(t)),
            Some(Frame::Done) => self.ended = true,
            Some(Frame::Cut) => self.fail(LlmError::Truncated),
            None => {}
        }
    }
}
