//! OpenAI Responses (`POST /v1/responses`).

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};
use submit_core::Provider;

use super::client::api::Adapter;
use super::http::remote_error;
use super::sse::{emit, emit_delta, Assemble};
use super::wire::{
    append_text, arguments_text, count, error_text, media_url, meta, mime, nested, output_text,
    system_text, with_meta, TextArguments,
};
use super::{Api, Transport, TransportError, TransportErrorKind};
use crate::message::{Media, Message, Part, PartKind, Role};
use crate::model::stream::ModelStream;
use crate::model::{FinishReason, ModelRequest, ModelResponse, ToolChoice, Usage};

const PROVIDER: Provider = Provider::OpenAiResponses;
/// Part metadata namespace holding reasoning item ids and encrypted content.
const NS: &str = "openaiResponses";

/// The OpenAI Responses API (`POST /v1/responses`) as a [`Model`](crate::model::Model).
///
/// Tools are sent with `strict: false` explicitly (an omitted `strict` makes the API
/// normalize the schema into strict mode); a tool carrying its exact Responses definition
/// (the submit tool) is sent as that. Reasoning items are kept on reasoning parts and
/// sent back on the next turn. A call's `arguments` text is kept as the model sent it
/// ([`ToolRequest::arguments_text`](crate::message::ToolRequest::arguments_text)).
///
/// ```
/// use submit_agent::transport::OpenAiResponses;
/// use submit_agent::{message::Message, model::ModelRequest};
///
/// let model = OpenAiResponses::new("gpt-5").api_key("sk-test");
/// let request = ModelRequest::new([Message::system("Be brief."), Message::user("Hi")]);
/// let body = model.request_body(&request, false).unwrap();
/// assert_eq!(body["instructions"], "Be brief.");
/// assert_eq!(body["input"][0]["content"][0]["type"], "input_text");
/// ```
pub type OpenAiResponses = Transport<ResponsesApi>;

/// What OpenAI Responses holds of a request: the model, its output limit, and `store`.
#[derive(Clone, Debug)]
pub struct ResponsesApi {
    model: String,
    max_tokens: Option<u32>,
    store: Option<bool>,
}

impl Transport<ResponsesApi> {
    /// A transport for `model`, keyed from `OPENAI_API_KEY`.
    pub fn new(model: impl Into<String>) -> Self {
        Transport::with_api(ResponsesApi {
            model: model.into(),
            max_tokens: None,
            store: None,
        })
    }

    /// Sets `store`. A stateless transport (`store(false)`) also asks for
    /// `reasoning.encrypted_content`, so reasoning items can be sent back without server state.
    pub fn store(mut self, store: bool) -> Self {
        self.api.store = Some(store);
        self
    }

    /// Sets `max_output_tokens`.
    pub fn max_tokens(mut self, tokens: u32) -> Self {
        self.api.max_tokens = Some(tokens);
        self
    }
}

impl Api for ResponsesApi {
    const PROVIDER: Provider = PROVIDER;
    const KEY_VARIABLE: &'static str = "OPENAI_API_KEY";
    const BASE_URL: &'static str = "https://api.openai.com";
}

impl Adapter for ResponsesApi {
    type Answer = Value;
    type Assembler = Assembler;

    fn url(&self, base_url: &str, _stream: bool) -> String {
        format!("{base_url}/v1/responses")
    }

    fn headers(key: &str) -> Vec<(&'static str, String)> {
        vec![("authorization", format!("Bearer {key}"))]
    }

