//! Provider transports: the [`Model`](crate::Model) trait over HTTP for Anthropic Messages,
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
//!   message; its `send` method returns it, the [`Model`](crate::Model) impl turns it into text;
//! - streams over server-sent events when the run streams, passing text, reasoning and
//!   finished tool calls to the chunk sink and assembling the same response the non-streaming
//!   call returns.
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
//! use submit_agent::{Agent, Message};
//!
//! let model = Claude::new("claude-sonnet-4-5").max_tokens(1024);
//! let agent = Agent::new(model);
//! let response = futures::executor::block_on(agent.generate(vec![Message::user("Hello")]));
//! # }
//! ```

use std::future::Future;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures::StreamExt;
use serde_json::{Map, Value};

use crate::message::{Chunk, Media, MediaSource, Part};
use crate::model::ModelError;
use crate::stream::ModelStream;

#[cfg(feature = "claude")]
mod claude;
#[cfg(feature = "gemini")]
mod gemini;
#[cfg(feature = "openai-chat")]
mod openai_chat;
#[cfg(feature = "openai-responses")]
mod openai_responses;

#[cfg(feature = "claude")]
pub use claude::Claude;
#[cfg(feature = "gemini")]
pub use gemini::Gemini;
#[cfg(feature = "openai-chat")]
pub use openai_chat::OpenAiChat;
#[cfg(feature = "openai-responses")]
pub use openai_responses::OpenAiResponses;

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

/// How failed calls are retried: 429, 5xx, timeouts and failed connections.
///
/// The delay before attempt `n + 1` is `retry-after` (or `retry-after-ms`) when the answer
/// carries one, else `initial_backoff · 2ⁿ⁻¹`; both are capped at `max_backoff`.
///
/// ```
/// # #[cfg(feature = "claude")] {
/// use std::time::Duration;
/// use submit_agent::transport::Retry;
///
/// let retry = Retry::new(3).backoff(Duration::from_millis(100), Duration::from_secs(2));
/// assert_eq!(retry.delay(1, None), Duration::from_millis(100));
/// assert_eq!(retry.delay(2, None), Duration::from_millis(200));
/// assert_eq!(retry.delay(1, Some(Duration::from_secs(1))), Duration::from_secs(1));
/// assert_eq!(retry.delay(1, Some(Duration::from_secs(60))), Duration::from_secs(2));
/// # }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Retry {
    /// Attempts in all, the first included (at least 1).
    pub max_attempts: u32,
    /// The delay after the first failed attempt.
    pub initial_backoff: Duration,
    /// The longest delay, `retry-after` included.
    pub max_backoff: Duration,
}

impl Default for Retry {
    fn default() -> Self {
        Retry {
            max_attempts: 3,
            initial_backoff: Duration::from_millis(500),
            max_backoff: Duration::from_secs(30),
        }
    }
}

impl Retry {
    /// `max_attempts` attempts in all (at least 1) with the default backoff.
    pub fn new(max_attempts: u32) -> Self {
        Retry {
            max_attempts: max_attempts.max(1),
            ..Retry::default()
        }
    }

    /// Sets the first and the longest delay.
    pub fn backoff(mut self, initial: Duration, max: Duration) -> Self {
        self.initial_backoff = initial;
        self.max_backoff = max;
        self
    }

    /// The delay after failed attempt `attempt` (1-based), given the answer's `retry-after`.
    pub fn delay(&self, attempt: u32, retry_after: Option<Duration>) -> Duration {
        let computed = retry_after.unwrap_or_else(|| {
            let factor = 1u32
                .checked_shl(attempt.saturating_sub(1).min(20))
                .unwrap_or(u32::MAX);
            self.initial_backoff.saturating_mul(factor)
        });
        computed.min(self.max_backoff)
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

/// The connection settings every transport shares.
#[derive(Clone)]
pub(crate) struct Http {
    provider: &'static str,
    variable: &'static str,
    key: Option<ApiKey>,
    pub(crate) base_url: String,
    timeout: Duration,
    retry: Retry,
    client: Arc<Mutex<Option<reqwest::Client>>>,
}

impl std::fmt::Debug for Http {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Http")
            .field("api_key", &self.key)
            .field("base_url", &self.base_url)
            .field("timeout", &self.timeout)
            .field("retry", &self.retry)
            .finish()
    }
}

impl Http {
    pub(crate) fn new(provider: &'static str, variable: &'static str, base_url: &str) -> Self {
        Http {
            provider,
            variable,
            key: ApiKey::from_env(variable),
            base_url: base_url.to_owned(),
            timeout: Duration::from_secs(600),
            retry: Retry::default(),
            client: Arc::new(Mutex::new(None)),
        }
    }

