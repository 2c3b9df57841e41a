//! What the events of an OpenAI-compatible streaming chat completion say: each event's data
//! is `{"choices":[{"delta":{"content":"..."}}]}`, a piece of the answer, and `[DONE]` ends
//! it. The events themselves are read by `eventsource-stream` (lines cut anywhere between two
//! network reads, comments and other fields skipped).

use super::LlmError;

/// What one event of the stream says.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Frame {
    /// A piece of the answer's text.
    Text(String),
    /// `[DONE]`: the answer is whole.
    Done,
    /// `finish_reason: "length"`: the answer was cut at `max_tokens`.
    Cut,
}

/// The frame of one event's data (`None`: nothing for the answer, e.g. a usage-only event).
pub(crate) fn frame(data: &str) -> Result<Option<Frame>, LlmError> {
    if data.trim() == "[DONE]" {
        return Ok(Some(Frame::Done));
    }
    let v: serde_json::Value =
        serde_json::from_str(data).map_err(|_| LlmError::Malformed("an event's data is not JSON".into()))?;
    // The server's own error text is not repeated: it could echo what it was sent.
    if v.get("error").is_some_and(|e| !e.is_null()) {
        return Err(LlmError::Malformed("the stream carried an error object".into()));
    }
    let Some(choices) = v.get("choices").and_then(|c| c.as_array()) else {
        return Err(LlmError::Malformed("an event has no choices".into()));
    };
    // Usage-only events carry no choice.
    let Some(choice) = choices.first() else { return Ok(None) };
    if choice.get("finish_reason").and_then(|r| r.as_str()) == Some("length") {
        return Ok(Some(Frame::Cut));
    }
    match choice.pointer("/delta/content") {
        None | Some(serde_json::Value::Null) => Ok(None),
        Some(serde_json::Value::String(s)) if s.is_empty() => Ok(None),
        Some(serde_json::Value::String(s)) => Ok(Some(Frame::Text(s.clone()))),
        Some(_) => Err(LlmError::Malformed("delta.content is not text".into())),
    }
}

#[cfg(test)]
mod tests {
    use eventsource_stream::Eventsource;
    use futures::StreamExt;

    use super::*;

    fn delta(s: &str) -> String {
        format!("data: {}\n\n", serde_json::json!({"choices": [{"index": 0, "delta": {"content": s}}]}))
    }

    /// The frames of a body read `step` bytes at a time, as the client reads it.
    async fn frames_of(body: &str, step: usize) -> Result<Vec<Frame>, LlmError> {
        let parts: Vec<Result<bytes::Bytes, std::convert::Infallible>> =
            body.as_bytes().chunks(step).map(|c| Ok(bytes::Bytes::copy_from_slice(c))).collect();
        let mut events = super::super::events(futures::stream::iter(parts)).eventsource();
        let mut frames = Vec::new();
        while let Some(e) = events.next().await {
            let e = e.map_err(|_| LlmError::Malformed("not an event stream".into()))?;
            frames.extend(frame(&e.data)?);
        }
        Ok(frames)
    }

    #[tokio::test]
    async fn events_cut_anywhere_between_reads_give_the_pieces_in_order_then_done() {
        let body = format!(
            ": keep-alive\n\ndata: {{\"choices\":[{{\"delta\":{{\"role\":\"assistant\"}}}}]}}\r\n\r\n{}{}event: x\n{}data: [DONE]\n\n",
            delta("Olá, "),
            delta("são R$ 1.234,56"),
            delta(" ação")
        );
        for step in [1, 3, 7, body.len()] {
            assert_eq!(
                frames_of(&body, step).await.unwrap(),
                [
                    Frame::Text("Olá, ".into()),
                    Frame::Text("são R$ 1.234,56".into()),
                    Frame::Text(" ação".into()),
                    Frame::Done
                ],
                "read {step} bytes at a time"
            );
        }
    }

    #[tokio::test]
    async fn a_cut_answer_an_error_object_and_bad_data_are_told_apart() {
        let cut = "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"length\"}]}\n\n";
        assert_eq!(frames_of(cut, cut.len()).await.unwrap(), [Frame::Cut]);
        let usage = "data: {\"choices\":[],\"usage\":{\"total_tokens\":9}}\n\n";
        assert_eq!(frames_of(usage, usage.len()).await.unwrap(), []);
        for bad in ["data: {\"error\":{\"message\":\"boom\"}}\n\n", "data: not json\n\n", "data: {\"x\":1}\n\n"] {
            let e = frames_of(bad, bad.len()).await.unwrap_err();
            assert!(matches!(e, LlmError::Malformed(_)), "{bad}: {e}");
            assert!(!e.to_string().contains("boom"), "the server's text is not repeated");
        }
        assert_eq!(
            frames_of("data: [DONE]", 12).await.unwrap(),
            [Frame::Done],
            "an unterminated last event still counts"
        );
    }
}