    fn body(&self, request: &ModelRequest, stream: bool) -> Result<Value, TransportError> {
        let mut body = Map::new();
        body.insert("model".into(), json!(self.model));
        if let Some(system) = system_text(PROVIDER, &request.messages)? {
            body.insert("instructions".into(), json!(system));
        }
        let mut input = Vec::new();
        for message in &request.messages {
            convert(message.as_ref(), &mut input)?;
        }
        body.insert("input".into(), Value::Array(input));
        if !request.tools.is_empty() {
            let tools: Vec<Value> = request
                .tools
                .iter()
                .map(|t| {
                    if let Some(exact) = t.wire_definition(Provider::OpenAiResponses) {
                        return exact.clone();
                    }
                    json!({
                        "type": "function",
                        "name": t.name,
                        "description": t.description,
                        "parameters": t.input_schema,
                        "strict": false,
                    })
                })
                .collect();
            body.insert("tools".into(), Value::Array(tools));
            let choice = match &request.tool_choice {
                ToolChoice::Auto => json!("auto"),
                ToolChoice::Required => json!("required"),
                ToolChoice::None => json!("none"),
                ToolChoice::Tool(name) => json!({"type": "function", "name": name}),
            };
            body.insert("tool_choice".into(), choice);
        }
        if let Some(tokens) = self.max_tokens {
            body.insert("max_output_tokens".into(), json!(tokens));
        }
        if let Some(store) = self.store {
            body.insert("store".into(), json!(store));
            if !store {
                body.insert("include".into(), json!(["reasoning.encrypted_content"]));
            }
        }
        if stream {
            body.insert("stream".into(), json!(true));
        }
        Ok(Value::Object(body))
    }

    fn parse_response(answer: Value) -> Result<ModelResponse, TransportError> {
        if let Some(error) = answer.get("error").filter(|e| !e.is_null()) {
            return Err(remote_error(PROVIDER, error));
        }
        if answer.get("status").and_then(Value::as_str) == Some("failed") {
            return Err(TransportError::new(
                PROVIDER,
                TransportErrorKind::Remote {
                    message: "the response failed without an error message".into(),
                    code: None,
                    kind: None,
                },
            ));
        }
        parse_response(&answer)
    }
}

/// An input content part (user messages and tool outputs).
fn media_part(media: &Media) -> Result<Value, TransportError> {
    let content_type = mime(PROVIDER, media)?;
    let url = media_url(PROVIDER, media)?;
    Ok(if content_type.starts_with("image/") {
        json!({"type": "input_image", "image_url": url})
    } else if url.starts_with("data:") {
        json!({"type": "input_file", "filename": "attachment", "file_data": url})
    } else {
        json!({"type": "input_file", "file_url": url})
    })
}

fn input_part(part: &Part) -> Result<Option<Value>, TransportError> {
    Ok(match &part.kind {
        PartKind::Text(t) => Some(json!({"type": "input_text", "text": t})),
        PartKind::Data(v) => Some(json!({"type": "input_text", "text": v.to_string()})),
        PartKind::Custom(v) => Some(v.clone()),
        PartKind::Media(m) => Some(media_part(m)?),
        PartKind::Reasoning(_) => None,
        PartKind::ToolRequest(_) | PartKind::ToolResponse(_) => return Err(TransportError::refused(PROVIDER,
            "a user message cannot hold tool calls or results: put them in model and tool messages",
        )),
    })
}