    pub(crate) fn set_key(&mut self, key: ApiKey) {
        self.key = Some(key);
    }

    pub(crate) fn set_base_url(&mut self, url: &str) {
        self.base_url = url.trim_end_matches('/').to_owned();
    }

    pub(crate) fn set_timeout(&mut self, timeout: Duration) {
        self.timeout = timeout;
        self.client = Arc::new(Mutex::new(None));
    }

    pub(crate) fn set_retry(&mut self, retry: Retry) {
        self.retry = Retry {
            max_attempts: retry.max_attempts.max(1),
            ..retry
        };
    }

    /// The key, or the error naming the variable to set.
    pub(crate) fn key(&self) -> Result<&str, TransportError> {
        self.key
            .as_ref()
            .map(ApiKey::expose)
            .ok_or(TransportError::MissingKey {
                provider: self.provider,
                variable: self.variable,
            })
    }

    fn client(&self) -> Result<reqwest::Client, TransportError> {
        let mut slot = self.client.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(c) = slot.as_ref() {
            return Ok(c.clone());
        }
        let client = reqwest::Client::builder()
            .connect_timeout(self.timeout.min(Duration::from_secs(30)))
            .read_timeout(self.timeout)
            .build()
            .map_err(|e| TransportError::Client(e.to_string()))?;
        *slot = Some(client.clone());
        Ok(client)
    }
}

/// One prepared HTTP call.
pub(crate) struct Prepared {
    pub(crate) url: String,
    pub(crate) headers: Vec<(&'static str, String)>,
    pub(crate) body: Value,
}

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

/// Runs the call on the caller's tokio runtime, or on the transports' own runtime.
pub(crate) async fn execute<A: Assemble>(
    http: &Http,
    prepared: Prepared,
    stream: Option<(ModelStream, A)>,
) -> Result<Value, TransportError> {
    let http = http.clone();
    on_runtime(async move {
        match stream {
            None => match open(&http, &prepared, false).await? {
                Opened::Body(body) => Ok(body),
                Opened::Stream(..) => Err(TransportError::Client("a body was expected".into())),
            },
            Some((sink, assembler)) => match open(&http, &prepared, true).await? {
                Opened::Stream(events, first) => {
                    read_stream(&http, events, first, assembler, &sink).await
                }
                Opened::Body(_) => Err(TransportError::Client("a stream was expected".into())),
            },
        }
    })
    .await
}

fn network(http: &Http, e: &reqwest::Error, attempts: u32) -> TransportError {
    if e.is_timeout() {
        TransportError::Timeout {
            provider: http.provider,
            attempts,
        }
    } else {
        let mut text = e.to_string();
        let mut source = std::error::Error::source(e);
        while let Some(s) = source {
            text.push_str(": ");
            text.push_str(&s.to_string());
            source = s.source();
        }
        TransportError::Network {
            provider: http.provider,
            message: text,
            attempts,
        }
    }
}

/// Runs `future` on the caller's tokio runtime or the crate's own (see [`crate::runtime`]).
async fn on_runtime<T, F>(future: F) -> Result<T, TransportError>
where
    T: Send + 'static,
    F: Future<Output = Result<T, TransportError>> + Send + 'static,
{
    let handle = crate::runtime::handle()
        .map_err(|e| TransportError::Client(format!("the HTTP runtime could not start: {e}")))?;
    match crate::runtime::run(&handle, future).await {
        Ok(result) => result,
        Err(e) => Err(TransportError::Client(format!(
            "the HTTP task stopped: {e}"
        ))),
    }
}

/// The server-sent events of an answer.
type Events = std::pin::Pin<
    Box<
        dyn futures::Stream<
                Item = Result<
                    eventsource_stream::Event,
                    eventsource_stream::EventStreamError<reqwest::Error>,
                >,
            > + Send,
    >,
>;

/// A successful attempt: the JSON body, or the event stream with its first event read.
enum Opened {
    Body(Value),
    Stream(Events, eventsource_stream::Event),
}

/// A failed attempt: its error, whether it may be retried, and the wait the answer asked for.
struct Failed {
    error: TransportError,
    retry: bool,
    wait: Option<Duration>,
}

/// Posts with retries (backon's exponential backoff, `retry-after` honoured and capped): a
/// 429, 408 or 5xx answer, a failed connection, a timeout, and a stream that fails before its
/// first event are retried; the first success is returned.
async fn open(http: &Http, prepared: &Prepared, streaming: bool) -> Result<Opened, TransportError> {
    use backon::{ExponentialBuilder, Retryable as _};
    let client = http.client()?;
    let retry = http.retry;
    let attempts = std::sync::atomic::AtomicU32::new(0);
    let backoff = ExponentialBuilder::new()
        .with_min_delay(retry.initial_backoff)
        .with_max_delay(retry.max_backoff)
        .with_factor(2.0)
        .with_max_times(usize::try_from(retry.max_attempts.saturating_sub(1)).unwrap_or(0));
    let result = (|| async {
        let n = attempts.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        attempt(http, &client, prepared, streaming, n).await
    })
    .retry(backoff)
    .sleep(tokio::time::sleep)
    .when(|f: &Failed| f.retry)
    .adjust(|f: &Failed, delay| delay.map(|d| f.wait.map_or(d, |w| w.min(retry.max_backoff))))
    .notify(|f: &Failed, delay| {
        tracing::debug!(
            provider = http.provider,
            error = %f.error,
            delay_ms = delay.as_millis() as u64,
            "provider call failed; retrying"
        );
    })
    .await;
    result.map_err(|f| f.error)
}

/// One attempt of a call.
async fn attempt(
    http: &Http,
    client: &reqwest::Client,
    prepared: &Prepared,
    streaming: bool,
    n: u32,
) -> Result<Opened, Failed> {
    let fail = |error, retry| Failed {
        error,
        retry,
        wait: None,
    };
    let mut builder = client.post(&prepared.url).json(&prepared.body);
    for (name, value) in &prepared.headers {
        builder = builder.header(*name, value);
    }
    let response = match builder.timeout(http.timeout).send().await {
        Ok(r) => r,
        Err(e) => {
            let e = e.without_url();
            let retry = e.is_connect() || e.is_timeout();
            return Err(fail(network(http, &e, n), retry));
        }
    };
    if !response.status().is_success() {
        let status = response.status().as_u16();
        let wait = retry_after(response.headers());
        let body = response.bytes().await.unwrap_or_default();
        return Err(Failed {
            error: TransportError::Api {
                provider: http.provider,
                status,
                message: provider_message(&body),
                attempts: n,
            },
            retry: status == 429 || status == 408 || status >= 500,
            wait,
        });
    }
    if !streaming {
        let bytes = response
            .bytes()
            .await
            .map_err(|e| fail(network(http, &e.without_url(), n), true))?;
        return serde_json::from_slice(&bytes)
            .map(Opened::Body)
            .map_err(|e| {
                fail(
                    TransportError::Response {
                        provider: http.provider,
                        message: format!("the body is not JSON: {e}"),
                    },
                    false,
                )
            });
    }
    let content_type = response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned();
    if !content_type.is_empty() && !content_type.contains("event-stream") {
        return Err(fail(
            TransportError::Stream {
                provider: http.provider,
                message: format!(
                    "expected text/event-stream, got {content_type}: check that the base URL serves streaming"
                ),
            },
            false,
        ));
    }
    use eventsource_stream::Eventsource as _;
    let mut events: Events = Box::pin(response.bytes_stream().eventsource());
    match events.next().await {
        Some(Ok(first)) => Ok(Opened::Stream(events, first)),
        Some(Err(eventsource_stream::EventStreamError::Transport(e))) => {
            Err(fail(network(http, &e.without_url(), n), true))
        }
        Some(Err(e)) => Err(fail(
            TransportError::Stream {
                provider: http.provider,
                message: format!("event 1: {e}"),
            },
            false,
        )),
        None => Err(fail(
            TransportError::Stream {
                provider: http.provider,
                message: "the stream ended before its first event; retry the call".into(),
            },
            true,
        )),
    }
}

/// `retry-after-ms` or `retry-after` (in seconds); an HTTP date is left to the backoff.
fn retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    let read = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<f64>().ok())
            .filter(|v| v.is_finite() && *v >= 0.0)
    };
    if let Some(ms) = read("retry-after-ms") {
        return Some(Duration::from_secs_f64((ms / 1000.0).min(86_400.0)));
    }
    read("retry-after").map(|s| Duration::from_secs_f64(s.min(86_400.0)))
}

