//! OpenAI Chat Completions (`POST /v1/chat/completions`).

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::{json, Map, Value};
use submit_core::Provider;

use super::client::api::Adapter;
use super::http::remote_error;
use super::sse::{emit, emit_delta, Assemble};
use super::wire::{
    arguments_text, error_text, media_url, mime, output_text, system_text, TextArguments,
};
use super::{Api, Transport, TransportError};
use crate::message::{Message, Part, PartKind, Role};
use crate::model::stream::ModelStream;
use crate::model::{FinishReason, ModelRequest, ModelResponse, ToolChoice};

const PROVIDER: Provider = Provider::OpenAiChat;

/// The OpenAI Chat Completions API (`POST /v1/chat/completions`) as a [`Model`](crate::model::Model).
///
/// Tools are sent with `strict: false` (the definitions the loop passes are plain JSON
/// Schema); a tool carrying its exact Chat definition (the submit tool) is sent as that. Tool
/// results are text; media in a tool result is refused with an error. A call's `arguments`
/// text is kept as the model sent it ([`ToolRequest::arguments_text`](crate::message::ToolRequest::arguments_text)).
///
/// ```
/// use submit_agent::transport::OpenAiChat;
/// use submit_agent::{message::Message, model::ModelRequest};
///
/// let model = OpenAiChat::new("gpt-4.1").api_key("sk-test");
/// let request = ModelRequest::new([Message::system("Be brief."), Message::user("Hi")]);
/// let body = model.request_body(&request, false).unwrap();
/// assert_eq!(body["messages"][0], serde_json::json!({"role": "system", "content": "Be brief."}));
/// assert_eq!(body["messages"][1], serde_json::json!({"role": "user", "content": "Hi"}));
/// ```
pub type OpenAiChat = Transport<ChatCompletionsApi>;

/// What OpenAI Chat Completions holds of a request: the model and its output limit.
#[derive(Clone, Debug)]
pub struct ChatCompletionsApi {
    model: String,
    max_tokens: Option<u32>,
}

impl Transport<ChatCompletionsApi> {
    /// A transport for `model`, keyed from `OPENAI_API_KEY`.
    pub fn new(model: impl Into<String>) -> Self {
        Transport::with_api(ChatCompletionsApi {
            model: model.into(),
            max_tokens: None,
        })
    }

    /// Sets `max_completion_tokens`.
    pub fn max_tokens(mut self, tokens: u32) -> Self {
        self.api.max_tokens = Some(tokens);
        self
    }
}

impl Api for ChatCompletionsApi {
    const PROVIDER: Provider = PROVIDER;
    const KEY_VARIABLE: &'static str = "OPENAI_API_KEY";
    const BASE_URL: &'static str = "https://api.openai.com";
}

impl Adapter for ChatCompletionsApi {
    type Answer = Answer;
    type Assembler = Assembler;

    fn url(&self, base_url: &str, _stream: bool) -> String {
        format!("{base_url}/v1/chat/completions")
    }

    fn headers(key: &str) -> Vec<(&'static str, String)> {
        vec![("authorization", format!("Bearer {key}"))]
    }

    fn body(&self, request: &ModelRequest, stream: bool) -> Result<Value, TransportError> {
        let mut body = Map::new();
        body.insert("model".into(), json!(self.model));
        let mut messages = Vec::new();
        if let Some(system) = system_text(PROVIDER, &request.messages)? {
            messages.push(json!({"role": "system", "content": system}));
        }
        for message in &request.messages {
            convert(message.as_ref(), &mut messages)?;
        }
        body.insert("messages".into(), Value::Array(messages));
        if !request.tools.is_empty() {
            let tools: Vec<Value> = request
                .tools
                .iter()
                .map(|t| {
                    if let Some(exact) = t.wire_definition(Provider::OpenAiChat) {
                        return exact.clone();
                    }
                    json!({
                        "type": "function",
                        "function": {
                            "name": t.name,
                            "description": t.description,
                            "parameters": t.input_schema,
                            "strict": false,
                        }
                    })
                })
                .collect();
            body.insert("tools".into(), Value::Array(tools));
            let choice = match &request.tool_choice {
                ToolChoice::Auto => json!("auto"),
                ToolChoice::Required => json!("required"),
                ToolChoice::None => json!("none"),
                ToolChoice::Tool(name) => json!({"type": "function", "function": {"name": name}}),
            };
            body.insert("tool_choice".into(), choice);
        }
        if let Some(tokens) = self.max_tokens {
            body.insert("max_completion_tokens".into(), json!(tokens));
        }
        if stream {
            body.insert("stream".into(), json!(true));
            body.insert("stream_options".into(), json!({"include_usage": true}));
        }
        Ok(Value::Object(body))
    }

