//! Server-sent event streams: reading the events of an answer and handing each to the
//! provider's assembler, which passes chunks to the sink and builds the answer.

use futures::StreamExt;
use serde_json::Value;

use super::http::{network, Http};
use super::TransportError;
use crate::message::{Chunk, Part};
use crate::stream::ModelStream;

/// Builds the provider's answer from stream events.
pub(crate) trait Assemble: Send + 'static {
    /// Takes one event; `true` when the stream is complete.
    fn event(
        &mut self,
        event: &SseEvent,
        data: Value,
        sink: &ModelStream,
    ) -> Result<bool, TransportError>;

    /// The assembled answer, in the provider's non-streaming shape.
    fn finish(self, complete: bool) -> Result<Value, TransportError>;
}

/// Sends a chunk of one part to the sink.
pub(crate) fn emit(sink: &ModelStream, part: Part) -> Result<(), TransportError> {
    sink.send(Chunk::new(None, vec![part]))
        .map_err(|e| TransportError::Sink(e.0))
}

/// Sends a tool-call argument delta to the sink.
pub(crate) fn emit_delta(
    sink: &ModelStream,
    index: u64,
    id: Option<&str>,
    name: Option<&str>,
    arguments: &str,
) -> Result<(), TransportError> {
    emit(
        sink,
        Part::tool_call_delta(crate::message::ToolCallDelta {
            index,
            id: id.filter(|i| !i.is_empty()).map(str::to_owned),
            name: name.filter(|n| !n.is_empty()).map(str::to_owned),
            arguments: arguments.to_owned(),
        }),
    )
}

/// The server-sent events of an answer.
pub(super) type Events = std::pin::Pin<
    Box<
        dyn futures::Stream<
                Item = Result<
                    eventsource_stream::Event,
                    eventsource_stream::EventStreamError<reqwest::Error>,
                >,
            > + Send,
    >,
>;

/// One server-sent event.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct SseEvent {
    /// The `event:` name.
    pub(crate) event: Option<String>,
    /// The `data:` lines, joined with newlines.
    pub(crate) data: String,
    /// Its position in the stream (1-based).
    pub(crate) number: usize,
}

pub(super) async fn read_stream<A: Assemble>(
    http: &Http,
    mut events: Events,
    first: eventsource_stream::Event,
    mut assembler: A,
    sink: &ModelStream,
) -> Result<Value, TransportError> {
    let provider = http.provider;
    let malformed = |message: String| TransportError::Stream { provider, message };
    let mut complete = false;
    let mut number = 0;
    let mut next = Some(first);
    while !complete {
        let event = match next.take() {
            Some(e) => e,
            None => match events.next().await {
                Some(Ok(e)) => e,
                Some(Err(eventsource_stream::EventStreamError::Transport(e))) => {
                    return Err(TransportError::StreamBroken {
                        provider,
                        events: number,
                        message: network(http, &e.without_url(), 1).to_string(),
                    })
                }
                Some(Err(e)) => return Err(malformed(format!("event {}: {e}", number + 1))),
                None => break,
            },
        };
        number += 1;
        let event = SseEvent {
            event: Some(event.event).filter(|e| !e.is_empty() && e != "message"),
            data: event.data,
            number,
        };
        if event.data.trim() == "[DONE]" {
            complete = assembler.event(&event, Value::Null, sink)?;
            continue;
        }
        let data: Value = serde_json::from_str(&event.data).map_err(|e| {
            malformed(format!(
                "event {}{} holds data that is not JSON ({e})",
                event.number,
                event
                    .event
                    .as_deref()
                    .map(|n| format!(" ({n})"))
                    .unwrap_or_default()
            ))
        })?;
        complete = assembler.event(&event, data, sink)?;
    }
    assembler.finish(complete)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    /// Feeds every assembler compiled in a list of hostile events: each must answer with a
    /// value or an error, never panic.
    #[test]
    fn hostile_stream_events_are_errors_not_panics() {
        use serde_json::json;
        let sink = ModelStream {
            stream: crate::stream::Stream::new(Arc::new(|_| Ok(()))),
        };
        let shapes = [
            json!(null),
            json!(5),
            json!("text"),
            json!([1, 2]),
            json!({}),
            json!({"index": 0}),
            json!({"index": 0, "output_index": 0, "content_block": 5, "item": 5, "message": 5}),
            json!({"index": 0, "output_index": 0, "content_block": {"type": "text"}, "item": {"type": "message", "content": [5]}, "message": {}}),
            json!({"index": 0, "output_index": 0, "content_index": 99, "delta": {"type": "text_delta", "text": "a"}}),
            json!({"index": 0, "output_index": 0, "delta": "a", "content_index": 0}),
            json!({"index": 0, "delta": {"type": "input_json_delta", "partial_json": "{"}}),
            json!({"choices": [5, {"index": 0, "delta": {"content": 5, "tool_calls": [5, {"index": 0, "function": 5}]}}]}),
            json!({"candidates": [{"content": {"parts": [5, {"text": 5}, {"text": "a"}, {"functionCall": 5}]}}]}),
            json!({"usage": 5, "delta": 5, "response": 5}),
        ];
        let kinds = [
            "message_start",
            "content_block_start",
            "content_block_delta",
            "content_block_stop",
            "message_delta",
            "response.output_item.added",
            "response.output_text.delta",
            "response.function_call_arguments.delta",
            "response.output_item.done",
            "response.completed",
            "error",
        ];
        fn drive<A: Assemble + Default>(shapes: &[Value], kinds: &[&str], sink: &ModelStream) {
            for kind in kinds {
                let mut assembler = A::default();
                for (n, data) in shapes.iter().enumerate() {
                    let mut data = data.clone();
                    if let Some(m) = data.as_object_mut() {
                        m.insert("type".into(), Value::String((*kind).to_owned()));
                    }
                    let event = SseEvent {
                        event: Some((*kind).to_owned()),
                        data: data.to_string(),
                        number: n + 1,
                    };
                    let _ = assembler.event(&event, data, sink);
                }
                let _ = assembler.finish(true);
            }
        }
        #[cfg(feature = "claude")]
        drive::<crate::transport::claude::Assembler>(&shapes, &kinds, &sink);
        #[cfg(feature = "gemini")]
        drive::<crate::transport::gemini::Assembler>(&shapes, &kinds, &sink);
        #[cfg(feature = "openai-chat")]
        drive::<crate::transport::openai_chat::Assembler>(&shapes, &kinds, &sink);
        #[cfg(feature = "openai-responses")]
        drive::<crate::transport::openai_responses::Assembler>(&shapes, &kinds, &sink);
    }
}
