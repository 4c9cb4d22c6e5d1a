//! Server-sent event streams: reading the events of an answer and handing each to the
//! provider's assembler, which passes chunks to the sink and builds the answer.

use std::convert::Infallible;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use bytes::{Buf, Bytes};
use futures::{Stream, StreamExt};
use serde::de::DeserializeOwned;
use sse_stream::{Sse, SseStream};
use submit_core::Provider;

use super::{TransportError, TransportErrorKind};
use crate::message::{Chunk, Part};
use crate::model::stream::ModelStream;

/// Builds the provider's answer from its stream's typed events.
pub trait Assemble: Send + 'static {
    /// The provider's stream event.
    type Event: DeserializeOwned;
    /// The provider's whole answer, which the events build.
    type Answer;

    /// Takes one event (`number` is its position, from 1); `true` when the stream is
    /// complete.
    fn event(
        &mut self,
        event: Self::Event,
        number: usize,
        sink: &ModelStream,
    ) -> Result<bool, TransportError>;

    /// Takes `data: [DONE]`, the end marker of OpenAI Chat; `true` when the stream is complete.
    /// By default the marker ends nothing.
    fn done(&mut self, sink: &ModelStream) -> Result<bool, TransportError> {
        let _ = sink;
        Ok(false)
    }

    /// The assembled answer.
    fn finish(self, complete: bool) -> Result<Self::Answer, TransportError>;
}

/// Sends a chunk of one part to the sink.
pub(crate) fn emit(
    provider: Provider,
    sink: &ModelStream,
    part: Part,
) -> Result<(), TransportError> {
    sink.send(Chunk::new(None, vec![part]))
        .map_err(|e| TransportError::new(provider, TransportErrorKind::Sink).with_source(e))
}

/// Sends a tool-call argument delta to the sink.
pub(crate) fn emit_delta(
    provider: Provider,
    sink: &ModelStream,
    index: u64,
    id: Option<&str>,
    name: Option<&str>,
    arguments: &str,
) -> Result<(), TransportError> {
    emit(
        provider,
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

/// How many bytes one event of a streamed answer, and the whole stream, may take; past
/// either, the call fails with [`TransportErrorKind::Stream`](super::TransportErrorKind::Stream).
///
/// ```
/// use submit_agent::transport::{StreamLimits, MAX_STREAM_BYTES};
///
/// let limits = StreamLimits::default().event_bytes(8 * 1024);
/// assert_eq!(limits.event_bytes, 8 * 1024);
/// assert_eq!(limits.stream_bytes, MAX_STREAM_BYTES);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct StreamLimits {
    /// The most bytes of the stream one event may take (default [`MAX_EVENT_BYTES`]).
    pub event_bytes: usize,
    /// The most bytes the whole stream may take (default [`MAX_STREAM_BYTES`]).
    pub stream_bytes: usize,
}

impl Default for StreamLimits {
    fn default() -> Self {
        StreamLimits {
            event_bytes: MAX_EVENT_BYTES,
            stream_bytes: MAX_STREAM_BYTES,
        }
    }
}

impl StreamLimits {
    /// These limits with the most bytes one event may take.
    pub fn event_bytes(mut self, bytes: usize) -> Self {
        self.event_bytes = bytes;
        self
    }

    /// These limits with the most bytes the whole stream may take.
    pub fn stream_bytes(mut self, bytes: usize) -> Self {
        self.stream_bytes = bytes;
        self
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
    limits: StreamLimits,
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
    provider: Provider,
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
                            Unread::Malformed(TransportError::malformed(provider, message))
                        }
                    },
                    Err(other) => Unread::Source(other),
                }))
            }
            Err(e) => {
                return Some(Err(Unread::Malformed(TransportError::malformed(
                    provider,
                    format!("event {}: {e}", number + 1),
                ))))
            }
        };
        meter.reset();
        if event.data.is_some() {
            return Some(Ok(event));
        }
    }
}

