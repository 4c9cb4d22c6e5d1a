//! Provider transports: the [`Model`](crate::model::Model) trait over HTTP for Anthropic Messages,
//! Gemini `generateContent`, OpenAI Chat Completions and OpenAI Responses.
//!
//! Each provider sits behind its own cargo feature (`claude`, `gemini`, `openai-chat`,
//! `openai-responses`); without one, no HTTP stack is built. Every transport:
//!
//! - takes its API key from the provider's usual environment variable (`ANTHROPIC_API_KEY`,
//!   `GEMINI_API_KEY`, `OPENAI_API_KEY`) or from its `api_key` builder method;
//! - sends to an overridable base URL (gateways, tests) with a timeout;
//! - retries 429 and 5xx answers and failed connections with exponential backoff, honouring
//!   `retry-after` (see [`Retry`]);
//! - maps failures to the typed [`TransportError`], keeping the status and the provider's own
//!   message; its `send` method returns it, the [`Model`](crate::model::Model) impl turns it into text;
//! - streams over server-sent events when the run streams, passing text, reasoning and
//!   finished tool calls to the chunk sink and assembling the same response the non-streaming
//!   call returns;
//! - bounds what a stream may hold: one event at most [`MAX_EVENT_BYTES`] (16 MiB) of the
//!   stream, the whole stream at most [`MAX_STREAM_BYTES`] (256 MiB), both set with
//!   `stream_limits`; past either, the call fails with [`TransportError::Stream`] naming the
//!   limit. While a stream is read, the framing holds at most one event's bytes and one
//!   network chunk; the assembled answer grows with the stream, within its limit;
//! - reads answers already received, a recording or a log, without sending anything:
//!   `decode_body` for a JSON body, `decode_stream` for an event stream in the pieces it came
//!   in, each giving the response `send` would return.
//!
//! No key or payload is ever logged; `Debug` shows the key as `<redacted>`.
//!
//! # Runtime
//!
//! The HTTP client needs tokio. A call polled inside a tokio runtime runs on that runtime;
//! polled anywhere else (`futures::executor::block_on`, another executor), it runs on a small
//! runtime this crate owns (one worker thread, started on first use, shared with MCP
//! connections). The loop itself stays
//! runtime-agnostic. Dropping the call's future cancels the request.
//!
//! ```no_run
//! # #[cfg(feature = "claude")] {
//! use submit_agent::transport::Claude;
//! use submit_agent::{message::Message, run::Agent};
//!
//! let model = Claude::new("claude-sonnet-4-5").max_tokens(1024);
//! let agent = Agent::new(model);
//! let response = futures::executor::block_on(agent.generate(vec![Message::user("Hello")]));
//! # }
//! ```

// How this module is laid out: `client.rs` holds `Transport<A>`, which owns what every
// provider shares (the builder, `send`, reading a recorded body or stream, the `Model` impl),
// and the sealed `Api` trait, which holds what differs (encode a request, decode a body, assemble a stream, find the
// provider's error in an answer), implemented once per provider file. `http.rs` sends a
// prepared call (the client, retries with backoff, the typed errors of a failed answer);
// `sse.rs` reads an event stream and hands each event to a provider's assembler; `wire.rs`
// holds the conversions every provider's wire format shares.

use std::sync::Arc;

use crate::model::ModelError;

mod client;
mod http;
mod sse;
mod wire;

#[cfg(feature = "claude")]
mod claude;
#[cfg(feature = "gemini")]
mod gemini;
#[cfg(feature = "openai-chat")]
mod openai_chat;
#[cfg(feature = "openai-responses")]
mod openai_responses;

#[cfg(feature = "claude")]
pub use claude::{Claude, MessagesApi};
pub use client::{Api, Transport};
#[cfg(feature = "gemini")]
pub use gemini::{Gemini, GenerateContentApi};
pub use http::Retry;
#[cfg(feature = "openai-chat")]
pub use openai_chat::{ChatCompletionsApi, OpenAiChat};
#[cfg(feature = "openai-responses")]
pub use openai_responses::{OpenAiResponses, ResponsesApi};
pub use sse::{MAX_EVENT_BYTES, MAX_STREAM_BYTES};

/// An API key; its `Debug` form never shows it.
///
/// ```
/// # #[cfg(feature = "claude")] {
/// use submit_agent::transport::ApiKey;
///
/// let key = ApiKey::new("sk-secret");
/// assert_eq!(format!("{key:?}"), "ApiKey(<redacted>)");
/// # }
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(Arc<str>);

