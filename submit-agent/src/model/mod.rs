//! Models and streaming: the [`Model`] trait the loop calls once a turn, its
//! [`ModelRequest`] and [`ModelResponse`], and the [`ModelStream`] a streaming model sends
//! its [`Chunk`](crate::message::Chunk)s through. The provider transports
//! ([`transport`](crate::transport)) implement [`Model`] over HTTP; a [`ScriptedModel`]
//! replays canned responses, and [`model_fn`] makes a model of a closure.
//!
//! ```
//! use submit_agent::model::{model_fn, ModelError, ModelResponse};
//! use submit_agent::prelude::*;
//!
//! let echo = model_fn(|request| {
//!     let last = request.messages.last().map(|m| m.text()).unwrap_or_default();
//!     Ok::<_, ModelError>(ModelResponse::new(Message::model(vec![Part::text(last)])))
//! });
//! let agent = Agent::new(echo);
//! let response = futures::executor::block_on(agent.generate(vec![Message::user("hi")])).unwrap();
//! assert_eq!(response.text(), "hi");
//! ```

mod scripted;
pub(crate) mod stream;

pub use scripted::ScriptedModel;
pub use stream::{ModelStream, StreamError};

use std::sync::Arc;

use futures::future::BoxFuture;
use futures::FutureExt;
use serde::{Deserialize, Serialize};

use crate::cause::Cause;
use crate::message::Message;
use crate::tool::ToolDefinition;

/// Which tool the model must call.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ToolChoice {
    /// The model decides.
    #[default]
    Auto,
    /// The model must call some tool.
    Required,
    /// The model must not call tools.
    None,
    /// The model must call this tool.
    Tool(String),
}

/// One model call.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ModelRequest {
    /// The conversation so far; shared with the loop, so a request is cheap to build.
    pub messages: Vec<Arc<Message>>,
    /// The tools the model may call.
    pub tools: Vec<ToolDefinition>,
    /// Which tool the model must call.
    pub tool_choice: ToolChoice,
}

impl ModelRequest {
    /// A request holding `messages`, with no tools and [`ToolChoice::Auto`].
    ///
    /// ```
    /// use submit_agent::message::Message;
    /// use submit_agent::model::{ModelRequest, ToolChoice};
    ///
    /// let request = ModelRequest::new(vec![Message::user("hi")]);
    /// assert!(request.tools.is_empty());
    /// assert_eq!(request.tool_choice, ToolChoice::Auto);
    /// ```
    pub fn new(messages: impl IntoIterator<Item = Message>) -> Self {
        ModelRequest {
            messages: messages.into_iter().map(Arc::new).collect(),
            tools: Vec::new(),
            tool_choice: ToolChoice::Auto,
        }
    }

    /// This request offering `tools`.
    pub fn with_tools(mut self, tools: Vec<ToolDefinition>) -> Self {
        self.tools = tools;
        self
    }

    /// This request with `choice`.
    pub fn with_tool_choice(mut self, choice: ToolChoice) -> Self {
        self.tool_choice = choice;
        self
    }
}

/// Why the model (or the run) stopped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum FinishReason {
    /// A natural end.
    #[default]
    Stop,
    /// The token limit.
    Length,
    /// A safety or policy block.
    Blocked,
    /// Tool calls paused the run; resume it.
    Interrupted,
    /// Stopped by a limit (max turns) or cancellation.
    Aborted,
    /// Stopped by an error.
    Failed,
    /// Anything else.
    Other,
}

/// Token counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Usage {
    /// Input tokens, all of them: cached reads and cache writes included.
    pub input_tokens: u64,
    /// Output tokens, reasoning included.
    pub output_tokens: u64,
    /// Of the input, tokens read from the provider's prompt cache.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cache_read_tokens: u64,
    /// Of the input, tokens written to the provider's prompt cache.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cache_write_tokens: u64,
    /// Of the output, reasoning tokens, where the provider reports them.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub reasoning_tokens: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl std::ops::AddAssign for Usage {
    fn add_assign(&mut self, rhs: Usage) {
        self.input_tokens += rhs.input_tokens;
        self.output_tokens += rhs.output_tokens;
        self.cache_read_tokens += rhs.cache_read_tokens;
        self.cache_write_tokens += rhs.cache_write_tokens;
        self.reasoning_tokens += rhs.reasoning_tokens;
    }
}