/// The typed error of a provider's error object (`{"message", "code", "type"}`, or a body
/// holding one under `error`).
pub(crate) fn remote_error(provider: &'static str, error: &Value) -> TransportError {
    let inner = error
        .get("error")
        .filter(|e| e.is_object())
        .unwrap_or(error);
    let text = |key: &str| match inner.get(key) {
        Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => None,
    };
    TransportError::Remote {
        provider,
        message: text("message").unwrap_or_else(|| provider_message(inner.to_string().as_bytes())),
        code: text("code"),
        kind: text("type").or_else(|| text("status")),
    }
}

/// The provider's `error.message`, else the start of the body.
pub(crate) fn provider_message(body: &[u8]) -> String {
    if let Ok(value) = serde_json::from_slice::<Value>(body) {
        let error = value.get("error").unwrap_or(&value);
        if let Some(m) = error.get("message").and_then(Value::as_str) {
            return m.to_owned();
        }
        if let Some(m) = error.as_str() {
            return m.to_owned();
        }
    }
    let text = String::from_utf8_lossy(body);
    let text = text.trim();
    if text.is_empty() {
        return "(empty body)".to_owned();
    }
    match text.char_indices().nth(300) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}

// ---- server-sent events ----

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

async fn read_stream<A: Assemble>(
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

// ---- shared conversions ----

/// Text of a tool output: a string as is, anything else as compact JSON.
pub(crate) fn output_text(output: Option<&Value>) -> String {
    match output {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

/// The text of an error result as the OpenAI formats carry it.
#[cfg_attr(
    not(any(feature = "openai-chat", feature = "openai-responses")),
    allow(dead_code, reason = "used by the OpenAI transports only")
)]
pub(crate) fn error_text(output: Option<&Value>) -> String {
    format!("Error: {}", output_text(output))
}

/// The joined text of every system message; non-text system parts are refused.
pub(crate) fn system_text<M: std::borrow::Borrow<crate::Message>>(
    provider: &'static str,
    messages: &[M],
) -> Result<Option<String>, TransportError> {
    let mut texts = Vec::new();
    for message in messages.iter().map(|m| m.borrow()) {
        if message.role != crate::Role::System {
            continue;
        }
        for part in &message.content {
            match part.as_text() {
                Some(t) => texts.push(t.to_owned()),
                None => {
                    return Err(TransportError::Request {
                        provider,
                        message:
                            "system messages may hold text only: move other parts to a user message"
                                .into(),
                    })
                }
            }
        }
    }
    Ok((!texts.is_empty()).then(|| texts.join("\n\n")))
}

/// The MIME type of media, required by every provider.
pub(crate) fn mime<'m>(
    provider: &'static str,
    media: &'m Media,
) -> Result<&'m str, TransportError> {
    media
        .content_type
        .as_deref()
        .filter(|t| !t.is_empty())
        .ok_or_else(|| TransportError::Request {
            provider,
            message: "a media part has no content type: set one (image/png, application/pdf, …)"
                .into(),
        })
}

