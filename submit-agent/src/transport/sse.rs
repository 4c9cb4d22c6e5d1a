//! Server-sent event streams: reading the events of an answer and handing each to the
//! provider's assembler, which passes chunks to the sink and builds the answer.

use std::convert::Infallible;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use bytes::{Buf, Bytes};
use futures::{Stream, StreamExt};
use serde_json::Value;
use sse_stream::{Sse, SseStream};

use super::TransportError;
use crate::message::{Chunk, Part};
use crate::model::stream::ModelStream;

/// Builds the provider's answer from stream events.
pub trait Assemble: Send + 'static {
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

/// The most bytes of a stream one event may take unless set otherwise (16 MiB).
pub const MAX_EVENT_BYTES: usize = 16 << 20;
/// The most bytes a whole stream may take unless set otherwise (256 MiB).
pub const MAX_STREAM_BYTES: usize = 256 << 20;

/// How many bytes one event, and a whole stream, may take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Limits {
    pub(crate) event_bytes: usize,
    pub(crate) stream_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            event_bytes: MAX_EVENT_BYTES,
            stream_bytes: MAX_STREAM_BYTES,
        }
    }
}

/// What cut the bytes under an event stream short.
#[derive(Debug, thiserror::Error)]
enum Cut {
    /// The bytes' own source failed (the connection).
    #[error("{0}")]
    Source(Box<dyn std::error::Error + Send + Sync>),
    /// An event or the stream outgrew its limit.
    #[error("{0}")]
    Limit(String),
}

/// Bytes read since the last event, shared by the metered bytes and the reader of events.
#[derive(Clone, Debug, Default)]
pub(super) struct Meter(Arc<AtomicUsize>);

impl Meter {
    fn add(&self, bytes: usize) -> usize {
        self.0
            .fetch_add(bytes, Ordering::Relaxed)
            .saturating_add(bytes)
    }

    fn reset(&self) {
        self.0.store(0, Ordering::Relaxed);
    }
}

/// The server-sent events of an answer.
pub(super) type Events = Pin<Box<dyn Stream<Item = Result<Sse, sse_stream::Error>> + Send>>;

/// The events of `bytes`, framed by `sse-stream` (one pass over each byte). Each chunk is
/// counted: once the bytes since the last event pass `limits.event_bytes`, or the whole
/// stream passes `limits.stream_bytes`, the stream ends with an error naming the limit. What
/// the framing holds at any time is at most one event's bytes and one chunk.
pub(super) fn events<S, B, E>(
    bytes: S,
    limits: Limits,
) -> (impl Stream<Item = Result<Sse, sse_stream::Error>>, Meter)
where
    S: Stream<Item = Result<B, E>>,
    B: Buf,
    E: std::error::Error + Send + Sync + 'static,
{
    let meter = Meter::default();
    let since_event = meter.clone();
    let mut total = 0usize;
    // One line a piece: the framing then finishes at most one event per piece, so an event
    // it rejects is reported at its own position whatever pieces the stream came in, and
    // each piece is counted as the framing takes it.
    let lines = bytes.flat_map(|item| {
        futures::stream::iter(match item {
            Ok(mut chunk) => lines(chunk.copy_to_bytes(chunk.remaining())),
            Err(e) => vec![Err(Cut::Source(Box::new(e)))],
        })
    });
    let metered = lines.map(move |item| {
        let line = item?;
        let n = line.len();
        total = total.saturating_add(n);
        if total > limits.stream_bytes {
            return Err(Cut::Limit(format!(
                "the stream is past {} bytes, the most a stream may take; raise it with \
                 stream_limits(..) if the provider's answers are this long",
                limits.stream_bytes
            )));
        }
        if since_event.add(n) > limits.event_bytes {
            return Err(Cut::Limit(format!(
                "an event is past {} bytes, the most one event may take; raise it with \
                 stream_limits(..) if the provider's events are this large",
                limits.event_bytes
            )));
        }
        Ok(line)
    });
    (SseStream::from_bytes_stream(metered), meter)
}

/// `chunk` cut after each `\n` and each `\r` (a zero-copy split).
fn lines(mut chunk: Bytes) -> Vec<Result<Bytes, Cut>> {
    let mut pieces = Vec::new();
    while let Some(end) = memchr::memchr2(b'\n', b'\r', &chunk) {
        pieces.push(Ok(chunk.split_to(end + 1)));
    }
    if !chunk.is_empty() {
        pieces.push(Ok(chunk));
    }
    pieces
}

/// Why the next event could not be read.
pub(super) enum Unread {
    /// The connection under the stream failed.
    Source(Box<dyn std::error::Error + Send + Sync>),
    /// The stream is malformed or outgrew a limit.
    Malformed(TransportError),
}

