//! Anthropic Messages (`POST /v1/messages`).

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer};
use serde_json::{json, Map, Value};
use submit_core::Provider;

use super::client::api::Adapter;
use super::http::remote_error;
use super::sse::{emit, emit_delta, Assemble};
use super::wire::{
    input_object, media_url, meta, mime, output_text, system_text, tagged, untouched, with_meta,
    Tagged,
};
use super::{Api, Transport, TransportError};
use crate::message::{Media, MediaSource, Message, Part, PartKind, Role};
use crate::model::stream::ModelStream;
use crate::model::{FinishReason, ModelRequest, ModelResponse, ToolChoice};

const PROVIDER: Provider = Provider::Claude;
/// Part metadata namespace holding thinking signatures and redacted thinking.
const NS: &str = "claude";

/// The Anthropic Messages API (`POST /v1/messages`) as a [`Model`](crate::model::Model).
///
/// A streamed call's arguments (`input_json_delta` pieces) are kept as the text the model
/// sent ([`ToolRequest::arguments_text`](crate::message::ToolRequest::arguments_text)); a whole answer's
/// `input` is its JSON object.
///
/// ```
/// use submit_agent::transport::Claude;
/// use submit_agent::{message::Message, model::ModelRequest};
///
/// let model = Claude::new("claude-sonnet-4-5").api_key("sk-test").max_tokens(512);
/// let request = ModelRequest::new([Message::system("Be brief."), Message::user("Hi")]);
/// let body = model.request_body(&request, false).unwrap();
/// assert_eq!(body["system"], "Be brief.");
/// assert_eq!(body["messages"][0]["content"][0]["text"], "Hi");
/// assert!(!format!("{model:?}").contains("sk-test"));
/// ```
pub type Claude = Transport<MessagesApi>;

/// What Anthropic Messages holds of a request: the model, its output limit and its thinking
/// budget.
#[derive(Clone, Debug)]
pub struct MessagesApi {
    model: String,
    max_tokens: u32,
    thinking_budget: Option<u32>,
}

impl Transport<MessagesApi> {
    /// The API version header sent.
    pub const API_VERSION: &'static str = "2023-06-01";

    /// A transport for `model`, keyed from `ANTHROPIC_API_KEY`, 4096 output tokens.
    pub fn new(model: impl Into<String>) -> Self {
        Transport::with_api(MessagesApi {
            model: model.into(),
            max_tokens: 4096,
            thinking_budget: None,
        })
    }

    /// Sets `max_tokens`.
    pub fn max_tokens(mut self, tokens: u32) -> Self {
        self.api.max_tokens = tokens;
        self
    }

    /// Turns extended thinking on with this token budget. Anthropic then refuses a forced
    /// tool choice: pass [`forbids_forced_tool_choice`](Claude::forbids_forced_tool_choice) to
    /// the executor's `forbid_forced_tool_choice`; a forced choice that still arrives is sent
    /// as `auto` plus an instruction to call the tool.
    pub fn thinking(mut self, budget_tokens: u32) -> Self {
        self.api.thinking_budget = Some(budget_tokens);
        self
    }

    /// Whether this configuration refuses a forced tool choice (extended thinking is on).
    pub fn forbids_forced_tool_choice(&self) -> bool {
        self.api.thinking_budget.is_some()
    }
}

impl Api for MessagesApi {
    const PROVIDER: Provider = PROVIDER;
    const KEY_VARIABLE: &'static str = "ANTHROPIC_API_KEY";
    const BASE_URL: &'static str = "https://api.anthropic.com";
}

impl Adapter for MessagesApi {
    type Answer = Answer;
    type Assembler = Assembler;

    fn url(&self, base_url: &str, _stream: bool) -> String {
        format!("{base_url}/v1/messages")
    }

    fn headers(key: &str) -> Vec<(&'static str, String)> {
        vec![
            ("x-api-key", key.to_owned()),
            ("anthropic-version", Claude::API_VERSION.to_owned()),
        ]
    }