/// A `data:` URL for inline media, the URL itself otherwise.
#[cfg_attr(
    not(any(
        feature = "claude",
        feature = "openai-chat",
        feature = "openai-responses"
    )),
    allow(dead_code, reason = "used by the transports that send media as URLs")
)]
pub(crate) fn media_url(provider: &'static str, media: &Media) -> Result<String, TransportError> {
    Ok(match &media.source {
        MediaSource::Url(u) => u.clone(),
        MediaSource::Inline(bytes) => {
            format!(
                "data:{};base64,{}",
                mime(provider, media)?,
                base64_encode(bytes)
            )
        }
    })
}

/// A provider-namespaced metadata value of a part (`metadata.<namespace>.<key>`).
#[cfg_attr(
    not(any(feature = "claude", feature = "gemini", feature = "openai-responses")),
    allow(
        dead_code,
        reason = "used by the transports that keep provider state on parts"
    )
)]
pub(crate) fn meta<'p>(part: &'p Part, namespace: &str, key: &str) -> Option<&'p Value> {
    part.metadata.as_ref()?.get(namespace)?.get(key)
}

/// Sets `metadata.<namespace>` on a part.
#[cfg_attr(
    not(any(feature = "claude", feature = "gemini", feature = "openai-responses")),
    allow(
        dead_code,
        reason = "used by the transports that keep provider state on parts"
    )
)]
pub(crate) fn with_meta(mut part: Part, namespace: &str, values: Map<String, Value>) -> Part {
    if !values.is_empty() {
        part.metadata
            .get_or_insert_with(Map::new)
            .insert(namespace.to_owned(), Value::Object(values));
    }
    part
}

