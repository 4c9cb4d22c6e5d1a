//! Gemini `generateContent` (`POST /v1beta/models/{model}:generateContent`).

use std::collections::HashSet;

use serde::de::{MapAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::{json, Map, Value};
use submit_core::Provider;

use super::client::api::Adapter;
use super::http::remote_error;
use super::sse::{emit, emit_delta, Assemble};
use super::wire::{base64_decode, base64_encode, input_object, meta, mime, system_text, with_meta};
use super::{Api, Transport, TransportError};
use crate::message::{
    Media, MediaSource, Message, Part, PartKind, Role, ToolRequest, ToolResponse,
};
use crate::model::stream::ModelStream;
use crate::model::{FinishReason, ModelRequest, ModelResponse, ToolChoice, Usage};

const PROVIDER: Provider = Provider::Gemini;
/// Part metadata namespace holding thought signatures and provider call ids.
const NS: &str = "gemini";

/// The Gemini API (`generateContent`) as a [`Model`](crate::model::Model).
///
/// Tools are declared with `parametersJsonSchema` (JSON Schema, not the legacy OpenAPI
/// subset); a tool carrying its exact Gemini declaration (the submit tool, in whichever form
/// its options chose) is declared as that. Thought signatures are kept on parts and echoed back unchanged.
///
/// ```
/// use submit_agent::transport::Gemini;
/// use submit_agent::{message::Message, model::ModelRequest};
///
/// let model = Gemini::new("gemini-2.5-flash").api_key("test");
/// let request = ModelRequest::new([Message::system("Be brief."), Message::user("Hi")]);
/// let body = model.request_body(&request, false).unwrap();
/// assert_eq!(body["systemInstruction"]["parts"][0]["text"], "Be brief.");
/// assert_eq!(body["contents"][0]["parts"][0]["text"], "Hi");
/// ```
pub type Gemini = Transport<GenerateContentApi>;

/// What Gemini `generateContent` holds of a request: the model, its output limit and its
/// thinking budget.
#[derive(Clone, Debug)]
pub struct GenerateContentApi {
    model: String,
    max_tokens: Option<u32>,
    thinking_budget: Option<i64>,
}

impl Transport<GenerateContentApi> {
    /// A transport for `model`, keyed from `GEMINI_API_KEY`.
    pub fn new(model: impl Into<String>) -> Self {
        Transport::with_api(GenerateContentApi {
            model: model.into(),
            max_tokens: None,
            thinking_budget: None,
        })
    }

    /// Sets `maxOutputTokens`.
    pub fn max_tokens(mut self, tokens: u32) -> Self {
        self.api.max_tokens = Some(tokens);
        self
    }

    /// Sets the thinking budget (`-1` lets the model decide) and asks for thought summaries.
    pub fn thinking(mut self, budget_tokens: i64) -> Self {
        self.api.thinking_budget = Some(budget_tokens);
        self
    }
}

impl Api for GenerateContentApi {
    const PROVIDER: Provider = PROVIDER;
    const KEY_VARIABLE: &'static str = "GEMINI_API_KEY";
    const BASE_URL: &'static str = "https://generativelanguage.googleapis.com";
}

impl Adapter for GenerateContentApi {
    type Answer = Answer;
    type Assembler = Assembler;

    fn url(&self, base_url: &str, stream: bool) -> String {
        let method = if stream {
            "streamGenerateContent?alt=sse"
        } else {
            "generateContent"
        };
        format!("{base_url}/v1beta/models/{}:{method}", self.model)
    }

    fn headers(key: &str) -> Vec<(&'static str, String)> {
        vec![("x-goog-api-key", key.to_owned())]
    }

    fn body(&self, request: &ModelRequest, _stream: bool) -> Result<Value, TransportError> {
        let mut body = Map::new();
        if let Some(system) = system_text(PROVIDER, &request.messages)? {
            body.insert(
                "systemInstruction".into(),
                json!({"parts": [{"text": system}]}),
            );
        }
        body.insert(
            "contents".into(),
            Value::Array(convert_messages(&request.messages)?),
        );
        if !request.tools.is_empty() {
            let declarations: Vec<Value> = request
                .tools
                .iter()
                .map(|t| {
                    if let Some(exact) = t.wire_definition(Provider::Gemini) {
                        return exact.clone();
                    }
                    let mut schema = t.input_schema.clone();
                    if let Some(m) = schema.as_object_mut() {
                        m.remove("$schema");
                    }
                    json!({
                        "name": t.name,
                        "description": t.description,
                        "parametersJsonSchema": schema,
                    })
                })
                .collect();
            body.insert(
                "tools".into(),
                json!([{ "functionDeclarations": declarations }]),
            );
            let config = match &request.tool_choice {
                ToolChoice::Auto => json!({"mode": "AUTO"}),
                ToolChoice::Required => json!({"mode": "ANY"}),
                ToolChoice::None => json!({"mode": "NONE"}),
                ToolChoice::Tool(name) => json!({"mode": "ANY", "allowedFunctionNames": [name]}),
            };
            body.insert(
                "toolConfig".into(),
                json!({ "functionCallingConfig": config }),
            );
        }
        let mut generation = Map::new();
        if let Some(tokens) = self.max_tokens {
            generation.insert("maxOutputTokens".into(), json!(tokens));
        }
        if let Some(budget) = self.thinking_budget {
            generation.insert(
                "thinkingConfig".into(),
                json!({"thinkingBudget": budget, "includeThoughts": true}),
            );
        }
        if !generation.is_empty() {
            body.insert("generationConfig".into(), Value::Object(generation));
        }
        Ok(Value::Object(body))
    }

    fn parse_response(answer: Answer) -> Result<ModelResponse, TransportError> {
        parse_response(answer)
    }
}

fn media_part(media: &Media) -> Result<Value, TransportError> {
    let content_type = mime(PROVIDER, media)?;
    Ok(match &media.source {
        MediaSource::Inline(bytes) => {
            json!({"inlineData": {"mimeType": content_type, "data": base64_encode(bytes)}})
        }
        MediaSource::Url(url) => json!({"fileData": {"mimeType": content_type, "fileUri": url}}),
    })
}

/// Adds the part's thought signature, if any, to a wire part.
fn signed(part: &Part, mut wire: Value) -> Value {
    if let Some(signature) = meta(part, NS, "thoughtSignature") {
        wire["thoughtSignature"] = signature.clone();
    }
    wire
}

/// A tool request as a `functionCall` part; a call id Gemini issued goes back, and is noted
/// in `issued`.
fn function_call(part: &Part, r: &ToolRequest, issued: &mut HashSet<String>) -> Value {
    let mut call = json!({"name": r.name, "args": input_object(r)});
    if meta(part, NS, "id") == Some(&Value::Bool(true)) {
        if let Some(id) = &r.reference {
            issued.insert(id.clone());
            call["id"] = json!(id);
        }
    }
    signed(part, json!({ "functionCall": call }))
}

/// A tool response as a `functionResponse` part: the output (an error under `error`), the
/// call id when Gemini issued it, text content under `content`, inline media as its parts.
fn function_response(
    part: &Part,
    r: &ToolResponse,
    issued: &HashSet<String>,
) -> Result<Value, TransportError> {
    let output = r.output.clone().unwrap_or(Value::Null);
    let response = if part.is_tool_error() {
        match output {
            Value::Object(m) if m.contains_key("error") => Value::Object(m),
            other => json!({ "error": other }),
        }
    } else {
        json!({ "output": output })
    };
    let mut answer = json!({"name": r.name, "response": response});
    if let Some(id) = r.reference.as_ref().filter(|id| issued.contains(*id)) {
        answer["id"] = json!(id);
    }
    let mut media = Vec::new();
    for p in &r.content {
        match &p.kind {
            PartKind::Media(m @ Media {
                source: MediaSource::Inline(_),
                ..
            }) => media.push(media_part(m)?),
            PartKind::Media(_) => {
                return Err(TransportError::refused(PROVIDER, format!(
                    "the result of tool {:?} holds media by URL, which Gemini function responses cannot carry: attach the bytes inline",
                    r.name
                )))
            }
            PartKind::Text(t) => {
                answer["response"]["content"] = json!(t);
            }
            _ => {}
        }
    }
    if !media.is_empty() {
        answer["parts"] = Value::Array(media);
    }
    Ok(json!({ "functionResponse": answer }))
}

fn convert_messages<M: std::borrow::Borrow<Message>>(
    messages: &[M],
) -> Result<Vec<Value>, TransportError> {
    // Call ids Gemini issued; the loop's own references never go on the wire.
    let mut issued: HashSet<String> = HashSet::new();
    let mut out: Vec<(&'static str, Vec<Value>)> = Vec::new();
    for message in messages {
        let message: &Message = message.borrow();
        let role = match message.role {
            Role::System => continue,
            Role::Model => "model",
            Role::User | Role::Tool => "user",
        };
        let mut parts = Vec::new();
        for part in &message.content {
            match &part.kind {
                PartKind::Text(t) => {
                    if !t.is_empty() {
                        parts.push(signed(part, json!({"text": t})));
                    }
                }
                PartKind::Data(v) => parts.push(json!({"text": v.to_string()})),
                PartKind::Custom(v) => parts.push(v.clone()),
                PartKind::Media(m) => parts.push(media_part(m)?),
                PartKind::Reasoning(text) => {
                    // Thoughts go back only when signed, on the model's turns.
                    if message.role == Role::Model && meta(part, NS, "thoughtSignature").is_some() {
                        parts.push(signed(part, json!({"text": text, "thought": true})));
                    }
                }
                PartKind::ToolRequest(r) => parts.push(function_call(part, r, &mut issued)),
                PartKind::ToolResponse(r) => parts.push(function_response(part, r, &issued)?),
            }
        }
        if parts.is_empty() {
            // An empty user text is still a turn (Gemini answers `{"text": ""}`, but refuses
            // empty `contents`); other empty messages carry nothing.
            if message.role != Role::User {
                continue;
            }
            parts.push(json!({"text": ""}));
        }
        match out.last_mut() {
            Some((r, p)) if *r == role => p.extend(parts),
            _ => out.push((role, parts)),
        }
    }
    // A function-call turn must follow a user turn: the conversation always opens with one.
    if out.first().is_none_or(|(role, _)| *role != "user") {
        out.insert(0, ("user", vec![json!({"text": ""})]));
    }
    Ok(out
        .into_iter()
        .map(|(role, parts)| json!({"role": role, "parts": parts}))
        .collect())
}

/// A `generateContent` answer, and each event of a streamed one.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Answer {
    #[serde(default)]
    error: Option<Value>,
    #[serde(default)]
    candidates: Option<Vec<Candidate>>,
    #[serde(default)]
    prompt_feedback: Option<PromptFeedback>,
    #[serde(default)]
    usage_metadata: Option<UsageMetadata>,
}

/// A candidate answer; the first is read.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Candidate {
    #[serde(default)]
    content: Option<Content>,
    #[serde(default)]
    finish_reason: Option<String>,
    #[serde(default)]
    finish_message: Option<String>,
}

