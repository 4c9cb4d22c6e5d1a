//! The providers' answers as they arrive: SSE framing with each provider's stream assembler,
//! and JSON bodies. The first byte picks the provider, the second the size of the pieces the
//! stream arrives in; the rest is the stream. Beyond "no panic": the answer is the same
//! whatever pieces it arrived in; an answer never holds more than its input (bounded memory);
//! a failure is a typed error of the kinds a stream or a body can raise, never one of a
//! connection.

use submit_result::agent::model::ModelResponse;
use submit_result::agent::transport::{
    Claude, Gemini, OpenAiChat, OpenAiResponses, StreamLimits, TransportError, TransportErrorKind,
};

/// Limits far above the inputs the fuzzer writes (its `-max_len`), so the pieces cannot
/// decide an outcome; the limits themselves are tested in `submit-agent/tests/transport_limits.rs`.
fn limits() -> StreamLimits {
    StreamLimits::default()
        .event_bytes(16 << 20)
        .stream_bytes(64 << 20)
}

fn decode(
    provider: u8,
    pieces: &mut dyn Iterator<Item = &[u8]>,
) -> Result<ModelResponse, TransportError> {
    match provider % 4 {
        0 => Claude::new("m")
            .stream_limits(limits())
            .decode_stream(pieces),
        1 => Gemini::new("m")
            .stream_limits(limits())
            .decode_stream(pieces),
        2 => OpenAiChat::new("m")
            .stream_limits(limits())
            .decode_stream(pieces),
        _ => OpenAiResponses::new("m")
            .stream_limits(limits())
            .decode_stream(pieces),
    }
}

fn decode_body(provider: u8, body: &[u8]) -> Result<ModelResponse, TransportError> {
    match provider % 4 {
        0 => Claude::new("m").decode_body(body),
        1 => Gemini::new("m").decode_body(body),
        2 => OpenAiChat::new("m").decode_body(body),
        _ => OpenAiResponses::new("m").decode_body(body),
    }
}

/// Only what reading bytes can raise: no connection, no client, no sink.
fn check_error(error: &TransportError) {
    assert!(
        matches!(
            error.kind(),
            TransportErrorKind::Stream { .. }
                | TransportErrorKind::Remote { .. }
                | TransportErrorKind::Response { .. }
        ),
        "{error:?}"
    );
}

/// The answer holds no more than its input: every text and argument byte came from it (a
/// JSON number may print a few bytes longer than it was written, hence the slack).
fn check_bounded(response: &ModelResponse, input: usize) {
    let held = serde_json::to_vec(response)
        .map(|bytes| bytes.len())
        .unwrap_or(0);
    assert!(
        held <= 4 * input + 4096,
        "an answer of {held} bytes from {input} bytes of input"
    );
}

pub fn run(data: &[u8]) {
    let [provider, size, stream @ ..] = data else {
        return;
    };
    let size = usize::from(*size % 64) + 1;
    let whole = decode(*provider, &mut std::iter::once(stream));
    let pieces = decode(*provider, &mut stream.chunks(size));
    match (&whole, &pieces) {
        (Ok(a), Ok(b)) => {
            assert_eq!(a, b, "the pieces changed the answer");
            check_bounded(a, stream.len());
        }
        (Err(a), Err(b)) => {
            assert_eq!(a, b, "the pieces changed the error");
            check_error(a);
        }
        (a, b) => panic!("whole and in pieces of {size} disagree: {a:?} / {b:?}"),
    }
    match decode_body(*provider, stream) {
        Ok(response) => check_bounded(&response, stream.len()),
        Err(error) => check_error(&error),
    }
}
