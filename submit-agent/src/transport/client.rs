//! The transport: one HTTP model (key, base URL, timeout, retries, stream limits, `send`,
//! reading recorded answers) over any provider's [`Api`], the trait that holds what differs per
//! provider.

use futures::future::BoxFuture;
use futures::FutureExt;
use serde_json::Value;

use super::http::{self, Http, Prepared};
use super::sse;
use super::{ApiKey, Retry, TransportError};
use crate::model::stream::ModelStream;
use crate::model::{Model, ModelError, ModelRequest, ModelResponse};

/// A provider's API over HTTP: one [`Api`] (what the provider's wire format holds) under the
/// HTTP model every provider shares (key, base URL, timeout, retries, stream limits).
///
/// Use it through the aliases [`Claude`](super::Claude), [`Gemini`](super::Gemini),
/// [`OpenAiChat`](super::OpenAiChat) and [`OpenAiResponses`](super::OpenAiResponses) (each
/// behind its feature); their own builder methods (`new`, `max_tokens`, …) sit on the alias,
/// the shared ones here.
#[derive(Clone, Debug)]
pub struct Transport<A> {
    http: Http,
    pub(super) api: A,
}

/// What one provider's API does its own way: encoding a request, decoding an answer's body,
/// assembling an event stream into that body, and finding the provider's error in an answer.
/// Implemented by [`MessagesApi`](super::MessagesApi),
/// [`GenerateContentApi`](super::GenerateContentApi),
/// [`ChatCompletionsApi`](super::ChatCompletionsApi) and [`ResponsesApi`](super::ResponsesApi);
/// sealed.
pub trait Api: api::Adapter {}

impl<A: api::Adapter> Api for A {}

pub(crate) mod api {
    use serde_json::Value;

    use super::super::http::remote_error;
    use super::super::sse::Assemble;
    use super::super::TransportError;
    use crate::model::{ModelRequest, ModelResponse};

    /// The per-provider half of a transport; see [`Api`](super::Api).
    pub trait Adapter: Clone + std::fmt::Debug + Send + Sync + 'static {
        /// The provider's name in errors and logs.
        const PROVIDER: &'static str;
        /// The environment variable the key is read from.
        const KEY_VARIABLE: &'static str;
        /// The base URL used unless one is set.
        const BASE_URL: &'static str;
        /// Builds the answer's body from its stream events.
        type Assembler: Assemble + Default;

        /// The endpoint under `base_url`, streamed or not.
        fn url(&self, base_url: &str, stream: bool) -> String;

        /// The headers that carry the key (and whatever else the API asks of every call).
        fn headers(key: &str) -> Vec<(&'static str, String)>;

        /// The JSON body sent for `request`.
        fn body(&self, request: &ModelRequest, stream: bool) -> Result<Value, TransportError>;

        /// The provider's own error inside an answer that arrived with a success status: by
        /// default its `error` member.
        fn error(body: &Value) -> Option<TransportError> {
            body.get("error")
                .filter(|e| !e.is_null())
                .map(|e| remote_error(Self::PROVIDER, e))
        }

        /// An answer's body (received whole or assembled from its stream) as a response; it
        /// takes the body, so a call's arguments move into the response without a copy.
        fn decode(body: Value) -> Result<ModelResponse, TransportError>;
    }
}

impl<A: Api> Transport<A> {
    pub(super) fn with_api(api: A) -> Self {
        Transport {
            http: Http::new(A::PROVIDER, A::KEY_VARIABLE, A::BASE_URL),
            api,
        }
    }

    /// Sets the API key (otherwise read from the environment at construction).
    pub fn api_key(mut self, key: impl AsRef<str>) -> Self {
        self.http.set_key(ApiKey::new(key));
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

    /// Sets how many bytes one event of a streamed answer, and the whole stream, may take
    /// (default [`MAX_EVENT_BYTES`](super::MAX_EVENT_BYTES) and [`MAX_STREAM_BYTES`](super::MAX_STREAM_BYTES)); past either, the call fails
    /// with [`TransportError::Stream`].
    pub fn stream_limits(mut self, event_bytes: usize, stream_bytes: usize) -> Self {
        self.http.set_stream_limits(event_bytes, stream_bytes);
        self
    }

    /// Sets the retry policy (default: 3 attempts, 500 ms doubling, at most 30 s).
    pub fn retry(mut self, retry: Retry) -> Self {
        self.http.set_retry(retry);
        self
    }

    /// Sends one request: the typed-error form of [`Model::generate`].
    pub async fn send(
        &self,
        request: ModelRequest,
        stream: Option<ModelStream>,
    ) -> Result<ModelResponse, TransportError> {
        let streaming = stream.is_some();
        let prepared = Prepared {
            url: self.api.url(&self.http.base_url, streaming),
            headers: A::headers(self.http.key()?),
            body: self.api.body(&request, streaming)?,
        };
        let assembler = stream.map(|sink| (sink, A::Assembler::default()));
        let body = http::execute(&self.http, prepared, assembler).await?;
        decode::<A>(body)
    }

    /// Reads an answer's JSON body already received (a recording, a log) into the response
    /// [`send`](Self::send) would return for it.
    pub fn decode_body(&self, body: &[u8]) -> Result<ModelResponse, TransportError> {
        let body: Value = serde_json::from_slice(body).map_err(|e| TransportError::Response {
            provider: A::PROVIDER,
            message: format!("the body is not JSON: {e}"),
        })?;
        decode::<A>(body)
    }

    /// Assembles an answer's event stream already received, in the pieces it came in, into
    /// the response a streamed [`send`](Self::send) would return for it, with the same
    /// [limits](Self::stream_limits) and errors.
    pub fn decode_stream<'a>(
        &self,
        chunks: impl IntoIterator<Item = &'a [u8]>,
    ) -> Result<ModelResponse, TransportError> {
        let body = sse::decode_stream(
            A::PROVIDER,
            self.http.limits,
            chunks,
            A::Assembler::default(),
        )?;
        decode::<A>(body)
    }
}

/// A body as a response: the provider's error when it holds one.
fn decode<A: Api>(body: Value) -> Result<ModelResponse, TransportError> {
    if let Some(error) = A::error(&body) {
        return Err(error);
    }
    A::decode(body)
}

impl<A: Api> Model for Transport<A> {
    fn generate<'a>(
        &'a self,
        request: ModelRequest,
        stream: Option<ModelStream>,
    ) -> BoxFuture<'a, Result<ModelResponse, ModelError>> {
        async move { self.send(request, stream).await.map_err(ModelError::from) }.boxed()
    }
}