/// Parses tool-call arguments sent as a JSON string; text that is not JSON stays a string so
/// the submit parser can still classify or recover it.
#[cfg_attr(
    not(any(feature = "openai-chat", feature = "openai-responses")),
    allow(dead_code, reason = "used by the OpenAI transports only")
)]
pub(crate) fn arguments_value(text: &str) -> Value {
    if text.trim().is_empty() {
        return Value::Object(Map::new());
    }
    serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_owned()))
}

/// Tool-call arguments as the OpenAI formats send them: a JSON string.
#[cfg_attr(
    not(any(feature = "openai-chat", feature = "openai-responses")),
    allow(dead_code, reason = "used by the OpenAI transports only")
)]
pub(crate) fn arguments_text(input: &Value) -> String {
    match input {
        Value::Null => "{}".to_owned(),
        // A string input is kept as the model sent it.
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// A tool input as the object-argument formats send it.
#[cfg_attr(
    not(any(feature = "claude", feature = "gemini")),
    allow(dead_code, reason = "used by the object-argument transports only")
)]
pub(crate) fn input_object(input: &Value) -> Value {
    match input {
        Value::Object(_) => input.clone(),
        Value::String(s) => match serde_json::from_str::<Value>(s) {
            Ok(v @ Value::Object(_)) => v,
            _ => Value::Object(Map::new()),
        },
        _ => Value::Object(Map::new()),
    }
}

/// Appends `piece` to the string field `key` of an object, in place (linear over a stream's
/// deltas); a value that is not an object is left alone.
#[cfg_attr(
    not(any(feature = "claude", feature = "gemini", feature = "openai-responses")),
    allow(
        dead_code,
        reason = "the Chat transport assembles into its own buffers"
    )
)]
pub(crate) fn append_text(value: &mut Value, key: &str, piece: &str) {
    if let Some(map) = value.as_object_mut() {
        match map.get_mut(key) {
            Some(Value::String(s)) => s.push_str(piece),
            _ => {
                map.insert(key.to_owned(), Value::String(piece.to_owned()));
            }
        }
    }
}

/// A `u64` field of a JSON object, 0 when absent.
pub(crate) fn count(value: &Value, key: &str) -> u64 {
    value.get(key).and_then(Value::as_u64).unwrap_or(0)
}

/// A `u64` field of an object field, 0 when absent.
#[cfg_attr(
    not(any(feature = "openai-chat", feature = "openai-responses")),
    allow(dead_code, reason = "used by the OpenAI transports only")
)]
pub(crate) fn nested(value: &Value, outer: &str, key: &str) -> u64 {
    value.get(outer).map(|v| count(v, key)).unwrap_or(0)
}

/// Standard base64, as every provider sends inline bytes.
pub(crate) fn base64_encode(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// Standard base64, or its URL-safe alphabet, padded or not.
#[cfg_attr(
    not(feature = "gemini"),
    allow(dead_code, reason = "used by the Gemini transport only")
)]
pub(crate) fn base64_decode(text: &str) -> Option<Vec<u8>> {
    use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
    use base64::engine::DecodePaddingMode;
    use base64::Engine as _;
    let config =
        GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent);
    GeneralPurpose::new(&base64::alphabet::STANDARD, config)
        .decode(text)
        .or_else(|_| GeneralPurpose::new(&base64::alphabet::URL_SAFE, config).decode(text))
        .ok()
}

