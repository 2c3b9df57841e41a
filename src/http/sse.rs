//! Server-Sent Events: every event carries its sequence number as `id` and its name as
//! `event` (and in its data as `type`, `tipo` on PT streams, but for anomalies, whose `type` is
//! the anomaly type); keep-alive comments flow while the run is quiet; the response is never
//! compressed or buffered by proxies. Chat streams use [`event_stream`] with their own events.

use std::convert::Infallible;
use std::time::Duration;

use axum::http::HeaderValue;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures::{Stream, StreamExt};

use super::error::Lang;
use super::views;
use crate::domain::InvestigationEvent;

/// An investigation's events as an SSE response.
pub fn investigation_stream(
    lang: Lang,
    events: impl Stream<Item = InvestigationEvent> + Send + 'static,
    keep_alive_secs: f64,
) -> Response {
    let stream = events.map(move |e| {
        let (name, mut data) = views::event(lang, &e);
        // Clients that dispatch on `data:` alone read the event name from `type` (`tipo` on PT
        // streams); an anomaly keeps its anomaly type there.
        let key = if lang == Lang::Pt { "tipo" } else { "type" };
        if let Some(fields) = data.as_object_mut() {
            fields.entry(key).or_insert_with(|| name.into());
        }
        json_event(e.seq, name, &data)
    });
    event_stream(stream, keep_alive_secs)
}

/// An event numbered `seq`, named `name`, whose data is the JSON of `data`. The JSON is written
/// into a buffer kept by the thread and handed to the event whole: serialised into the event
/// itself, each of serde's small writes was scanned for line breaks and appended on its own.
pub fn json_event(seq: u64, name: &str, data: &impl serde::Serialize) -> Event {
    thread_local! {
        static JSON: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    /// Largest buffer a thread keeps between events.
    const KEPT: usize = 64 * 1024;
    let event = Event::default().id(itoa::Buffer::new().format(seq)).event(name);
    JSON.with_borrow_mut(|json| {
        json.clear();
        // Serialising to memory fails only for a map with non-string keys, which no event has;
        // the stream does not break if one did.
        let written = serde_json::to_writer(&mut *json, data).is_ok();
        let text = std::str::from_utf8(json).ok().filter(|_| written).unwrap_or("{}");
        let event = event.data(text);
        if json.capacity() > KEPT {
            *json = Vec::new();
        }
        event
    })
}

/// Any event stream as an SSE response: keep-alive comments while quiet, never buffered by
/// proxies, never compressed (the compression layer skips `text/event-stream`).
pub fn event_stream(stream: impl Stream<Item = Event> + Send + 'static, keep_alive_secs: f64) -> Response {
    let stream = stream.map(Ok::<_, Infallible>);
    let keep_alive = KeepAlive::new().interval(Duration::from_secs_f64(keep_alive_secs.max(0.1))).text("keep-alive");
    let mut resp = Sse::new(stream).keep_alive(keep_alive).into_response();
    let h = resp.headers_mut();
    h.insert("connection", HeaderValue::from_static("keep-alive"));
    h.insert("x-accel-buffering", HeaderValue::from_static("no"));
    resp
}
