//! The server-sent events of an OpenAI-compatible streaming chat completion, read as they
//! arrive: `data: {"choices":[{"delta":{"content":"..."}}]}` events, each a piece of the
//! answer, ended by `data: [DONE]`. Lines may be cut anywhere between two network reads;
//! comments (`: ...`) and other fields (`event:`, `id:`) are skipped.

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

/// Reassembles lines and events from the body's bytes.
#[derive(Debug, Default)]
pub(crate) struct SseParser {
    /// Bytes of a line not yet ended.
    line: Vec<u8>,
    /// `data` lines of the event being read, joined by newlines.
    data: Option<String>,
}

impl SseParser {
    /// Reads the next bytes of the body; the frames of every event they complete.
    pub fn feed(&mut self, bytes: &[u8]) -> Result<Vec<Frame>, LlmError> {
        let mut frames = Vec::new();
        for &b in bytes {
            if b == b'\n' {
                let line = std::mem::take(&mut self.line);
                self.line_done(&line, &mut frames)?;
            } else {
                self.line.push(b);
            }
        }
        Ok(frames)
    }

    /// The end of the body: the frames of an event it left unterminated.
    pub fn finish(&mut self) -> Result<Vec<Frame>, LlmError> {
        let mut frames = Vec::new();
        let line = std::mem::take(&mut self.line);
        if !line.is_empty() {
            self.line_done(&line, &mut frames)?;
        }
        self.dispatch(&mut frames)?;
        Ok(frames)
    }

    fn line_done(&mut self, line: &[u8], frames: &mut Vec<Frame>) -> Result<(), LlmError> {
        let line = std::str::from_utf8(line).map_err(|_| LlmError::Malformed("a line is not UTF-8".into()))?;
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.is_empty() {
            return self.dispatch(frames);
        }
        if let Some(value) = line.strip_prefix("data:") {
            let value = value.strip_prefix(' ').unwrap_or(value);
            match &mut self.data {
                Some(d) => {
                    d.push('\n');
                    d.push_str(value);
                }
                None => self.data = Some(value.to_string()),
            }
        }
        Ok(())
    }

    fn dispatch(&mut self, frames: &mut Vec<Frame>) -> Result<(), LlmError> {
        if let Some(data) = self.data.take() {
            frames.extend(frame(&data)?);
        }
        Ok(())
    }
}

/// The frames of one event's data.
fn frame(data: &str) -> Result<Option<Frame>, LlmError> {
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
    use super::*;

    fn delta(s: &str) -> String {
        format!("data: {}\n\n", serde_json::json!({"choices": [{"index": 0, "delta": {"content": s}}]}))
    }

    #[test]
    fn events_cut_anywhere_between_reads_give_the_pieces_in_order_then_done() {
        let body = format!(
            ": keep-alive\n\ndata: {{\"choices\":[{{\"delta\":{{\"role\":\"assistant\"}}}}]}}\r\n\r\n{}{}event: x\n{}data: [DONE]\n\n",
            delta("Olá, "),
            delta("são R$ 1.234,56"),
            delta(" ação")
        );
        let bytes = body.as_bytes();
        for step in [1, 3, 7, bytes.len()] {
            let mut p = SseParser::default();
            let mut frames = Vec::new();
            for part in bytes.chunks(step) {
                frames.extend(p.feed(part).unwrap());
            }
            frames.extend(p.finish().unwrap());
            assert_eq!(
                frames,
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

    #[test]
    fn a_cut_answer_an_error_object_and_bad_data_are_told_apart() {
        let mut p = SseParser::default();
        let cut = "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"length\"}]}\n\n";
        assert_eq!(p.feed(cut.as_bytes()).unwrap(), [Frame::Cut]);
        let usage = "data: {\"choices\":[],\"usage\":{\"total_tokens\":9}}\n\n";
        assert_eq!(p.feed(usage.as_bytes()).unwrap(), []);
        for bad in ["data: {\"error\":{\"message\":\"boom\"}}\n\n", "data: not json\n\n", "data: {\"x\":1}\n\n"] {
            let e = SseParser::default().feed(bad.as_bytes()).unwrap_err();
            assert!(matches!(e, LlmError::Malformed(_)), "{bad}: {e}");
            assert!(!e.to_string().contains("boom"), "the server's text is not repeated");
        }
        let mut p = SseParser::default();
        assert_eq!(p.feed(b"data: [DONE]").unwrap(), []);
        assert_eq!(p.finish().unwrap(), [Frame::Done], "an unterminated last event still counts");
    }
}
