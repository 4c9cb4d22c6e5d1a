//! Anthropic Messages (`POST /v1/messages`).

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};
use submit_core::Provider;

use super::client::api::Adapter;
use super::http::remote_error;
use super::sse::{emit, emit_delta, Assemble, SseEvent};
use super::wire::{
    append_text, count, input_object, media_url, meta, mime, output_text, system_text, with_meta,
};
use super::{Transport, TransportError};
use crate::message::{Media, MediaSource, Message, Part, PartKind, Role};
use crate::model::stream::ModelStream;
use crate::model::{FinishReason, ModelRequest, ModelResponse, ToolChoice, Usage};

const PROVIDER: &str = "claude";
/// Part metadata namespace holding thinking signatures and redacted thinking.
const NS: &str = "claude";
/// The member of an assembled `tool_use` block holding its streamed `input_json_delta` text
/// (the assembler's own, never in an answer; a control character keeps it apart).
const STREAMED_INPUT: &str = "\u{1}partial_json";

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
    /// The environment variable the key is read from.
    pub const API_KEY_VARIABLE: &'static str = "ANTHROPIC_API_KEY";
    /// The default base URL.
    pub const DEFAULT_BASE_URL: &'static str = "https://api.anthropic.com";
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

    /// The JSON body sent for `request`.
    pub fn request_body(
        &self,
        request: &ModelRequest,
        stream: bool,
    ) -> Result<Value, TransportError> {
        self.api.body(request, stream)
    }
}

impl Adapter for MessagesApi {
    const PROVIDER: &'static str = PROVIDER;
    const KEY_VARIABLE: &'static str = Claude::API_KEY_VARIABLE;
    const BASE_URL: &'static str = Claude::DEFAULT_BASE_URL;
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

    fn error(body: &Value) -> Option<TransportError> {
        (body.get("type").and_then(Value::as_str) == Some("error"))
            .then(|| remote_error(PROVIDER, body))
    }

