//! Replays of real provider traffic from `tests/recordings/<provider>/` (each file's source is
//! in `tests/recordings/PROVENANCE.md`): the recorded answer is served from a loopback server,
//! whole and again in pieces cut at arbitrary bytes, and what the transport parsed is checked
//! against what the recording holds, computed from the recording itself.

#![allow(dead_code, reason = "each replay test uses part of the helpers")]

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use serde_json::Value;
use submit_agent::{
    message::{Chunk, Message, Part},
    model::{FinishReason, Model, ModelError, ModelRequest, ModelResponse, ModelStream, Usage},
    run::Agent,
};

use super::server::{Recorded, Reply, Server};

/// The four wire formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wire {
    Claude,
    Gemini,
    Chat,
    Responses,
}

impl Wire {
    fn dir(self) -> &'static str {
        match self {
            Wire::Claude => "claude",
            Wire::Gemini => "gemini",
            Wire::Chat => "openai_chat",
            Wire::Responses => "openai_responses",
        }
    }
}

/// One recorded request and its answer.
#[derive(Clone, Debug)]
pub struct Exchange {
    /// The request body as sent, when the recording holds it.
    pub request: Option<Value>,
    /// The answer's HTTP status.
    pub status: u16,
    /// Whether the answer is an event stream.
    pub streamed: bool,
    /// The answer's body, as received.
    pub body: Vec<u8>,
}

impl Exchange {
    /// The answer, served whole.
    pub fn reply(&self) -> Reply {
        if self.streamed {
            let mut r = Reply::sse(String::from_utf8_lossy(&self.body).into_owned());
            r.status = self.status;
            r
        } else {
            Reply::json(
                self.status,
                String::from_utf8_lossy(&self.body).into_owned(),
            )
        }
    }

    /// The answer's JSON body (a non-streamed answer).
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap()
    }

    /// The `data:` payloads of a streamed answer, in order, `[DONE]` left out.
    pub fn events(&self) -> Vec<Value> {
        let text = String::from_utf8(self.body.clone())
            .unwrap()
            .replace("\r\n", "\n");
        text.split("\n\n")
            .filter_map(|block| {
                let data: Vec<&str> = block
                    .lines()
                    .filter_map(|l| l.strip_prefix("data:"))
                    .map(|d| d.strip_prefix(' ').unwrap_or(d))
                    .collect();
                (!data.is_empty()).then(|| data.join("\n"))
            })
            .filter(|d| d.trim() != "[DONE]")
            .map(|d| serde_json::from_str(&d).unwrap())
            .collect()
    }
}

/// The path of a recording.
pub fn path(wire: Wire, file: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/recordings")
        .join(wire.dir())
        .join(file)
}

/// The exchanges of a recording: a VCR cassette (`.yaml`), a response body (`.json`), or one
/// event per line (`.chunks.txt`), framed the way the provider frames its stream.
pub fn load(wire: Wire, file: &str) -> Vec<Exchange> {
    let text = std::fs::read_to_string(path(wire, file)).unwrap();
    if file.ends_with(".yaml") {
        let cassette: Value = serde_norway::from_str(&text).unwrap();
        return cassette["interactions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| {
                let response = &i["response"];
                let content_type = response
                    .pointer("/headers/content-type/0")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                let (streamed, body) = match response.pointer("/body/string") {
                    Some(Value::String(s)) => (
                        content_type.contains("event-stream"),
                        s.clone().into_bytes(),
                    ),
                    _ => (false, serde_json::to_vec(&response["parsed_body"]).unwrap()),
                };
                Exchange {
                    request: i.pointer("/request/parsed_body").cloned(),
                    status: response
                        .pointer("/status/code")
                        .and_then(Value::as_u64)
                        .unwrap_or(200) as u16,
                    streamed,
                    body,
                }
            })
            .collect();
    }
    if file.ends_with(".chunks.txt") {
        // A file may hold the streams of several steps in a row: each opens with its
        // `message_start` or `response.created`.
        let mut bodies: Vec<String> = Vec::new();
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let event: Value = serde_json::from_str(line).unwrap();
            let kind = event["type"].as_str().unwrap_or("");
            if bodies.is_empty() || kind == "message_start" || kind == "response.created" {
                bodies.push(String::new());
            }
            let body = bodies.last_mut().unwrap();
            if matches!(wire, Wire::Claude | Wire::Responses) {
                body.push_str(&format!("event: {kind}\n"));
            }
            body.push_str(&format!("data: {line}\n\n"));
        }
        return bodies
            .into_iter()
            .map(|mut body| {
                if wire == Wire::Chat {
                    body.push_str("data: [DONE]\n\n");
                }
                Exchange {
                    request: None,
                    status: 200,
                    streamed: true,
                    body: body.into_bytes(),
                }
            })
            .collect();
    }
    vec![Exchange {
        request: None,
        status: 200,
        streamed: false,
        body: text.into_bytes(),
    }]
}

