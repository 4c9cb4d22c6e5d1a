//! Sending a prepared call: the shared client, retries with backoff, and the typed errors of a
//! failed answer.

use std::future::Future;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde::Deserialize as _;
use serde_json::Value;
use submit_core::Provider;

use super::sse::{events, next_event, read_stream, Assemble, Events, Meter, StreamLimits, Unread};
use super::{ApiKey, TransportError, TransportErrorKind};
use crate::model::stream::ModelStream;

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
#[non_exhaustive]
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

/// The connection settings every transport shares.
#[derive(Clone)]
pub struct Http {
    pub(super) provider: Provider,
    variable: &'static str,
    key: Option<ApiKey>,
    pub(crate) base_url: String,
    timeout: Duration,
    retry: Retry,
    pub(super) limits: StreamLimits,
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
    pub(crate) fn new(provider: Provider, variable: &'static str, base_url: &str) -> Self {
        Http {
            provider,
            variable,
            key: ApiKey::from_env(variable),
            base_url: base_url.to_owned(),
            timeout: Duration::from_secs(600),
            retry: Retry::default(),
            limits: StreamLimits::default(),
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

    pub(crate) fn set_stream_limits(&mut self, limits: StreamLimits) {
        self.limits = limits;
    }

    pub(crate) fn set_retry(&mut self, retry: Retry) {
        self.retry = Retry {
            max_attempts: retry.max_attempts.max(1),
            ..retry
        };
    }

    /// The key, or the error naming the variable to set.
    pub(crate) fn key(&self) -> Result<&str, TransportError> {
        self.key.as_ref().map(ApiKey::expose).ok_or_else(|| {
            TransportError::new(
                self.provider,
                TransportErrorKind::MissingKey {
                    variable: self.variable,
                },
            )
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
            .map_err(|e| {
                TransportError::new(self.provider, TransportErrorKind::Client).with_source(e)
            })?;
        *slot = Some(client.clone());
        Ok(client)
    }
}

/// One prepared HTTP call.
pub struct Prepared {
    pub(crate) url: String,
    pub(crate) headers: Vec<(&'static str, String)>,
    pub(crate) body: Value,
}

/// Runs the call on the caller's tokio runtime, or on the transports' own runtime: the answer's
/// JSON body, or, when the call streams, the answer its events assemble into.
pub(crate) async fn execute<A: Assemble>(
    http: &Http,
    prepared: Prepared,
    stream: Option<(ModelStream, A)>,
) -> Result<A::Answer, TransportError>
where
    A::Answer: serde::de::DeserializeOwned + Send + 'static,
{
    let http = http.clone();
    let provider = http.provider;
    on_runtime(provider, async move {
        match stream {
            None => open(&http, &prepared, false, read_body::<A::Answer>).await,
            Some((sink, assembler)) => {
                let (events, meter, first) = open(&http, &prepared, true, first_event).await?;
                read_stream(
                    provider,
                    events,
                    &meter,
                    Some(first),
                    assembler,
                    &sink,
                    without_url,
                )
                .await
            }
        }
    })
    .await
}

/// The typed error of a failed connection: a timeout, or a network error, the connection's
/// own error kept as its source.
fn network(
    provider: Provider,
    source: Box<dyn std::error::Error + Send + Sync>,
    attempts: u32,
) -> TransportError {
    let timeout = source
        .downcast_ref::<reqwest::Error>()
        .is_some_and(reqwest::Error::is_timeout);
    let kind = if timeout {
        TransportErrorKind::Timeout { attempts }
    } else {
        TransportErrorKind::Network { attempts }
    };
    TransportError::new(provider, kind).with_boxed_source(without_url(source))
}

/// A connection's error without the URL it names (a gateway's URL may carry a secret).
fn without_url(
    source: Box<dyn std::error::Error + Send + Sync>,
) -> Box<dyn std::error::Error + Send + Sync> {
    match source.downcast::<reqwest::Error>() {
        Ok(e) => Box::new(e.without_url()),
        Err(other) => other,
    }
}

/// Runs `future` on the caller's tokio runtime or the crate's own (see [`crate::runtime`]).
async fn on_runtime<T, F>(provider: Provider, future: F) -> Result<T, TransportError>
where
    T: Send + 'static,
    F: Future<Output = Result<T, TransportError>> + Send + 'static,
{
    let client = || TransportError::new(provider, TransportErrorKind::Client);
    let handle = crate::runtime::handle().map_err(|e| client().with_source(e))?;
    match crate::runtime::run(&handle, future).await {
        Ok(result) => result,
        Err(e) => Err(client().with_source(e)),
    }
}

/// A failed attempt: its error, whether it may be retried, and the wait the answer asked for.
struct Failed {
    error: TransportError,
    retry: bool,
    wait: Option<Duration>,
}

impl Failed {
    fn new(error: TransportError, retry: bool) -> Self {
        Failed {
            error,
            retry,
            wait: None,
        }
    }
}

/// Posts with retries, as [`Retry`] says: a 429, 408 or 5xx answer, a failed connection, a
/// timeout, and a failure of `read` that says so (a body cut short, a stream that fails before
/// its first event) are retried after [`Retry::delay`]; the first success is returned.
async fn open<T, R, F>(
    http: &Http,
    prepared: &Prepared,
    streaming: bool,
    read: R,
) -> Result<T, TransportError>
where
    R: Fn(Provider, StreamLimits, reqwest::Response, u32) -> F,
    F: Future<Output = Result<T, Failed>>,
{
    let client = http.client()?;
    let retry = http.retry;
    let mut n = 0;
    loop {
        n += 1;
        let failed = match attempt(http, &client, prepared, n).await {
            Ok(response) => match read(http.provider, http.limits, response, n).await {
                Ok(read) => return Ok(read),
                Err(failed) => failed,
            },
            Err(failed) => failed,
        };
        if !failed.retry || n >= retry.max_attempts {
            return Err(failed.error);
        }
        let delay = retry.delay(n, failed.wait);
        tracing::debug!(
            provider = http.provider.as_str(),
            streaming,
            error = %failed.error,
            delay_ms = delay.as_millis() as u64,
            "provider call failed; retrying"
        );
        tokio::time::sleep(delay).await;
    }
}

/// One attempt of a call, up to an answer with a success status.
async fn attempt(
    http: &Http,
    client: &reqwest::Client,
    prepared: &Prepared,
    n: u32,
) -> Result<reqwest::Response, Failed> {
    let mut builder = client.post(&prepared.url).json(&prepared.body);
    for (name, value) in &prepared.headers {
        builder = builder.header(*name, value);
    }
    let response = match builder.timeout(http.timeout).send().await {
        Ok(r) => r,
        Err(e) => {
            let retry = e.is_connect() || e.is_timeout();
            return Err(Failed::new(network(http.provider, Box::new(e), n), retry));
        }
    };
    if response.status().is_success() {
        return Ok(response);
    }
    let status = response.status().as_u16();
    let wait = retry_after(response.headers());
    let body = response.bytes().await.unwrap_or_default();
    Err(Failed {
        error: TransportError::new(
            http.provider,
            TransportErrorKind::Api {
                status,
                message: provider_message(&body),
                attempts: n,
            },
        ),
        retry: status == 429 || status == 408 || status >= 500,
        wait,
    })
}

/// A whole answer's body, read as the provider's typed answer.
async fn read_body<T: serde::de::DeserializeOwned>(
    provider: Provider,
    _limits: StreamLimits,
    response: reqwest::Response,
    n: u32,
) -> Result<T, Failed> {
    let bytes = response
        .bytes()
        .await
        .map_err(|e| Failed::new(network(provider, Box::new(e), n), true))?;
    decode_answer(provider, &bytes).map_err(|e| Failed::new(e, false))
}

/// An answer's JSON body as the provider's typed answer.
pub(crate) fn decode_answer<T: serde::de::DeserializeOwned>(
    provider: Provider,
    bytes: &[u8],
) -> Result<T, TransportError> {
    serde_json::from_slice(bytes).map_err(|e| {
        let message = if e.is_data() {
            format!("the body is not an answer: {e}")
        } else {
            format!("the body is not JSON: {e}")
        };
        TransportError::shape(provider, message).with_source(e)
    })
}

/// A streamed answer's events, with the first read (so a stream that fails before it is
/// retried like a failed connection).
async fn first_event(
    provider: Provider,
    limits: StreamLimits,
    response: reqwest::Response,
    n: u32,
) -> Result<(Events, Meter, sse_stream::Sse), Failed> {
    let content_type = response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned();
    if !content_type.is_empty() && !content_type.contains("event-stream") {
        return Err(Failed::new(
            TransportError::malformed(
                provider,
                format!(
                    "expected text/event-stream, got {content_type}: check that the base URL serves streaming"
                ),
            ),
            false,
        ));
    }
    let (events, meter) = events(response.bytes_stream(), limits);
    let mut events: Events = Box::pin(events);
    match next_event(provider, &mut events, &meter, 0).await {
        Some(Ok(first)) => Ok((events, meter, first)),
        Some(Err(Unread::Source(source))) => Err(Failed::new(network(provider, source, n), true)),
        Some(Err(Unread::Malformed(error))) => Err(Failed::new(error, false)),
        None => Err(Failed::new(
            TransportError::malformed(
                provider,
                "the stream ended before its first event; retry the call",
            ),
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

/// A provider's error object as the four APIs send it: `{"message", "code", "type"}`
/// (Gemini names the type `status`), or an object holding one under `error`. Each member is
/// read as a string or a number, as sent.
#[derive(Default, serde::Deserialize)]
#[serde(default)]
struct WireError {
    message: Option<Value>,
    code: Option<Value>,
    #[serde(rename = "type")]
    kind: Option<Value>,
    status: Option<Value>,
    error: Option<Value>,
}

/// The typed error of a provider's error object, or of an object holding one under `error`.
pub(crate) fn remote_error(provider: Provider, error: &Value) -> TransportError {
    let mut outer = WireError::deserialize(error).unwrap_or_default();
    let (inner, text) = match outer.error.take() {
        Some(nested @ Value::Object(_)) => {
            let inner = WireError::deserialize(&nested).unwrap_or_default();
            (inner, nested.to_string())
        }
        _ => (outer, error.to_string()),
    };
    let read = |member: Option<Value>| match member {
        Some(Value::String(s)) if !s.is_empty() => Some(s),
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => None,
    };
    TransportError::new(
        provider,
        TransportErrorKind::Remote {
            message: read(inner.message).unwrap_or_else(|| provider_message(text.as_bytes())),
            code: read(inner.code),
            kind: read(inner.kind).or_else(|| read(inner.status)),
        },
    )
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
    fn debug_redacts_the_key() {
        let mut http = Http::new(Provider::Claude, "NO_SUCH_VARIABLE_FOR_TESTS", "http://x");
        http.set_key(ApiKey::new("sk-very-secret"));
        let text = format!("{http:?}");
        assert!(!text.contains("sk-very-secret"));
        assert!(text.contains("<redacted>"));
    }
}
