//! OpenAI Responses (`POST /v1/responses`).

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer};
use serde_json::{json, Map, Value};
use submit_core::Provider;

use super::client::api::Adapter;
use super::http::remote_error;
use super::sse::{emit, emit_delta, Assemble};
use super::wire::{
    arguments_text, error_text, media_url, meta, mime, output_text, system_text, tagged, untouched,
    with_meta, Tagged, TextArguments,
};
use super::{Api, Transport, TransportError, TransportErrorKind};
use crate::message::{Media, Message, Part, PartKind, Role, ToolRequest};
use crate::model::stream::ModelStream;
use crate::model::{FinishReason, ModelRequest, ModelResponse, ToolChoice};

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
    type Answer = Answer;
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

    fn parse_response(answer: Answer) -> Result<ModelResponse, TransportError> {
        parse_response(answer)
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
        Role::System => Ok(()),
        Role::User => user_items(message, out),
        Role::Model => {
            model_items(message, out);
            Ok(())
        }
        Role::Tool => tool_items(message, out),
    }
}

/// A user message: one input message of its parts, when it has any.
fn user_items(message: &Message, out: &mut Vec<Value>) -> Result<(), TransportError> {
    let mut parts = Vec::new();
    for part in &message.content {
        parts.extend(input_part(part)?);
    }
    if !parts.is_empty() {
        out.push(json!({"role": "user", "content": parts}));
    }
    Ok(())
}

/// A model message: its text as output messages (one per item id), its reasoning items and
/// its function calls, in order.
fn model_items(message: &Message, out: &mut Vec<Value>) {
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
                // Only reasoning items the API issued go back, by id.
                let Some(id) = meta(part, NS, "id") else {
                    continue;
                };
                flush(&mut text, &mut text_id, out);
                push_reasoning(part, id, summary, out);
            }
            PartKind::ToolRequest(r) => {
                flush(&mut text, &mut text_id, out);
                out.push(function_call(part, r));
            }
            _ => {}
        }
    }
    flush(&mut text, &mut text_id, out);
}

/// A reasoning part the API issued as item `id`: the parts of one item (one per summary
/// part) go back as one item.
fn push_reasoning(part: &Part, id: &Value, summary: &str, out: &mut Vec<Value>) {
    let continues = out
        .last()
        .is_some_and(|last| last["type"] == "reasoning" && last.get("id") == Some(id));
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

/// A tool request as a `function_call` item, its arguments as the model sent them.
fn function_call(part: &Part, r: &ToolRequest) -> Value {
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
    call
}

/// A tool message: a `function_call_output` item per response, and its other parts as one
/// user message after them.
fn tool_items(message: &Message, out: &mut Vec<Value>) -> Result<(), TransportError> {
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
    Ok(())
}

/// A Responses API answer (a whole body, or the `response` of the event that ends a stream).
#[derive(Debug, Default, Deserialize)]
pub struct Answer {
    #[serde(default)]
    status: Option<String>,
    #[serde(default)]
    error: Option<Value>,
    #[serde(default)]
    output: Option<Vec<Item>>,
    #[serde(default)]
    incomplete_details: Option<IncompleteDetails>,
    #[serde(default)]
    usage: Option<Usage>,
}

/// Why an answer is incomplete.
#[derive(Debug, Default, Deserialize)]
pub struct IncompleteDetails {
    #[serde(default)]
    reason: Option<String>,
}

/// Token counts.
#[derive(Debug, Default, Deserialize)]
pub struct Usage {
    #[serde(default)]
    input_tokens: Option<u64>,
    #[serde(default)]
    output_tokens: Option<u64>,
    #[serde(default)]
    input_tokens_details: Option<TokenDetails>,
    #[serde(default)]
    output_tokens_details: Option<TokenDetails>,
}

/// The shares of a token count.
#[derive(Debug, Default, Deserialize)]
pub struct TokenDetails {
    #[serde(default)]
    cached_tokens: Option<u64>,
    #[serde(default)]
    reasoning_tokens: Option<u64>,
}

/// An output item.
#[derive(Debug)]
pub enum Item {
    Message(MessageItem),
    FunctionCall(FunctionCall),
    Reasoning(Reasoning),
    /// An item of another type, whole: it passes through as a custom part.
    Other(Value),
}

/// An output message.
#[derive(Debug, Deserialize)]
pub struct MessageItem {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    content: Vec<Content>,
}

/// A part of an output message.
#[derive(Debug)]
pub enum Content {
    OutputText(OutputText),
    Refusal(Refusal),
    /// A part of another type, whole.
    Other(Value),
}

#[derive(Debug, Default, Deserialize)]
pub struct OutputText {
    #[serde(default)]
    text: String,
}

#[derive(Debug, Deserialize)]
pub struct Refusal {
    #[serde(default)]
    refusal: String,
}

/// A function call; its `arguments` are the text the model sent.
#[derive(Debug, Deserialize)]
pub struct FunctionCall {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    call_id: Option<String>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    arguments: TextArguments,
}

/// A reasoning item: its summary parts, and its encrypted content when asked for.
#[derive(Debug, Deserialize)]
pub struct Reasoning {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    summary: Vec<Summary>,
    #[serde(default)]
    encrypted_content: Option<Value>,
}

/// One summary part of a reasoning item.
#[derive(Debug, Deserialize)]
pub struct Summary {
    #[serde(default)]
    text: Option<String>,
}

impl Tagged for Item {
    fn variant<'de, D: Deserializer<'de>>(tag: &str, rest: D) -> Result<Self, D::Error> {
        Ok(match tag {
            "message" => Item::Message(MessageItem::deserialize(rest)?),
            "function_call" => Item::FunctionCall(FunctionCall::deserialize(rest)?),
            "reasoning" => Item::Reasoning(Reasoning::deserialize(rest)?),
            _ => Item::Other(untouched(tag, rest)?),
        })
    }
}

impl<'de> Deserialize<'de> for Item {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        tagged(deserializer)
    }
}