/// What an answer holds, as the recording says or as the transport parsed it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Holds {
    /// The text, concatenated.
    pub text: String,
    /// The reasoning text, concatenated.
    pub reasoning: String,
    /// Thinking signatures (Anthropic) or thought signatures (Gemini), in order.
    pub signatures: Vec<String>,
    /// Tool calls: name, id, and the arguments as they arrived (argument text as a JSON string,
    /// an arguments object as itself).
    pub calls: Vec<(String, Option<String>, Value)>,
    /// Why the model stopped.
    pub finish: Option<FinishReason>,
    /// Tokens.
    pub usage: Usage,
}

/// What the transport parsed.
pub fn parsed(wire: Wire, response: &ModelResponse) -> Holds {
    let mut holds = Holds {
        finish: Some(response.finish_reason),
        usage: response.usage,
        ..Holds::default()
    };
    for part in &response.message.content {
        let signature = match wire {
            Wire::Claude => part.metadata.as_ref().and_then(|m| m.get("claude")),
            Wire::Gemini => part.metadata.as_ref().and_then(|m| m.get("gemini")),
            _ => None,
        }
        .and_then(|m| m.get("signature").or_else(|| m.get("thoughtSignature")))
        .and_then(Value::as_str);
        if let Some(s) = signature {
            holds.signatures.push(s.to_owned());
        }
        if let Some(t) = part.as_text() {
            holds.text.push_str(t);
        } else if let Some(r) = part.as_reasoning() {
            holds.reasoning.push_str(r);
        } else if let Some(call) = part.as_tool_request() {
            holds
                .calls
                .push((call.name.clone(), call.reference.clone(), as_arrived(call)));
        }
    }
    holds
}

fn s(v: &Value, key: &str) -> String {
    v.get(key).and_then(Value::as_str).unwrap_or("").to_owned()
}

fn n(v: &Value, pointer: &str) -> u64 {
    v.pointer(pointer).and_then(Value::as_u64).unwrap_or(0)
}

/// A `Usage` of input, output, cache-read, cache-write and reasoning tokens.
fn usage([input, output, cache_read, cache_write, reasoning]: [u64; 5]) -> Usage {
    let mut usage = Usage::default();
    usage.input_tokens = input;
    usage.output_tokens = output;
    usage.cache_read_tokens = cache_read;
    usage.cache_write_tokens = cache_write;
    usage.reasoning_tokens = reasoning;
    usage
}

/// `Usage` from a provider's usage object: input counts every input token (cached ones
/// included), output every output token (reasoning included).
pub fn usage_of(wire: Wire, u: &Value) -> Usage {
    match wire {
        Wire::Claude => usage([
            n(u, "/input_tokens")
                + n(u, "/cache_read_input_tokens")
                + n(u, "/cache_creation_input_tokens"),
            n(u, "/output_tokens"),
            n(u, "/cache_read_input_tokens"),
            n(u, "/cache_creation_input_tokens"),
            0,
        ]),
        Wire::Chat => usage([
            n(u, "/prompt_tokens"),
            n(u, "/completion_tokens"),
            n(u, "/prompt_tokens_details/cached_tokens"),
            0,
            n(u, "/completion_tokens_details/reasoning_tokens"),
        ]),
        Wire::Responses => usage([
            n(u, "/input_tokens"),
            n(u, "/output_tokens"),
            n(u, "/input_tokens_details/cached_tokens"),
            0,
            n(u, "/output_tokens_details/reasoning_tokens"),
        ]),
        Wire::Gemini => usage([
            n(u, "/promptTokenCount"),
            n(u, "/candidatesTokenCount") + n(u, "/thoughtsTokenCount"),
            n(u, "/cachedContentTokenCount"),
            0,
            n(u, "/thoughtsTokenCount"),
        ]),
    }
}