/// The next event that carries data (events without data dispatch nothing, as the SSE
/// standard says), with the meter reset for the one after it.
pub(super) async fn next_event<S>(
    provider: &'static str,
    events: &mut S,
    meter: &Meter,
    number: usize,
) -> Option<Result<Sse, Unread>>
where
    S: Stream<Item = Result<Sse, sse_stream::Error>> + Unpin,
{
    loop {
        let event = match events.next().await? {
            Ok(event) => event,
            Err(sse_stream::Error::Body(source)) => {
                return Some(Err(match source.downcast::<Cut>() {
                    Ok(cut) => match *cut {
                        Cut::Source(source) => Unread::Source(source),
                        Cut::Limit(message) => {
                            Unread::Malformed(TransportError::Stream { provider, message })
                        }
                    },
                    Err(other) => Unread::Source(other),
                }))
            }
            Err(e) => {
                return Some(Err(Unread::Malformed(TransportError::Stream {
                    provider,
                    message: format!("event {}: {e}", number + 1),
                })))
            }
        };
        meter.reset();
        if event.data.is_some() {
            return Some(Ok(event));
        }
    }
}

/// One server-sent event.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` name.
    pub(crate) event: Option<String>,
    /// The `data:` lines, joined with newlines.
    pub(crate) data: String,
    /// Its position in the stream (1-based).
    pub(crate) number: usize,
}

/// Reads `events` (after `first`, already read) into `assembler` until it says the answer is
/// complete or the stream ends. A failed connection is [`TransportError::StreamBroken`],
/// described by `broken`.
pub(super) async fn read_stream<A, S>(
    provider: &'static str,
    mut events: S,
    meter: &Meter,
    first: Option<Sse>,
    mut assembler: A,
    sink: &ModelStream,
    broken: impl Fn(Box<dyn std::error::Error + Send + Sync>) -> String,
) -> Result<Value, TransportError>
where
    A: Assemble,
    S: Stream<Item = Result<Sse, sse_stream::Error>> + Unpin,
{
    let malformed = |message: String| TransportError::Stream { provider, message };
    let mut complete = false;
    let mut number = 0;
    let mut next = first;
    while !complete {
        let event = match next.take() {
            Some(e) => e,
            None => match next_event(provider, &mut events, meter, number).await {
                Some(Ok(e)) => e,
                Some(Err(Unread::Source(source))) => {
                    return Err(TransportError::StreamBroken {
                        provider,
                        events: number,
                        message: broken(source),
                    })
                }
                Some(Err(Unread::Malformed(error))) => return Err(error),
                None => break,
            },
        };
        number += 1;
        let event = SseEvent {
            event: event.event.filter(|e| !e.is_empty() && e != "message"),
            data: event.data.unwrap_or_default(),
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

/// Assembles an event stream already received, in the pieces it arrived in, as a call
/// streaming to no sink would: the same limits, the same errors.
pub(crate) fn decode_stream<'a, A: Assemble>(
    provider: &'static str,
    limits: Limits,
    chunks: impl IntoIterator<Item = &'a [u8]>,
    assembler: A,
) -> Result<Value, TransportError> {
    let sink = ModelStream {
        stream: crate::model::stream::Stream::new(Arc::new(|_| Ok(()))),
    };
    let bytes = futures::stream::iter(chunks.into_iter().map(Ok::<_, Infallible>));
    let (events, meter) = events(bytes, limits);
    futures::executor::block_on(read_stream(
        provider,
        std::pin::pin!(events),
        &meter,
        None,
        assembler,
        &sink,
        |source| source.to_string(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An assembler that only counts the events it is given.
    #[derive(Default)]
    struct Count(usize);

    impl Assemble for Count {
        fn event(
            &mut self,
            _: &SseEvent,
            _: Value,
            _: &ModelStream,
        ) -> Result<bool, TransportError> {
            self.0 += 1;
            Ok(false)
        }

        fn finish(self, _: bool) -> Result<Value, TransportError> {
            Ok(Value::from(self.0))
        }
    }

    /// Found by the `stream` fuzz target: a line the framing rejects, arriving in the same
    /// piece as the events before it, was reported as event 1 (the events before it were
    /// still queued); in smaller pieces, at its own position.
    #[test]
    fn a_line_that_is_not_sse_is_reported_at_its_event_whatever_the_pieces() {
        let stream = "event: a\ndata: {}\n\nevent: b\r\ndata: {}\r\n\r\ndata: {}\r\rbogus\n\n";
        for size in [stream.len(), 5, 1] {
            let decoded = decode_stream(
                "test",
                Limits::default(),
                stream.as_bytes().chunks(size),
                Count::default(),
            );
            assert_eq!(
                decoded,
                Err(TransportError::Stream {
                    provider: "test",
                    message: "event 4: invalid line".into()
                }),
                "in pieces of {size}"
            );
        }
        let clean = "data: 1\n\ndata: 2\r\n\r\ndata: 3\r\r";
        for size in [clean.len(), 2, 1] {
            let decoded = decode_stream(
                "test",
                Limits::default(),
                clean.as_bytes().chunks(size),
                Count::default(),
            );
            assert_eq!(decoded, Ok(Value::from(3)), "in pieces of {size}");
        }
    }

    /// Feeds every assembler compiled in a list of hostile events: each must answer with a
    /// value or an error, never panic.
    #[test]
    fn hostile_stream_events_are_errors_not_panics() {
        use serde_json::json;
        let sink = ModelStream {
            stream: crate::model::stream::Stream::new(Arc::new(|_| Ok(()))),
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