fn convert(message: &Message, out: &mut Vec<Value>) -> Result<(), TransportError> {
    match message.role {
        Role::System => {}
        Role::User => {
            let mut parts = Vec::new();
            for part in &message.content {
                parts.extend(input_part(part)?);
            }
            if !parts.is_empty() {
                out.push(json!({"role": "user", "content": parts}));
            }
        }
        Role::Model => {
            // Text of one output message, with that message's item id when it has one.
            let mut text = String::new();
            let mut text_id: Option<Value> = None;
            let flush = |text: &mut String, text_id: &mut Option<Value>, out: &mut Vec<Value>| {
                if text.is_empty() {
                    return;
                }
                let text = std::mem::take(text);
                out.push(match text_id.take() {
                    Some(id) => json!({
                        "type": "message",
                        "role": "assistant",
                        "id": id,
                        "status": "completed",
                        "content": [{"type": "output_text", "text": text, "annotations": []}],
                    }),
                    None => json!({"role": "assistant", "content": text}),
                });
            };
            for part in &message.content {
                match &part.kind {
                    PartKind::Text(t) => {
                        let id = meta(part, NS, "id");
                        if id.is_some() && id != text_id.as_ref() {
                            flush(&mut text, &mut text_id, out);
                            text_id = id.cloned();
                        }
                        text.push_str(t);
                    }
                    PartKind::Reasoning(summary) => {
                        // Only reasoning items the API issued go back, by id; the parts of
                        // one item (one per summary part) go back as one item.
                        let Some(id) = meta(part, NS, "id") else {
                            continue;
                        };
                        flush(&mut text, &mut text_id, out);
                        let continues = out.last().is_some_and(|last| {
                            last["type"] == "reasoning" && last.get("id") == Some(id)
                        });
                        if !continues {
                            let mut item = json!({"type": "reasoning", "id": id, "summary": []});
                            if let Some(encrypted) = meta(part, NS, "encryptedContent") {
                                item["encrypted_content"] = encrypted.clone();
                            }
                            out.push(item);
                        }
                        if !summary.is_empty() {
                            if let Some(parts) = out
                                .last_mut()
                                .and_then(|item| item["summary"].as_array_mut())
                            {
                                parts.push(json!({"type": "summary_text", "text": summary}));
                            }
                        }
                    }
                    PartKind::ToolRequest(r) => {
                        flush(&mut text, &mut text_id, out);
                        let mut call = json!({
                            "type": "function_call",
                            "call_id": r.reference.clone().unwrap_or_default(),
                            "name": r.name,
                            "arguments": arguments_text(r),
                        });
                        // The item id: a reasoning item must be followed by its item, by id.
                        if let Some(id) = meta(part, NS, "id") {
                            call["id"] = id.clone();
                        }
                        out.push(call);
                    }
                    _ => {}
                }
            }
            flush(&mut text, &mut text_id, out);
        }
        Role::Tool => {
            let mut extra = Vec::new();
            for part in &message.content {
                let PartKind::ToolResponse(r) = &part.kind else {
                    extra.extend(input_part(part)?);
                    continue;
                };
                let text = if part.is_tool_error() {
                    error_text(r.output.as_ref())
                } else {
                    output_text(r.output.as_ref())
                };
                let output = if r.content.is_empty() {
                    Value::String(text)
                } else {
                    let mut items = Vec::new();
                    if !text.is_empty() {
                        items.push(json!({"type": "input_text", "text": text}));
                    }
                    for p in &r.content {
                        items.extend(input_part(p)?);
                    }
                    Value::Array(items)
                };
                out.push(json!({
                    "type": "function_call_output",
                    "call_id": r.reference.clone().unwrap_or_default(),
                    "output": output,
                }));
            }
            if !extra.is_empty() {
                out.push(json!({"role": "user", "content": extra}));
            }
        }
    }
    Ok(())
}

/// The item's id as part metadata.
fn item_id(item: &Value) -> Map<String, Value> {
    let mut m = Map::new();
    if let Some(id) = item.get("id").filter(|id| id.is_string()) {
        m.insert("id".into(), id.clone());
    }
    m
}