fn finish_of(wire: Wire, reason: &str) -> FinishReason {
    match (wire, reason) {
        (Wire::Claude, "end_turn" | "tool_use" | "stop_sequence") => FinishReason::Stop,
        (Wire::Claude, "max_tokens") => FinishReason::Length,
        (Wire::Chat, "stop" | "tool_calls") => FinishReason::Stop,
        (Wire::Chat, "length") => FinishReason::Length,
        (Wire::Responses, "completed") => FinishReason::Stop,
        (Wire::Gemini, "STOP") => FinishReason::Stop,
        (Wire::Gemini, "MAX_TOKENS") => FinishReason::Length,
        _ => FinishReason::Other,
    }
}

/// Arguments sent as a JSON string, read the way the recording's client reads them.
/// Argument text as the transports keep it: the text as the model sent it, not decoded.
fn arguments(text: &str) -> Value {
    Value::String(text.to_owned())
}

/// A decoded call's arguments as they arrived: its text when it came as text, else its value.
fn as_arrived(call: &submit_agent::message::ToolRequest) -> Value {
    call.arguments_text
        .clone()
        .map_or_else(|| call.input.clone(), Value::String)
}

/// What a recorded answer holds, computed from the recording itself (for a stream, from its
/// events: the concatenated deltas, the last usage).
pub fn recorded(wire: Wire, exchange: &Exchange) -> Holds {
    let mut h = Holds::default();
    match (wire, exchange.streamed) {
        (Wire::Claude, false) => claude_message(&exchange.json(), &mut h),
        (Wire::Claude, true) => claude_message(&claude_stream_message(exchange), &mut h),
        (Wire::Chat, false) => {
            let body = exchange.json();
            let m = &body["choices"][0]["message"];
            h.text = s(m, "content");
            for c in m["tool_calls"].as_array().into_iter().flatten() {
                h.calls.push((
                    s(&c["function"], "name"),
                    Some(s(c, "id")),
                    arguments(&s(&c["function"], "arguments")),
                ));
            }
            h.finish = Some(finish_of(wire, &s(&body["choices"][0], "finish_reason")));
            h.usage = usage_of(wire, &body["usage"]);
        }
        (Wire::Chat, true) => {
            let mut calls: Vec<(String, String, String)> = Vec::new();
            for e in exchange.events() {
                if e.get("usage").is_some_and(|u| !u.is_null()) {
                    h.usage = usage_of(wire, &e["usage"]);
                }
                for c in e["choices"].as_array().into_iter().flatten() {
                    h.text.push_str(&s(&c["delta"], "content"));
                    for t in c["delta"]["tool_calls"].as_array().into_iter().flatten() {
                        let i = t["index"].as_u64().unwrap() as usize;
                        if calls.len() <= i {
                            calls.resize(i + 1, Default::default());
                        }
                        calls[i].0.push_str(&s(t, "id"));
                        calls[i].1.push_str(&s(&t["function"], "name"));
                        calls[i].2.push_str(&s(&t["function"], "arguments"));
                    }
                    if let Some(f) = c["finish_reason"].as_str() {
                        h.finish = Some(finish_of(wire, f));
                    }
                }
            }
            h.calls = calls
                .into_iter()
                .map(|(id, name, args)| (name, Some(id), arguments(&args)))
                .collect();
        }
        (Wire::Responses, false) => responses_body(&exchange.json(), &mut h),
        (Wire::Responses, true) => {
            // The deltas make the text and the arguments; the finished items the output (the
            // completed response may repeat them with less: one recording's completed
            // reasoning item has an empty summary its `output_item.done` holds); the
            // completed response the rest.
            let mut items: Vec<(u64, Value)> = Vec::new();
            let mut text = String::new();
            let mut args: Vec<(u64, String)> = Vec::new();
            let mut reasoning = String::new();
            let mut done = Value::Null;
            for e in exchange.events() {
                match e["type"].as_str().unwrap_or("") {
                    "response.output_text.delta" => text.push_str(&s(&e, "delta")),
                    "response.reasoning_summary_text.delta" => reasoning.push_str(&s(&e, "delta")),
                    "response.function_call_arguments.delta" => {
                        let i = e["output_index"].as_u64().unwrap();
                        match args.iter_mut().find(|(j, _)| *j == i) {
                            Some((_, a)) => a.push_str(&s(&e, "delta")),
                            None => args.push((i, s(&e, "delta"))),
                        }
                    }
                    "response.output_item.done" => {
                        items.push((e["output_index"].as_u64().unwrap(), e["item"].clone()))
                    }
                    "response.completed" | "response.incomplete" => done = e["response"].clone(),
                    _ => {}
                }
            }
            if !items.is_empty() {
                items.sort_by_key(|(i, _)| *i);
                done["output"] = Value::Array(items.into_iter().map(|(_, v)| v).collect());
            }
            responses_body(&done, &mut h);
            assert_eq!(
                h.text, text,
                "the deltas add up to the completed response's text"
            );
            assert_eq!(
                h.reasoning, reasoning,
                "the summary deltas add up to the summary"
            );
            let streamed_args: Vec<Value> = args.iter().map(|(_, a)| arguments(a)).collect();
            let completed_args: Vec<Value> = h.calls.iter().map(|c| c.2.clone()).collect();
            assert_eq!(streamed_args, completed_args);
        }
        (Wire::Gemini, streamed) => {
            let chunks = if streamed {
                exchange.events()
            } else {
                vec![exchange.json()]
            };
            for c in &chunks {
                let candidate = &c["candidates"][0];
                for p in candidate["content"]["parts"]
                    .as_array()
                    .into_iter()
                    .flatten()
                {
                    if let Some(sig) = p.get("thoughtSignature").and_then(Value::as_str) {
                        h.signatures.push(sig.to_owned());
                    }
                    if let Some(call) = p.get("functionCall") {
                        let id = call.get("id").and_then(Value::as_str).map(str::to_owned);
                        h.calls.push((s(call, "name"), id, call["args"].clone()));
                    } else if p["thought"] == true {
                        h.reasoning.push_str(&s(p, "text"));
                    } else {
                        h.text.push_str(&s(p, "text"));
                    }
                }
                if let Some(f) = candidate["finishReason"].as_str() {
                    h.finish = Some(finish_of(wire, f));
                }
                if c.get("usageMetadata").is_some() {
                    h.usage = usage_of(wire, &c["usageMetadata"]);
                }
            }
        }
    }
    h
}