/// A candidate's content.
#[derive(Debug, Default, Deserialize)]
pub struct Content {
    #[serde(default)]
    parts: Vec<WirePart>,
}

/// Why the prompt was blocked, when it was.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptFeedback {
    #[serde(default)]
    block_reason: Option<Value>,
}

/// Token counts.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UsageMetadata {
    #[serde(default)]
    prompt_token_count: Option<u64>,
    #[serde(default)]
    candidates_token_count: Option<u64>,
    #[serde(default)]
    thoughts_token_count: Option<u64>,
    #[serde(default)]
    cached_content_token_count: Option<u64>,
}

/// A part of a candidate's content: text (a thought when `thought`), a function call, inline
/// data, or a kind this crate does not read, which passes through whole. A thought signature
/// may sit on any.
#[derive(Clone, Debug, Default)]
pub struct WirePart {
    text: Option<String>,
    thought: bool,
    thought_signature: Option<Value>,
    function_call: Option<FunctionCall>,
    inline_data: Option<InlineData>,
    /// The members of another kind of part, as they came.
    rest: Map<String, Value>,
}

/// A function call; its `args` are the object the model sent.
#[derive(Clone, Debug, Deserialize)]
pub struct FunctionCall {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    args: Option<Value>,
}

/// Bytes, base64-encoded, with their MIME type.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InlineData {
    #[serde(default)]
    mime_type: Option<String>,
    #[serde(default)]
    data: Option<String>,
}

