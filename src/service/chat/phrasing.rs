//! The closing summary of an analysed answer (an investigation's, a plan's). With a language
//! model configured (`llm.base_url`), drummond's messages (rules, the structured facts, the
//! built-in summary as a draft) go to it and its text is streamed as `chunk`s as it arrives,
//! every figure checked against the facts first ([`FigureGuard`]: a number is held back until
//! complete). A figure the facts do not hold, an empty answer, or any failure of the model
//! (connection, HTTP status, timeout, malformed or cut stream) stops the model for this answer
//! and drummond's built-in summary finishes it; the client never sees the invented figure, and
//! the turn still ends with `complete`, whose `phrasing` says who phrased it and why not the
//! model. Each outcome is counted (`vigia_chat_llm_answers_total{result, reason}`).

use futures::StreamExt;
use vigia_agents::conversation::drummond::{self, FigureGuard};
use vigia_agents::conversation::{AnswerFacts, Route};

use super::ChatService;
use super::events::{Phrasing, Sender};
use crate::upstream::llm::{LlmClient, LlmError};

/// Progress the closing starts from (the work before it reports up to here).
pub(super) const CLOSING_FROM: f64 = 92.0;

/// Why the model's text was not used.
#[derive(Debug)]
enum Refusal {
    /// The model failed.
    Model(LlmError),
    /// It wrote a figure the facts do not hold (the figure, for the log).
    Invented(String),
    /// It wrote nothing but spaces.
    Empty,
}

impl Refusal {
    fn reason(&self) -> &'static str {
        match self {
            Refusal::Model(e) => e.kind(),
            Refusal::Invented(_) => "invented_figure",
            Refusal::Empty => "empty_answer",
        }
    }
}

impl From<LlmError> for Refusal {
    fn from(e: LlmError) -> Self {
        Refusal::Model(e)
    }
}

/// Streams the closing summary of `facts` into `out`: the model's when one is configured and
/// its text holds, else drummond's built-in one. `None` when no model is configured.
pub(super) async fn closing(
    svc: &ChatService,
    route: &Route,
    facts: &AnswerFacts,
    out: &mut Sender,
) -> Option<Phrasing> {
    let Some(llm) = svc.llm.as_deref() else {
        built_in(route, facts, out).await;
        return None;
    };
    let fallback = match from_model(llm, route, facts, out).await {
        Ok(()) => None,
        Err(refusal) => {
            match &refusal {
                Refusal::Invented(figure) => {
                    tracing::warn!(figure = %figure, "the language model wrote a figure the facts do not hold; the built-in phrasing answers")
                }
                other => {
                    tracing::warn!(reason = other.reason(), detail = ?other, "the language model's phrasing failed; the built-in phrasing answers")
                }
            }
            built_in(route, facts, out).await;
            Some(refusal.reason().to_string())
        }
    };
    let (result, reason) = match &fallback {
        None => ("model", "none"),
        Some(r) => ("built_in", r.as_str()),
    };
    metrics::counter!("vigia_chat_llm_answers_total", "result" => result, "reason" => reason.to_string()).increment(1);
    Some(Phrasing { source: result.to_string(), model: llm.model().to_string(), fallback })
}

/// drummond's own summary, a few chunks from [`CLOSING_FROM`] percent.
async fn built_in(route: &Route, facts: &AnswerFacts, out: &mut Sender) {
    for (k, part) in drummond::closing(facts, route.language).into_iter().enumerate() {
        out.chunk(part, CLOSING_FROM + 2.0 * k as f64).await;
    }
}

/// The model's summary, streamed as it arrives once each piece's figures are checked.
async fn from_model(llm: &LlmClient, route: &Route, facts: &AnswerFacts, out: &mut Sender) -> Result<(), Refusal> {
    let mut text = llm.stream(&drummond::llm_messages(route, facts)).await?;
    let mut guard = FigureGuard::new(facts);
    let (mut pieces, mut starts) = (0u32, true);
    // Text cleared by the guard but not yet sent: spaces wait for the next word.
    let mut ready = String::new();
    let room = 99.0 - CLOSING_FROM;
    while let Some(piece) = text.next().await {
        let piece = piece?;
        pieces += 1;
        ready.push_str(&guard.push(&piece).map_err(Refusal::Invented)?);
        if !ready.trim().is_empty() {
            let at = CLOSING_FROM + room * (f64::from(pieces) / f64::from(llm.max_tokens().max(1))).min(1.0);
            out.piece(std::mem::take(&mut ready), at, starts).await;
            starts = false;
        }
    }
    ready.push_str(&guard.finish().map_err(Refusal::Invented)?);
    if !ready.trim().is_empty() {
        out.piece(ready.trim_end().to_string(), 99.0, starts).await;
        starts = false;
    }
    if starts {
        return Err(Refusal::Empty);
    }
    Ok(())
}