    fn body(&self, request: &ModelRequest, stream: bool) -> Result<Value, TransportError> {
        let mut body = Map::new();
        body.insert("model".into(), json!(self.model));
        body.insert("max_tokens".into(), json!(self.max_tokens));
        if let Some(system) = system_text(PROVIDER, &request.messages)? {
            body.insert("system".into(), json!(system));
        }
        let mut messages = convert_messages(&request.messages)?;
        if !request.tools.is_empty() {
            let tools: Vec<Value> = request
                .tools
                .iter()
                .map(|t| {
                    if let Some(exact) = t.wire_definition(Provider::Claude) {
                        return exact.clone();
                    }
                    json!({
                        "name": t.name,
                        "description": t.description,
                        "input_schema": t.input_schema,
                    })
                })
                .collect();
            body.insert("tools".into(), Value::Array(tools));
            let forced = match &request.tool_choice {
                ToolChoice::Tool(name) => Some(format!("Call the {name} tool now.")),
                ToolChoice::Required => Some("Call one of the tools now.".to_owned()),
                _ => None,
            };
            let choice = match (&request.tool_choice, &forced, self.thinking_budget) {
                (_, Some(instruction), Some(_)) => {
                    // Extended thinking refuses forcing: auto plus an instruction.
                    push_instruction(&mut messages, instruction);
                    json!({"type": "auto"})
                }
                (ToolChoice::Auto, _, _) => json!({"type": "auto"}),
                (ToolChoice::Required, _, _) => json!({"type": "any"}),
                (ToolChoice::None, _, _) => json!({"type": "none"}),
                (ToolChoice::Tool(name), _, _) => json!({"type": "tool", "name": name}),
            };
            body.insert("tool_choice".into(), choice);
        }
        body.insert("messages".into(), Value::Array(messages));
        if let Some(budget) = self.thinking_budget {
            body.insert(
                "thinking".into(),
                json!({"type": "enabled", "budget_tokens": budget}),
            );
        }
        if stream {
            body.insert("stream".into(), json!(true));
        }
        Ok(Value::Object(body))
    }

    fn parse_response(answer: Answer) -> Result<ModelResponse, TransportError> {
        parse_response(answer)
    }
}

fn push_instruction(messages: &mut Vec<Value>, instruction: &str) {
    let block = json!({"type": "text", "text": instruction});
    match messages.last_mut() {
        Some(last) if last["role"] == "user" => {
            if let Some(content) = last.get_mut("content").and_then(Value::as_array_mut) {
                content.push(block);
            }
        }
        _ => messages.push(json!({"role": "user", "content": [block]})),
    }
}

fn media_block(media: &Media) -> Result<Value, TransportError> {
    let content_type = mime(PROVIDER, media)?;
    let source = match &media.source {
        MediaSource::Inline(_) => {
            let url = media_url(PROVIDER, media)?;
            let data = url.split_once(',').map(|(_, d)| d).unwrap_or_default();
            json!({"type": "base64", "media_type": content_type, "data": data})
        }
        MediaSource::Url(url) => json!({"type": "url", "url": url}),
    };
    let kind = if content_type.starts_with("image/") {
        "image"
    } else if content_type == "application/pdf" {
        "document"
    } else {
        return Err(TransportError::refused(PROVIDER, format!(
            "Anthropic accepts images and PDF documents, not {content_type}: convert the part or send it as text"
        )));
    };
    Ok(json!({"type": kind, "source": source}))
}

/// One part as content blocks (none for parts the role does not send back).
fn blocks(part: &Part, role: Role, out: &mut Vec<Value>) -> Result<(), TransportError> {
    match &part.kind {
        PartKind::Text(t) => {
            if !t.is_empty() {
                out.push(json!({"type": "text", "text": t}));
            }
        }
        PartKind::Media(m) => out.push(media_block(m)?),
        PartKind::Data(v) => out.push(json!({"type": "text", "text": v.to_string()})),
        PartKind::Custom(v) => out.push(v.clone()),
        PartKind::Reasoning(text) => {
            // Thinking goes back only on the model's turns, with its signature.
            if role != Role::Model {
                return Ok(());
            }
            if let Some(data) = meta(part, NS, "redactedThinking") {
                out.push(json!({"type": "redacted_thinking", "data": data}));
            } else if let Some(signature) = meta(part, NS, "signature") {
                out.push(json!({"type": "thinking", "thinking": text, "signature": signature}));
            }
        }
        PartKind::ToolRequest(r) => {
            let id = r.reference.clone().unwrap_or_default();
            out.push(json!({
                "type": "tool_use",
                "id": id,
                "name": r.name,
                "input": input_object(r),
            }));
        }
        PartKind::ToolResponse(r) => {
            let mut content = Vec::new();
            let text = output_text(r.output.as_ref());
            if !text.is_empty() {
                content.push(json!({"type": "text", "text": text}));
            }
            for extra in &r.content {
                match &extra.kind {
                    PartKind::ToolResponse(_) | PartKind::ToolRequest(_) => {
                        return Err(TransportError::refused(
                            PROVIDER,
                            "a tool result cannot hold tool calls or results",
                        ))
                    }
                    _ => blocks(extra, Role::Tool, &mut content)?,
                }
            }
            let mut block = json!({
                "type": "tool_result",
                "tool_use_id": r.reference.clone().unwrap_or_default(),
            });
            if !content.is_empty() {
                block["content"] = Value::Array(content);
            }
            if part.is_tool_error() {
                block["is_error"] = json!(true);
            }
            out.push(block);
        }
    }
    Ok(())
}