impl<'de> Deserialize<'de> for WirePart {
    /// One pass over the part's members: the known ones typed, the others kept (a part has no
    /// tag to dispatch on, and serde's `flatten` would buffer a call's arguments).
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Members;
        impl<'de> Visitor<'de> for Members {
            type Value = WirePart;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a content part object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<WirePart, A::Error> {
                let mut part = WirePart::default();
                while let Some(key) = map.next_key::<String>()? {
                    match key.as_str() {
                        "text" => part.text = map.next_value()?,
                        "thought" => part.thought = map.next_value::<Option<bool>>()? == Some(true),
                        "thoughtSignature" => part.thought_signature = map.next_value()?,
                        "functionCall" => part.function_call = map.next_value()?,
                        "inlineData" => part.inline_data = map.next_value()?,
                        _ => {
                            part.rest.insert(key, map.next_value()?);
                        }
                    }
                }
                Ok(part)
            }
        }
        deserializer.deserialize_map(Members)
    }
}

impl WirePart {
    /// A part of a kind this crate does not read, whole.
    fn untouched(self) -> Value {
        let mut whole = self.rest;
        if self.thought {
            whole.insert("thought".into(), Value::Bool(true));
        }
        if let Some(signature) = self.thought_signature {
            whole.insert("thoughtSignature".into(), signature);
        }
        Value::Object(whole)
    }
}