/// Builder methods every transport shares.
macro_rules! http_builder {
    ($ty:ty) => {
        impl $ty {
            /// Sets the API key (otherwise read from the environment at construction).
            pub fn api_key(mut self, key: impl AsRef<str>) -> Self {
                self.http.set_key($crate::transport::ApiKey::new(key));
                self
            }

            /// Sends to another base URL (a gateway, a test server).
            pub fn base_url(mut self, url: impl AsRef<str>) -> Self {
                self.http.set_base_url(url.as_ref());
                self
            }

            /// Sets the timeout of one attempt (default 600 s).
            pub fn timeout(mut self, timeout: std::time::Duration) -> Self {
                self.http.set_timeout(timeout);
                self
            }

            /// Sets the retry policy (default: 3 attempts, 500 ms doubling, at most 30 s).
            pub fn retry(mut self, retry: $crate::transport::Retry) -> Self {
                self.http.set_retry(retry);
                self
            }
        }
    };
}
pub(crate) use http_builder;

/// `Model` for a transport: its typed `send`, with the typed error kept as the source.
macro_rules! model_via_send {
    ($ty:ty) => {
        impl $crate::model::Model for $ty {
            fn generate<'a>(
                &'a self,
                request: $crate::model::ModelRequest,
                stream: ::core::option::Option<$crate::stream::ModelStream>,
            ) -> ::futures::future::BoxFuture<
                'a,
                ::core::result::Result<$crate::model::ModelResponse, $crate::model::ModelError>,
            > {
                ::futures::FutureExt::boxed(async move {
                    self.send(request, stream)
                        .await
                        .map_err($crate::model::ModelError::from)
                })
            }
        }
    };
}
pub(crate) use model_via_send;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_delay_doubles_and_honours_retry_after_capped() {
        let retry = Retry::new(5).backoff(Duration::from_millis(10), Duration::from_millis(50));
        assert_eq!(retry.delay(1, None), Duration::from_millis(10));
        assert_eq!(retry.delay(3, None), Duration::from_millis(40));
        assert_eq!(retry.delay(4, None), Duration::from_millis(50));
        assert_eq!(
            retry.delay(1, Some(Duration::from_millis(30))),
            Duration::from_millis(30)
        );
        assert_eq!(retry.delay(40, None), Duration::from_millis(50));
    }

    #[test]
    fn retry_after_headers_are_read_in_seconds_and_milliseconds() {
        let mut h = reqwest::header::HeaderMap::new();
        h.insert("retry-after", "2".parse().unwrap());
        assert_eq!(retry_after(&h), Some(Duration::from_secs(2)));
        h.insert("retry-after-ms", "150".parse().unwrap());
        assert_eq!(retry_after(&h), Some(Duration::from_millis(150)));
        let mut date = reqwest::header::HeaderMap::new();
        date.insert(
            "retry-after",
            "Wed, 21 Oct 2015 07:28:00 GMT".parse().unwrap(),
        );
        assert_eq!(retry_after(&date), None);
    }

    #[test]
    fn provider_message_reads_error_message_or_body_start() {
        assert_eq!(
            provider_message(
                br#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#
            ),
            "Overloaded"
        );
        assert_eq!(provider_message(b"  bad gateway "), "bad gateway");
        assert_eq!(provider_message(b""), "(empty body)");
    }

    #[test]
    fn base64_decodes_both_alphabets() {
        assert_eq!(base64_decode("+/8=").unwrap(), [251, 255]);
        assert_eq!(base64_decode("-_8").unwrap(), [251, 255]);
        assert_eq!(base64_encode(b"hi!"), "aGkh");
    }

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
        drive::<claude::Assembler>(&shapes, &kinds, &sink);
        #[cfg(feature = "gemini")]
        drive::<gemini::Assembler>(&shapes, &kinds, &sink);
        #[cfg(feature = "openai-chat")]
        drive::<openai_chat::Assembler>(&shapes, &kinds, &sink);
        #[cfg(feature = "openai-responses")]
        drive::<openai_responses::Assembler>(&shapes, &kinds, &sink);
    }

    #[test]
    fn debug_redacts_the_key() {
        let mut http = Http::new("test", "NO_SUCH_VARIABLE_FOR_TESTS", "http://x");
        http.set_key(ApiKey::new("sk-very-secret"));
        let text = format!("{http:?}");
        assert!(!text.contains("sk-very-secret"));
        assert!(text.contains("<redacted>"));
    }
}