fn convert_messages<M: std::borrow::Borrow<Message>>(
    messages: &[M],
) -> Result<Vec<Value>, TransportError> {
    let mut out: Vec<(&'static str, Vec<Value>)> = Vec::new();
    for message in messages {
        let message: &Message = message.borrow();
        let role = match message.role {
            Role::System => continue,
            Role::Model => "assistant",
            Role::User | Role::Tool => "user",
        };
        let mut content = Vec::new();
        for part in &message.content {
            blocks(part, message.role, &mut content)?;
        }
        if content.is_empty() {
            continue;
        }
        // Consecutive messages of one role merge: tool results then a user nudge.
        match out.last_mut() {
            Some((r, c)) if *r == role => c.extend(content),
            _ => out.push((role, content)),
        }
    }
    Ok(out
        .into_iter()
        .map(|(role, content)| json!({"role": role, "content": content}))
        .collect())
}

/// A Messages API answer: a message, or an error (`"type": "error"`).
#[derive(Debug, Default, Deserialize)]
pub struct Answer {
    #[serde(default, rename = "type")]
    kind: Option<String>,
    #[serde(default)]
    error: Option<Value>,
    #[serde(default)]
    content: Option<Vec<Block>>,
    #[serde(default)]
    stop_reason: Option<String>,
    #[serde(default)]
    usage: Usage,
}

/// Token counts; `null` counts are none.
#[derive(Clone, Copy, Debug, Default, Deserialize)]
pub struct Usage {
    #[serde(default)]
    input_tokens: Option<u64>,
    #[serde(default)]
    output_tokens: Option<u64>,
    #[serde(default)]
    cache_read_input_tokens: Option<u64>,
    #[serde(default)]
    cache_creation_input_tokens: Option<u64>,
}

impl Usage {
    /// These counts, each replaced by `later`'s where it has one.
    fn update(&mut self, later: Usage) {
        let counts = [
            (&mut self.input_tokens, later.input_tokens),
            (&mut self.output_tokens, later.output_tokens),
            (
                &mut self.cache_read_input_tokens,
                later.cache_read_input_tokens,
            ),
            (
                &mut self.cache_creation_input_tokens,
                later.cache_creation_input_tokens,
            ),
        ];
        for (count, later) in counts {
            if later.is_some() {
                *count = later;
            }
        }
    }
}

/// A content block of an answer (a `content_block_start` event's too).
#[derive(Debug)]
pub enum Block {
    Text(Text),
    Thinking(Thinking),
    RedactedThinking(RedactedThinking),
    ToolUse(ToolUse),
    /// A block of another type, whole: it passes through as a custom part.
    Other(Value),
}

#[derive(Debug, Deserialize)]
pub struct Text {
    #[serde(default)]
    text: String,
}

#[derive(Debug, Deserialize)]
pub struct Thinking {
    #[serde(default)]
    thinking: String,
    #[serde(default)]
    signature: Option<String>,
}

#[derive(Debug, Deserialize)]
pub struct RedactedThinking {
    #[serde(default)]
    data: Option<Value>,
}

#[derive(Debug, Deserialize)]
pub struct ToolUse {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    name: Option<String>,
    /// The arguments object of a whole answer.
    #[serde(default)]
    input: Option<Value>,
    /// The arguments of a streamed call, as the text the model sent (`input_json_delta`).
    #[serde(skip)]
    text: Option<String>,
}

impl Tagged for Block {
    fn variant<'de, D: Deserializer<'de>>(tag: &str, rest: D) -> Result<Self, D::Error> {
        Ok(match tag {
            "text" => Block::Text(Text::deserialize(rest)?),
            "thinking" => Block::Thinking(Thinking::deserialize(rest)?),
            "redacted_thinking" => Block::RedactedThinking(RedactedThinking::deserialize(rest)?),
            "tool_use" => Block::ToolUse(ToolUse::deserialize(rest)?),
            _ => Block::Other(untouched(tag, rest)?),
        })
    }
}

impl<'de> Deserialize<'de> for Block {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        tagged(deserializer)
    }
}