/// Reads a `generateContent` answer into a response.
fn parse_response(answer: Answer) -> Result<ModelResponse, TransportError> {
    if let Some(error) = answer.error.filter(|e| !e.is_null()) {
        return Err(remote_error(PROVIDER, &error));
    }
    let counts = answer.usage_metadata.unwrap_or_default();
    let count = |n: Option<u64>| n.unwrap_or(0);
    // `promptTokenCount` includes the cached content; thoughts are output.
    let usage = Usage {
        input_tokens: count(counts.prompt_token_count),
        output_tokens: count(counts.candidates_token_count) + count(counts.thoughts_token_count),
        cache_read_tokens: count(counts.cached_content_token_count),
        cache_write_tokens: 0,
        reasoning_tokens: count(counts.thoughts_token_count),
    };
    let Some(candidate) = answer.candidates.and_then(|c| c.into_iter().next()) else {
        if answer
            .prompt_feedback
            .is_some_and(|f| f.block_reason.is_some())
        {
            return Ok(ModelResponse {
                message: Message::model(Vec::new()),
                finish_reason: FinishReason::Blocked,
                usage,
            });
        }
        return Err(TransportError::shape(
            PROVIDER,
            "the answer has no candidates",
        ));
    };
    let mut parts = Vec::new();
    for p in candidate.content.into_iter().flat_map(|c| c.parts) {
        let mut m = Map::new();
        if let Some(s) = &p.thought_signature {
            m.insert("thoughtSignature".into(), s.clone());
        }
        let part = if let Some(call) = p.function_call {
            let name = call.name.ok_or_else(|| {
                TransportError::shape(PROVIDER, "a functionCall part has no name")
            })?;
            if call.id.is_some() {
                m.insert("id".into(), json!(true));
            }
            // Absent `args` stay absent (`null`), as the call arrived; the object moves.
            Part::tool_request(name, call.id, call.args.unwrap_or(Value::Null))
        } else if let Some(text) = p.text {
            if p.thought {
                Part::reasoning(text)
            } else {
                Part::text(text)
            }
        } else if let Some(data) = p.inline_data {
            let bytes = data
                .data
                .as_deref()
                .and_then(base64_decode)
                .ok_or_else(|| {
                    TransportError::shape(PROVIDER, "an inlineData part is not base64")
                })?;
            Part::inline_media(data.mime_type.unwrap_or_default(), bytes)
        } else {
            Part::custom(p.untouched())
        };
        parts.push(with_meta(part, NS, m));
    }
    // A call Gemini could not parse arrives as no parts and a finish message quoting it: that
    // message is the turn's text, where the model's call still stands.
    if let (Some("MALFORMED_FUNCTION_CALL"), Some(message)) =
        (candidate.finish_reason.as_deref(), candidate.finish_message)
    {
        parts.push(Part::text(message));
    }
    let finish_reason = match candidate.finish_reason.as_deref() {
        Some("STOP") | None => FinishReason::Stop,
        Some("MAX_TOKENS") => FinishReason::Length,
        Some(
            "SAFETY" | "RECITATION" | "BLOCKLIST" | "PROHIBITED_CONTENT" | "SPII" | "IMAGE_SAFETY",
        ) => FinishReason::Blocked,
        Some(_) => FinishReason::Other,
    };
    Ok(ModelResponse {
        message: Message::model(parts),
        finish_reason,
        usage,
    })
}