    fn decode(body: Value) -> Result<ModelResponse, TransportError> {
        parse_response(body)
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

/// Reads a Messages API answer into a response.
fn parse_response(mut body: Value) -> Result<ModelResponse, TransportError> {
    // The blocks are taken out of the body, so a call's arguments move, never copied.
    let Some(Value::Array(content)) = body.get_mut("content").map(Value::take) else {
        return Err(TransportError::shape(
            PROVIDER,
            "the answer has no content array",
        ));
    };
    let mut parts = Vec::new();
    for mut block in content {
        let input = block.get_mut("input").map(Value::take);
        let kind = block.get("type").and_then(Value::as_str).unwrap_or("");
        let text = |key: &str| block.get(key).and_then(Value::as_str).unwrap_or("");
        match kind {
            "text" => parts.push(Part::text(text("text"))),
            "thinking" => {
                let mut m = Map::new();
                if let Some(s) = block.get("signature") {
                    m.insert("signature".into(), s.clone());
                }
                parts.push(with_meta(Part::reasoning(text("thinking")), NS, m));
            }
            "redacted_thinking" => {
                let mut m = Map::new();
                m.insert(
                    "redactedThinking".into(),
                    block.get("data").cloned().unwrap_or(Value::Null),
                );
                parts.push(with_meta(Part::reasoning(""), NS, m));
            }
            "tool_use" => {
                let id = block
                    .get("id")
                    .and_then(Value::as_str)
                    .ok_or_else(|| TransportError::shape(PROVIDER, "a tool_use block has no id"))?;
                let name = block.get("name").and_then(Value::as_str).ok_or_else(|| {
                    TransportError::shape(PROVIDER, "a tool_use block has no name")
                })?;
                let id = Some(id.to_owned());
                parts.push(match block.get(STREAMED_INPUT).and_then(Value::as_str) {
                    Some(text) => Part::tool_request_text(name, id, text),
                    // Absent `input` stays absent (`null`), as the call arrived.
                    None => Part::tool_request(name, id, input.unwrap_or(Value::Null)),
                });
            }
            _ => {
                if let (Some(input), Some(b)) = (input, block.as_object_mut()) {
                    b.insert("input".into(), input);
                }
                parts.push(Part::custom(block));
            }
        }
    }
    let finish_reason = match body.get("stop_reason").and_then(Value::as_str) {
        Some("end_turn" | "tool_use" | "stop_sequence" | "pause_turn") | None => FinishReason::Stop,
        Some("max_tokens" | "model_context_window_exceeded") => FinishReason::Length,
        Some("refusal") => FinishReason::Blocked,
        Some(_) => FinishReason::Other,
    };
    let usage = body.get("usage").unwrap_or(&Value::Null);
    Ok(ModelResponse {
        message: Message::model(parts),
        finish_reason,
        // `input_tokens` counts only what follows the last cache breakpoint.
        usage: Usage {
            input_tokens: count(usage, "input_tokens")
                + count(usage, "cache_read_input_tokens")
                + count(usage, "cache_creation_input_tokens"),
            output_tokens: count(usage, "output_tokens"),
            cache_read_tokens: count(usage, "cache_read_input_tokens"),
            cache_write_tokens: count(usage, "cache_creation_input_tokens"),
            reasoning_tokens: 0,
        },
    })
}

/// Assembles `message_start` … `message_stop` into a Messages API answer.
#[derive(Default)]
pub struct Assembler {
    message: Option<Value>,
    blocks: BTreeMap<u64, Value>,
    json: BTreeMap<u64, String>,
}

impl Assemble for Assembler {
    fn event(
        &mut self,
        event: &SseEvent,
        data: Value,
        sink: &ModelStream,
    ) -> Result<bool, TransportError> {
        let kind = data
            .get("type")
            .and_then(Value::as_str)
            .or(event.event.as_deref())
            .unwrap_or("")
            .to_owned();
        let index = data.get("index").and_then(Value::as_u64);
        let need_index = || {
            index.ok_or_else(|| {
                TransportError::malformed(
                    PROVIDER,
                    format!("event {} ({kind}) has no index", event.number),
                )
            })
        };
        match kind.as_str() {
            "message_start" => {
                let message = data
                    .get("message")
                    .filter(|m| m.is_object())
                    .cloned()
                    .ok_or_else(|| {
                        TransportError::malformed(
                            PROVIDER,
                            format!(
                                "event {} (message_start) has no message object",
                                event.number
                            ),
                        )
                    })?;
                self.message = Some(message);
            }
            "content_block_start" => {
                let i = need_index()?;
                let mut block = data
                    .get("content_block")
                    .filter(|b| b.is_object())
                    .cloned()
                    .ok_or_else(|| {
                        TransportError::malformed(
                            PROVIDER,
                            format!(
                                "event {} (content_block_start) has no content_block object",
                                event.number
                            ),
                        )
                    })?;
                if block["type"] == "tool_use" {
                    block["input"] = json!({});
                    self.json.insert(i, String::new());
                    // The call is announced before its arguments arrive.
                    emit_delta(sink, i, block["id"].as_str(), block["name"].as_str(), "")?;
                }
                self.blocks.insert(i, block);
            }
            "content_block_delta" => {
                let i = need_index()?;
                let delta = data.get("delta").unwrap_or(&Value::Null);
                let block = self.blocks.get_mut(&i).ok_or_else(|| {
                    TransportError::malformed(
                        PROVIDER,
                        format!(
                        "event {} (content_block_delta) names block {i}, which was never started",
                        event.number
                    ),
                    )
                })?;
                let piece = |key: &str| delta.get(key).and_then(Value::as_str).unwrap_or("");
                match delta.get("type").and_then(Value::as_str).unwrap_or("") {
                    "text_delta" => {
                        let text = piece("text");
                        append_text(block, "text", text);
                        emit(sink, Part::text(text))?;
                    }
                    "thinking_delta" => {
                        let text = piece("thinking");
                        append_text(block, "thinking", text);
                        emit(sink, Part::reasoning(text))?;
                    }
                    "signature_delta" => append_text(block, "signature", piece("signature")),
                    "input_json_delta" => {
                        if let Some(buffer) = self.json.get_mut(&i) {
                            let text = piece("partial_json");
                            buffer.push_str(text);
                            emit_delta(
                                sink,
                                i,
                                block["id"].as_str(),
                                block["name"].as_str(),
                                text,
                            )?;
                        }
                    }
                    _ => {}
                }
            }
            "content_block_stop" => {
                let i = need_index()?;
                if let (Some(block), Some(text)) = (self.blocks.get_mut(&i), self.json.remove(&i)) {
                    keep_text(block, &text);
                    let name = block["name"].as_str().unwrap_or("").to_owned();
                    let id = block["id"].as_str().map(str::to_owned);
                    emit(sink, Part::tool_request_text(name, id, text))?;
                }
            }
            "message_delta" => {
                let message = self.message.as_mut().ok_or_else(|| {
                    TransportError::malformed(
                        PROVIDER,
                        format!(
                            "event {} (message_delta) came before message_start",
                            event.number
                        ),
                    )
                })?;
                if let Some(delta) = data.get("delta").and_then(Value::as_object) {
                    for (k, v) in delta {
                        message[k] = v.clone();
                    }
                }
                if let Some(usage) = data.get("usage").and_then(Value::as_object) {
                    if !message["usage"].is_object() {
                        message["usage"] = json!({});
                    }
                    for (k, v) in usage {
                        if !v.is_null() {
                            message["usage"][k] = v.clone();
                        }
                    }
                }
            }
            "message_stop" => return Ok(true),
            "error" => return Err(remote_error(PROVIDER, &data)),
            // `ping` and event types added later carry nothing to assemble.
            _ => {}
        }
        Ok(false)
    }

    fn finish(self, complete: bool) -> Result<Value, TransportError> {
        if !complete {
            return Err(TransportError::malformed(
                PROVIDER,
                "the stream ended before message_stop: the answer is incomplete, retry the call",
            ));
        }
        let mut message = self.message.ok_or_else(|| {
            TransportError::malformed(PROVIDER, "the stream has no message_start")
        })?;
        let mut blocks = self.blocks;
        // A call whose block was never stopped keeps the text that arrived.
        for (i, text) in self.json {
            if let Some(block) = blocks.get_mut(&i) {
                keep_text(block, &text);
            }
        }
        message["content"] = Value::Array(blocks.into_values().collect());
        Ok(message)
    }
}

/// Keeps a streamed call's arguments as the text the model sent, in place of `input`: the
/// parser (or, for an ordinary tool, the loop) reads it.
fn keep_text(block: &mut Value, text: &str) {
    if let Some(b) = block.as_object_mut() {
        b.remove("input");
        b.insert(STREAMED_INPUT.to_owned(), Value::String(text.to_owned()));
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
            error.to_string().contains("has no message object"),
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
        let response = parse_response(answer).unwrap();
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