/// One event of a streamed answer.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    MessageStart {
        message: StartedMessage,
    },
    ContentBlockStart {
        index: u64,
        content_block: Block,
    },
    ContentBlockDelta {
        index: u64,
        #[serde(default)]
        delta: Delta,
    },
    ContentBlockStop {
        index: u64,
    },
    MessageDelta {
        #[serde(default)]
        delta: MessageDelta,
        #[serde(default)]
        usage: Option<Usage>,
    },
    MessageStop,
    Error {
        #[serde(default)]
        error: Value,
    },
    /// `ping`, and event types added later: nothing to assemble.
    #[serde(other)]
    Other,
}

/// The message a stream starts with: its blocks follow as events.
#[derive(Debug, Deserialize)]
pub struct StartedMessage {
    #[serde(default)]
    stop_reason: Option<String>,
    #[serde(default)]
    usage: Usage,
}

/// What a `message_delta` event changes.
#[derive(Debug, Default, Deserialize)]
pub struct MessageDelta {
    #[serde(default)]
    stop_reason: Option<String>,
}

/// A piece of a content block.
#[derive(Debug, Default, Deserialize)]
#[serde(tag = "type")]
pub enum Delta {
    #[serde(rename = "text_delta")]
    Text {
        #[serde(default)]
        text: String,
    },
    #[serde(rename = "thinking_delta")]
    Thinking {
        #[serde(default)]
        thinking: String,
    },
    #[serde(rename = "signature_delta")]
    Signature {
        #[serde(default)]
        signature: String,
    },
    #[serde(rename = "input_json_delta")]
    InputJson {
        #[serde(default)]
        partial_json: String,
    },
    /// Delta types added later.
    #[default]
    #[serde(other)]
    Other,
}

/// Reads a Messages API answer into a response.
fn parse_response(answer: Answer) -> Result<ModelResponse, TransportError> {
    if answer.kind.as_deref() == Some("error") {
        return Err(remote_error(PROVIDER, &answer.error.unwrap_or(Value::Null)));
    }
    let Some(content) = answer.content else {
        return Err(TransportError::shape(
            PROVIDER,
            "the answer has no content array",
        ));
    };
    let mut parts = Vec::with_capacity(content.len());
    for block in content {
        parts.push(match block {
            Block::Text(b) => Part::text(b.text),
            Block::Thinking(b) => {
                let mut m = Map::new();
                if let Some(s) = b.signature {
                    m.insert("signature".into(), Value::String(s));
                }
                with_meta(Part::reasoning(b.thinking), NS, m)
            }
            Block::RedactedThinking(b) => {
                let mut m = Map::new();
                m.insert("redactedThinking".into(), b.data.unwrap_or(Value::Null));
                with_meta(Part::reasoning(""), NS, m)
            }
            Block::ToolUse(b) => {
                let id = b
                    .id
                    .ok_or_else(|| TransportError::shape(PROVIDER, "a tool_use block has no id"))?;
                let name = b.name.ok_or_else(|| {
                    TransportError::shape(PROVIDER, "a tool_use block has no name")
                })?;
                match b.text {
                    Some(text) => Part::tool_request_text(name, Some(id), text),
                    // Absent `input` stays absent (`null`), as the call arrived.
                    None => Part::tool_request(name, Some(id), b.input.unwrap_or(Value::Null)),
                }
            }
            Block::Other(block) => Part::custom(block),
        });
    }
    let finish_reason = match answer.stop_reason.as_deref() {
        Some("end_turn" | "tool_use" | "stop_sequence" | "pause_turn") | None => FinishReason::Stop,
        Some("max_tokens" | "model_context_window_exceeded") => FinishReason::Length,
        Some("refusal") => FinishReason::Blocked,
        Some(_) => FinishReason::Other,
    };
    let usage = answer.usage;
    let count = |n: Option<u64>| n.unwrap_or(0);
    Ok(ModelResponse {
        message: Message::model(parts),
        finish_reason,
        // `input_tokens` counts only what follows the last cache breakpoint.
        usage: crate::model::Usage {
            input_tokens: count(usage.input_tokens)
                + count(usage.cache_read_input_tokens)
                + count(usage.cache_creation_input_tokens),
            output_tokens: count(usage.output_tokens),
            cache_read_tokens: count(usage.cache_read_input_tokens),
            cache_write_tokens: count(usage.cache_creation_input_tokens),
            reasoning_tokens: 0,
        },
    })
}

