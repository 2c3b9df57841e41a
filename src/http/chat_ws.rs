//! The chat WebSocket (`/api/v1/chat/ws`): many turns per connection. The client sends
//! `{type: "chat", message, agent_name, session_id, filters}` and gets the turn's events as
//! JSON messages with the same payloads as the SSE stream (`start`, `thinking`,
//! `agent_selected`, `chunk`, `complete` or `error`); `{type: "ping"}` answers
//! `{type: "pong"}` (protocol pings are answered by the server too). Credentials: the bearer
//! header, or a `token` query parameter for browsers, which cannot set headers on a
//! WebSocket. A bad frame gets an `error` message and the connection stays open. The turn of a
//! connection continues the conversation of its previous turn unless the client names another.
//! Each turn spends a token of the caller's rate limit.

use std::collections::HashMap;
use std::collections::VecDeque;

use axum::Extension;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{ConnectInfo, Query, State};
use axum::response::Response;
use futures::{SinkExt, StreamExt};
use serde_json::{Value, json};

use super::AppState;
use super::auth_layer::Caller;
use super::rate_limit::{bucket, refusal_error};
use crate::domain::Principal;
use crate::error::Error;
use crate::service::chat::{self, ChatEvent, ChatEventKind, ChatRequest, TurnEvents};

/// Largest text frame read, bytes.
const MAX_FRAME: usize = 64 * 1024;
/// Read buffer of a connection, bytes (grows for a larger frame).
const SOCKET_BUFFER: usize = 4 * 1024;

/// Upgrades the connection after resolving the caller (header, else `?token=`).
#[utoipa::path(get, path = "/api/v1/chat/ws", tag = "chat",
    params(("token" = Option<String>, Query, description = "Access token, for clients that cannot send headers")),
    security((), ("bearer_jwt" = []), ("api_key" = [])),
    responses(
        (status = 101, description = "Switching to the chat WebSocket (JSON frames: message in, events out)"),
        (status = 400, description = "VALIDATION_ERROR"),
    ))]
pub(super) async fn upgrade(
    State(st): State<AppState>,
    caller: Option<Extension<Caller>>,
    ConnectInfo(peer): ConnectInfo<std::net::SocketAddr>,
    Query(q): Query<HashMap<String, String>>,
    ws: WebSocketUpgrade,
) -> Response {
    let mut principal = caller.map_or(Ok(None), |Extension(c)| c.0);
    if matches!(principal, Ok(None))
        && let Some(token) = q.get("token").filter(|t| !t.is_empty())
    {
        principal = st.services.auth.authenticate_bearer(token).map(Some);
    }
    let ip = Some(peer.ip());
    // Small buffers: chat messages are small, and tungstenite's 128 KiB defaults would cost
    // a quarter of a megabyte per open connection.
    ws.max_message_size(MAX_FRAME)
        .read_buffer_size(SOCKET_BUFFER)
        .write_buffer_size(0)
        .max_write_buffer_size(MAX_FRAME * 2)
        .on_upgrade(move |socket| serve(st, socket, principal, ip))
}

/// One connection: reads client messages and forwards the running turn's events, both at once.
async fn serve(
    st: AppState,
    socket: WebSocket,
    principal: Result<Option<Principal>, Error>,
    ip: Option<std::net::IpAddr>,
) {
    let (mut sink, mut source) = socket.split();
    let mut turn: Option<TurnEvents> = None;
    let mut queued: VecDeque<ChatRequest> = VecDeque::new();
    let mut session: Option<String> = None;
    let shutdown = st.shutdown.clone();
    loop {
        if turn.is_none()
            && let Some(mut req) = queued.pop_front()
        {
            if req.session_id.is_none() {
                req.session_id = session.clone();
            }
            turn = Some(st.services.chat.turn(req, turn_caller(&st, &principal, ip)));
        }
        tokio::select! {
            incoming = source.next() => {
                let Some(Ok(msg)) = incoming else { break };
                let reply = match msg {
                    Message::Text(text) => match parse(text.as_str()) {
                        Ok(Some(req)) => { queued.push_back(req); None }
                        Ok(None) => Some(json!({"type": "pong", "timestamp": chrono::Utc::now()})),
                        Err(e) => Some(error_message(&e)),
                    },
                    Message::Binary(_) => Some(error_message(&Error::validation("frame", "send JSON text frames"))),
                    Message::Close(_) => break,
                    // Protocol pings are answered by the server itself.
                    Message::Ping(_) | Message::Pong(_) => None,
                };
                if let Some(reply) = reply
                    && sink.send(Message::Text(reply.to_string().into())).await.is_err()
                {
                    break;
                }
            }
            event = next_event(&mut turn), if turn.is_some() => {
                match event {
                    Some(e) => {
                        if let ChatEventKind::Start { session_id, .. } = &e.kind {
                            session = Some(session_id.clone());
                        }
                        let text = serde_json::to_string(&e.kind).unwrap_or_else(|_| "{}".into());
                        if sink.send(Message::Text(text.into())).await.is_err() {
                            break;
                        }
                    }
                    None => turn = None,
                }
            }
            _ = shutdown.clone().wait() => {
                let _ = sink.send(Message::Close(None)).await;
                break;
            }
        }
    }
}

async fn next_event(turn: &mut Option<TurnEvents>) -> Option<ChatEvent> {
    match turn {
        Some(t) => t.next().await,
        None => None,
    }
}

/// A chat request (`Some`), a ping (`None`), or what is wrong with the frame.
fn parse(text: &str) -> Result<Option<ChatRequest>, Error> {
    let v: Value = serde_json::from_str(text).map_err(|e| Error::validation("frame", format!("not JSON: {e}")))?;
    match v.get("type").and_then(Value::as_str) {
        Some("chat") | Some("message") => {
            serde_json::from_value(v).map(Some).map_err(|e| Error::validation("frame", e.to_string()))
        }
        Some("ping") => Ok(None),
        Some(other) => Err(Error::validation("type", format!("unknown message type '{other}'; send 'chat' or 'ping'"))),
        None => Err(Error::validation("type", "a message needs a type ('chat' or 'ping')")),
    }
}

fn error_message(e: &Error) -> Value {
    serde_json::to_value(ChatEventKind::from_error(e)).unwrap_or_default()
}

/// The caller of one turn, with this turn's rate-limit decision.
fn turn_caller(
    st: &AppState,
    principal: &Result<Option<Principal>, Error>,
    ip: Option<std::net::IpAddr>,
) -> chat::Caller {
    let limits = &st.services.rate_limits;
    let refused = match principal {
        Ok(p) if limits.enabled() => {
            let (tier, key) = bucket(p.as_ref(), ip);
            limits.admit(tier, &key).err().map(|r| refusal_error(&r))
        }
        _ => None,
    };
    chat::Caller { principal: principal.clone(), refused }
}