/// Reads a Responses API answer into a response.
fn parse_response(body: &Value) -> Result<ModelResponse, TransportError> {
    let status = body
        .get("status")
        .and_then(Value::as_str)
        .unwrap_or("completed");
    let output = body
        .get("output")
        .and_then(Value::as_array)
        .ok_or_else(|| TransportError::shape(PROVIDER, "the answer has no output array"))?;
    let mut parts = Vec::new();
    let mut refused = false;
    for item in output {
        match item.get("type").and_then(Value::as_str).unwrap_or("") {
            "message" => {
                for c in item
                    .get("content")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    match c.get("type").and_then(Value::as_str) {
                        Some("output_text") => parts.push(with_meta(
                            Part::text(c["text"].as_str().unwrap_or("")),
                            NS,
                            item_id(item),
                        )),
                        Some("refusal") => {
                            refused = true;
                            parts.push(Part::text(c["refusal"].as_str().unwrap_or("")));
                        }
                        _ => parts.push(Part::custom(c.clone())),
                    }
                }
            }
            "function_call" => {
                let name = item.get("name").and_then(Value::as_str).ok_or_else(|| {
                    TransportError::shape(PROVIDER, "a function_call item has no name")
                })?;
                let call_id = item.get("call_id").and_then(Value::as_str).ok_or_else(|| {
                    TransportError::shape(PROVIDER, "a function_call item has no call_id")
                })?;
                parts.push(with_meta(
                    TextArguments::from(item.get("arguments").cloned())
                        .into_call(name, Some(call_id.to_owned())),
                    NS,
                    item_id(item),
                ));
            }
            "reasoning" => {
                // One reasoning part per summary part, as they came; the first also keeps
                // the encrypted content.
                let mut summary: Vec<&str> = item
                    .get("summary")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(|s| s.get("text").and_then(Value::as_str))
                    .collect();
                if summary.is_empty() {
                    summary.push("");
                }
                for (n, text) in summary.into_iter().enumerate() {
                    let mut m = item_id(item);
                    if n == 0 {
                        if let Some(e) = item.get("encrypted_content").filter(|e| !e.is_null()) {
                            m.insert("encryptedContent".into(), e.clone());
                        }
                    }
                    parts.push(with_meta(Part::reasoning(text), NS, m));
                }
            }
            _ => parts.push(Part::custom(item.clone())),
        }
    }
    let reason = body
        .get("incomplete_details")
        .and_then(|d| d.get("reason"))
        .and_then(Value::as_str);
    let finish_reason = match (status, reason) {
        _ if refused => FinishReason::Blocked,
        ("completed", _) => FinishReason::Stop,
        ("incomplete", Some("max_output_tokens")) => FinishReason::Length,
        ("incomplete", Some("content_filter")) => FinishReason::Blocked,
        _ => FinishReason::Other,
    };
    let usage = body.get("usage").unwrap_or(&Value::Null);
    Ok(ModelResponse {
        message: Message::model(parts),
        finish_reason,
        usage: Usage {
            input_tokens: count(usage, "input_tokens"),
            output_tokens: count(usage, "output_tokens"),
            cache_read_tokens: nested(usage, "input_tokens_details", "cached_tokens"),
            cache_write_tokens: 0,
            reasoning_tokens: nested(usage, "output_tokens_details", "reasoning_tokens"),
        },
    })
}

/// Assembles `response.*` events into a Responses API answer.
#[derive(Default)]
pub struct Assembler {
    items: BTreeMap<u64, Value>,
    response: Option<Value>,
}

impl Assemble for Assembler {
    type Event = Value;
    type Answer = Value;