/// What one model call returned.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ModelResponse {
    /// The model's message.
    pub message: Message,
    /// Why it stopped.
    pub finish_reason: FinishReason,
    /// Tokens used.
    #[serde(default)]
    pub usage: Usage,
}

impl ModelResponse {
    /// A response holding `message`, finish reason `stop`, no usage.
    pub fn new(message: Message) -> Self {
        ModelResponse {
            message,
            finish_reason: FinishReason::Stop,
            usage: Usage::default(),
        }
    }

    /// This response with `reason`.
    pub fn with_finish_reason(mut self, reason: FinishReason) -> Self {
        self.finish_reason = reason;
        self
    }

    /// This response with `usage`.
    pub fn with_usage(mut self, usage: Usage) -> Self {
        self.usage = usage;
        self
    }
}

/// A model call that failed: a message and, when the model had one, its typed cause.
///
/// Two errors are equal when their messages are; the cause is reached through
/// [`std::error::Error::source`] or [`ModelError::downcast_ref`].
///
/// ```
/// use std::error::Error as _;
/// use submit_agent::model::ModelError;
///
/// let plain = ModelError::new("the model is unreachable: retry later");
/// assert!(plain.source().is_none());
///
/// let typed = ModelError::from_source(std::io::Error::other("connection reset"));
/// assert_eq!(typed.to_string(), "connection reset");
/// assert!(typed.downcast_ref::<std::io::Error>().is_some());
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct ModelError(Cause);

impl ModelError {
    /// An error with this message and no cause.
    pub fn new(message: impl Into<String>) -> Self {
        ModelError(Cause::new(message))
    }

    /// An error keeping `error` as its cause; the message is the cause's.
    pub fn from_source<E>(error: E) -> Self
    where
        E: std::error::Error + Send + Sync + 'static,
    {
        ModelError(Cause::from_source(error))
    }

    /// The message.
    pub fn message(&self) -> &str {
        self.0.message()
    }

    /// The cause as a `T`, when it is one.
    pub fn downcast_ref<T: std::error::Error + 'static>(&self) -> Option<&T> {
        self.0.downcast_ref()
    }
}

impl std::fmt::Display for ModelError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(&self.0, f)
    }
}

impl std::fmt::Debug for ModelError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelError")
            .field("message", &self.0.message())
            .field("source", &std::error::Error::source(&self.0))
            .finish()
    }
}

impl std::error::Error for ModelError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        std::error::Error::source(&self.0)
    }
}

impl From<String> for ModelError {
    fn from(message: String) -> Self {
        ModelError::new(message)
    }
}

impl From<&str> for ModelError {
    fn from(message: &str) -> Self {
        ModelError::new(message)
    }
}

/// A model: takes a request, returns a response, optionally streaming chunks.
pub trait Model: Send + Sync {
    /// Generates one response; `stream` is `Some` when the run streams.
    fn generate<'a>(
        &'a self,
        request: ModelRequest,
        stream: Option<ModelStream>,
    ) -> BoxFuture<'a, Result<ModelResponse, ModelError>>;
}

impl<M: Model + ?Sized> Model for Arc<M> {
    fn generate<'a>(
        &'a self,
        request: ModelRequest,
        stream: Option<ModelStream>,
    ) -> BoxFuture<'a, Result<ModelResponse, ModelError>> {
        (**self).generate(request, stream)
    }
}

/// A model from a closure over the request.
pub fn model_fn<F>(function: F) -> impl Model
where
    F: Fn(ModelRequest) -> Result<ModelResponse, ModelError> + Send + Sync,
{
    struct FnModel<F>(F);
    impl<F> Model for FnModel<F>
    where
        F: Fn(ModelRequest) -> Result<ModelResponse, ModelError> + Send + Sync,
    {
        fn generate<'a>(
            &'a self,
            request: ModelRequest,
            _stream: Option<ModelStream>,
        ) -> BoxFuture<'a, Result<ModelResponse, ModelError>> {
            futures::future::ready((self.0)(request)).boxed()
        }
    }
    FnModel(function)
}
