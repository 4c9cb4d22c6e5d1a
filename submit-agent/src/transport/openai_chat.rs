//! OpenAI Chat Completions (`POST /v1/chat/completions`).

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};
use submit_core::Provider;

use super::client::api::Adapter;
use super::http::remote_error;
use super::sse::{emit, emit_delta, Assemble};
use super::wire::{
    arguments_text, count, error_text, media_url, mime, nested, output_text, system_text,
    TextArguments,
};
use super::{Api, Transport, TransportError};
use crate::message::{Message, Part, PartKind, Role};
use crate::model::stream::ModelStream;
use crate::model::{FinishReason, ModelRequest, ModelResponse, ToolChoice, Usage};

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
    type Answer = Value;
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

    fn parse_response(answer: Value) -> Result<ModelResponse, TransportError> {
        if let Some(error) = answer.get("error").filter(|e| !e.is_null()) {
            return Err(remote_error(PROVIDER, error));
        }
        parse_response(&answer)
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

/// Reads a Chat Completions answer into a response.
fn parse_response(body: &Value) -> Result<ModelResponse, TransportError> {
    let choice = body
        .get("choices")
        .and_then(Value::as_array)
        .and_then(|c| c.first())
        .ok_or_else(|| TransportError::shape(PROVIDER, "the answer has no choices"))?;
    let message = choice
        .get("message")
        .ok_or_else(|| TransportError::shape(PROVIDER, "the first choice has no message"))?;
    let mut parts = Vec::new();
    if let Some(reasoning) = message
        .get("reasoning_content")
        .and_then(Value::as_str)
        .filter(|r| !r.is_empty())
    {
        parts.push(Part::reasoning(reasoning));
    }
    if let Some(text) = message.get("content").and_then(Value::as_str) {
        if !text.is_empty() {
            parts.push(Part::text(text));
        }
    }
    let refusal = message
        .get("refusal")
        .and_then(Value::as_str)
        .filter(|r| !r.is_empty());
    if let Some(r) = refusal {
        parts.push(Part::text(r));
    }
    for call in message
        .get("tool_calls")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let function = call
            .get("function")
            .ok_or_else(|| TransportError::shape(PROVIDER, "a tool call has no function"))?;
        let name = function
            .get("name")
            .and_then(Value::as_str)
            .ok_or_else(|| TransportError::shape(PROVIDER, "a tool call has no name"))?;
        let id = call.get("id").and_then(Value::as_str).map(str::to_owned);
        parts.push(TextArguments::from(function.get("arguments").cloned()).into_call(name, id));
    }
    let finish_reason = match choice.get("finish_reason").and_then(Value::as_str) {
        _ if refusal.is_some() => FinishReason::Blocked,
        Some("stop" | "tool_calls" | "function_call") | None => FinishReason::Stop,
        Some("length") => FinishReason::Length,
        Some("content_filter") => FinishReason::Blocked,
        Some(_) => FinishReason::Other,
    };
    let usage = body.get("usage").unwrap_or(&Value::Null);
    Ok(ModelResponse {
        message: Message::model(parts),
        finish_reason,
        usage: Usage {
            input_tokens: count(usage, "prompt_tokens"),
            output_tokens: count(usage, "completion_tokens"),
            cache_read_tokens: nested(usage, "prompt_tokens_details", "cached_tokens"),
            cache_write_tokens: 0,
            reasoning_tokens: nested(usage, "completion_tokens_details", "reasoning_tokens"),
        },
    })
}

/// Assembles `chat.completion.chunk` events into a Chat Completions answer.
#[derive(Default)]
pub struct Assembler {
    content: Option<String>,
    refusal: Option<String>,
    calls: BTreeMap<u64, (String, String, String)>,
    finish: Option<Value>,
    usage: Option<Value>,
    base: Option<Value>,
    calls_sent: bool,
}

impl Assembler {
    fn send_calls(&mut self, sink: &ModelStream) -> Result<(), TransportError> {
        if self.calls_sent {
            return Ok(());
        }
        self.calls_sent = true;
        for (id, name, arguments) in self.calls.values() {
            emit(
                PROVIDER,
                sink,
                Part::tool_request_text(name.clone(), Some(id.clone()), arguments.clone()),
            )?;
        }
        Ok(())
    }
}

