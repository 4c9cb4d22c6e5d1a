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
//! - maps failures to the typed [`TransportError`]: the provider, what went wrong (the status
//!   and the provider's own message, a timeout, a broken connection), and the error under it
//!   kept as its source; its `send` method returns it, and the [`Model`](crate::model::Model)
//!   impl keeps it as the [`ModelError`]'s source;
//! - streams over server-sent events when the run streams, passing text, reasoning and
//!   finished tool calls to the chunk sink and assembling the same response the non-streaming
//!   call returns;
//! - bounds what a stream may hold: one event at most [`MAX_EVENT_BYTES`] (16 MiB) of the
//!   stream, the whole stream at most [`MAX_STREAM_BYTES`] (256 MiB), both set with
//!   `stream_limits` ([`StreamLimits`]); past either, the call fails with [`TransportErrorKind::Stream`] naming the
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
// provider shares (the builder, `send`, `request_body`, reading a recorded body or stream, the
// `Model` impl), and the `Api` trait: each provider's facts stated once (its name, key
// variable and base URL) and, sealed, what it does its own way (encode a request, read its
// typed answer, assemble its typed stream events into that answer), implemented once per
// provider file beside the provider's wire types. `http.rs` sends a prepared call (the
// client, retries with backoff, the typed errors of a failed answer); `sse.rs` reads an event
// stream and hands each typed event to a provider's assembler; `wire.rs` holds the
// conversions every provider's wire format shares.

use std::sync::Arc;

use submit_core::Provider;

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
pub use sse::{StreamLimits, MAX_EVENT_BYTES, MAX_STREAM_BYTES};

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

/// A provider call that failed: which provider, what went wrong (its [`kind`](Self::kind)),
/// and the error under it (the network's, the runtime's, the sink's), kept as its
/// [`source`](std::error::Error::source).
///
/// The shape is reqwest's own error: a kind to match, queries for the common questions
/// ([`status`](Self::status), [`is_timeout`](Self::is_timeout),
/// [`is_network`](Self::is_network)), and the cause kept whole. Cheap to clone; two errors
/// are equal when their provider and kind are.
///
/// ```
/// # #[cfg(feature = "claude")] {
/// use std::error::Error as _;
/// use submit_agent::transport::{Claude, TransportErrorKind};
/// use submit_core::Provider;
///
/// // A port nothing listens on: the connection is refused.
/// let port = std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
/// let model = Claude::new("m")
///     .api_key("k")
///     .base_url(format!("http://127.0.0.1:{port}"))
///     .retry(submit_agent::transport::Retry::new(1));
/// let request = submit_agent::model::ModelRequest::new([submit_agent::message::Message::user("hi")]);
/// let error = futures::executor::block_on(model.send(request, None)).unwrap_err();
/// assert_eq!(error.provider(), Provider::Claude);
/// assert!(error.is_network());
/// assert!(matches!(error.kind(), TransportErrorKind::Network { attempts: 1 }));
/// assert!(error.source().is_some(), "the network's own error is kept");
/// # }
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Clone)]
pub struct TransportError {
    inner: Box<Inner>,
}

#[derive(Clone)]
struct Inner {
    provider: Provider,
    kind: TransportErrorKind,
    source: Option<Arc<dyn std::error::Error + Send + Sync + 'static>>,
}

/// What went wrong in a provider call: [`TransportError::kind`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TransportErrorKind {
    /// No API key was set and the environment variable is empty.
    MissingKey {
        /// The environment variable read.
        variable: &'static str,
    },
    /// The provider answered with an error status.
    Api {
        /// The HTTP status.
        status: u16,
        /// The provider's own message (`error.message`), or the start of the body.
        message: String,
        /// Attempts made.
        attempts: u32,
    },
    /// The provider reported an error inside a successful answer or a stream.
    Remote {
        /// The provider's message (`error.message`).
        message: String,
        /// The provider's error code (`error.code`), when it sent one.
        code: Option<String>,
        /// The provider's error type (`error.type`, Gemini's `error.status`), when it sent one.
        kind: Option<String>,
    },
    /// The request could not be sent or its answer could not be read; the source is the
    /// network's error.
    Network {
        /// Attempts made.
        attempts: u32,
    },
    /// The provider did not answer in time; the source is the network's error.
    Timeout {
        /// Attempts made.
        attempts: u32,
    },
    /// The answer is not in the provider's documented shape; the source, when there is one, is
    /// the JSON decoder's error.
    Response {
        /// What is wrong.
        message: String,
    },
    /// The event stream is malformed or ended early.
    Stream {
        /// What is wrong, with the event's position.
        message: String,
    },
    /// The connection broke in the middle of a stream; the source is the network's error.
    StreamBroken {
        /// Events received before it broke.
        events: usize,
    },
    /// The conversation holds something this provider cannot take.
    Request {
        /// What cannot be sent and what to do.
        message: String,
    },
    /// The chunk sink refused a chunk; the source is its
    /// [`StreamError`](crate::model::StreamError).
    Sink,
    /// The HTTP client, or the runtime it runs on, could not start or stopped; the source
    /// says why.
    Client,
}

impl TransportError {
    /// The provider called.
    pub fn provider(&self) -> Provider {
        self.inner.provider
    }

    /// What went wrong.
    pub fn kind(&self) -> &TransportErrorKind {
        &self.inner.kind
    }