    fn parse_response(answer: Answer) -> Result<ModelResponse, TransportError> {
        parse_response(answer)
    }
}

/// A user content part.
fn user_part(part: &Part) -> Result<Option<Value>, TransportError> {
    Ok(match &part.kind {
        PartKind::Text(t) => Some(json!({"type": "text", "text": t})),
        PartKind::Data(v) => Some(json!({"type": "text", "text": v.to_string()})),
        PartKind::Custom(v) => Some(v.clone()),
        PartKind::Media(m) => {
            let content_type = mime(PROVIDER, m)?;
            if !content_type.starts_with("image/") {
                return Err(TransportError::refused(PROVIDER, format!(
                    "Chat Completions takes images in user messages, not {content_type}: use the Responses transport for files"
                )));
            }
            Some(json!({"type": "image_url", "image_url": {"url": media_url(PROVIDER, m)?}}))
        }
        PartKind::Reasoning(_) => None,
        PartKind::ToolRequest(_) | PartKind::ToolResponse(_) => return Err(TransportError::refused(PROVIDER,
            "a user message cannot hold tool calls or results: put them in model and tool messages",
        )),
    })
}

fn user_message(parts: Vec<Value>) -> Value {
    // All-text content goes as a plain string, the common form.
    if parts.iter().all(|p| p["type"] == "text") {
        let text: Vec<&str> = parts.iter().filter_map(|p| p["text"].as_str()).collect();
        json!({"role": "user", "content": text.join("\n")})
    } else {
        json!({"role": "user", "content": parts})
    }
}

fn convert(message: &Message, out: &mut Vec<Value>) -> Result<(), TransportError> {
    match message.role {
        Role::System => {}
        Role::User => {
            let mut parts = Vec::new();
            for part in &message.content {
                parts.extend(user_part(part)?);
            }
            if !parts.is_empty() {
                out.push(user_message(parts));
            }
        }
        Role::Model => {
            let mut text = String::new();
            let mut calls = Vec::new();
            for part in &message.content {
                match &part.kind {
                    PartKind::Text(t) => text.push_str(t),
                    PartKind::ToolRequest(r) => calls.push(json!({
                        "id": r.reference.clone().unwrap_or_default(),
                        "type": "function",
                        "function": {"name": r.name, "arguments": arguments_text(r)},
                    })),
                    // Chat Completions takes no reasoning or media back on assistant turns.
                    _ => {}
                }
            }
            let mut m = json!({"role": "assistant"});
            m["content"] = if text.is_empty() {
                Value::Null
            } else {
                Value::String(text)
            };
            if !calls.is_empty() {
                m["tool_calls"] = Value::Array(calls);
            }
            out.push(m);
        }
        Role::Tool => {
            let mut extra = Vec::new();
            for part in &message.content {
                let PartKind::ToolResponse(r) = &part.kind else {
                    extra.extend(user_part(part)?);
                    continue;
                };
                if r.content
                    .iter()
                    .any(|p| matches!(p.kind, PartKind::Media(_)))
                {
                    return Err(TransportError::refused(PROVIDER, format!(
                        "the result of tool {:?} holds media, which Chat Completions tool messages cannot carry: return text, or use the Claude, Gemini or Responses transport",
                        r.name
                    )));
                }
                let mut text = if part.is_tool_error() {
                    error_text(r.output.as_ref())
                } else {
                    output_text(r.output.as_ref())
                };
                for p in &r.content {
                    if let Some(t) = p.as_text() {
                        if !text.is_empty() {
                            text.push('\n');
                        }
                        text.push_str(t);
                    }
                }
                out.push(json!({
                    "role": "tool",
                    "tool_call_id": r.reference.clone().unwrap_or_default(),
                    "content": text,
                }));
            }
            if !extra.is_empty() {
                out.push(user_message(extra));
            }
        }
    }
    Ok(())
}