/// The message a Claude stream adds up to: `message_start`'s message with the blocks its
/// deltas write, the inputs read from their JSON pieces, and `message_delta`'s stop reason and
/// usage.
fn claude_stream_message(exchange: &Exchange) -> Value {
    let mut message = Value::Null;
    let mut blocks: Vec<Value> = Vec::new();
    for e in exchange.events() {
        let i = e["index"].as_u64().unwrap_or(0) as usize;
        match e["type"].as_str().unwrap_or("") {
            "message_start" => message = e["message"].clone(),
            "content_block_start" => {
                let mut b = e["content_block"].clone();
                if b["type"] == "tool_use" {
                    b["partial"] = Value::String(String::new());
                }
                blocks.push(b);
            }
            "content_block_delta" => {
                let d = &e["delta"];
                let b = &mut blocks[i];
                for (kind, key, into) in [
                    ("text_delta", "text", "text"),
                    ("thinking_delta", "thinking", "thinking"),
                    ("signature_delta", "signature", "signature"),
                    ("input_json_delta", "partial_json", "partial"),
                ] {
                    if d["type"] == kind {
                        let joined = s(b, into) + &s(d, key);
                        b[into] = Value::String(joined);
                    }
                }
            }
            "message_delta" => {
                message["stop_reason"] = e["delta"]["stop_reason"].clone();
                for (k, v) in e["usage"].as_object().into_iter().flatten() {
                    if !v.is_null() {
                        message["usage"][k] = v.clone();
                    }
                }
            }
            _ => {}
        }
    }
    for b in &mut blocks {
        if let Some(Value::String(p)) = b.as_object_mut().and_then(|o| o.remove("partial")) {
            b["input"] = arguments(&p);
        }
    }
    message["content"] = Value::Array(blocks);
    message
}

fn claude_message(m: &Value, h: &mut Holds) {
    for b in m["content"].as_array().into_iter().flatten() {
        match b["type"].as_str().unwrap_or("") {
            "text" => h.text.push_str(&s(b, "text")),
            "thinking" => {
                h.reasoning.push_str(&s(b, "thinking"));
                h.signatures.push(s(b, "signature"));
            }
            "tool_use" => h
                .calls
                .push((s(b, "name"), Some(s(b, "id")), b["input"].clone())),
            _ => {}
        }
    }
    h.finish = Some(finish_of(Wire::Claude, &s(m, "stop_reason")));
    h.usage = usage_of(Wire::Claude, &m["usage"]);
}

