//! Messages, parts, and the interrupt and restart state carried on tool requests.
//!
//! The JSON form of a part is one kind key (`text`, `media`, `data`, `reasoning`,
//! `toolRequest`, `toolResponse`, `custom`) plus an optional `metadata` object. The typed state
//! of a tool request (interrupt, restart, pending output) is folded into that metadata under
//! stable keys, so a conversation stored between an interrupt and its resume reads back as the
//! same state in another process.

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

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
/// use submit_agent::{Message, Role};
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
pub struct Media {
    /// The MIME type, when known.
    pub content_type: Option<String>,
    /// Where the bytes are.
    pub source: MediaSource,
}

/// Where a media part's bytes are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MediaSource {
    /// A URL (`https:`, `gs:`, …).
    Url(String),
    /// The bytes themselves; written as a `data:` URL in JSON.
    Inline(Vec<u8>),
}

const TOOL_CALL_DELTA: &str = "toolCallDelta";

/// A piece of a tool call being streamed: the chunk sink sees these as they arrive, before
/// the finished call; the pieces of one call share its `index` and, once known, its `id`.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct ToolCallDelta {
    /// The call's position among the answer's outputs, as the provider numbers it.
    pub index: u64,
    /// The call's id, when the provider has sent it.
    pub id: Option<String>,
    /// The tool's name, when the provider has sent it.
    pub name: Option<String>,
    /// The next piece of the arguments' JSON text.
    pub arguments: String,
}

/// A tool call the model asked for.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ToolRequest {
    /// The tool's name.
    pub name: String,
    /// The call's reference, unique in its message (the loop assigns one when missing).
    pub reference: Option<String>,
    /// The arguments.
    pub input: Value,
    /// Interrupt state: set when the call paused the run.
    pub interrupt: Option<Interrupt>,
    /// Restart state: set on a directive that re-runs an interrupted call.
    pub restart: Option<Restart>,
    /// The outcome of a call that completed in a round that other calls interrupted.
    pub pending: Option<PendingOutput>,
}

/// Why and where a tool call paused the run.
#[derive(Clone, Debug, PartialEq, Default)]
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
pub struct Restart {
    /// The resume data; `None` for a bare restart (delivered as an empty object). A value that
    /// is not an object is rejected by the resume.
    pub resume: Option<Value>,
    /// The input before the restart replaced it; `None` when the input was kept.
    pub original_input: Option<Value>,
}

/// A completed call's outcome, kept while its siblings wait for a resume.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct PendingOutput {
    /// The output.
    pub output: Option<Value>,
    /// The content parts.
    pub content: Vec<Part>,
    /// The response part's metadata.
    pub metadata: Option<JsonObject>,
}