/// A Chat Completions answer.
#[derive(Debug, Default, Deserialize)]
pub struct Answer {
    #[serde(default)]
    error: Option<Value>,
    #[serde(default)]
    choices: Option<Vec<Choice>>,
    #[serde(default)]
    usage: Option<Usage>,
}

/// A choice of an answer; the first is read.
#[derive(Debug, Deserialize)]
pub struct Choice {
    #[serde(default)]
    message: Option<AssistantMessage>,
    #[serde(default)]
    finish_reason: Option<String>,
}

/// The assistant's message.
#[derive(Debug, Default, Deserialize)]
pub struct AssistantMessage {
    #[serde(default)]
    content: Option<String>,
    /// The reasoning some compatible servers return (DeepSeek, vLLM).
    #[serde(default)]
    reasoning_content: Option<String>,
    #[serde(default)]
    refusal: Option<String>,
    #[serde(default)]
    tool_calls: Option<Vec<ToolCall>>,
}

/// A tool call of the assistant's message.
#[derive(Debug, Deserialize)]
pub struct ToolCall {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    function: Option<FunctionCall>,
}

/// The function a tool call names; its `arguments` are the text the model sent.
#[derive(Debug, Deserialize)]
pub struct FunctionCall {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    arguments: TextArguments,
}

/// Token counts.
#[derive(Debug, Default, Deserialize)]
pub struct Usage {
    #[serde(default)]
    prompt_tokens: Option<u64>,
    #[serde(default)]
    completion_tokens: Option<u64>,
    #[serde(default)]
    prompt_tokens_details: Option<TokenDetails>,
    #[serde(default)]
    completion_tokens_details: Option<TokenDetails>,
}

/// The shares of a token count.
#[derive(Debug, Default, Deserialize)]
pub struct TokenDetails {
    #[serde(default)]
    cached_tokens: Option<u64>,
    #[serde(default)]
    reasoning_tokens: Option<u64>,
}

/// One `chat.completion.chunk` event of a streamed answer.
#[derive(Debug, Deserialize)]
pub struct Chunk {
    #[serde(default)]
    error: Option<Value>,
    #[serde(default)]
    choices: Option<Vec<ChunkChoice>>,
    #[serde(default)]
    usage: Option<Usage>,
}

/// A choice of a chunk; choice 0 is read.
#[derive(Debug, Deserialize)]
pub struct ChunkChoice {
    #[serde(default)]
    index: u64,
    #[serde(default)]
    delta: Option<ChunkDelta>,
    #[serde(default)]
    finish_reason: Option<String>,
}

/// What a chunk adds to the message.
#[derive(Debug, Deserialize)]
pub struct ChunkDelta {
    #[serde(default)]
    content: Option<String>,
    #[serde(default)]
    refusal: Option<String>,
    #[serde(default)]
    tool_calls: Option<Vec<ToolCallDelta>>,
}

/// A piece of a tool call, by its index.
#[derive(Debug, Deserialize)]
pub struct ToolCallDelta {
    #[serde(default)]
    index: Option<u64>,
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    function: Option<FunctionDelta>,
}

/// A piece of a tool call's function: its name, a piece of its argument text.
#[derive(Debug, Deserialize)]
pub struct FunctionDelta {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    arguments: Option<String>,
}

