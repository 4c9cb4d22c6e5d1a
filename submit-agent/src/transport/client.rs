//! The transport: one HTTP model (key, base URL, timeout, retries, stream limits, `send`,
//! reading recorded answers) over any provider's [`Api`], the trait that holds what differs per
//! provider.

use futures::future::BoxFuture;
use futures::FutureExt;
use serde_json::Value;
use submit_core::Provider;

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

/// One provider's API: the facts every transport reads of it, stated once (the provider, the
/// environment variable its key is read from, its base URL), and, sealed inside, what it does
/// its own way (encoding a request, reading its typed answer, assembling its typed stream
/// events into that answer). Implemented by [`MessagesApi`](super::MessagesApi),
/// [`GenerateContentApi`](super::GenerateContentApi),
/// [`ChatCompletionsApi`](super::ChatCompletionsApi) and [`ResponsesApi`](super::ResponsesApi).
///
/// ```
/// # #[cfg(feature = "claude")] {
/// use submit_agent::transport::{Api, MessagesApi};
///
/// assert_eq!(MessagesApi::KEY_VARIABLE, "ANTHROPIC_API_KEY");
/// assert_eq!(MessagesApi::BASE_URL, "https://api.anthropic.com");
/// # }
/// ```
pub trait Api: api::Adapter {
    /// The provider, as errors and logs name it.
    const PROVIDER: Provider;
    /// The environment variable the key is read from.
    const KEY_VARIABLE: &'static str;
    /// The base URL used unless one is set.
    const BASE_URL: &'static str;
}

pub(crate) mod api {
    use serde::de::DeserializeOwned;
    use serde_json::Value;

    use super::super::sse::Assemble;
    use super::super::TransportError;
    use crate::model::{ModelRequest, ModelResponse};

    /// The per-provider half of a transport; see [`Api`](super::Api).
    pub trait Adapter: Clone + std::fmt::Debug + Send + Sync + 'static {
        /// The provider's whole answer, typed, as its body arrives.
        type Answer: DeserializeOwned + Send + 'static;
        /// Builds the answer from the stream's typed events.
        type Assembler: Assemble<Answer = Self::Answer> + Default;

        /// The endpoint under `base_url`, streamed or not.
        fn url(&self, base_url: &str, stream: bool) -> String;

        /// The headers that carry the key (and whatever else the API asks of every call).
        fn headers(key: &str) -> Vec<(&'static str, String)>;

        /// The JSON body sent for `request`.
        fn body(&self, request: &ModelRequest, stream: bool) -> Result<Value, TransportError>;

        /// An answer (received whole or assembled from its stream) as a response, or the
        /// provider's error it holds; it takes the answer, so a call's arguments move into
        /// the response without a copy.
        fn parse_response(answer: Self::Answer) -> Result<ModelResponse, TransportError>;
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
    /// (default [`MAX_EVENT_BYTES`](super::MAX_EVENT_BYTES) and
    /// [`MAX_STREAM_BYTES`](super::MAX_STREAM_BYTES)); past either, the call fails with
    /// [`TransportErrorKind::Stream`](super::TransportErrorKind::Stream).
    pub fn stream_limits(mut self, limits: super::StreamLimits) -> Self {
        self.http.set_stream_limits(limits);
        self
    }

    /// Sets the retry policy (default: 3 attempts, 500 ms doubling, at most 30 s).
    pub fn retry(mut self, retry: Retry) -> Self {
        self.http.set_retry(retry);
        self
    }

    /// The JSON body sent for `request`, streamed or not.
    ///
    /// ```
    /// # #[cfg(feature = "gemini")] {
    /// use submit_agent::transport::Gemini;
    /// use submit_agent::{message::Message, model::ModelRequest};
    ///
    /// let request = ModelRequest::new([Message::user("Hi")]);
    /// let body = Gemini::new("gemini-2.5-flash").request_body(&request, false).unwrap();
    /// assert_eq!(body["contents"][0]["parts"][0]["text"], "Hi");
    /// # }
    /// ```
    pub fn request_body(
        &self,
        request: &ModelRequest,
        stream: bool,
    ) -> Result<Value, TransportError> {
        self.api.body(request, stream)
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
        let answer = http::execute(&self.http, prepared, assembler).await?;
        A::parse_response(answer)
    }

    /// Reads an answer's JSON body already received (a recording, a log) into the response
    /// [`send`](Self::send) would return for it.
    pub fn decode_body(&self, body: &[u8]) -> Result<ModelResponse, TransportError> {
        A::parse_response(http::decode_answer(A::PROVIDER, body)?)
    }

    /// Assembles an answer's event stream already received, in the pieces it came in, into
    /// the response a streamed [`send`](Self::send) would return for it, with the same
    /// [limits](Self::stream_limits) and errors.
    pub fn decode_stream<'a>(
        &self,
        chunks: impl IntoIterator<Item = &'a [u8]>,
    ) -> Result<ModelResponse, TransportError> {
        let answer = sse::decode_stream(
            A::PROVIDER,
            self.http.limits,
            chunks,
            A::Assembler::default(),
        )?;
        A::parse_response(answer)
    }
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