impl Tagged for Content {
    fn variant<'de, D: Deserializer<'de>>(tag: &str, rest: D) -> Result<Self, D::Error> {
        Ok(match tag {
            "output_text" => Content::OutputText(OutputText::deserialize(rest)?),
            "refusal" => Content::Refusal(Refusal::deserialize(rest)?),
            _ => Content::Other(untouched(tag, rest)?),
        })
    }
}

impl<'de> Deserialize<'de> for Content {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        tagged(deserializer)
    }
}

/// One event of a streamed answer.
#[derive(Debug, Deserialize)]
#[serde(tag = "type")]
pub enum Event {
    #[serde(rename = "response.output_item.added")]
    OutputItemAdded { output_index: u64, item: Item },
    #[serde(rename = "response.output_text.delta")]
    OutputTextDelta {
        output_index: u64,
        #[serde(default)]
        content_index: u64,
        #[serde(default)]
        delta: String,
    },
    #[serde(rename = "response.function_call_arguments.delta")]
    FunctionCallArgumentsDelta {
        output_index: u64,
        #[serde(default)]
        delta: String,
    },
    #[serde(rename = "response.reasoning_summary_text.delta")]
    ReasoningSummaryTextDelta {
        #[serde(default)]
        delta: String,
    },
    #[serde(rename = "response.output_item.done")]
    OutputItemDone { output_index: u64, item: Item },
    /// The event that ends the stream, with the whole response.
    #[serde(
        rename = "response.completed",
        alias = "response.incomplete",
        alias = "response.failed"
    )]
    Finished { response: Answer },
    /// `{"type": "error", "error": {...}}`, or the error's members on the event itself.
    #[serde(rename = "error")]
    Error(Value),
    /// `response.created`, `response.in_progress`, content part and `.done` events repeat what
    /// the deltas and the finished items already hold; event types added later.
    #[serde(other)]
    Other,
}

/// An item's id as part metadata.
fn item_id(id: Option<String>) -> Map<String, Value> {
    let mut m = Map::new();
    if let Some(id) = id {
        m.insert("id".into(), Value::String(id));
    }
    m
}

