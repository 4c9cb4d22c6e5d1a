//! The data of a conversation: messages, their parts, and the interrupt, restart and pending
//! state a tool request carries.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use submit_core::{Arguments, JsonType};

use super::output::ToolOutput;

/// A JSON object.
pub type JsonObject = Map<String, Value>;

/// Who wrote a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Instructions for the model.
    System,
    /// The caller.
    User,
    /// The model.
    Model,
    /// Tool responses.
    Tool,
}

/// One message of a conversation.
///
/// ```
/// use submit_agent::message::{Message, Role};
///
/// let message = Message::user("What is 2 + 2?");
/// assert_eq!(message.role, Role::User);
/// assert_eq!(message.text(), "What is 2 + 2?");
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// Who wrote it.
    pub role: Role,
    /// Its parts, in order.
    pub content: Vec<Part>,
    /// Free-form metadata (a resumed tool message carries `resumed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<JsonObject>,
}

impl Message {
    /// A message with a role and parts.
    pub fn new(role: Role, content: Vec<Part>) -> Self {
        Message {
            role,
            content,
            metadata: None,
        }
    }

    /// A user message holding one text part.
    pub fn user(text: impl Into<String>) -> Self {
        Message::new(Role::User, vec![Part::text(text)])
    }

    /// A system message holding one text part.
    pub fn system(text: impl Into<String>) -> Self {
        Message::new(Role::System, vec![Part::text(text)])
    }

    /// A model message with the given parts.
    pub fn model(content: Vec<Part>) -> Self {
        Message::new(Role::Model, content)
    }

    /// The concatenated text parts.
    pub fn text(&self) -> String {
        self.content
            .iter()
            .filter_map(|p| match &p.kind {
                PartKind::Text(t) => Some(t.as_str()),
                _ => None,
            })
            .collect()
    }

    /// The tool requests of this message, in order.
    pub fn tool_requests(&self) -> impl Iterator<Item = &ToolRequest> {
        self.content.iter().filter_map(Part::as_tool_request)
    }

    /// The tool responses of this message, in order.
    pub fn tool_responses(&self) -> impl Iterator<Item = &ToolResponse> {
        self.content.iter().filter_map(Part::as_tool_response)
    }
}

/// Media content: a content type and a URL or inline bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Media {
    /// The MIME type, when known.
    pub content_type: Option<String>,
    /// Where the bytes are.
    pub source: MediaSource,
}

/// Where a media part's bytes are.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum MediaSource {
    /// A URL (`https:`, `gs:`, …).
    Url(String),
    /// The bytes themselves; written as a `data:` URL in JSON.
    Inline(Vec<u8>),
}

/// A tool call the model asked for.
#[derive(Clone, Debug, PartialEq, Default)]
#[non_exhaustive]
pub struct ToolRequest {
    /// The tool's name.
    pub name: String,
    /// The call's reference, unique in its message (the loop assigns one when missing).
    pub reference: Option<String>,
    /// The arguments as a JSON value.
    ///
    /// For a call whose arguments arrived as text ([`arguments_text`](Self::arguments_text)),
    /// a transport leaves it `null`: the loop decodes the text into it before the call
    /// reaches an ordinary tool and its hooks, and the terminal tool's parser reads the text
    /// itself. [`input_value`](Self::input_value) gives the value either way.
    pub input: Value,
    /// The argument text exactly as the model sent it, for a call whose arguments arrived as
    /// text (OpenAI Chat and Responses, Anthropic when streamed); `None` for arguments that
    /// arrived as a JSON object. Kept through the conversation's JSON form and sent back to
    /// the provider as it was, so nothing re-encodes what the model wrote.
    pub arguments_text: Option<String>,
    /// Interrupt state: set when the call paused the run.
    pub interrupt: Option<Interrupt>,
    /// Restart state: set on a directive that re-runs an interrupted call.
    pub restart: Option<Restart>,
    /// The outcome of a call that completed in a round that other calls interrupted, kept
    /// while its siblings wait for a resume.
    pub pending: Option<ToolOutput>,
}