fn responses_body(body: &Value, h: &mut Holds) {
    for item in body["output"].as_array().into_iter().flatten() {
        match item["type"].as_str().unwrap_or("") {
            "message" => {
                for c in item["content"].as_array().into_iter().flatten() {
                    h.text.push_str(&s(c, "text"));
                }
            }
            "reasoning" => {
                for part in item["summary"].as_array().into_iter().flatten() {
                    h.reasoning.push_str(&s(part, "text"));
                }
            }
            "function_call" => h.calls.push((
                s(item, "name"),
                Some(s(item, "call_id")),
                arguments(&s(item, "arguments")),
            )),
            _ => {}
        }
    }
    h.finish = Some(finish_of(Wire::Responses, &s(body, "status")));
    h.usage = usage_of(Wire::Responses, &body["usage"]);
}

/// The non-streamed answer of a streamed exchange, as the same provider would have sent it,
/// derived from the recorded events: for Responses, the `response.completed` event's response
/// as recorded; for Claude, the message its events add up to; for Chat, one choice with the
/// joined content and tool calls and the usage chunk's usage; for Gemini, one candidate with
/// every part, the last finish reason and the last usage. Only the derivation is written
/// here; every value comes from the recording.
pub fn unstreamed(wire: Wire, exchange: &Exchange) -> Value {
    let events = exchange.events();
    match wire {
        Wire::Responses => events
            .iter()
            .rev()
            .find(|e| e["type"] == "response.completed" || e["type"] == "response.incomplete")
            .map(|e| e["response"].clone())
            .unwrap_or(Value::Null),
        Wire::Claude => claude_stream_message(exchange),
        Wire::Chat => {
            let mut content = String::new();
            let mut calls: Vec<Value> = Vec::new();
            let mut finish = Value::Null;
            let mut usage = Value::Null;
            let mut model = Value::Null;
            for e in &events {
                if e.get("usage").is_some_and(|u| !u.is_null()) {
                    usage = e["usage"].clone();
                }
                if e.get("model").is_some() {
                    model = e["model"].clone();
                }
                for c in e["choices"].as_array().into_iter().flatten() {
                    content.push_str(&s(&c["delta"], "content"));
                    for t in c["delta"]["tool_calls"].as_array().into_iter().flatten() {
                        let i = t["index"].as_u64().unwrap() as usize;
                        while calls.len() <= i {
                            calls.push(serde_json::json!({"id": "", "type": "function",
                                "function": {"name": "", "arguments": ""}}));
                        }
                        let call = &mut calls[i];
                        call["id"] = Value::String(s(call, "id") + &s(t, "id"));
                        for key in ["name", "arguments"] {
                            let joined = s(&call["function"], key) + &s(&t["function"], key);
                            call["function"][key] = Value::String(joined);
                        }
                    }
                    if c["finish_reason"].is_string() {
                        finish = c["finish_reason"].clone();
                    }
                }
            }
            let mut message = serde_json::json!({"role": "assistant", "content": content});
            if !calls.is_empty() {
                message["tool_calls"] = Value::Array(calls);
            }
            serde_json::json!({
                "object": "chat.completion",
                "model": model,
                "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                "usage": usage,
            })
        }
        Wire::Gemini => {
            let mut parts: Vec<Value> = Vec::new();
            let mut finish = Value::Null;
            let mut usage = Value::Null;
            for e in &events {
                let candidate = &e["candidates"][0];
                parts.extend(
                    candidate["content"]["parts"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .cloned(),
                );
                if candidate["finishReason"].is_string() {
                    finish = candidate["finishReason"].clone();
                }
                if e.get("usageMetadata").is_some() {
                    usage = e["usageMetadata"].clone();
                }
            }
            serde_json::json!({
                "candidates": [{"content": {"role": "model", "parts": parts},
                                "finishReason": finish}],
                "usageMetadata": usage,
            })
        }
    }
}

/// A model that hands the loop an empty answer after recording what the transport returned,
/// so one replayed exchange is one call.
struct Capture<M> {
    inner: M,
    result: Arc<Mutex<Option<Result<ModelResponse, ModelError>>>>,
}

impl<M: Model> Model for Capture<M> {
    fn generate<'a>(
        &'a self,
        request: ModelRequest,
        stream: Option<ModelStream>,
    ) -> futures::future::BoxFuture<'a, Result<ModelResponse, ModelError>> {
        use futures::FutureExt;
        async move {
            let result = self.inner.generate(request, stream).await;
            *self.result.lock().unwrap() = Some(result);
            Ok(ModelResponse::new(Message::model(vec![Part::text("")])))
        }
        .boxed()
    }
}