/// A tool call's answer.
#[derive(Clone, Debug, PartialEq, Default)]
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
/// use submit_agent::Part;
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

    /// A piece of a tool call's arguments as a streaming transport received it (a custom
    /// part of type `toolCallDelta`; see [`ToolCallDelta`]).
    pub fn tool_call_delta(delta: ToolCallDelta) -> Self {
        let mut m = Map::new();
        m.insert("type".into(), Value::String(TOOL_CALL_DELTA.into()));
        m.insert("index".into(), Value::from(delta.index));
        if let Some(id) = delta.id {
            m.insert("id".into(), Value::String(id));
        }
        if let Some(name) = delta.name {
            m.insert("name".into(), Value::String(name));
        }
        m.insert("arguments".into(), Value::String(delta.arguments));
        PartKind::Custom(Value::Object(m)).into()
    }

    /// The tool-call argument delta this part holds.
    pub fn as_tool_call_delta(&self) -> Option<ToolCallDelta> {
        let PartKind::Custom(v) = &self.kind else {
            return None;
        };
        if v.get("type").and_then(Value::as_str) != Some(TOOL_CALL_DELTA) {
            return None;
        }
        let text = |key: &str| v.get(key).and_then(Value::as_str).map(str::to_owned);
        Some(ToolCallDelta {
            index: v.get("index").and_then(Value::as_u64)?,
            id: text("id"),
            name: text("name"),
            arguments: text("arguments").unwrap_or_default(),
        })
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
    /// use submit_agent::{Interrupt, Part, PartKind};
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
                return Err(PartError::ResumeNotObject(json_type(&other)));
            }
        };
        let (input, original_input) = match input {
            Some(new) => (new, Some(request.input.clone())),
            None => (request.input.clone(), None),
        };
        Ok(Part {
            kind: PartKind::ToolRequest(ToolRequest {
                name: request.name.clone(),
                reference: request.reference.clone(),
                input,
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
pub enum PartError {
    /// The part is not a tool request with an unresolved interrupt.
    #[error("part is not an interrupted tool request: build directives from a part of the response's interrupts")]
    NotInterrupted,
    /// The resume data is not a JSON object.
    #[error("resume data must be a JSON object (a struct or map), got {0}: wrap the value in a struct field")]
    ResumeNotObject(&'static str),
}

/// The JSON type name of a value, as error messages name it.
pub(crate) fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

// ---- wire form ----

const KEY_INTERRUPT: &str = "interrupt";
const KEY_RESOLVED: &str = "resolvedInterrupt";
const KEY_INTERRUPTED_BY: &str = "interruptedBy";
const KEY_RELEASED_BY: &str = "releasedBy";
const KEY_RESUMED: &str = "resumed";
const KEY_REPLACED_INPUT: &str = "replacedInput";
const KEY_PENDING_OUTPUT: &str = "pendingOutput";
const KEY_PENDING_CONTENT: &str = "pendingContent";
const KEY_PENDING_METADATA: &str = "pendingMetadata";
pub(crate) const KEY_IS_ERROR: &str = "isError";
pub(crate) const KEY_INTERRUPT_RESPONSE: &str = "interruptResponse";
pub(crate) const KEY_SOURCE: &str = "source";

const STATE_KEYS: [&str; 9] = [
    KEY_INTERRUPT,
    KEY_RESOLVED,
    KEY_INTERRUPTED_BY,
    KEY_RELEASED_BY,
    KEY_RESUMED,
    KEY_REPLACED_INPUT,
    KEY_PENDING_OUTPUT,
    KEY_PENDING_CONTENT,
    KEY_PENDING_METADATA,
];

/// JavaScript truthiness of a state marker: absent, `null` and `false` mean no state.
fn truthy(value: &Value) -> bool {
    !matches!(value, Value::Null | Value::Bool(false))
}

fn strip_state_keys(metadata: &Option<JsonObject>) -> Option<JsonObject> {
    metadata.as_ref().map(|m| {
        m.iter()
            .filter(|(k, _)| !STATE_KEYS.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    })
}

impl Part {
    fn to_wire(&self) -> Value {
        let mut out = Map::new();
        let mut metadata = self.metadata.clone();
        match &self.kind {
            PartKind::Text(t) => {
                out.insert("text".into(), Value::String(t.clone()));
            }
            PartKind::Reasoning(t) => {
                out.insert("reasoning".into(), Value::String(t.clone()));
            }
            PartKind::Data(v) => {
                out.insert("data".into(), v.clone());
            }
            PartKind::Custom(v) => {
                out.insert("custom".into(), v.clone());
            }
            PartKind::Media(m) => {
                let mut media = Map::new();
                if let Some(ct) = &m.content_type {
                    media.insert("contentType".into(), Value::String(ct.clone()));
                }
                let url = match &m.source {
                    MediaSource::Url(u) => u.clone(),
                    MediaSource::Inline(bytes) => format!(
                        "data:{};base64,{}",
                        m.content_type
                            .as_deref()
                            .unwrap_or("application/octet-stream"),
                        base64_encode(bytes)
                    ),
                };
                media.insert("url".into(), Value::String(url));
                out.insert("media".into(), Value::Object(media));
            }
            PartKind::ToolRequest(r) => {
                let mut req = Map::new();
                req.insert("name".into(), Value::String(r.name.clone()));
                if let Some(reference) = &r.reference {
                    req.insert("ref".into(), Value::String(reference.clone()));
                }
                req.insert("input".into(), r.input.clone());
                out.insert("toolRequest".into(), Value::Object(req));
                let mut m = strip_state_keys(&metadata).unwrap_or_default();
                if let Some(i) = &r.interrupt {
                    let payload = i.data.clone().map_or(Value::Bool(true), Value::Object);
                    let key = if i.resolved {
                        KEY_RESOLVED
                    } else {
                        KEY_INTERRUPT
                    };
                    m.insert(key.into(), payload);
                    if let Some(by) = &i.raised_by {
                        m.insert(KEY_INTERRUPTED_BY.into(), Value::String(by.clone()));
                    }
                    if !i.released_by.is_empty() {
                        m.insert(
                            KEY_RELEASED_BY.into(),
                            Value::Array(
                                i.released_by.iter().cloned().map(Value::String).collect(),
                            ),
                        );
                    }
                }
                if let Some(rs) = &r.restart {
                    m.insert(
                        KEY_RESUMED.into(),
                        rs.resume.clone().unwrap_or(Value::Bool(true)),
                    );
                    if let Some(orig) = &rs.original_input {
                        m.insert(KEY_REPLACED_INPUT.into(), orig.clone());
                    }
                }
                if let Some(p) = &r.pending {
                    m.insert(
                        KEY_PENDING_OUTPUT.into(),
                        p.output.clone().unwrap_or(Value::Null),
                    );
                    if !p.content.is_empty() {
                        m.insert(
                            KEY_PENDING_CONTENT.into(),
                            Value::Array(p.content.iter().map(Part::to_wire).collect()),
                        );
                    }
                    if let Some(pm) = &p.metadata {
                        m.insert(KEY_PENDING_METADATA.into(), Value::Object(pm.clone()));
                    }
                }
                metadata = (!m.is_empty()).then_some(m);
            }
            PartKind::ToolResponse(r) => {
                let mut resp = Map::new();
                resp.insert("name".into(), Value::String(r.name.clone()));
                if let Some(reference) = &r.reference {
                    resp.insert("ref".into(), Value::String(reference.clone()));
                }
                if let Some(output) = &r.output {
                    resp.insert("output".into(), output.clone());
                }
                if !r.content.is_empty() {
                    resp.insert(
                        "content".into(),
                        Value::Array(r.content.iter().map(Part::to_wire).collect()),
                    );
                }
                out.insert("toolResponse".into(), Value::Object(resp));
            }
        }
        if let Some(m) = metadata {
            out.insert("metadata".into(), Value::Object(m));
        }
        Value::Object(out)
    }

    fn from_wire(value: Value) -> Result<Part, String> {
        let Value::Object(mut obj) = value else {
            return Err(format!(
                "a part must be a JSON object, got {}",
                json_type(&value)
            ));
        };
        let metadata = match obj.remove("metadata") {
            None | Some(Value::Null) => None,
            Some(Value::Object(m)) => Some(m),
            Some(other) => {
                return Err(format!(
                    "part metadata must be a JSON object, got {}",
                    json_type(&other)
                ))
            }
        };
        let kinds = [
            "text",
            "media",
            "data",
            "reasoning",
            "toolRequest",
            "toolResponse",
            "custom",
        ];
        let mut found = kinds.iter().filter(|k| obj.contains_key(**k));
        let (Some(kind), None) = (found.next(), found.next()) else {
            return Err(
                "a part holds exactly one of text, media, data, reasoning, toolRequest, toolResponse, custom"
                    .into(),
            );
        };
        if let Some(extra) = obj.keys().find(|k| k.as_str() != *kind) {
            return Err(format!("field {extra} is not valid on a {kind} part"));
        }
        let body = obj.remove(*kind).unwrap_or(Value::Null);
        let kind = match *kind {
            "text" => PartKind::Text(string_field(body, "text")?),
            "reasoning" => PartKind::Reasoning(string_field(body, "reasoning")?),
            "data" => PartKind::Data(body),
            "custom" => PartKind::Custom(body),
            "media" => PartKind::Media(media_from_wire(body)?),
            "toolRequest" => {
                let mut r = request_from_wire(body)?;
                let metadata = lift_request_state(&mut r, metadata)?;
                return Ok(Part {
                    kind: PartKind::ToolRequest(r),
                    metadata,
                });
            }
            _ => PartKind::ToolResponse(response_from_wire(body)?),
        };
        Ok(Part { kind, metadata })
    }
}

fn string_field(value: Value, what: &str) -> Result<String, String> {
    match value {
        Value::String(s) => Ok(s),
        other => Err(format!(
            "{what} must be a string, got {}",
            json_type(&other)
        )),
    }
}

fn object(value: Value, what: &str) -> Result<JsonObject, String> {
    match value {
        Value::Object(m) => Ok(m),
        other => Err(format!(
            "{what} must be an object, got {}",
            json_type(&other)
        )),
    }
}

fn opt_string(obj: &mut JsonObject, key: &str, what: &str) -> Result<Option<String>, String> {
    match obj.remove(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(format!(
            "{what}.{key} must be a string, got {}",
            json_type(&other)
        )),
    }
}

fn media_from_wire(value: Value) -> Result<Media, String> {
    let mut obj = object(value, "media")?;
    let content_type = opt_string(&mut obj, "contentType", "media")?;
    let url =
        opt_string(&mut obj, "url", "media")?.ok_or_else(|| "media.url is required".to_owned())?;
    let source = match url.strip_prefix("data:").and_then(|rest| {
        let (head, body) = rest.split_once(',')?;
        head.ends_with(";base64")
            .then(|| base64_decode(body))
            .flatten()
    }) {
        Some(bytes) => MediaSource::Inline(bytes),
        None => MediaSource::Url(url),
    };
    Ok(Media {
        content_type,
        source,
    })
}

fn request_from_wire(value: Value) -> Result<ToolRequest, String> {
    let mut obj = object(value, "toolRequest")?;
    let name = opt_string(&mut obj, "name", "toolRequest")?
        .ok_or_else(|| "toolRequest.name is required".to_owned())?;
    let reference = opt_string(&mut obj, "ref", "toolRequest")?;
    let input = obj.remove("input").unwrap_or(Value::Null);
    Ok(ToolRequest {
        name,
        reference,
        input,
        ..ToolRequest::default()
    })
}

fn response_from_wire(value: Value) -> Result<ToolResponse, String> {
    let mut obj = object(value, "toolResponse")?;
    let name = opt_string(&mut obj, "name", "toolResponse")?
        .ok_or_else(|| "toolResponse.name is required".to_owned())?;
    let reference = opt_string(&mut obj, "ref", "toolResponse")?;
    let output = obj.remove("output");
    let content = match obj.remove("content") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items
            .into_iter()
            .map(Part::from_wire)
            .collect::<Result<_, _>>()?,
        Some(other) => {
            return Err(format!(
                "toolResponse.content must be an array, got {}",
                json_type(&other)
            ))
        }
    };
    Ok(ToolResponse {
        name,
        reference,
        output,
        content,
    })
}

fn lift_request_state(
    r: &mut ToolRequest,
    metadata: Option<JsonObject>,
) -> Result<Option<JsonObject>, String> {
    let Some(mut m) = metadata else {
        return Ok(None);
    };
    let interrupt_payload = |v: Value, key: &str| -> Result<Option<JsonObject>, String> {
        match v {
            Value::Bool(true) => Ok(None),
            Value::Object(o) => Ok(Some(o)),
            other => Err(format!(
                "metadata.{key} must be true or a JSON object, got {}",
                json_type(&other)
            )),
        }
    };
    let (interrupt, resolved) = match (m.remove(KEY_INTERRUPT), m.remove(KEY_RESOLVED)) {
        (Some(v), _) if truthy(&v) => (Some(interrupt_payload(v, KEY_INTERRUPT)?), false),
        (_, Some(v)) if truthy(&v) => (Some(interrupt_payload(v, KEY_RESOLVED)?), true),
        _ => (None, false),
    };
    let raised_by = opt_string(&mut m, KEY_INTERRUPTED_BY, "metadata")?;
    let released_by = match m.remove(KEY_RELEASED_BY) {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items
            .into_iter()
            .map(|v| string_field(v, "metadata.releasedBy[]"))
            .collect::<Result<_, _>>()?,
        Some(other) => {
            return Err(format!(
                "metadata.releasedBy must be an array, got {}",
                json_type(&other)
            ))
        }
    };
    if let Some(data) = interrupt {
        r.interrupt = Some(Interrupt {
            data,
            resolved,
            raised_by,
            released_by,
        });
    }
    let original_input = m.remove(KEY_REPLACED_INPUT);
    if let Some(v) = m.remove(KEY_RESUMED) {
        if truthy(&v) {
            r.restart = Some(Restart {
                resume: (v != Value::Bool(true)).then_some(v),
                original_input,
            });
        }
    }
    if let Some(output) = m.remove(KEY_PENDING_OUTPUT) {
        let content = match m.remove(KEY_PENDING_CONTENT) {
            Some(Value::Array(items)) => items
                .into_iter()
                .map(Part::from_wire)
                .collect::<Result<_, _>>()?,
            _ => Vec::new(),
        };
        let metadata = match m.remove(KEY_PENDING_METADATA) {
            Some(Value::Object(o)) => Some(o),
            _ => None,
        };
        r.pending = Some(PendingOutput {
            output: (!output.is_null()).then_some(output),
            content,
            metadata,
        });
    }
    m.remove(KEY_PENDING_CONTENT);
    m.remove(KEY_PENDING_METADATA);
    Ok((!m.is_empty()).then_some(m))
}

impl Serialize for Part {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_wire().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Part {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        Part::from_wire(value).map_err(D::Error::custom)
    }
}

fn base64_encode(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

fn base64_decode(text: &str) -> Option<Vec<u8>> {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.decode(text).ok()
}

/// A streamed piece of a response.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Chunk {
    /// Who produced it; the loop labels model chunks `model` and tool chunks `tool`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<Role>,
    /// The index of the message it belongs to in the response stream.
    #[serde(default)]
    pub index: usize,
    /// Its parts.
    pub content: Vec<Part>,
}

impl Chunk {
    /// A chunk with a role and content; the loop sets the index.
    pub fn new(role: Option<Role>, content: Vec<Part>) -> Self {
        Chunk {
            role,
            index: 0,
            content,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tool_request_state_round_trips_through_json() {
        let part = Part {
            kind: PartKind::ToolRequest(ToolRequest {
                name: "transfer".into(),
                reference: Some("r1".into()),
                input: json!({"amount": 5}),
                interrupt: Some(Interrupt {
                    data: Some(json!({"reason": "large"}).as_object().cloned().unwrap()),
                    resolved: false,
                    raised_by: Some("gate".into()),
                    released_by: vec!["outer".into()],
                }),
                restart: None,
                pending: Some(PendingOutput {
                    output: Some(json!(3)),
                    content: vec![Part::text("x")],
                    metadata: None,
                }),
            }),
            metadata: Some(json!({"custom": 1}).as_object().cloned().unwrap()),
        };
        let json = serde_json::to_value(&part).unwrap();
        assert_eq!(json["metadata"]["interrupt"], json!({"reason": "large"}));
        assert_eq!(json["metadata"]["interruptedBy"], json!("gate"));
        let back: Part = serde_json::from_value(json).unwrap();
        assert_eq!(back, part);
    }

    #[test]
    fn inline_media_round_trips_as_data_url() {
        let part = Part::inline_media("image/png", vec![0, 1, 2, 250, 251]);
        let json = serde_json::to_value(&part).unwrap();
        assert!(json["media"]["url"]
            .as_str()
            .unwrap()
            .starts_with("data:image/png;base64,"));
        let back: Part = serde_json::from_value(json).unwrap();
        assert_eq!(back, part);
    }

    #[test]
    fn resumed_false_is_not_a_restart() {
        let part: Part = serde_json::from_value(
            json!({"toolRequest": {"name": "t", "input": {}}, "metadata": {"resumed": false, "interrupt": null}}),
        )
        .unwrap();
        assert!(!part.is_restart());
        assert!(!part.is_interrupt());
    }

    #[test]
    fn foreign_field_on_a_part_is_rejected() {
        let err = serde_json::from_value::<Part>(json!({"text": "a", "url": "b"})).unwrap_err();
        assert!(err
            .to_string()
            .contains("field url is not valid on a text part"));
    }
}