/// Assembles `message_start` … `message_stop` into a Messages API answer.
#[derive(Default)]
pub struct Assembler {
    message: Option<StartedMessage>,
    blocks: BTreeMap<u64, Block>,
    /// The argument text of each call not yet stopped.
    json: BTreeMap<u64, String>,
}

impl Assemble for Assembler {
    type Event = Event;
    type Answer = Answer;

    fn event(
        &mut self,
        event: Event,
        number: usize,
        sink: &ModelStream,
    ) -> Result<bool, TransportError> {
        match event {
            Event::MessageStart { message } => self.message = Some(message),
            Event::ContentBlockStart {
                index,
                mut content_block,
            } => {
                if let Block::ToolUse(call) = &mut content_block {
                    call.input = None;
                    self.json.insert(index, String::new());
                    // The call is announced before its arguments arrive.
                    emit_delta(
                        PROVIDER,
                        sink,
                        index,
                        call.id.as_deref(),
                        call.name.as_deref(),
                        "",
                    )?;
                }
                self.blocks.insert(index, content_block);
            }
            Event::ContentBlockDelta { index, delta } => {
                let block = self.blocks.get_mut(&index).ok_or_else(|| {
                    TransportError::malformed(
                        PROVIDER,
                        format!(
                            "event {number} (content_block_delta) names block {index}, which was never started"
                        ),
                    )
                })?;
                extend(&mut self.json, index, block_kind_mut(block), delta, sink)?;
            }
            Event::ContentBlockStop { index } => {
                if let (Some(Block::ToolUse(call)), Some(text)) =
                    (self.blocks.get_mut(&index), self.json.remove(&index))
                {
                    call.text = Some(text.clone());
                    let name = call.name.clone().unwrap_or_default();
                    emit(
                        PROVIDER,
                        sink,
                        Part::tool_request_text(name, call.id.clone(), text),
                    )?;
                }
            }
            Event::MessageDelta { delta, usage } => {
                let message = self.message.as_mut().ok_or_else(|| {
                    TransportError::malformed(
                        PROVIDER,
                        format!("event {number} (message_delta) came before message_start"),
                    )
                })?;
                if delta.stop_reason.is_some() {
                    message.stop_reason = delta.stop_reason;
                }
                if let Some(usage) = usage {
                    message.usage.update(usage);
                }
            }
            Event::MessageStop => return Ok(true),
            Event::Error { error } => return Err(remote_error(PROVIDER, &error)),
            Event::Other => {}
        }
        Ok(false)
    }

    fn finish(self, complete: bool) -> Result<Answer, TransportError> {
        if !complete {
            return Err(TransportError::malformed(
                PROVIDER,
                "the stream ended before message_stop: the answer is incomplete, retry the call",
            ));
        }
        let message = self.message.ok_or_else(|| {
            TransportError::malformed(PROVIDER, "the stream has no message_start")
        })?;
        let mut blocks = self.blocks;
        // A call whose block was never stopped keeps the text that arrived.
        for (i, text) in self.json {
            if let Some(Block::ToolUse(call)) = blocks.get_mut(&i) {
                call.text = Some(text);
            }
        }
        Ok(Answer {
            kind: None,
            error: None,
            content: Some(blocks.into_values().collect()),
            stop_reason: message.stop_reason,
            usage: message.usage,
        })
    }
}