/// One replayed call.
pub struct Replayed {
    /// What the transport returned.
    pub result: Result<ModelResponse, ModelError>,
    /// The chunks it streamed.
    pub chunks: Vec<Chunk>,
    /// The requests the server received.
    pub requests: Vec<Recorded>,
}

impl Replayed {
    /// The parsed response; panics with the error otherwise.
    pub fn response(&self) -> &ModelResponse {
        match &self.result {
            Ok(r) => r,
            Err(e) => panic!("the replay failed: {e}"),
        }
    }
}

/// Serves `replies` and makes one call through an agent, streamed when `streamed`.
pub fn replay<M: Model + 'static>(
    model: impl Fn(&str) -> M,
    replies: Vec<Reply>,
    streamed: bool,
) -> Replayed {
    let server = Server::start(|_| Ok(()), replies);
    let result = Arc::new(Mutex::new(None));
    let chunks = Arc::new(Mutex::new(Vec::new()));
    let mut agent = Agent::new(Capture {
        inner: model(&server.url),
        result: Arc::clone(&result),
    });
    if streamed {
        let sink = Arc::clone(&chunks);
        agent = agent.stream(move |chunk| {
            sink.lock().unwrap().push(chunk);
            Ok(())
        });
    }
    futures::executor::block_on(agent.generate(vec![Message::user("replay")])).unwrap();
    let result = result.lock().unwrap().take().unwrap();
    let chunks = chunks.lock().unwrap().clone();
    Replayed {
        result,
        chunks,
        requests: server.requests(),
    }
}

/// What the streamed chunks hold: text and reasoning concatenated, finished tool calls.
pub fn chunked(chunks: &[Chunk]) -> Holds {
    let mut h = Holds::default();
    for part in chunks.iter().flat_map(|c| c.content.iter()) {
        if let Some(t) = part.as_text() {
            h.text.push_str(t);
        } else if let Some(r) = part.as_reasoning() {
            h.reasoning.push_str(r);
        } else if let Some(call) = part.as_tool_request() {
            h.calls
                .push((call.name.clone(), call.reference.clone(), as_arrived(call)));
        }
    }
    h
}

/// Every path where `a` and `b` differ, as `path: a != b` (values cut at 60 characters).
pub fn differences(a: &Value, b: &Value) -> Vec<String> {
    fn cut(v: &Value) -> String {
        let t = v.to_string();
        match t.char_indices().nth(60) {
            Some((i, _)) => format!("{}…", &t[..i]),
            None => t,
        }
    }
    fn walk(a: &Value, b: &Value, at: String, out: &mut Vec<String>) {
        match (a, b) {
            (Value::Object(x), Value::Object(y)) => {
                let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
                keys.sort();
                keys.dedup();
                for k in keys {
                    let path = format!("{at}/{k}");
                    match (x.get(k), y.get(k)) {
                        (Some(p), Some(q)) => walk(p, q, path, out),
                        (Some(p), None) => out.push(format!("{path}: {} != (absent)", cut(p))),
                        (None, Some(q)) => out.push(format!("{path}: (absent) != {}", cut(q))),
                        (None, None) => {}
                    }
                }
            }
            (Value::Array(x), Value::Array(y)) => {
                for (i, (p, q)) in x.iter().zip(y).enumerate() {
                    walk(p, q, format!("{at}/{i}"), out);
                }
                for (i, p) in x.iter().enumerate().skip(y.len()) {
                    out.push(format!("{at}/{i}: {} != (absent)", cut(p)));
                }
                for (i, q) in y.iter().enumerate().skip(x.len()) {
                    out.push(format!("{at}/{i}: (absent) != {}", cut(q)));
                }
            }
            _ if a == b => {}
            _ => out.push(format!("{at}: {} != {}", cut(a), cut(b))),
        }
    }
    let mut out = Vec::new();
    walk(a, b, String::new(), &mut out);
    out
}