/// Reads a Chat Completions answer into a response.
fn parse_response(answer: Answer) -> Result<ModelResponse, TransportError> {
    if let Some(error) = answer.error.filter(|e| !e.is_null()) {
        return Err(remote_error(PROVIDER, &error));
    }
    let choice = answer
        .choices
        .and_then(|c| c.into_iter().next())
        .ok_or_else(|| TransportError::shape(PROVIDER, "the answer has no choices"))?;
    let message = choice
        .message
        .ok_or_else(|| TransportError::shape(PROVIDER, "the first choice has no message"))?;
    let mut parts = Vec::new();
    if let Some(reasoning) = message.reasoning_content.filter(|r| !r.is_empty()) {
        parts.push(Part::reasoning(reasoning));
    }
    if let Some(text) = message.content.filter(|t| !t.is_empty()) {
        parts.push(Part::text(text));
    }
    let refused = match message.refusal.filter(|r| !r.is_empty()) {
        Some(r) => {
            parts.push(Part::text(r));
            true
        }
        None => false,
    };
    for call in message.tool_calls.into_iter().flatten() {
        let function = call
            .function
            .ok_or_else(|| TransportError::shape(PROVIDER, "a tool call has no function"))?;
        let name = function
            .name
            .ok_or_else(|| TransportError::shape(PROVIDER, "a tool call has no name"))?;
        parts.push(function.arguments.into_call(name, call.id));
    }
    let finish_reason = match choice.finish_reason.as_deref() {
        _ if refused => FinishReason::Blocked,
        Some("stop" | "tool_calls" | "function_call") | None => FinishReason::Stop,
        Some("length") => FinishReason::Length,
        Some("content_filter") => FinishReason::Blocked,
        Some(_) => FinishReason::Other,
    };
    let usage = answer.usage.unwrap_or_default();
    let count = |n: Option<u64>| n.unwrap_or(0);
    let detail = |d: &Option<TokenDetails>, read: fn(&TokenDetails) -> Option<u64>| {
        d.as_ref().and_then(read).unwrap_or(0)
    };
    Ok(ModelResponse {
        message: Message::model(parts),
        finish_reason,
        usage: crate::model::Usage {
            input_tokens: count(usage.prompt_tokens),
            output_tokens: count(usage.completion_tokens),
            cache_read_tokens: detail(&usage.prompt_tokens_details, |d| d.cached_tokens),
            cache_write_tokens: 0,
            reasoning_tokens: detail(&usage.completion_tokens_details, |d| d.reasoning_tokens),
        },
    })
}

/// One tool call as its deltas build it.
#[derive(Default)]
struct CallSoFar {
    id: String,
    name: String,
    arguments: String,
}

/// Assembles `chat.completion.chunk` events into a Chat Completions answer.
#[derive(Default)]
pub struct Assembler {
    content: Option<String>,
    refusal: Option<String>,
    calls: BTreeMap<u64, CallSoFar>,
    finish: Option<String>,
    usage: Option<Usage>,
    calls_sent: bool,
}

impl Assembler {
    /// Sends each call, whole, to the sink, once.
    fn send_calls(&mut self, sink: &ModelStream) -> Result<(), TransportError> {
        if self.calls_sent {
            return Ok(());
        }
        self.calls_sent = true;
        for call in self.calls.values() {
            emit(
                PROVIDER,
                sink,
                Part::tool_request_text(
                    call.name.clone(),
                    Some(call.id.clone()),
                    call.arguments.clone(),
                ),
            )?;
        }
        Ok(())
    }