/// Assembles `streamGenerateContent?alt=sse` chunks into a `generateContent` answer.
#[derive(Default)]
pub struct Assembler {
    calls: u64,
    parts: Vec<WirePart>,
    finish: Option<String>,
    finish_message: Option<String>,
    /// What the last event held beside its candidates.
    last: Option<(Option<PromptFeedback>, Option<UsageMetadata>)>,
}

impl Assembler {
    /// Takes one part of the stream's candidate, passing its text or call to the sink.
    fn part(&mut self, p: WirePart, sink: &ModelStream) -> Result<(), TransportError> {
        if let Some(call) = &p.function_call {
            let name = call.name.clone().unwrap_or_default();
            let args = call.args.clone().unwrap_or(Value::Null);
            // Gemini sends each call whole: its arguments are one delta.
            let text = if args.is_null() {
                String::new()
            } else {
                args.to_string()
            };
            emit_delta(
                PROVIDER,
                sink,
                self.calls,
                call.id.as_deref(),
                Some(&name),
                &text,
            )?;
            self.calls += 1;
            emit(
                PROVIDER,
                sink,
                Part::tool_request(name, call.id.clone(), args),
            )?;
            self.parts.push(p);
            return Ok(());
        }
        let Some(text) = &p.text else {
            self.parts.push(p);
            return Ok(());
        };
        if !text.is_empty() {
            emit(
                PROVIDER,
                sink,
                if p.thought {
                    Part::reasoning(text.clone())
                } else {
                    Part::text(text.clone())
                },
            )?;
        }
        // Text of one kind continues the previous part until a signature closes it.
        let merge = self.parts.last_mut().filter(|last| {
            last.text.is_some() && last.thought == p.thought && last.thought_signature.is_none()
        });
        match merge {
            Some(last) => {
                if let Some(kept) = &mut last.text {
                    kept.push_str(text);
                }
                if p.thought_signature.is_some() {
                    last.thought_signature = p.thought_signature;
                }
            }
            None => self.parts.push(p),
        }
        Ok(())
    }
}

impl Assemble for Assembler {
    type Event = Answer;
    type Answer = Answer;

    fn event(
        &mut self,
        data: Answer,
        _number: usize,
        sink: &ModelStream,
    ) -> Result<bool, TransportError> {
        if let Some(error) = data.error.filter(|e| !e.is_null()) {
            return Err(remote_error(PROVIDER, &error));
        }
        if let Some(candidate) = data.candidates.and_then(|c| c.into_iter().next()) {
            for p in candidate.content.into_iter().flat_map(|c| c.parts) {
                self.part(p, sink)?;
            }
            if candidate.finish_reason.is_some() {
                self.finish = candidate.finish_reason;
            }
            if candidate.finish_message.is_some() {
                self.finish_message = candidate.finish_message;
            }
        }
        self.last = Some((data.prompt_feedback, data.usage_metadata));
        // The stream has no end marker: it ends with the body, and `finish` checks a finish
        // reason (or a blocked prompt) arrived.
        Ok(false)
    }