impl ApiKey {
    /// Wraps a key.
    pub fn new(key: impl AsRef<str>) -> Self {
        ApiKey(Arc::from(key.as_ref()))
    }

    /// Reads a key from an environment variable; `None` when unset or empty.
    pub fn from_env(variable: &str) -> Option<Self> {
        std::env::var(variable)
            .ok()
            .filter(|v| !v.trim().is_empty())
            .map(|v| ApiKey::new(v.trim()))
    }

    fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ApiKey(<redacted>)")
    }
}

/// A provider call that failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TransportError {
    /// No API key was set and the environment variable is empty.
    #[error("no API key for {provider}: set {variable} or pass one with api_key(...)")]
    MissingKey {
        /// The provider.
        provider: &'static str,
        /// The environment variable read.
        variable: &'static str,
    },
    /// The provider answered with an error status.
    #[error("{provider} answered HTTP {status} after {attempts} attempt(s): {message}")]
    Api {
        /// The provider.
        provider: &'static str,
        /// The HTTP status.
        status: u16,
        /// The provider's own message (`error.message`), or the start of the body.
        message: String,
        /// Attempts made.
        attempts: u32,
    },
    /// The provider reported an error inside a successful answer or a stream.
    #[error("{provider} reported an error{}: {message}", code.as_deref().map(|c| format!(" ({c})")).unwrap_or_default())]
    Remote {
        /// The provider.
        provider: &'static str,
        /// The provider's message (`error.message`).
        message: String,
        /// The provider's error code (`error.code`), when it sent one.
        code: Option<String>,
        /// The provider's error type (`error.type`, Gemini's `error.status`), when it sent one.
        kind: Option<String>,
    },
    /// The request could not be sent or its answer could not be read.
    #[error("could not reach {provider} after {attempts} attempt(s): {message}; check the base URL and the network")]
    Network {
        /// The provider.
        provider: &'static str,
        /// What failed.
        message: String,
        /// Attempts made.
        attempts: u32,
    },
    /// The provider did not answer in time.
    #[error("{provider} did not answer in time after {attempts} attempt(s); raise the timeout or retry later")]
    Timeout {
        /// The provider.
        provider: &'static str,
        /// Attempts made.
        attempts: u32,
    },
    /// The answer is not in the provider's documented shape.
    #[error("{provider} sent an answer not in its documented shape: {message}")]
    Response {
        /// The provider.
        provider: &'static str,
        /// What is wrong.
        message: String,
    },
    /// The event stream is malformed or ended early.
    #[error("malformed {provider} event stream: {message}")]
    Stream {
        /// The provider.
        provider: &'static str,
        /// What is wrong, with the event's position.
        message: String,
    },
    /// The connection broke in the middle of a stream.
    #[error("the {provider} stream broke after {events} event(s): {message}; retry the call")]
    StreamBroken {
        /// The provider.
        provider: &'static str,
        /// Events received before it broke.
        events: usize,
        /// What failed.
        message: String,
    },
    /// The conversation holds something this provider cannot take.
    #[error("cannot send this conversation to {provider}: {message}")]
    Request {
        /// The provider.
        provider: &'static str,
        /// What cannot be sent and what to do.
        message: String,
    },
    /// The chunk sink refused a chunk.
    #[error("the streaming callback refused a chunk: {0}")]
    Sink(String),
    /// The HTTP client or its runtime could not start.
    #[error("the HTTP client could not start: {0}")]
    Client(String),
}

impl TransportError {
    /// The HTTP status of an [`Api`](TransportError::Api) error.
    pub fn status(&self) -> Option<u16> {
        match self {
            TransportError::Api { status, .. } => Some(*status),
            _ => None,
        }
    }
}

impl From<TransportError> for ModelError {
    fn from(e: TransportError) -> Self {
        ModelError::from_source(e)
    }
}

impl TransportError {
    /// A request the provider cannot carry.
    pub(crate) fn refused(provider: &'static str, message: impl Into<String>) -> Self {
        TransportError::Request {
            provider,
            message: message.into(),
        }
    }

    /// An answer not in the provider's documented shape.
    pub(crate) fn shape(provider: &'static str, message: impl Into<String>) -> Self {
        TransportError::Response {
            provider,
            message: message.into(),
        }
    }

    /// A malformed event stream.
    pub(crate) fn malformed(provider: &'static str, message: impl Into<String>) -> Self {
        TransportError::Stream {
            provider,
            message: message.into(),
        }
    }
}