/// A started block, as a delta extends it.
enum BlockMut<'b> {
    Text(&'b mut String),
    Thinking(&'b mut Thinking),
    ToolUse(&'b ToolUse),
    Other,
}

fn block_kind_mut(block: &mut Block) -> BlockMut<'_> {
    match block {
        Block::Text(b) => BlockMut::Text(&mut b.text),
        Block::Thinking(b) => BlockMut::Thinking(b),
        Block::ToolUse(b) => BlockMut::ToolUse(b),
        Block::RedactedThinking(_) | Block::Other(_) => BlockMut::Other,
    }
}

/// Extends the started block `index` with a delta, passing its text to the sink; a call's
/// argument text goes to its buffer in `json`.
fn extend(
    json: &mut BTreeMap<u64, String>,
    index: u64,
    block: BlockMut<'_>,
    delta: Delta,
    sink: &ModelStream,
) -> Result<(), TransportError> {
    match (delta, block) {
        (Delta::Text { text }, block) => {
            if let BlockMut::Text(kept) = block {
                kept.push_str(&text);
            }
            emit(PROVIDER, sink, Part::text(text))
        }
        (Delta::Thinking { thinking }, block) => {
            if let BlockMut::Thinking(kept) = block {
                kept.thinking.push_str(&thinking);
            }
            emit(PROVIDER, sink, Part::reasoning(thinking))
        }
        (Delta::Signature { signature }, BlockMut::Thinking(kept)) => {
            kept.signature
                .get_or_insert_with(String::new)
                .push_str(&signature);
            Ok(())
        }
        (Delta::InputJson { partial_json }, BlockMut::ToolUse(call)) => {
            match json.get_mut(&index) {
                Some(buffer) => {
                    buffer.push_str(&partial_json);
                    emit_delta(
                        PROVIDER,
                        sink,
                        index,
                        call.id.as_deref(),
                        call.name.as_deref(),
                        &partial_json,
                    )
                }
                None => Ok(()),
            }
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tool::ToolDefinition;

    fn request(choice: ToolChoice) -> ModelRequest {
        ModelRequest {
            messages: vec![Message::user("go").into()],
            tools: vec![ToolDefinition {
                name: "submit_result".into(),
                description: "Submit.".into(),
                input_schema: json!({"type": "object"}),
                output_schema: None,
                resume_schema: None,
                wire: Default::default(),
            }],
            tool_choice: choice,
        }
    }

    #[test]
    fn a_message_start_whose_message_is_not_an_object_is_malformed_not_a_panic() {
        // Found by the stream fuzz target: a later message_delta wrote into the number.
        let stream = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":0}\n\n\
                      event: message_delta\ndata: {\"type\":\"message_delta\",\
                      \"delta\":{\"stop_reason\":\"tool_use\"},\"usage\":{\"output_tokens\":1}}\n\n\
                      event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
        let error = Claude::new("m")
            .decode_stream([stream.as_bytes()])
            .unwrap_err();
        assert!(
            error
                .to_string()
                .contains("event 1 (message_start) is not in the documented shape"),
            "{error}"
        );
    }

    #[test]
    fn forced_choice_is_sent_as_tool() {
        let body = Claude::new("m")
            .request_body(&request(ToolChoice::Tool("submit_result".into())), false)
            .unwrap();
        assert_eq!(
            body["tool_choice"],
            json!({"type": "tool", "name": "submit_result"})
        );
    }

    #[test]
    fn forced_choice_with_thinking_falls_back_to_auto_plus_instruction() {
        let model = Claude::new("m").thinking(2048);
        assert!(model.forbids_forced_tool_choice());
        let body = model
            .request_body(&request(ToolChoice::Tool("submit_result".into())), false)
            .unwrap();
        assert_eq!(body["tool_choice"], json!({"type": "auto"}));
        assert_eq!(
            body["messages"][0]["content"][1]["text"],
            "Call the submit_result tool now."
        );
        assert_eq!(body["thinking"]["budget_tokens"], 2048);
    }

    #[test]
    fn thinking_signature_round_trips_to_the_next_turn() {
        let answer = json!({
            "content": [
                {"type": "thinking", "thinking": "hmm", "signature": "sig-1"},
                {"type": "tool_use", "id": "toolu_1", "name": "t", "input": {"a": 1}}
            ],
            "stop_reason": "tool_use",
            "usage": {"input_tokens": 3, "output_tokens": 4}
        });
        let response = parse_response(serde_json::from_value(answer).unwrap()).unwrap();
        let messages = convert_messages(&[Message::user("q"), response.message]).unwrap();
        assert_eq!(
            messages[1]["content"][0],
            json!({"type": "thinking", "thinking": "hmm", "signature": "sig-1"})
        );
        assert_eq!(messages[1]["content"][1]["id"], "toolu_1");
    }

    #[test]
    fn unsupported_media_is_a_clear_error() {
        let mut r = request(ToolChoice::Auto);
        r.messages = vec![Message::new(
            Role::User,
            vec![Part::inline_media("audio/wav", vec![1, 2])],
        )
        .into()];
        let err = Claude::new("m").request_body(&r, false).unwrap_err();
        assert!(err.to_string().contains("not audio/wav"), "{err}");
    }
}