    fn finish(self, _complete: bool) -> Result<Answer, TransportError> {
        let Some((prompt_feedback, usage_metadata)) = self.last else {
            return Err(TransportError::malformed(
                PROVIDER,
                "the stream holds no event",
            ));
        };
        let blocked = prompt_feedback
            .as_ref()
            .is_some_and(|f| f.block_reason.is_some());
        if blocked && self.finish.is_none() {
            return Ok(Answer {
                error: None,
                candidates: None,
                prompt_feedback,
                usage_metadata,
            });
        }
        let Some(finish) = self.finish else {
            return Err(TransportError::malformed(
                PROVIDER,
                "the stream ended before a finishReason: the answer is incomplete, retry the call",
            ));
        };
        Ok(Answer {
            error: None,
            candidates: Some(vec![Candidate {
                content: Some(Content { parts: self.parts }),
                finish_reason: Some(finish),
                finish_message: self.finish_message,
            }]),
            prompt_feedback,
            usage_metadata,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The documented shape of a turn whose call Gemini could not parse (written from the API
    /// reference: `finishReason` `MALFORMED_FUNCTION_CALL`, the call quoted in
    /// `finishMessage`, no parts).
    #[test]
    fn a_malformed_function_call_keeps_its_finish_message_as_the_turns_text() {
        let message = "Malformed function call: print(default_api.submit_result(reasoning='r'))";
        let body = json!({"candidates": [{"content": {"role": "model"},
            "finishReason": "MALFORMED_FUNCTION_CALL", "finishMessage": message}]});
        let whole = parse_response(serde_json::from_value(body.clone()).unwrap()).unwrap();
        assert_eq!(whole.message.text(), message);
        let stream = format!("data: {body}\n\n");
        let streamed = Gemini::new("m").decode_stream([stream.as_bytes()]).unwrap();
        assert_eq!(streamed.message.text(), message);
        assert_eq!(streamed.finish_reason, FinishReason::Other);
    }

    #[test]
    fn call_ids_gemini_issued_go_back_on_call_and_response() {
        let body = json!({
            "candidates": [{"content": {"role": "model", "parts": [
                {"functionCall": {"id": "fc-7", "name": "t", "args": {}}}
            ]}, "finishReason": "STOP"}]
        });
        let response = parse_response(serde_json::from_value(body).unwrap()).unwrap();
        let answer = Message::new(
            Role::Tool,
            vec![Part::tool_response(
                "t",
                Some("fc-7".into()),
                Some(json!(1)),
            )],
        );
        let out = convert_messages(&[response.message, answer]).unwrap();
        // The conversation opens with a user turn, then the call and its answer.
        assert_eq!(out[0]["role"], "user");
        assert_eq!(out[1]["parts"][0]["functionCall"]["id"], "fc-7");
        assert_eq!(out[2]["parts"][0]["functionResponse"]["id"], "fc-7");
    }

    #[test]
    fn url_media_in_a_function_response_is_refused() {
        let mut part = Part::tool_response("render", None, Some(json!("done")));
        if let PartKind::ToolResponse(r) = &mut part.kind {
            r.content
                .push(Part::media("image/png", "https://example.com/a.png"));
        }
        let err = convert_messages(&[Message::new(Role::Tool, vec![part])]).unwrap_err();
        assert!(err.to_string().contains("attach the bytes inline"), "{err}");
    }

    #[test]
    fn inline_media_in_a_function_response_goes_in_parts() {
        let mut part = Part::tool_response("render", None, Some(json!("done")));
        if let PartKind::ToolResponse(r) = &mut part.kind {
            r.content
                .push(Part::inline_media("image/png", vec![1, 2, 3]));
        }
        let out = convert_messages(&[Message::new(Role::Tool, vec![part])]).unwrap();
        assert_eq!(
            out[0]["parts"][0]["functionResponse"]["parts"][0],
            json!({"inlineData": {"mimeType": "image/png", "data": "AQID"}})
        );
    }
}