impl ToolRequest {
    /// The arguments in the form they arrived: the text when they arrived as text, else the
    /// value. This is what the submit tool's parser reads.
    ///
    /// ```
    /// use submit_agent::message::{Part, ToolRequest};
    /// use submit_core::Arguments;
    ///
    /// let part = Part::tool_request_text("submit_result", None, r#"{"a":1,"a":2}"#);
    /// let request = part.as_tool_request().unwrap();
    /// assert!(matches!(request.arguments(), Arguments::Text(r#"{"a":1,"a":2}"#)));
    /// ```
    pub fn arguments(&self) -> Arguments<'_> {
        match &self.arguments_text {
            Some(text) => Arguments::Text(text),
            None => Arguments::Value(&self.input),
        }
    }

    /// The arguments as a JSON value, as an ordinary tool reads them: `input`, or, for a call
    /// whose arguments arrived as text and were not decoded yet, the text decoded (empty text
    /// as `{}`, text that is not JSON as a string holding it, so the tool's input check names
    /// it). Absent arguments (`null`) read as `{}`.
    ///
    /// ```
    /// use serde_json::json;
    /// use submit_agent::message::Part;
    ///
    /// let part = Part::tool_request_text("add", None, r#"{"a": 2, "b": 3}"#);
    /// let request = part.as_tool_request().unwrap();
    /// assert_eq!(request.input, json!(null));
    /// assert_eq!(*request.input_value(), json!({"a": 2, "b": 3}));
    /// ```
    pub fn input_value(&self) -> Cow<'_, Value> {
        match (&self.input, &self.arguments_text) {
            (Value::Null, Some(text)) => Cow::Owned(decode_arguments(text)),
            (Value::Null, None) => Cow::Owned(Value::Object(Map::new())),
            (value, _) => Cow::Borrowed(value),
        }
    }
}

/// Argument text as an ordinary tool reads it: empty text is `{}`, text that is not JSON
/// stays a string.
fn decode_arguments(text: &str) -> Value {
    if text.trim().is_empty() {
        return Value::Object(Map::new());
    }
    serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_owned()))
}

/// Why and where a tool call paused the run.
#[derive(Clone, Debug, PartialEq, Default)]
#[non_exhaustive]
pub struct Interrupt {
    /// The data the raising stage attached; `None` for a bare interrupt.
    pub data: Option<JsonObject>,
    /// Answered by a resume; kept for history.
    pub resolved: bool,
    /// The id of the hook that raised it; `None` when the tool did.
    pub raised_by: Option<String>,
    /// The hooks that had let the call through before it was raised.
    pub released_by: Vec<String>,
}

/// A directive re-running an interrupted call.
#[derive(Clone, Debug, PartialEq, Default)]
#[non_exhaustive]
pub struct Restart {
    /// The resume data; `None` for a bare restart (delivered as an empty object). A value that
    /// is not an object is rejected by the resume.
    pub resume: Option<Value>,
    /// The input before the restart replaced it; `None` when the input was kept.
    pub original_input: Option<Value>,
}

/// A tool call's answer.
#[derive(Clone, Debug, PartialEq, Default)]
#[non_exhaustive]
pub struct ToolResponse {
    /// The tool's name.
    pub name: String,
    /// The reference of the request it answers.
    pub reference: Option<String>,
    /// The output.
    pub output: Option<Value>,
    /// Extra content parts (media …) attached to the answer.
    pub content: Vec<Part>,
}

/// What a part holds.
#[derive(Clone, Debug, PartialEq)]
#[allow(
    clippy::large_enum_variant,
    reason = "tool requests carry their state inline so callers can match and edit it directly"
)]
#[non_exhaustive]
pub enum PartKind {
    /// Text.
    Text(String),
    /// Media.
    Media(Media),
    /// Structured data.
    Data(Value),
    /// The model's reasoning.
    Reasoning(String),
    /// A tool call.
    ToolRequest(ToolRequest),
    /// A tool call's answer.
    ToolResponse(ToolResponse),
    /// Anything else, opaque to the loop.
    Custom(Value),
}

/// One piece of a message.
///
/// ```
/// use submit_agent::message::Part;
///
/// let part = Part::text("hello");
/// let json = serde_json::to_value(&part).unwrap();
/// assert_eq!(json, serde_json::json!({"text": "hello"}));
/// let back: Part = serde_json::from_value(json).unwrap();
/// assert_eq!(back, part);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Part {
    /// What it holds.
    pub kind: PartKind,
    /// Free-form metadata (the typed tool-request state is not stored here).
    pub metadata: Option<JsonObject>,
}

