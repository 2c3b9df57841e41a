//! Chat routes: a turn streamed as SSE (`/chat/stream`) or answered as one JSON document
//! (`/chat/message`, or `/chat/stream` with `stream: false`), the caller's conversations and
//! the cursor pages of one conversation. The WebSocket lives in [`super::chat_ws`].
//! Errors of a streamed turn (invalid credentials, rate limit, a bad message) arrive inside the
//! stream as its one `error` event; the JSON form answers them with the error envelope.

use std::collections::HashMap;

use axum::extract::{Path, Query, State};
use axum::response::sse::Event;
use axum::response::{IntoResponse, Response};
use futures::StreamExt;

use super::AppState;
use super::auth_extract::MaybeAuthUser;
use super::auth_layer::Caller;
use super::error::ApiError;
use super::extract::ApiJson;
use super::openapi::ApiRouter;
use super::rate_limit::StreamRefusal;
use super::sse;
use super::views::chat::{ChatAnswer, ChatHistoryPage, ChatRouting, ChatSessions};
use crate::domain::chat::ChatRole;
use crate::domain::cursor::Direction;
use crate::error::Error;
use crate::service::chat::{self, ChatEvent, ChatRequest};
use axum::{Extension, Json};
use utoipa_axum::routes;

type ApiResult = Result<Response, ApiError>;

/// The routes (the WebSocket's included).
pub fn router() -> ApiRouter {
    ApiRouter::new()
        .routes(routes!(stream))
        .routes(routes!(message))
        .routes(routes!(super::chat_ws::upgrade))
        .routes(routes!(sessions))
        .routes(routes!(history))
        .alias("/api/v1/chat/history/{session_id}/paginated", routes!(history))
}

/// The caller as a turn sees it, from what the auth and rate-limit layers left in the request.
pub(crate) fn turn_caller(caller: Option<&Caller>, refusal: Option<&StreamRefusal>) -> chat::Caller {
    chat::Caller { principal: caller.map_or(Ok(None), |c| c.0.clone()), refused: refusal.map(|r| r.0.clone()) }
}

/// A chat event as an SSE event: `id`, `event` and the JSON data with `type`.
fn sse_event(e: &ChatEvent) -> Event {
    sse::json_event(e.seq, e.kind.name(), &e.kind)
}

#[utoipa::path(post, path = "/api/v1/chat/stream", tag = "chat", request_body = ChatRequest, security((), ("bearer_jwt" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "Server-sent events of the turn (errors, including rate limits, arrive as `error` events)", content_type = "text/event-stream", body = String),
        (status = 400, description = "VALIDATION_ERROR"),
        (status = 404, description = "AGENT_NOT_FOUND"),
    ))]
async fn stream(
    State(st): State<AppState>,
    caller: Option<Extension<Caller>>,
    refusal: Option<Extension<StreamRefusal>>,
    ApiJson(req): ApiJson<ChatRequest>,
) -> ApiResult {
    let caller = turn_caller(caller.as_deref(), refusal.as_deref());
    if req.stream == Some(false) {
        return one_document(&st, req, caller).await;
    }
    let events = st.services.chat.turn(req, caller);
    let shutdown = st.shutdown.clone();
    // A server that is stopping ends open streams (the turn itself finishes and is stored).
    let events = events.take_until(async move { shutdown.wait().await }).map(|e| sse_event(&e));
    Ok(sse::event_stream(events, st.keep_alive_secs))
}

#[utoipa::path(post, path = "/api/v1/chat/message", tag = "chat", request_body = ChatRequest, security((), ("bearer_jwt" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "The turn's answer as one document", body = ChatAnswer),
        (status = 400, description = "VALIDATION_ERROR"),
        (status = 404, description = "AGENT_NOT_FOUND"),
    ))]
async fn message(
    State(st): State<AppState>,
    caller: Option<Extension<Caller>>,
    ApiJson(req): ApiJson<ChatRequest>,
) -> ApiResult {
    // Rate limits were applied by the layer (a refusal here is already a 429).
    let caller = turn_caller(caller.as_deref(), None);
    one_document(&st, req, caller).await
}

/// Runs a turn to its end and answers it as one JSON document (or the error envelope).
async fn one_document(st: &AppState, req: ChatRequest, caller: chat::Caller) -> ApiResult {
    let reply = st.services.chat.reply(req, caller).await?;
    let answer = ChatAnswer {
        session_id: reply.session_id,
        routing: reply.routing.map(|r| ChatRouting {
            agent: r.agent,
            reason: r.reason,
            intent: r.intent,
            confidence: r.confidence,
        }),
        status: reply.status,
        message_id: reply.message_id,
        agent: reply.agent,
        anomalies: reply.anomalies,
        confidence: reply.confidence,
        investigation_id: reply.investigation_id,
        role: ChatRole::Assistant,
        content: reply.content,
        phrasing: reply.phrasing,
    };
    Ok(Json(answer).into_response())
}

#[utoipa::path(get, path = "/api/v1/chat/history", tag = "chat",  security((), ("bearer_jwt" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "The caller's chat sessions", body = ChatSessions),
    ))]
async fn sessions(State(st): State<AppState>, MaybeAuthUser(who): MaybeAuthUser) -> ApiResult {
    let sessions = st.services.chat.sessions(who.as_ref())?;
    Ok(Json(super::views::chat::sessions(&sessions)).into_response())
}

#[utoipa::path(get, path = "/api/v1/chat/history/{session_id}", tag = "chat", params(("session_id" = String, Path, description = "Chat session id"), ("cursor" = Option<String>, Query, description = "From a previous page"), ("direction" = Option<String>, Query, description = "next or prev"), ("limit" = Option<usize>, Query, description = "Messages per page")), security((), ("bearer_jwt" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "A page of the session's messages", body = ChatHistoryPage),
        (status = 400, description = "VALIDATION_ERROR"),
        (status = 403, description = "PERMISSOES_INSUFICIENTES"),
        (status = 404, description = "RESOURCE_NOT_FOUND"),
    ))]
async fn history(
    State(st): State<AppState>,
    MaybeAuthUser(who): MaybeAuthUser,
    Path(session_id): Path<String>,
    Query(q): Query<HashMap<String, String>>,
) -> ApiResult {
    let direction = match q.get("direction").map(String::as_str) {
        None | Some("") => Direction::Prev,
        Some(d) => Direction::parse(d).ok_or_else(|| Error::validation("direction", "'next' or 'prev'"))?,
    };
    let limit = match q.get("limit") {
        None => 50,
        Some(l) => l.trim().parse::<usize>().map_err(|_| Error::validation("limit", "an integer from 1 to 100"))?,
    };
    let page =
        st.services.chat.history(&session_id, q.get("cursor").map(String::as_str), direction, limit, who.as_ref())?;
    Ok(Json(ChatHistoryPage::from(page)).into_response())
}