    fn event(
        &mut self,
        data: Value,
        number: usize,
        sink: &ModelStream,
    ) -> Result<bool, TransportError> {
        let kind = data
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        let index = || {
            data.get("output_index")
                .and_then(Value::as_u64)
                .ok_or_else(|| {
                    TransportError::malformed(
                        PROVIDER,
                        format!("event {} ({kind}) has no output_index", number),
                    )
                })
        };
        let item = |data: &Value| {
            data.get("item").cloned().ok_or_else(|| {
                TransportError::malformed(
                    PROVIDER,
                    format!("event {} ({kind}) has no item", number),
                )
            })
        };
        let delta = data.get("delta").and_then(Value::as_str).unwrap_or("");
        match kind.as_str() {
            "response.output_item.added" => {
                let i = index()?;
                let added = item(&data)?;
                if added["type"] == "function_call" {
                    // The call is announced before its arguments arrive.
                    emit_delta(
                        PROVIDER,
                        sink,
                        i,
                        added["call_id"].as_str(),
                        added["name"].as_str(),
                        added["arguments"].as_str().unwrap_or(""),
                    )?;
                }
                self.items.insert(i, added);
            }
            "response.output_text.delta" => {
                let i = index()?;
                let slot = self.items.get_mut(&i).ok_or_else(|| {
                    TransportError::malformed(
                        PROVIDER,
                        format!(
                            "event {} ({kind}) names output {i}, which was never added",
                            number
                        ),
                    )
                })?;
                let c = data
                    .get("content_index")
                    .and_then(Value::as_u64)
                    .unwrap_or(0);
                if slot.is_object() && !slot["content"].is_array() {
                    slot["content"] = json!([]);
                }
                if let Some(content) = slot.get_mut("content").and_then(Value::as_array_mut) {
                    let c = usize::try_from(c).unwrap_or(usize::MAX);
                    while content.len() <= c && content.len() < 64 {
                        content.push(json!({"type": "output_text", "text": ""}));
                    }
                    if let Some(part) = content.get_mut(c) {
                        append_text(part, "text", delta);
                    }
                }
                if !delta.is_empty() {
                    emit(PROVIDER, sink, Part::text(delta))?;
                }
            }
            "response.function_call_arguments.delta" => {
                let i = index()?;
                if let Some(slot) = self.items.get_mut(&i) {
                    append_text(slot, "arguments", delta);
                    emit_delta(
                        PROVIDER,
                        sink,
                        i,
                        slot["call_id"].as_str(),
                        slot["name"].as_str(),
                        delta,
                    )?;
                }
            }
            "response.reasoning_summary_text.delta" if !delta.is_empty() => {
                emit(PROVIDER, sink, Part::reasoning(delta))?;
            }
            "response.output_item.done" => {
                let i = index()?;
                let done = item(&data)?;
                if done["type"] == "function_call" {
                    let name = done["name"].as_str().unwrap_or("").to_owned();
                    let id = done["call_id"].as_str().map(str::to_owned);
                    emit(
                        PROVIDER,
                        sink,
                        TextArguments::from(done.get("arguments").cloned()).into_call(name, id),
                    )?;
                }
                self.items.insert(i, done);
            }
            "response.completed" | "response.incomplete" | "response.failed" => {
                let response = data
                    .get("response")
                    .filter(|r| r.is_object())
                    .cloned()
                    .ok_or_else(|| {
                        TransportError::malformed(
                            PROVIDER,
                            format!("event {} ({kind}) has no response object", number),
                        )
                    })?;
                self.response = Some(response);
                return Ok(true);
            }
            "error" => {
                // `{"type": "error", "error": {...}}`, or the fields on the event itself.
                return Err(remote_error(PROVIDER, &data));
            }
            // `response.created`, `response.in_progress`, content part and `.done` events
            // repeat what the deltas and the finished items already hold.
            _ => {}
        }
        Ok(false)
    }

    fn finish(self, complete: bool) -> Result<Value, TransportError> {
        let Some(mut response) = self.response.filter(|_| complete) else {
            return Err(TransportError::malformed(PROVIDER,
                "the stream ended before response.completed: the answer is incomplete, retry the call",
            ));
        };
        if !self.items.is_empty() {
            response["output"] = Value::Array(self.items.into_values().collect());
        }
        Ok(response)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasoning_items_go_back_by_id() {
        let body = json!({
            "status": "completed",
            "output": [
                {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "Plan."}]},
                {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "t", "arguments": "{}"}
            ],
            "usage": {"input_tokens": 1, "output_tokens": 2}
        });
        let response = parse_response(&body).unwrap();
        let mut out = Vec::new();
        convert(&response.message, &mut out).unwrap();
        assert_eq!(
            out[0],
            json!({"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "Plan."}]})
        );
        assert_eq!(out[1]["call_id"], "call_1");
    }

    #[test]
    fn media_in_a_tool_result_goes_as_input_image() {
        let mut part = Part::tool_response("render", Some("call_1".into()), Some(json!("done")));
        if let PartKind::ToolResponse(r) = &mut part.kind {
            r.content
                .push(Part::inline_media("image/png", vec![1, 2, 3]));
        }
        let mut out = Vec::new();
        convert(&Message::new(Role::Tool, vec![part]), &mut out).unwrap();
        assert_eq!(
            out[0]["output"][0],
            json!({"type": "input_text", "text": "done"})
        );
        assert_eq!(
            out[0]["output"][1],
            json!({"type": "input_image", "image_url": "data:image/png;base64,AQID"})
        );
    }
}