/// Reads `events` (after `first`, already read) into `assembler` until it says the answer is
/// complete or the stream ends. Each event's data is read as the provider's typed event; a
/// failed connection is [`TransportErrorKind::StreamBroken`], its error (as `broken` gives
/// it) kept as the source.
pub(super) async fn read_stream<A, S>(
    provider: Provider,
    mut events: S,
    meter: &Meter,
    first: Option<Sse>,
    mut assembler: A,
    sink: &ModelStream,
    broken: impl Fn(
        Box<dyn std::error::Error + Send + Sync>,
    ) -> Box<dyn std::error::Error + Send + Sync>,
) -> Result<A::Answer, TransportError>
where
    A: Assemble,
    S: Stream<Item = Result<Sse, sse_stream::Error>> + Unpin,
{
    let mut complete = false;
    let mut number = 0;
    let mut next = first;
    while !complete {
        let event = match next.take() {
            Some(e) => e,
            None => match next_event(provider, &mut events, meter, number).await {
                Some(Ok(e)) => e,
                Some(Err(Unread::Source(source))) => {
                    return Err(TransportError::new(
                        provider,
                        TransportErrorKind::StreamBroken { events: number },
                    )
                    .with_boxed_source(broken(source)))
                }
                Some(Err(Unread::Malformed(error))) => return Err(error),
                None => break,
            },
        };
        number += 1;
        let data = event.data.unwrap_or_default();
        if data.trim() == "[DONE]" {
            complete = assembler.done(sink)?;
            continue;
        }
        let typed = serde_json::from_str::<A::Event>(&data).map_err(|e| {
            let name = event
                .event
                .as_deref()
                .filter(|e| !e.is_empty() && *e != "message")
                .map(|n| format!(" ({n})"))
                .unwrap_or_default();
            let message = if e.is_data() {
                format!("event {number}{name} is not in the documented shape: {e}")
            } else {
                format!("event {number}{name} holds data that is not JSON ({e})")
            };
            TransportError::malformed(provider, message).with_source(e)
        })?;
        complete = assembler.event(typed, number, sink)?;
    }
    assembler.finish(complete)
}

/// Assembles an event stream already received, in the pieces it arrived in, as a call
/// streaming to no sink would: the same limits, the same errors.
pub(crate) fn decode_stream<'a, A: Assemble>(
    provider: Provider,
    limits: StreamLimits,
    chunks: impl IntoIterator<Item = &'a [u8]>,
    assembler: A,
) -> Result<A::Answer, TransportError> {
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
        |source| source,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An assembler that only counts the events it is given.
    #[derive(Default)]
    struct Count(usize);

    impl Assemble for Count {
        type Event = serde::de::IgnoredAny;
        type Answer = usize;

        fn event(
            &mut self,
            _: serde::de::IgnoredAny,
            _: usize,
            _: &ModelStream,
        ) -> Result<bool, TransportError> {
            self.0 += 1;
            Ok(false)
        }

        fn finish(self, _: bool) -> Result<usize, TransportError> {
            Ok(self.0)
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
                Provider::Claude,
                StreamLimits::default(),
                stream.as_bytes().chunks(size),
                Count::default(),
            );
            assert_eq!(
                decoded,
                Err(TransportError::malformed(
                    Provider::Claude,
                    "event 4: invalid line"
                )),
                "in pieces of {size}"
            );
        }
        let clean = "data: 1\n\ndata: 2\r\n\r\ndata: 3\r\r";
        for size in [clean.len(), 2, 1] {
            let decoded = decode_stream(
                Provider::Claude,
                StreamLimits::default(),
                clean.as_bytes().chunks(size),
                Count::default(),
            );
            assert_eq!(decoded, Ok(3), "in pieces of {size}");
        }
    }

    /// Feeds every transport compiled in streams of hostile events (each shape under each
    /// event type, alone and followed by each other shape): each must answer with a response
    /// or an error, never panic.
    #[test]
    fn hostile_stream_events_are_errors_not_panics() {
        use serde_json::{json, Value};
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
        let event = |kind: &str, data: &Value| {
            let mut data = data.clone();
            if let Some(m) = data.as_object_mut() {
                m.insert("type".into(), Value::String(kind.to_owned()));
            }
            format!("event: {kind}\ndata: {data}\n\n")
        };
        let mut streams = Vec::new();
        for kind in kinds {
            for (n, first) in shapes.iter().enumerate() {
                streams.push(event(kind, first));
                for second in &shapes[n..] {
                    for other in kinds {
                        streams.push(event(kind, first) + &event(other, second));
                    }
                }
            }
        }
        fn drive<A: crate::transport::Api>(
            transport: crate::transport::Transport<A>,
            streams: &[String],
        ) {
            for stream in streams {
                let _ = transport.decode_stream([stream.as_bytes()]);
            }
        }
        #[cfg(feature = "claude")]
        drive(crate::transport::Claude::new("m"), &streams);
        #[cfg(feature = "gemini")]
        drive(crate::transport::Gemini::new("m"), &streams);
        #[cfg(feature = "openai-chat")]
        drive(crate::transport::OpenAiChat::new("m"), &streams);
        #[cfg(feature = "openai-responses")]
        drive(crate::transport::OpenAiResponses::new("m"), &streams);
    }
}
