//! Counts what the response-compression layer does, from two middlewares around it.
//! `inner` (inside the layer) counts the bytes of every body as the handler produced it and
//! leaves the counter in the response's extensions, which the layer passes through; `outer`
//! (outside the layer) sees the `Content-Encoding` the layer chose, counts the bytes on the
//! wire and the time spent polling the encoder, and records the pair into the
//! [`CompressionMeter`] when the body ends (or is dropped by a client that went away).

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};
use std::time::Instant;

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::header::CONTENT_ENCODING;
use axum::middleware::Next;
use axum::response::Response;
use http_body::{Frame, SizeHint};

use crate::service::compression::{Algorithm, CompressionMeter};

/// Bytes a body has yielded so far.
#[derive(Clone, Default)]
struct Counted(Arc<AtomicU64>);

/// A body that adds the length of each data frame to a counter and, for the outer side,
/// times its polls and reports to the meter when it is dropped.
struct CountingBody {
    inner: Body,
    bytes: Arc<AtomicU64>,
    micros: u64,
    report: Option<Report>,
}

/// What the outer body reports when it ends.
struct Report {
    meter: Arc<CompressionMeter>,
    algorithm: Option<Algorithm>,
    original: Counted,
}

impl http_body::Body for CountingBody {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        let started = Instant::now();
        let polled = Pin::new(&mut self.inner).poll_frame(cx);
        self.micros += started.elapsed().as_micros() as u64;
        if let Poll::Ready(Some(Ok(frame))) = &polled
            && let Some(data) = frame.data_ref()
        {
            self.bytes.fetch_add(data.len() as u64, Ordering::Relaxed);
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

impl Drop for CountingBody {
    fn drop(&mut self) {
        if let Some(r) = self.report.take() {
            let sent = self.bytes.load(Ordering::Relaxed);
            match r.algorithm {
                Some(a) => r.meter.compressed(a, r.original.0.load(Ordering::Relaxed), sent, self.micros),
                None => r.meter.uncompressed(sent),
            }
        }
    }
}

/// Inside the compression layer: counts the handler's body bytes.
pub async fn inner(req: Request, next: Next) -> Response {
    let res = next.run(req).await;
    let counted = Counted::default();
    let (mut parts, body) = res.into_parts();
    parts.extensions.insert(counted.clone());
    let body = CountingBody { inner: body, bytes: counted.0, micros: 0, report: None };
    Response::from_parts(parts, Body::new(body))
}

/// Outside the compression layer: counts the bytes sent and reports to the meter.
pub async fn outer(State(meter): State<Arc<CompressionMeter>>, req: Request, next: Next) -> Response {
    let res = next.run(req).await;
    meter.response();
    let (parts, body) = res.into_parts();
    let Some(original) = parts.extensions.get::<Counted>().cloned() else {
        return Response::from_parts(parts, body);
    };
    let algorithm = parts.headers.get(CONTENT_ENCODING).and_then(|v| v.to_str().ok()).and_then(Algorithm::parse);
    let report = Some(Report { meter, algorithm, original });
    let body = CountingBody { inner: body, bytes: Arc::default(), micros: 0, report };
    Response::from_parts(parts, Body::new(body))
}