    /// Takes the delta of choice 0.
    fn delta(
        &mut self,
        delta: ChunkDelta,
        number: usize,
        sink: &ModelStream,
    ) -> Result<(), TransportError> {
        if let Some(text) = delta.content {
            self.content.get_or_insert_with(String::new).push_str(&text);
            if !text.is_empty() {
                emit(PROVIDER, sink, Part::text(text))?;
            }
        }
        if let Some(text) = delta.refusal {
            self.refusal.get_or_insert_with(String::new).push_str(&text);
        }
        for call in delta.tool_calls.into_iter().flatten() {
            let index = call.index.ok_or_else(|| {
                TransportError::malformed(
                    PROVIDER,
                    format!("event {number}: a tool call delta has no index"),
                )
            })?;
            let entry = self.calls.entry(index).or_default();
            if let Some(id) = call.id {
                entry.id = id;
            }
            let function = call.function;
            let (name, piece) = match function {
                Some(f) => (f.name, f.arguments.unwrap_or_default()),
                None => (None, String::new()),
            };
            if let Some(name) = name {
                entry.name.push_str(&name);
            }
            entry.arguments.push_str(&piece);
            emit_delta(
                PROVIDER,
                sink,
                index,
                Some(&entry.id),
                Some(&entry.name),
                &piece,
            )?;
        }
        Ok(())
    }
}

impl Assemble for Assembler {
    type Event = Chunk;
    type Answer = Answer;

    fn done(&mut self, sink: &ModelStream) -> Result<bool, TransportError> {
        self.send_calls(sink)?;
        Ok(true)
    }

    fn event(
        &mut self,
        chunk: Chunk,
        number: usize,
        sink: &ModelStream,
    ) -> Result<bool, TransportError> {
        if let Some(error) = chunk.error.filter(|e| !e.is_null()) {
            return Err(remote_error(PROVIDER, &error));
        }
        if chunk.usage.is_some() {
            self.usage = chunk.usage;
        }
        for choice in chunk.choices.into_iter().flatten() {
            if choice.index != 0 {
                continue;
            }
            if let Some(delta) = choice.delta {
                self.delta(delta, number, sink)?;
            }
            if choice.finish_reason.is_some() {
                self.finish = choice.finish_reason;
                self.send_calls(sink)?;
            }
        }
        Ok(false)
    }

    fn finish(self, complete: bool) -> Result<Answer, TransportError> {
        if !complete {
            return Err(TransportError::malformed(
                PROVIDER,
                "the stream ended before data: [DONE]: the answer is incomplete, retry the call",
            ));
        }
        let tool_calls = (!self.calls.is_empty()).then(|| {
            self.calls
                .into_values()
                .map(|call| ToolCall {
                    id: Some(call.id),
                    function: Some(FunctionCall {
                        name: Some(call.name),
                        arguments: TextArguments::Text(call.arguments),
                    }),
                })
                .collect()
        });
        Ok(Answer {
            error: None,
            choices: Some(vec![Choice {
                message: Some(AssistantMessage {
                    content: self.content,
                    reasoning_content: None,
                    refusal: self.refusal,
                    tool_calls,
                }),
                finish_reason: self.finish,
            }]),
            usage: self.usage,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn media_in_a_tool_result_is_refused() {
        let mut part = Part::tool_response("render", Some("call_1".into()), Some(json!("done")));
        if let PartKind::ToolResponse(r) = &mut part.kind {
            r.content
                .push(Part::inline_media("image/png", vec![1, 2, 3]));
        }
        let request = ModelRequest {
            messages: vec![
                Message::user("draw").into(),
                Message::model(vec![Part::tool_request(
                    "render",
                    Some("call_1".into()),
                    json!({}),
                )])
                .into(),
                Message::new(Role::Tool, vec![part]).into(),
            ],
            tools: vec![],
            tool_choice: ToolChoice::Auto,
        };
        let err = OpenAiChat::new("m")
            .request_body(&request, false)
            .unwrap_err();
        assert!(err.to_string().contains("cannot carry"), "{err}");
    }

    #[test]
    fn arguments_that_are_not_json_stay_text() {
        let body = json!({
            "choices": [{"index": 0, "message": {"role": "assistant", "content": null, "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "t", "arguments": "{\"a\": 1"}}
            ]}, "finish_reason": "tool_calls"}]
        });
        let response = parse_response(serde_json::from_value(body).unwrap()).unwrap();
        let call = response.message.tool_requests().next().unwrap();
        assert_eq!(call.arguments_text.as_deref(), Some("{\"a\": 1"));
        assert_eq!(call.input, Value::Null);
    }
}