/// Reads a Responses API answer into a response.
fn parse_response(answer: Answer) -> Result<ModelResponse, TransportError> {
    if let Some(error) = answer.error.filter(|e| !e.is_null()) {
        return Err(remote_error(PROVIDER, &error));
    }
    let status = answer.status.as_deref().unwrap_or("completed");
    if status == "failed" {
        return Err(TransportError::new(
            PROVIDER,
            TransportErrorKind::Remote {
                message: "the response failed without an error message".into(),
                code: None,
                kind: None,
            },
        ));
    }
    let output = answer
        .output
        .ok_or_else(|| TransportError::shape(PROVIDER, "the answer has no output array"))?;
    let mut parts = Vec::new();
    let mut refused = false;
    for item in output {
        match item {
            Item::Message(message) => {
                for c in message.content {
                    parts.push(match c {
                        Content::OutputText(t) => {
                            with_meta(Part::text(t.text), NS, item_id(message.id.clone()))
                        }
                        Content::Refusal(r) => {
                            refused = true;
                            Part::text(r.refusal)
                        }
                        Content::Other(c) => Part::custom(c),
                    });
                }
            }
            Item::FunctionCall(call) => {
                let name = call.name.ok_or_else(|| {
                    TransportError::shape(PROVIDER, "a function_call item has no name")
                })?;
                let call_id = call.call_id.ok_or_else(|| {
                    TransportError::shape(PROVIDER, "a function_call item has no call_id")
                })?;
                parts.push(with_meta(
                    call.arguments.into_call(name, Some(call_id)),
                    NS,
                    item_id(call.id),
                ));
            }
            Item::Reasoning(reasoning) => {
                // One reasoning part per summary part, as they came; the first also keeps
                // the encrypted content.
                let mut summary: Vec<String> = reasoning
                    .summary
                    .into_iter()
                    .filter_map(|s| s.text)
                    .collect();
                if summary.is_empty() {
                    summary.push(String::new());
                }
                let mut encrypted = reasoning.encrypted_content;
                for text in summary {
                    let mut m = item_id(reasoning.id.clone());
                    if let Some(e) = encrypted.take() {
                        m.insert("encryptedContent".into(), e);
                    }
                    parts.push(with_meta(Part::reasoning(text), NS, m));
                }
            }
            Item::Other(item) => parts.push(Part::custom(item)),
        }
    }
    let reason = answer.incomplete_details.and_then(|d| d.reason);
    let finish_reason = match (status, reason.as_deref()) {
        _ if refused => FinishReason::Blocked,
        ("completed", _) => FinishReason::Stop,
        ("incomplete", Some("max_output_tokens")) => FinishReason::Length,
        ("incomplete", Some("content_filter")) => FinishReason::Blocked,
        _ => FinishReason::Other,
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
            input_tokens: count(usage.input_tokens),
            output_tokens: count(usage.output_tokens),
            cache_read_tokens: detail(&usage.input_tokens_details, |d| d.cached_tokens),
            cache_write_tokens: 0,
            reasoning_tokens: detail(&usage.output_tokens_details, |d| d.reasoning_tokens),
        },
    })
}

/// Assembles `response.*` events into a Responses API answer.
#[derive(Default)]
pub struct Assembler {
    items: BTreeMap<u64, Item>,
    response: Option<Answer>,
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
            Event::OutputItemAdded { output_index, item } => {
                if let Item::FunctionCall(call) = &item {
                    // The call is announced before its arguments arrive.
                    emit_delta(
                        PROVIDER,
                        sink,
                        output_index,
                        call.call_id.as_deref(),
                        call.name.as_deref(),
                        call.arguments.text(),
                    )?;
                }
                self.items.insert(output_index, item);
            }
            Event::OutputTextDelta {
                output_index,
                content_index,
                delta,
            } => {
                let slot = self.items.get_mut(&output_index).ok_or_else(|| {
                    TransportError::malformed(
                        PROVIDER,
                        format!(
                            "event {number} (response.output_text.delta) names output {output_index}, which was never added"
                        ),
                    )
                })?;
                if let Item::Message(message) = slot {
                    let c = usize::try_from(content_index).unwrap_or(usize::MAX);
                    let content = &mut message.content;
                    while content.len() <= c && content.len() < 64 {
                        content.push(Content::OutputText(OutputText::default()));
                    }
                    if let Some(Content::OutputText(part)) = content.get_mut(c) {
                        part.text.push_str(&delta);
                    }
                }
                if !delta.is_empty() {
                    emit(PROVIDER, sink, Part::text(delta))?;
                }
            }
            Event::FunctionCallArgumentsDelta {
                output_index,
                delta,
            } => {
                if let Some(slot) = self.items.get_mut(&output_index) {
                    let (id, name) = match slot {
                        Item::FunctionCall(call) => {
                            call.arguments.push(&delta);
                            (call.call_id.as_deref(), call.name.as_deref())
                        }
                        _ => (None, None),
                    };
                    emit_delta(PROVIDER, sink, output_index, id, name, &delta)?;
                }
            }
            Event::ReasoningSummaryTextDelta { delta } => {
                if !delta.is_empty() {
                    emit(PROVIDER, sink, Part::reasoning(delta))?;
                }
            }
            Event::OutputItemDone { output_index, item } => {
                if let Item::FunctionCall(call) = &item {
                    let name = call.name.clone().unwrap_or_default();
                    let part = call.arguments.clone().into_call(name, call.call_id.clone());
                    emit(PROVIDER, sink, part)?;
                }
                self.items.insert(output_index, item);
            }
            Event::Finished { response } => {
                self.response = Some(response);
                return Ok(true);
            }
            Event::Error(error) => return Err(remote_error(PROVIDER, &error)),
            Event::Other => {}
        }
        Ok(false)
    }

    fn finish(self, complete: bool) -> Result<Answer, TransportError> {
        let Some(mut response) = self.response.filter(|_| complete) else {
            return Err(TransportError::malformed(PROVIDER,
                "the stream ended before response.completed: the answer is incomplete, retry the call",
            ));
        };
        if !self.items.is_empty() {
            response.output = Some(self.items.into_values().collect());
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
        let response = parse_response(serde_json::from_value(body).unwrap()).unwrap();
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