    /// The HTTP status of an [`Api`](TransportErrorKind::Api) error.
    pub fn status(&self) -> Option<u16> {
        match self.inner.kind {
            TransportErrorKind::Api { status, .. } => Some(status),
            _ => None,
        }
    }

    /// Whether the provider did not answer in time.
    pub fn is_timeout(&self) -> bool {
        matches!(self.inner.kind, TransportErrorKind::Timeout { .. })
    }

    /// Whether the connection failed: before an answer, or in the middle of a stream.
    pub fn is_network(&self) -> bool {
        matches!(
            self.inner.kind,
            TransportErrorKind::Network { .. } | TransportErrorKind::StreamBroken { .. }
        )
    }

    /// The attempts made, for the kinds that count them.
    pub fn attempts(&self) -> Option<u32> {
        match self.inner.kind {
            TransportErrorKind::Api { attempts, .. }
            | TransportErrorKind::Network { attempts }
            | TransportErrorKind::Timeout { attempts } => Some(attempts),
            _ => None,
        }
    }

    pub(crate) fn new(provider: Provider, kind: TransportErrorKind) -> Self {
        TransportError {
            inner: Box::new(Inner {
                provider,
                kind,
                source: None,
            }),
        }
    }

    /// This error keeping `source` as its cause.
    pub(crate) fn with_source<E>(mut self, source: E) -> Self
    where
        E: std::error::Error + Send + Sync + 'static,
    {
        self.inner.source = Some(Arc::new(source));
        self
    }

    /// This error keeping a boxed `source` as its cause.
    pub(crate) fn with_boxed_source(
        mut self,
        source: Box<dyn std::error::Error + Send + Sync + 'static>,
    ) -> Self {
        self.inner.source = Some(Arc::from(source));
        self
    }

    /// A request the provider cannot carry.
    pub(crate) fn refused(provider: Provider, message: impl Into<String>) -> Self {
        TransportError::new(
            provider,
            TransportErrorKind::Request {
                message: message.into(),
            },
        )
    }

    /// An answer not in the provider's documented shape.
    pub(crate) fn shape(provider: Provider, message: impl Into<String>) -> Self {
        TransportError::new(
            provider,
            TransportErrorKind::Response {
                message: message.into(),
            },
        )
    }

    /// A malformed event stream.
    pub(crate) fn malformed(provider: Provider, message: impl Into<String>) -> Self {
        TransportError::new(
            provider,
            TransportErrorKind::Stream {
                message: message.into(),
            },
        )
    }

    /// The text of the source and every source under it, joined with `: `.
    fn chain(&self) -> String {
        let mut text = String::new();
        let mut next = std::error::Error::source(self);
        while let Some(e) = next {
            if !text.is_empty() {
                text.push_str(": ");
            }
            text.push_str(&e.to_string());
            next = e.source();
        }
        text
    }
}

impl std::fmt::Display for TransportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let provider = self.inner.provider;
        match &self.inner.kind {
            TransportErrorKind::MissingKey { variable } => write!(
                f,
                "no API key for {provider}: set {variable} or pass one with api_key(...)"
            ),
            TransportErrorKind::Api {
                status,
                message,
                attempts,
            } => write!(
                f,
                "{provider} answered HTTP {status} after {attempts} attempt(s): {message}"
            ),
            TransportErrorKind::Remote { message, code, .. } => match code {
                Some(code) => write!(f, "{provider} reported an error ({code}): {message}"),
                None => write!(f, "{provider} reported an error: {message}"),
            },
            TransportErrorKind::Network { attempts } => write!(
                f,
                "could not reach {provider} after {attempts} attempt(s): {}; check the base URL and the network",
                self.chain()
            ),
            TransportErrorKind::Timeout { attempts } => write!(
                f,
                "{provider} did not answer in time after {attempts} attempt(s); raise the timeout or retry later"
            ),
            TransportErrorKind::Response { message } => write!(
                f,
                "{provider} sent an answer not in its documented shape: {message}"
            ),
            TransportErrorKind::Stream { message } => {
                write!(f, "malformed {provider} event stream: {message}")
            }
            TransportErrorKind::StreamBroken { events } => write!(
                f,
                "the {provider} stream broke after {events} event(s): {}; retry the call",
                self.chain()
            ),
            TransportErrorKind::Request { message } => {
                write!(f, "cannot send this conversation to {provider}: {message}")
            }
            TransportErrorKind::Sink => {
                write!(f, "the streaming callback refused a chunk: {}", self.chain())
            }
            TransportErrorKind::Client => write!(
                f,
                "the HTTP client for {provider} could not run: {}",
                self.chain()
            ),
        }
    }
}

impl std::fmt::Debug for TransportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TransportError")
            .field("provider", &self.inner.provider)
            .field("kind", &self.inner.kind)
            .field("source", &self.inner.source)
            .finish()
    }
}

impl std::error::Error for TransportError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.inner.source {
            Some(e) => Some(e.as_ref()),
            None => None,
        }
    }
}

impl PartialEq for TransportError {
    fn eq(&self, other: &Self) -> bool {
        self.inner.provider == other.inner.provider && self.inner.kind == other.inner.kind
    }
}

impl Eq for TransportError {}

impl From<TransportError> for ModelError {
    fn from(e: TransportError) -> Self {
        ModelError::from_source(e)
    }
}