impl Assemble for Assembler {
    type Event = Value;
    type Answer = Value;

    fn done(&mut self, sink: &ModelStream) -> Result<bool, TransportError> {
        self.send_calls(sink)?;
        Ok(true)
    }

    fn event(
        &mut self,
        data: Value,
        number: usize,
        sink: &ModelStream,
    ) -> Result<bool, TransportError> {
        if let Some(error) = data.get("error").filter(|e| !e.is_null()) {
            return Err(remote_error(PROVIDER, error));
        }
        if !data.is_object() {
            return Err(TransportError::malformed(
                PROVIDER,
                format!("event {} is not a chat.completion.chunk object", number),
            ));
        }
        if self.base.is_none() {
            let mut base = data.clone();
            if let Some(b) = base.as_object_mut() {
                b.remove("choices");
                b.remove("usage");
                b.insert("object".into(), json!("chat.completion"));
            }
            self.base = Some(base);
        }
        if let Some(usage) = data.get("usage").filter(|u| !u.is_null()) {
            self.usage = Some(usage.clone());
        }
        let choices = data.get("choices").and_then(Value::as_array);
        for choice in choices.into_iter().flatten() {
            if choice.get("index").and_then(Value::as_u64).unwrap_or(0) != 0 {
                continue;
            }
            let delta = choice.get("delta").unwrap_or(&Value::Null);
            if let Some(text) = delta.get("content").and_then(Value::as_str) {
                self.content.get_or_insert_with(String::new).push_str(text);
                if !text.is_empty() {
                    emit(PROVIDER, sink, Part::text(text))?;
                }
            }
            if let Some(text) = delta.get("refusal").and_then(Value::as_str) {
                self.refusal.get_or_insert_with(String::new).push_str(text);
            }
            for call in delta
                .get("tool_calls")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let index = call.get("index").and_then(Value::as_u64).ok_or_else(|| {
                    TransportError::malformed(
                        PROVIDER,
                        format!("event {}: a tool call delta has no index", number),
                    )
                })?;
                let entry = self.calls.entry(index).or_default();
                if let Some(id) = call.get("id").and_then(Value::as_str) {
                    entry.0 = id.to_owned();
                }
                let function = call.get("function").unwrap_or(&Value::Null);
                if let Some(name) = function.get("name").and_then(Value::as_str) {
                    entry.1.push_str(name);
                }
                let piece = function
                    .get("arguments")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                entry.2.push_str(piece);
                emit_delta(PROVIDER, sink, index, Some(&entry.0), Some(&entry.1), piece)?;
            }
            if let Some(finish) = choice.get("finish_reason").filter(|f| !f.is_null()) {
                self.finish = Some(finish.clone());
                self.send_calls(sink)?;
            }
        }
        Ok(false)
    }

    fn finish(self, complete: bool) -> Result<Value, TransportError> {
        if !complete {
            return Err(TransportError::malformed(
                PROVIDER,
                "the stream ended before data: [DONE]: the answer is incomplete, retry the call",
            ));
        }
        let mut message = json!({"role": "assistant", "content": self.content});
        if let Some(refusal) = self.refusal {
            message["refusal"] = json!(refusal);
        }
        if !self.calls.is_empty() {
            message["tool_calls"] = Value::Array(
                self.calls
                    .into_values()
                    .map(|(id, name, arguments)| {
                        json!({"id": id, "type": "function", "function": {"name": name, "arguments": arguments}})
                    })
                    .collect(),
            );
        }
        let mut body = self.base.unwrap_or_else(|| json!({}));
        body["choices"] = json!([{
            "index": 0,
            "message": message,
            "finish_reason": self.finish.unwrap_or(Value::Null),
        }]);
        body["usage"] = self.usage.unwrap_or(Value::Null);
        Ok(body)
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
        let response = parse_response(&body).unwrap();
        let call = response.message.tool_requests().next().unwrap();
        assert_eq!(call.arguments_text.as_deref(), Some("{\"a\": 1"));
        assert_eq!(call.input, Value::Null);
    }
}
