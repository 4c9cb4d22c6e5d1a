//! The limits on a streamed answer (`MAX_EVENT_BYTES`, `MAX_STREAM_BYTES`, `stream_limits`):
//! an event or a stream past its limit is a typed error, over HTTP and read from memory, and
//! the memory held while reading stays within the event limit. No recording holds a hostile
//! stream; the inputs here are written for these tests.

#![cfg(all(
    feature = "claude",
    feature = "gemini",
    feature = "openai-chat",
    feature = "openai-responses"
))]

use crate::transport::server;

use submit_agent::transport::{
    Claude, Gemini, OpenAiChat, OpenAiResponses, StreamLimits, TransportError, TransportErrorKind,
    MAX_EVENT_BYTES,
};
use submit_agent::{message::Message, run::Agent};

use submit_test_kit::counting_alloc;

fn stream_error(result: Result<impl std::fmt::Debug, TransportError>) -> String {
    match result {
        Err(error) => match error.kind() {
            TransportErrorKind::Stream { message } => message.clone(),
            other => panic!("expected a stream error, got {other:?}"),
        },
        other => panic!("expected a stream error, got {other:?}"),
    }
}

/// A Claude stream whose one `content_block_delta` carries `text`.
fn claude_stream(text: &str) -> String {
    let delta = serde_json::json!({"type": "content_block_delta", "index": 0,
        "delta": {"type": "text_delta", "text": text}});
    format!(
        "event: message_start\ndata: {{\"type\":\"message_start\",\"message\":{{\"id\":\"m\",\
         \"role\":\"assistant\",\"content\":[],\"usage\":{{\"input_tokens\":1,\"output_tokens\":0}}}}}}\n\n\
         event: content_block_start\ndata: {{\"type\":\"content_block_start\",\"index\":0,\
         \"content_block\":{{\"type\":\"text\",\"text\":\"\"}}}}\n\n\
         event: content_block_delta\ndata: {delta}\n\n\
         event: message_delta\ndata: {{\"type\":\"message_delta\",\"delta\":{{\"stop_reason\":\"end_turn\"}},\
         \"usage\":{{\"output_tokens\":1}}}}\n\n\
         event: message_stop\ndata: {{\"type\":\"message_stop\"}}\n\n"
    )
}

#[test]
fn an_event_within_the_limit_is_read() {
    let stream = claude_stream(&"a".repeat(4000));
    let response = Claude::new("m")
        .stream_limits(
            StreamLimits::default()
                .event_bytes(8 * 1024)
                .stream_bytes(1 << 20),
        )
        .decode_stream([stream.as_bytes()])
        .unwrap();
    assert_eq!(response.message.text().len(), 4000);
}

#[test]
fn an_event_past_the_limit_is_a_typed_error_naming_it() {
    let stream = claude_stream(&"a".repeat(20_000));
    for pieces in [stream.len(), 4096, 7] {
        let message = stream_error(
            Claude::new("m")
                .stream_limits(
                    StreamLimits::default()
                        .event_bytes(8 * 1024)
                        .stream_bytes(1 << 20),
                )
                .decode_stream(stream.as_bytes().chunks(pieces)),
        );
        assert!(
            message.starts_with("an event is past 8192 bytes, the most one event may take"),
            "{message}"
        );
    }
}

#[test]
fn a_stream_past_its_limit_is_a_typed_error_naming_it() {
    // Many small events, none past the event limit, together past the stream's.
    let ping = "event: ping\ndata: {\"type\":\"ping\"}\n\n".repeat(2000);
    let stream = claude_stream("hi").replacen(
        "event: message_stop",
        &format!("{ping}event: message_stop"),
        1,
    );
    let message = stream_error(
        Claude::new("m")
            .stream_limits(
                StreamLimits::default()
                    .event_bytes(8 * 1024)
                    .stream_bytes(32 * 1024),
            )
            .decode_stream(stream.as_bytes().chunks(1000)),
    );
    assert!(
        message.starts_with("the stream is past 32768 bytes, the most a stream may take"),
        "{message}"
    );
}

#[test]
fn every_transport_keeps_the_limits() {
    let line = format!("data: {}\n\n", "x".repeat(4096));
    let bytes = line.as_bytes();
    let limits = StreamLimits::default()
        .event_bytes(1024)
        .stream_bytes(1 << 20);
    let errors = [
        stream_error(
            Claude::new("m")
                .stream_limits(limits)
                .decode_stream([bytes]),
        ),
        stream_error(
            Gemini::new("m")
                .stream_limits(limits)
                .decode_stream([bytes]),
        ),
        stream_error(
            OpenAiChat::new("m")
                .stream_limits(limits)
                .decode_stream([bytes]),
        ),
        stream_error(
            OpenAiResponses::new("m")
                .stream_limits(limits)
                .decode_stream([bytes]),
        ),
    ];
    for message in errors {
        assert!(
            message.starts_with("an event is past 1024 bytes"),
            "{message}"
        );
    }
}

#[test]
fn an_event_past_the_limit_over_http_fails_the_call() {
    let stream = claude_stream(&"a".repeat(20_000));
    let server = server::Server::start(|_| Ok(()), vec![server::Reply::sse(stream).in_pieces(3)]);
    let model = Claude::new("m")
        .api_key("test-key")
        .base_url(&server.url)
        .stream_limits(
            StreamLimits::default()
                .event_bytes(8 * 1024)
                .stream_bytes(1 << 20),
        );
    let agent = Agent::new(model).stream(|_| Ok(()));
    let error = futures::executor::block_on(agent.generate(vec![Message::user("hi")])).unwrap_err();
    assert!(
        error.to_string().contains("an event is past 8192 bytes"),
        "{error}"
    );
}

/// One endless line of 256 MiB, in 64 KiB pieces, with the default limits: the call fails
/// at the event limit, and the memory held never passes it by more than a few pieces.
#[test]
fn an_endless_event_holds_no_more_than_the_event_limit() {
    let piece = vec![b'a'; 64 * 1024];
    let mut first = b"data: ".to_vec();
    first.extend_from_slice(&piece);
    let pieces =
        std::iter::once(first.as_slice()).chain(std::iter::repeat_n(piece.as_slice(), 4096));
    let (message, held) =
        counting_alloc::peak_during(|| stream_error(Claude::new("m").decode_stream(pieces)));
    assert!(
        message.starts_with("an event is past 16777216 bytes"),
        "{message}"
    );
    // The line buffer doubles as it grows: at most twice the limit, plus a few pieces.
    assert!(
        held <= 2 * MAX_EVENT_BYTES + 8 * piece.len(),
        "held {held} bytes reading past a limit of {MAX_EVENT_BYTES}"
    );
}