impl From<PartKind> for Part {
    fn from(kind: PartKind) -> Self {
        Part {
            kind,
            metadata: None,
        }
    }
}

impl Part {
    /// A text part.
    pub fn text(text: impl Into<String>) -> Self {
        PartKind::Text(text.into()).into()
    }

    /// A media part at a URL.
    pub fn media(content_type: impl Into<String>, url: impl Into<String>) -> Self {
        PartKind::Media(Media {
            content_type: Some(content_type.into()),
            source: MediaSource::Url(url.into()),
        })
        .into()
    }

    /// A media part holding its bytes.
    pub fn inline_media(content_type: impl Into<String>, bytes: Vec<u8>) -> Self {
        PartKind::Media(Media {
            content_type: Some(content_type.into()),
            source: MediaSource::Inline(bytes),
        })
        .into()
    }

    /// A data part.
    pub fn data(value: Value) -> Self {
        PartKind::Data(value).into()
    }

    /// A reasoning part.
    pub fn reasoning(text: impl Into<String>) -> Self {
        PartKind::Reasoning(text.into()).into()
    }

    /// A custom part.
    pub fn custom(value: Value) -> Self {
        PartKind::Custom(value).into()
    }

    /// A tool request part.
    pub fn tool_request(name: impl Into<String>, reference: Option<String>, input: Value) -> Self {
        PartKind::ToolRequest(ToolRequest {
            name: name.into(),
            reference,
            input,
            ..ToolRequest::default()
        })
        .into()
    }

    /// A tool request part whose arguments arrived as text, kept as the model sent it (see
    /// [`ToolRequest::arguments_text`]); its `input` stays `null` until the loop decodes it.
    pub fn tool_request_text(
        name: impl Into<String>,
        reference: Option<String>,
        arguments: impl Into<String>,
    ) -> Self {
        PartKind::ToolRequest(ToolRequest {
            name: name.into(),
            reference,
            arguments_text: Some(arguments.into()),
            ..ToolRequest::default()
        })
        .into()
    }

    /// A tool response part.
    pub fn tool_response(
        name: impl Into<String>,
        reference: Option<String>,
        output: Option<Value>,
    ) -> Self {
        PartKind::ToolResponse(ToolResponse {
            name: name.into(),
            reference,
            output,
            content: Vec::new(),
        })
        .into()
    }

    /// The tool request this part holds.
    pub fn as_tool_request(&self) -> Option<&ToolRequest> {
        match &self.kind {
            PartKind::ToolRequest(r) => Some(r),
            _ => None,
        }
    }

    /// The tool response this part holds.
    pub fn as_tool_response(&self) -> Option<&ToolResponse> {
        match &self.kind {
            PartKind::ToolResponse(r) => Some(r),
            _ => None,
        }
    }

    /// The text this part holds.
    pub fn as_text(&self) -> Option<&str> {
        match &self.kind {
            PartKind::Text(t) => Some(t),
            _ => None,
        }
    }

    /// The reasoning text this part holds.
    pub fn as_reasoning(&self) -> Option<&str> {
        match &self.kind {
            PartKind::Reasoning(t) => Some(t),
            _ => None,
        }
    }

    /// True for a tool request whose interrupt is not yet resolved.
    pub fn is_interrupt(&self) -> bool {
        self.as_tool_request()
            .and_then(|r| r.interrupt.as_ref())
            .is_some_and(|i| !i.resolved)
    }

    /// True for a tool request carrying restart state.
    pub fn is_restart(&self) -> bool {
        self.as_tool_request().is_some_and(|r| r.restart.is_some())
    }

    /// True for a tool response the loop built from an error answered to the model.
    pub fn is_tool_error(&self) -> bool {
        self.as_tool_response().is_some() && self.meta_flag(KEY_IS_ERROR)
    }

    /// True for a tool response a caller supplied on resume.
    pub fn is_interrupt_response(&self) -> bool {
        self.as_tool_response().is_some() && self.meta_flag(KEY_INTERRUPT_RESPONSE)
    }

    /// True for a tool response replayed from pending output.
    pub fn is_pending_replay(&self) -> bool {
        self.metadata
            .as_ref()
            .and_then(|m| m.get(KEY_SOURCE))
            .and_then(Value::as_str)
            == Some("pending")
    }

    /// True for a part with nothing in it (empty text), which `attach_parts` skips.
    pub fn is_empty(&self) -> bool {
        matches!(&self.kind, PartKind::Text(t) if t.is_empty())
    }

    pub(crate) fn meta_flag(&self, key: &str) -> bool {
        self.metadata
            .as_ref()
            .and_then(|m| m.get(key))
            .is_some_and(truthy)
    }

    pub(crate) fn set_meta(&mut self, key: &str, value: Value) {
        self.metadata
            .get_or_insert_with(Map::new)
            .insert(key.to_owned(), value);
    }

    /// Builds a restart directive for this interrupted request: `resume` is the data the
    /// raising stage reads (`None` for a bare restart).
    ///
    /// ```
    /// use serde_json::json;
    /// use submit_agent::message::{Interrupt, Part, PartKind};
    ///
    /// let mut part = Part::tool_request("transfer", Some("1".into()), json!({"amount": 200}));
    /// if let PartKind::ToolRequest(r) = &mut part.kind {
    ///     r.interrupt = Some(Interrupt::default());
    /// }
    /// let restart = part.to_tool_restart(Some(json!({"approved": true}))).unwrap();
    /// assert!(restart.is_restart());
    /// ```
    pub fn to_tool_restart(&self, resume: Option<Value>) -> Result<Part, PartError> {
        self.restart_part(None, resume)
    }

    /// Builds a restart directive that also replaces the input.
    pub fn to_tool_restart_with_input(
        &self,
        input: Value,
        resume: Option<Value>,
    ) -> Result<Part, PartError> {
        self.restart_part(Some(input), resume)
    }

    /// Builds a respond directive answering this interrupted request with `output`.
    pub fn to_tool_response(&self, output: Value) -> Result<Part, PartError> {
        let request = self.interrupted_request()?;
        let mut part = Part::tool_response(
            request.name.clone(),
            request.reference.clone(),
            Some(output),
        );
        part.set_meta(KEY_INTERRUPT_RESPONSE, Value::Bool(true));
        Ok(part)
    }

    fn interrupted_request(&self) -> Result<&ToolRequest, PartError> {
        match self.as_tool_request() {
            Some(r) if r.interrupt.as_ref().is_some_and(|i| !i.resolved) => Ok(r),
            _ => Err(PartError::NotInterrupted),
        }
    }

    fn restart_part(&self, input: Option<Value>, resume: Option<Value>) -> Result<Part, PartError> {
        let request = self.interrupted_request()?;
        let resume = match resume {
            None | Some(Value::Null) => None,
            Some(Value::Object(m)) => Some(Value::Object(m)),
            Some(other) => {
                return Err(PartError::ResumeNotObject(JsonType::of(&other).as_str()));
            }
        };
        // A replaced input is a value; the text the model sent stays with the input it was.
        let (input, arguments_text, original_input) = match input {
            Some(new) => (new, None, Some(request.input_value().into_owned())),
            None => (request.input.clone(), request.arguments_text.clone(), None),
        };
        Ok(Part {
            kind: PartKind::ToolRequest(ToolRequest {
                name: request.name.clone(),
                reference: request.reference.clone(),
                input,
                arguments_text,
                interrupt: None,
                restart: Some(Restart {
                    resume,
                    original_input,
                }),
                pending: None,
            }),
            metadata: self.metadata.clone(),
        })
    }
}

/// Why a directive could not be built from a part.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PartError {
    /// The part is not a tool request with an unresolved interrupt.
    #[error("part is not an interrupted tool request: build directives from a part of the response's interrupts")]
    NotInterrupted,
    /// The resume data is not a JSON object.
    #[error("resume data must be a JSON object (a struct or map), got {0}: wrap the value in a struct field")]
    ResumeNotObject(&'static str),
}

/// A metadata flag on a tool response: the tool failed and the output is its error.
pub(crate) const KEY_IS_ERROR: &str = "isError";
/// A metadata flag on a tool response: it answers an interrupt.
pub(crate) const KEY_INTERRUPT_RESPONSE: &str = "interruptResponse";
/// The metadata key naming where a part came from.
pub(crate) const KEY_SOURCE: &str = "source";

/// JavaScript truthiness of a state marker: absent, `null` and `false` mean no state.
pub(crate) fn truthy(value: &Value) -> bool {
    !matches!(value, Value::Null | Value::Bool(false))
}
