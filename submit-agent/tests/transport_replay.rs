//! The four transports replayed against traffic recorded from the real APIs by other public
//! projects (`tests/recordings/`, sources in its `PROVENANCE.md`). Each recorded answer is
//! served whole and again in pieces cut at arbitrary bytes; what the transport parsed (text,
//! reasoning and signatures, tool calls with ids and arguments, finish reason, usage, the
//! typed error) is checked against what is computed from the recording itself. Where a
//! recording holds the next exchange, the follow-up request the transport builds from its own
//! parse is compared with the recorded one, which the API accepted; every remaining
//! difference is listed with the reason it is harmless.

#![cfg(all(
    feature = "claude",
    feature = "gemini",
    feature = "openai-chat",
    feature = "openai-responses"
))]

use crate::transport::{replay, server};

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::{json, Value};
use submit_agent::transport::{
    Claude, Gemini, OpenAiChat, OpenAiResponses, Retry, TransportError, TransportErrorKind,
};
use submit_agent::{
    message::{Chunk, Message, Part, Role},
    model::{ModelError, ModelRequest, ModelResponse},
};

use replay::{differences, load, parsed, recorded, Exchange, Replayed, Wire};
use server::Reply;

fn fast() -> Retry {
    Retry::new(3).backoff(Duration::from_millis(1), Duration::from_millis(5))
}

/// One call of `wire`'s transport for `model` against `replies`.
fn call(wire: Wire, model: &str, replies: Vec<Reply>, streamed: bool) -> Replayed {
    let model = model.to_owned();
    match wire {
        Wire::Claude => replay::replay(
            |url| {
                Claude::new(model.clone())
                    .api_key("test-key")
                    .base_url(url)
                    .retry(fast())
            },
            replies,
            streamed,
        ),
        Wire::Gemini => replay::replay(
            |url| {
                Gemini::new(model.clone())
                    .api_key("test-key")
                    .base_url(url)
                    .retry(fast())
            },
            replies,
            streamed,
        ),
        Wire::Chat => replay::replay(
            |url| {
                OpenAiChat::new(model.clone())
                    .api_key("test-key")
                    .base_url(url)
                    .retry(fast())
            },
            replies,
            streamed,
        ),
        Wire::Responses => replay::replay(
            |url| {
                OpenAiResponses::new(model.clone())
                    .api_key("test-key")
                    .base_url(url)
                    .retry(fast())
            },
            replies,
            streamed,
        ),
    }
}

/// `wire`'s transport reading a recorded event stream from memory.
fn decode_stream<'a>(
    wire: Wire,
    model: &str,
    pieces: impl IntoIterator<Item = &'a [u8]>,
) -> ModelResponse {
    let decoded = match wire {
        Wire::Claude => Claude::new(model).decode_stream(pieces),
        Wire::Gemini => Gemini::new(model).decode_stream(pieces),
        Wire::Chat => OpenAiChat::new(model).decode_stream(pieces),
        Wire::Responses => OpenAiResponses::new(model).decode_stream(pieces),
    };
    decoded.unwrap()
}

/// `wire`'s transport reading a recorded JSON body from memory.
fn decode_body(wire: Wire, model: &str, body: &[u8]) -> ModelResponse {
    let decoded = match wire {
        Wire::Claude => Claude::new(model).decode_body(body),
        Wire::Gemini => Gemini::new(model).decode_body(body),
        Wire::Chat => OpenAiChat::new(model).decode_body(body),
        Wire::Responses => OpenAiResponses::new(model).decode_body(body),
    };
    decoded.unwrap()
}

/// The typed transport error under a model error.
fn transport_error(e: &ModelError) -> TransportError {
    let mut next: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = next {
        if let Some(t) = err.downcast_ref::<TransportError>() {
            return t.clone();
        }
        next = err.source();
    }
    panic!("no TransportError under {e}")
}

/// The argument pieces streamed as tool-call deltas, joined per call index (in index order),
/// each with the ids they carried.
fn deltas(chunks: &[Chunk]) -> Vec<(Vec<String>, String)> {
    let mut calls: BTreeMap<u64, (Vec<String>, String)> = BTreeMap::new();
    for part in chunks.iter().flat_map(|c| c.content.iter()) {
        if let Some(d) = part.as_tool_call_delta() {
            let entry = calls.entry(d.index).or_default();
            if let Some(id) = d.id {
                if !entry.0.contains(&id) {
                    entry.0.push(id);
                }
            }
            entry.1.push_str(&d.arguments);
        }
    }
    calls.into_values().collect()
}

const SPLITS: [u64; 2] = [7, 1_000_003];

/// Replays every exchange of a recording, whole and in pieces, against what it holds;
/// returns the parsed responses (of the whole replays) in order.
fn check(wire: Wire, file: &str) -> Vec<ModelResponse> {
    let exchanges = load(wire, file);
    let mut out = Vec::new();
    for (n, ex) in exchanges.iter().enumerate() {
        let label = format!("{file} #{n}");
        let model = recorded_model(ex);
        if ex.status >= 400 {
            check_http_error(wire, &model, ex, &label);
            continue;
        }
        let expected = recorded(wire, ex);
        let mut replies = vec![("whole", ex.reply())];
        for seed in SPLITS {
            replies.push(("in pieces", ex.reply().in_pieces(seed)));
        }
        for (how, reply) in replies {
            let r = call(wire, &model, vec![reply], ex.streamed);
            let got = parsed(wire, r.response());
            assert_eq!(got, expected, "{label} served {how}");
            if ex.streamed {
                let streamed = replay::chunked(&r.chunks);
                assert_eq!(streamed.text, expected.text, "{label}: streamed text");
                assert_eq!(
                    streamed.reasoning, expected.reasoning,
                    "{label}: streamed reasoning"
                );
                assert_eq!(streamed.calls, expected.calls, "{label}: streamed calls");
                let pieces = deltas(&r.chunks);
                assert_eq!(pieces.len(), expected.calls.len(), "{label}: delta calls");
                for ((ids, text), (_, id, input)) in pieces.iter().zip(&expected.calls) {
                    // Argument text adds up to the text itself; an object's one delta is
                    // its JSON.
                    let joined: Value = match input {
                        Value::String(_) => Value::String(text.clone()),
                        _ if text.trim().is_empty() => json!({}),
                        _ => serde_json::from_str(text).unwrap(),
                    };
                    assert_eq!(&joined, input, "{label}: the argument deltas add up");
                    if let Some(id) = id {
                        assert_eq!(ids, &vec![id.clone()], "{label}: each delta names its call");
                    }
                }
            }
            if how == "whole" {
                out.push(r.response().clone());
            }
        }
        // The same answer read from memory, without a server, in the same pieces.
        if ex.streamed {
            for size in [1, 61, usize::MAX] {
                let pieces = ex.body.chunks(size.min(ex.body.len().max(1)));
                let decoded = decode_stream(wire, &model, pieces);
                assert_eq!(
                    parsed(wire, &decoded),
                    expected,
                    "{label} decoded in {size}-byte pieces"
                );
            }
        } else {
            assert_eq!(
                parsed(wire, &decode_body(wire, &model, &ex.body)),
                expected,
                "{label} decoded"
            );
        }
    }
    out
}

fn recorded_model(ex: &Exchange) -> String {
    ex.request
        .as_ref()
        .and_then(|r| r.get("model"))
        .and_then(Value::as_str)
        .unwrap_or("recorded-model")
        .to_owned()
}

/// An error answer: the typed error keeps the status and the provider's own message (retried
/// first when the status is one to retry).
fn check_http_error(wire: Wire, model: &str, ex: &Exchange, label: &str) {
    let body = ex.json();
    let message = body["error"]["message"].as_str().unwrap().to_owned();
    let retried = ex.status == 429 || ex.status >= 500;
    let replies = if retried {
        vec![ex.reply(), ex.reply(), ex.reply()]
    } else {
        vec![ex.reply()]
    };
    let r = call(wire, model, replies, ex.streamed);
    let error = r.result.as_ref().map(|_| ()).unwrap_err();
    match transport_error(error).kind() {
        TransportErrorKind::Api {
            status,
            message: got,
            attempts,
            ..
        } => {
            assert_eq!(*status, ex.status, "{label}");
            assert_eq!(*got, message, "{label}");
            assert_eq!(*attempts, if retried { 3 } else { 1 }, "{label}");
        }
        other => panic!("{label}: expected an Api error, got {other:?}"),
    }
}

// ---- every recording, streamed whole and in pieces ----

#[test]
fn replay_claude_tool_with_thinking() {
    let responses = check(Wire::Claude, "test_anthropic_tool_with_thinking.yaml");
    assert_eq!(responses[0].message.tool_requests().count(), 1);
}

#[test]
fn replay_claude_thinking_stream() {
    check(
        Wire::Claude,
        "test_anthropic_model_thinking_part_stream.yaml",
    );
}

#[test]
fn replay_claude_http_error() {
    check(
        Wire::Claude,
        "test_anthropic_explicit_effort_xhigh_unsupported_model_errors.yaml",
    );
}

#[test]
fn replay_claude_json_tool_stream() {
    check(Wire::Claude, "anthropic-json-tool.1.chunks.txt");
}

#[test]
fn replay_claude_prompt_cache() {
    check(Wire::Claude, "test_anthropic_cache_real_api.yaml");
}

#[test]
fn replay_claude_parallel_tool_calls() {
    let responses = check(Wire::Claude, "test_multiple_parallel_tool_calls.yaml");
    assert_eq!(responses[0].message.tool_requests().count(), 4);
}

#[test]
fn replay_gemini_streaming_tool_call_thought_signature() {
    check(
        Wire::Gemini,
        "test_google_streaming_tool_call_thought_signature.yaml",
    );
}

#[test]
fn replay_gemini_thinking_part() {
    check(Wire::Gemini, "test_google_model_thinking_part.yaml");
}

#[test]
fn replay_gemini_tool_call_json() {
    check(Wire::Gemini, "google-tool-call-gemini3.json");
}

#[test]
fn replay_gemini_tool_call_stream() {
    check(Wire::Gemini, "google-tool-call.chunks.txt");
}

#[test]
fn replay_gemini_reasoning_stream() {
    check(Wire::Gemini, "google-reasoning-gemini3.chunks.txt");
}

#[test]
fn replay_gemini_rate_limited() {
    // The recorded body of a 429; the status is the one its `error.code` names.
    let text =
        std::fs::read_to_string(replay::path(Wire::Gemini, "google-429-retry-info.json")).unwrap();
    let ex = Exchange {
        request: None,
        status: 429,
        streamed: false,
        body: text.into_bytes(),
    };
    assert_eq!(ex.json()["error"]["code"], 429);
    check_http_error(Wire::Gemini, "gemini-3-pro-preview", &ex, "google-429");
}

#[test]
fn replay_openai_chat_tool_output() {
    check(Wire::Chat, "test_openai_tool_output.yaml");
}

#[test]
fn replay_openai_chat_parallel_tool_calls_stream() {
    let responses = check(Wire::Chat, "test_complex_agent_run.yaml");
    assert_eq!(responses[0].message.tool_requests().count(), 2);
}

#[test]
fn replay_openai_chat_text_stream() {
    check(Wire::Chat, "openai-text.chunks.txt");
}

#[test]
fn replay_openai_chat_text_json() {
    check(Wire::Chat, "openai-text.json");
}

#[test]
fn replay_openai_chat_azure_router_stream() {
    check(Wire::Chat, "azure-model-router.1.chunks.txt");
}

#[test]
fn replay_openai_chat_http_error() {
    check(
        Wire::Chat,
        "test_openai_o1_mini_system_role[developer].yaml",
    );
}

#[test]
fn replay_openai_responses_stream() {
    check(Wire::Responses, "test_openai_responses_stream.yaml");
}

#[test]
fn replay_openai_responses_thinking_with_tool_calls() {
    check(
        Wire::Responses,
        "test_openai_responses_thinking_with_tool_calls.yaml",
    );
}

#[test]
fn replay_openai_responses_http_error() {
    check(
        Wire::Responses,
        "test_openai_responses_model_http_error.yaml",
    );
}

#[test]
fn replay_openai_responses_reasoning_stream() {
    check(
        Wire::Responses,
        "openai-reasoning-encrypted-content.1.chunks.txt",
    );
}

#[test]
fn replay_openai_responses_parallel_tool_calls() {
    let responses = check(Wire::Responses, "test_openai_responses_model_retry.yaml");
    assert_eq!(responses[0].message.tool_requests().count(), 2);
}

// ---- follow-up requests against the recorded ones ----

/// The text of a recorded message content: a string, or its text blocks joined.
fn content_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect(),
        _ => String::new(),
    }
}

/// The recorded conversation of a request body.
fn conversation(wire: Wire, body: &Value) -> Vec<Value> {
    let key = match wire {
        Wire::Claude | Wire::Chat => "messages",
        Wire::Gemini => "contents",
        Wire::Responses => "input",
    };
    body[key].as_array().cloned().unwrap_or_default()
}

/// The system text and the first user text of a recorded request.
fn opening(wire: Wire, body: &Value) -> (Option<String>, String) {
    let turns = conversation(wire, body);
    let system = match wire {
        Wire::Claude => Some(content_text(&body["system"])),
        Wire::Gemini => Some(content_text(&body["systemInstruction"]["parts"])),
        Wire::Responses => body["instructions"].as_str().map(str::to_owned),
        Wire::Chat => turns
            .iter()
            .find(|m| m["role"] == "system" || m["role"] == "developer")
            .map(|m| content_text(&m["content"])),
    }
    .filter(|s| !s.is_empty());
    let user = turns
        .iter()
        .find(|m| m["role"] == "user" || (wire == Wire::Responses && m.get("type").is_none()))
        .map(|m| match wire {
            Wire::Gemini => content_text(&m["parts"]),
            _ => content_text(&m["content"]),
        })
        .unwrap_or_default();
    (system, user)
}

/// The tool results a recorded request answers, as tool response parts (named after the
/// calls of `asked`).
fn results(wire: Wire, body: &Value, asked: &ModelResponse) -> Vec<Part> {
    let name_of = |id: &str| {
        asked
            .message
            .tool_requests()
            .find(|r| r.reference.as_deref() == Some(id))
            .map(|r| r.name.clone())
            .unwrap_or_default()
    };
    let mut out = Vec::new();
    for turn in conversation(wire, body) {
        match wire {
            Wire::Claude => {
                for b in turn["content"].as_array().into_iter().flatten() {
                    if b["type"] == "tool_result" {
                        let id = b["tool_use_id"].as_str().unwrap();
                        out.push(Part::tool_response(
                            name_of(id),
                            Some(id.to_owned()),
                            Some(json!(content_text(&b["content"]))),
                        ));
                    }
                }
            }
            Wire::Chat if turn["role"] == "tool" => {
                let id = turn["tool_call_id"].as_str().unwrap();
                out.push(Part::tool_response(
                    name_of(id),
                    Some(id.to_owned()),
                    Some(json!(content_text(&turn["content"]))),
                ));
            }
            Wire::Responses if turn["type"] == "function_call_output" => {
                let recorded_id = turn["call_id"].as_str().unwrap();
                // One recording's client answered by item id; the call is found by either.
                let call = asked
                    .message
                    .content
                    .iter()
                    .filter_map(|p| p.as_tool_request().map(|r| (p, r)))
                    .find(|(p, r)| {
                        r.reference.as_deref() == Some(recorded_id)
                            || p.metadata
                                .as_ref()
                                .and_then(|m| m.get("openaiResponses"))
                                .and_then(|m| m.get("id"))
                                .and_then(Value::as_str)
                                == Some(recorded_id)
                    })
                    .map(|(_, r)| r.clone())
                    .unwrap();
                out.push(Part::tool_response(
                    call.name,
                    call.reference,
                    Some(turn["output"].clone()),
                ));
            }
            Wire::Gemini => {
                for p in turn["parts"].as_array().into_iter().flatten() {
                    if let Some(r) = p.get("functionResponse") {
                        let value = r["response"]
                            .as_object()
                            .and_then(|m| m.values().next())
                            .cloned();
                        out.push(Part::tool_response(
                            r["name"].as_str().unwrap(),
                            None,
                            value,
                        ));
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// The request body `wire`'s transport builds for `request`.
fn body_for(wire: Wire, model: &str, request: &ModelRequest, stream: bool) -> Value {
    match wire {
        Wire::Claude => Claude::new(model).request_body(request, stream),
        Wire::Gemini => Gemini::new(model).request_body(request, stream),
        Wire::Chat => OpenAiChat::new(model).request_body(request, stream),
        Wire::Responses => OpenAiResponses::new(model)
            .store(false)
            .request_body(request, stream),
    }
    .unwrap()
}

/// The recorded conversation with what carries nothing left out, each for its reason:
/// - an assistant message whose content is `""` (one client sends its empty text part; an
///   empty message tells the model nothing);
/// - Gemini thought signatures are compared as bytes: one client decodes them and sends them
///   back in the URL-safe base64 alphabet (`-_`), the transport sends back what Gemini sent;
/// - Gemini thought parts without a signature (one client sends its thought summaries back;
///   the transport sends back only signed thoughts: the signature is what the API needs).
fn normalized(wire: Wire, body: &Value) -> Vec<Value> {
    let mut turns = conversation(wire, body);
    turns.retain(|t| !(t["role"] == "assistant" && t["content"] == ""));
    if wire == Wire::Gemini {
        for turn in &mut turns {
            if let Some(parts) = turn["parts"].as_array_mut() {
                parts.retain(|p| !(p["thought"] == true && p.get("thoughtSignature").is_none()));
            }
            for part in turn["parts"].as_array_mut().into_iter().flatten() {
                if let Some(Value::String(sig)) = part.get_mut("thoughtSignature") {
                    *sig = sig.replace('-', "+").replace('_', "/");
                }
            }
        }
    }
    turns
}

/// The last turn of a recorded conversation when it is a new user text (not tool results).
fn next_user_text(wire: Wire, body: &Value) -> Option<String> {
    let last = conversation(wire, body).pop()?;
    let is_user = last["role"] == "user";
    let has_results =
        last.to_string().contains("tool_result") || last.to_string().contains("functionResponse");
    (is_user && !has_results).then(|| match wire {
        Wire::Gemini => content_text(&last["parts"]),
        _ => content_text(&last["content"]),
    })
}

/// Builds each follow-up request of a recording from the transport's own parse of the
/// previous answer and returns the differences from the recorded conversation, per exchange.
fn follow_ups(wire: Wire, file: &str) -> Vec<Vec<String>> {
    let exchanges = load(wire, file);
    let responses = check(wire, file);
    let first = exchanges[0].request.clone().unwrap();
    let model = recorded_model(&exchanges[0]);
    let (system, user) = opening(wire, &first);
    let mut messages = Vec::new();
    if let Some(system) = system {
        messages.push(Message::system(system));
    }
    messages.push(Message::user(user));
    let mut answered = 0;
    let mut out = Vec::new();
    for (n, ex) in exchanges.iter().enumerate().skip(1) {
        let recorded_body = ex.request.clone().unwrap();
        messages.push(responses[n - 1].message.clone());
        let parts = results(wire, &recorded_body, &responses[n - 1]);
        let fresh: Vec<Part> = parts.into_iter().skip(answered).collect();
        answered += fresh.len();
        if !fresh.is_empty() {
            messages.push(Message::new(Role::Tool, fresh));
        } else if let Some(text) = next_user_text(wire, &recorded_body) {
            messages.push(Message::user(text));
        }
        let request = ModelRequest::new(messages.iter().cloned());
        let stream = recorded_body["stream"] == true;
        let ours = body_for(wire, &model, &request, stream);
        out.push(differences(
            &Value::Array(conversation(wire, &ours)),
            &Value::Array(normalized(wire, &recorded_body)),
        ));
    }
    out
}

/// `*` in a pattern matches any text.
fn matches(pattern: &str, text: &str) -> bool {
    let mut rest = text;
    for (i, piece) in pattern.split('*').enumerate() {
        match rest.find(piece) {
            Some(at) if i > 0 || at == 0 => rest = &rest[at + piece.len()..],
            _ => return false,
        }
    }
    pattern.ends_with('*') || rest.is_empty()
}

/// Every difference found is one of `harmless` (pattern, reason), and every listed one occurs.
fn only_harmless(found: &[Vec<String>], harmless: &[(&str, &str)]) {
    for difference in found.iter().flatten() {
        assert!(
            harmless.iter().any(|(p, _)| matches(p, difference)),
            "a difference not known to be harmless: {difference}"
        );
    }
    for (pattern, reason) in harmless {
        assert!(
            found.iter().flatten().any(|d| matches(pattern, d)),
            "listed as harmless but not found ({reason}): {pattern}"
        );
    }
}

/// The tool result as a text block and without `is_error: false`: both are the documented
/// default forms of what the recorded request says.
const CLAUDE_RESULT_FORM: [(&str, &str); 2] = [
    (
        "/2/content/*/content: [{\"type\":\"text\",\"text\":* != \"*",
        "a tool_result content as one text block is the string form's documented equivalent",
    ),
    (
        "/2/content/*/is_error: (absent) != false",
        "is_error defaults to false",
    ),
];

#[test]
fn follow_up_claude_tool_with_thinking_matches_the_recorded_request() {
    let found = follow_ups(Wire::Claude, "test_anthropic_tool_with_thinking.yaml");
    only_harmless(&found, &CLAUDE_RESULT_FORM);
}

#[test]
fn follow_up_claude_parallel_tool_calls_matches_the_recorded_request() {
    let found = follow_ups(Wire::Claude, "test_multiple_parallel_tool_calls.yaml");
    only_harmless(&found, &CLAUDE_RESULT_FORM);
}

const CHAT_NULL_CONTENT: [(&str, &str); 1] = [(
    "/*/content: null != (absent)",
    "an assistant message with tool calls may have null content; absent means the same",
)];

#[test]
fn follow_up_openai_chat_tool_output_matches_the_recorded_request() {
    let found = follow_ups(Wire::Chat, "test_openai_tool_output.yaml");
    only_harmless(&found, &CHAT_NULL_CONTENT);
}

#[test]
fn follow_up_openai_chat_parallel_tool_calls_match_the_recorded_requests() {
    let found = follow_ups(Wire::Chat, "test_complex_agent_run.yaml");
    assert_eq!(found.len(), 2);
    only_harmless(&found, &CHAT_NULL_CONTENT);
}

const RESPONSES_USER_FORM: (&str, &str) = (
    "/0/content: [{\"type\":\"input_text\",\"text\":* != \"*",
    "a user message's content as input_text parts is the string form's documented equivalent",
);

#[test]
fn follow_up_openai_responses_stream_matches_the_recorded_request() {
    let found = follow_ups(Wire::Responses, "test_openai_responses_stream.yaml");
    only_harmless(
        &found,
        &[
            RESPONSES_USER_FORM,
            (
                "/*/call_id: \"call_kL0PCQV7M2WMoVX8V8OtYSAL\" != \"fc_67e554a1de488191af0831d35cbe082e0794405d35281ae2\"",
                "the recording's client sent the item id as call_id on both the call and its \
                 output; the API pairs them by equality, and the transport sends the call_id \
                 the API issued",
            ),
            (
                "/1/id: \"fc_67e554a1de488191af0831d35cbe082e0794405d35281ae2\" != (absent)",
                "the item id the API issued, sent back as the reasoning fix requires",
            ),
        ],
    );
}

#[test]
fn follow_up_openai_responses_parallel_tool_calls_match_the_recorded_request() {
    let found = follow_ups(Wire::Responses, "test_openai_responses_model_retry.yaml");
    only_harmless(
        &found,
        &[
            RESPONSES_USER_FORM,
            (
                "/*/id: \"fc_*\" != (absent)",
                "the item ids the API issued, sent back as the reasoning fix requires",
            ),
        ],
    );
}

#[test]
fn follow_up_gemini_streaming_tool_call_matches_the_recorded_request() {
    let found = follow_ups(
        Wire::Gemini,
        "test_google_streaming_tool_call_thought_signature.yaml",
    );
    only_harmless(
        &found,
        &[
            (
                "/*/parts/0/function*/id: (absent) != \"pyd_ai_*\"",
                "an id the recording's client made up (Gemini issued none): the transport sends \
                 back only ids Gemini issued",
            ),
            (
                "/2/parts/0/functionResponse/response/output: \"Mexico\" != (absent)",
                "the function response is a free-form object; the key is the caller's choice",
            ),
            (
                "/2/parts/0/functionResponse/response/return_value: (absent) != \"Mexico\"",
                "the same free-form key, as the recording's client names it",
            ),
        ],
    );
}

#[test]
fn follow_up_gemini_thinking_part_matches_the_recorded_request() {
    let found = follow_ups(Wire::Gemini, "test_google_model_thinking_part.yaml");
    only_harmless(&found, &[]);
}

// ---- the four failures found on real traffic ----

/// Issue 8, failure 1: the follow-up of a reasoning model sends the reasoning item, then the
/// function call *by its item id*, as in the request the API accepted.
#[test]
fn responses_reasoning_follow_up_sends_item_ids() {
    let found = follow_ups(
        Wire::Responses,
        "test_openai_responses_thinking_with_tool_calls.yaml",
    );
    only_harmless(&found, &[RESPONSES_USER_FORM]);
}

/// A stateless transport (`store: false`) asks for the encrypted reasoning it must send back.
#[test]
fn responses_stateless_requests_include_encrypted_reasoning() {
    let request = ModelRequest::new(vec![Message::user("hi")]);
    let stateless = OpenAiResponses::new("gpt-5")
        .store(false)
        .request_body(&request, false)
        .unwrap();
    assert_eq!(stateless["store"], false);
    assert_eq!(stateless["include"], json!(["reasoning.encrypted_content"]));
    let stored = OpenAiResponses::new("gpt-5")
        .request_body(&request, false)
        .unwrap();
    assert_eq!(stored.get("include"), None);
}

/// The five summary parts of the recorded reasoning item go back as five parts.
#[test]
fn responses_summary_parts_go_back_as_they_came() {
    let exchanges = load(
        Wire::Responses,
        "test_openai_responses_thinking_with_tool_calls.yaml",
    );
    let answered = exchanges[0].json();
    let response = call(Wire::Responses, "gpt-5", vec![exchanges[0].reply()], false);
    let request = ModelRequest::new(vec![
        Message::user("q"),
        response.response().message.clone(),
    ]);
    let body = OpenAiResponses::new("gpt-5")
        .request_body(&request, false)
        .unwrap();
    assert_eq!(
        body["input"][1]["summary"], answered["output"][0]["summary"],
        "summary parts as they came"
    );
    assert_eq!(body["input"][1]["summary"].as_array().unwrap().len(), 5);
}

/// Issue 8, failure 2: a stream `error` event's message, code and type reach the typed error.
#[test]
fn responses_stream_error_event_keeps_its_message() {
    let ex = &load(Wire::Responses, "openai-error.1.chunks.txt")[0];
    let event = ex
        .events()
        .into_iter()
        .find(|e| e["type"] == "error")
        .unwrap();
    for reply in [ex.reply(), ex.reply().in_pieces(3)] {
        let r = call(Wire::Responses, "gpt-5", vec![reply], true);
        let error = transport_error(r.result.as_ref().unwrap_err());
        match error.kind() {
            TransportErrorKind::Remote {
                message,
                code,
                kind,
                ..
            } => {
                assert_eq!(message, event["error"]["message"].as_str().unwrap());
                assert_eq!(code.as_deref(), event["error"]["code"].as_str());
                assert_eq!(kind.as_deref(), event["error"]["type"].as_str());
            }
            other => panic!("expected a Remote error, got {other:?}"),
        }
    }
}

/// The same failure read from `response.failed`, the event that follows it.
#[test]
fn responses_failed_event_keeps_its_message() {
    let ex = &load(Wire::Responses, "openai-error.1.chunks.txt")[0];
    let failed = ex
        .events()
        .into_iter()
        .find(|e| e["type"] == "response.failed")
        .unwrap();
    // The recorded stream without its `error` event: only `response.failed` tells.
    let text = String::from_utf8(ex.body.clone()).unwrap();
    let without: String = text
        .split("\n\n")
        .filter(|block| !block.starts_with("event: error"))
        .map(|block| format!("{block}\n\n"))
        .collect();
    let r = call(Wire::Responses, "gpt-5", vec![Reply::sse(without)], true);
    match transport_error(r.result.as_ref().unwrap_err()).kind() {
        TransportErrorKind::Remote { message, code, .. } => {
            assert_eq!(
                message,
                failed["response"]["error"]["message"].as_str().unwrap()
            );
            assert_eq!(
                code.as_deref(),
                failed["response"]["error"]["code"].as_str()
            );
        }
        other => panic!("expected a Remote error, got {other:?}"),
    }
}

/// Issue 8, failure 3: an empty user text with a system instruction is still a user turn
/// (the API answers `{"text": ""}` 200 and `"contents": []` 400).
#[test]
fn gemini_empty_user_text_keeps_the_turn() {
    let request = ModelRequest::new(vec![Message::system("Be brief."), Message::user("")]);
    let body = Gemini::new("gemini-2.5-flash")
        .request_body(&request, false)
        .unwrap();
    assert_eq!(
        body["contents"],
        json!([{"role": "user", "parts": [{"text": ""}]}])
    );
}

/// The next turn of that conversation opens with the user turn, never with the model's
/// function call.
#[test]
fn gemini_function_call_turn_never_opens_the_conversation() {
    let exchanges = load(Wire::Gemini, "google-tool-call-gemini3.json");
    let response = call(
        Wire::Gemini,
        "gemini-3-pro-preview",
        vec![exchanges[0].reply()],
        false,
    );
    let call_part = response.response().message.clone();
    let request = ModelRequest::new(vec![
        Message::system("Be brief."),
        Message::user(""),
        call_part.clone(),
        Message::new(
            Role::Tool,
            vec![Part::tool_response("weather", None, Some(json!("sunny")))],
        ),
    ]);
    let body = Gemini::new("gemini-3-pro-preview")
        .request_body(&request, false)
        .unwrap();
    assert_eq!(body["contents"][0]["role"], "user");
    assert_eq!(body["contents"][1]["role"], "model");
    // Even a history that lost its user turn opens with one.
    let request = ModelRequest::new(vec![call_part]);
    let body = Gemini::new("gemini-3-pro-preview")
        .request_body(&request, false)
        .unwrap();
    assert_eq!(
        body["contents"][0],
        json!({"role": "user", "parts": [{"text": ""}]})
    );
}

/// Issue 8, failure 4: the recorded usage `input_tokens: 3, cache_read_input_tokens: 1111,
/// cache_creation_input_tokens: 418` is 1532 input tokens, 1111 read and 418 written.
#[test]
fn claude_usage_counts_prompt_cache_tokens() {
    let exchanges = load(Wire::Claude, "test_anthropic_cache_real_api.yaml");
    let usage = &exchanges[1].json()["usage"];
    assert_eq!(usage["cache_read_input_tokens"], 1111);
    let r = call(
        Wire::Claude,
        "claude-sonnet-4-5",
        vec![exchanges[1].reply()],
        false,
    );
    let got = r.response().usage;
    assert_eq!(got.input_tokens, 3 + 1111 + 418);
    assert_eq!(got.cache_read_tokens, 1111);
    assert_eq!(got.cache_write_tokens, 418);
}

/// `Usage` has one meaning for the four: the OpenAI and Gemini counts already include cached
/// tokens, and reasoning tokens are reported where the provider counts them.
#[test]
fn usage_has_one_meaning_for_all_four() {
    let responses = load(
        Wire::Responses,
        "test_openai_responses_thinking_with_tool_calls.yaml",
    );
    let r = call(Wire::Responses, "gpt-5", vec![responses[0].reply()], false);
    assert_eq!(r.response().usage.input_tokens, 124);
    assert_eq!(r.response().usage.reasoning_tokens, 1792);
    let gemini = load(Wire::Gemini, "test_google_model_thinking_part.yaml");
    let meta = &gemini[0].json()["usageMetadata"];
    let r = call(
        Wire::Gemini,
        "gemini-3-pro-preview",
        vec![gemini[0].reply()],
        false,
    );
    assert_eq!(
        r.response().usage.reasoning_tokens,
        meta["thoughtsTokenCount"].as_u64().unwrap()
    );
    assert_eq!(
        r.response().usage.input_tokens,
        meta["promptTokenCount"].as_u64().unwrap()
    );
}

/// Usage of a streamed call equals the usage of the same answer unstreamed. No recording
/// holds one exchange both ways, so the unstreamed answer is derived from each streamed
/// recording (`replay::unstreamed`: Responses' completed response as recorded; for the
/// others, the body the events add up to) and served as JSON; the usage must be the same and
/// must not be empty.
#[test]
fn streamed_usage_equals_the_unstreamed_on_the_same_recording() {
    let streams = [
        (
            Wire::Claude,
            "test_anthropic_model_thinking_part_stream.yaml",
        ),
        (Wire::Claude, "anthropic-json-tool.1.chunks.txt"),
        (
            Wire::Gemini,
            "test_google_streaming_tool_call_thought_signature.yaml",
        ),
        (Wire::Gemini, "google-tool-call.chunks.txt"),
        (Wire::Gemini, "google-reasoning-gemini3.chunks.txt"),
        (Wire::Chat, "test_complex_agent_run.yaml"),
        (Wire::Chat, "openai-text.chunks.txt"),
        (Wire::Chat, "azure-model-router.1.chunks.txt"),
        (Wire::Responses, "test_openai_responses_stream.yaml"),
        (
            Wire::Responses,
            "openai-reasoning-encrypted-content.1.chunks.txt",
        ),
    ];
    let mut compared = 0;
    for (wire, file) in streams {
        for (n, ex) in load(wire, file).iter().enumerate() {
            if !ex.streamed || ex.status >= 400 {
                continue;
            }
            let label = format!("{file} #{n}");
            let model = recorded_model(ex);
            let streamed = call(wire, &model, vec![ex.reply()], true);
            let body = replay::unstreamed(wire, ex).to_string();
            let unstreamed = call(wire, &model, vec![Reply::json(200, body)], false);
            let usage = streamed.response().usage;
            assert!(
                usage.input_tokens > 0 && usage.output_tokens > 0,
                "{label}: {usage:?}"
            );
            assert_eq!(usage, unstreamed.response().usage, "{label}");
            assert_eq!(
                streamed.response().finish_reason,
                unstreamed.response().finish_reason,
                "{label}"
            );
            compared += 1;
        }
    }
    // Every streamed exchange above was compared (the four steps of the Responses reasoning
    // recording and the three of the Chat agent run each count).
    assert!(compared >= 14, "{compared}");
}

// ---- broken streams (a recorded stream, cut by the server: no recording shows one) ----

/// A stream whose connection drops before its first event is retried like a request.
#[test]
fn stream_failing_before_its_first_event_is_retried() {
    let ex = &load(
        Wire::Claude,
        "test_anthropic_model_thinking_part_stream.yaml",
    )[0];
    let expected = recorded(Wire::Claude, ex);
    let r = call(
        Wire::Claude,
        "claude-sonnet-4-0",
        vec![ex.reply().cut_at(0), ex.reply()],
        true,
    );
    assert_eq!(r.requests.len(), 2, "one retry");
    assert_eq!(parsed(Wire::Claude, r.response()), expected);
}

/// A stream that breaks midway is a typed error saying how many events had arrived.
#[test]
fn stream_failing_midway_is_a_typed_error_saying_how_far() {
    let ex = &load(
        Wire::Claude,
        "test_anthropic_model_thinking_part_stream.yaml",
    )[0];
    let cut = ex.body.len() / 2;
    let whole_events = String::from_utf8_lossy(&ex.body[..cut])
        .matches("\n\n")
        .count();
    let r = call(
        Wire::Claude,
        "claude-sonnet-4-0",
        vec![ex.reply().cut_at(cut)],
        true,
    );
    assert_eq!(r.requests.len(), 1, "a stream broken midway is not resent");
    match transport_error(r.result.as_ref().unwrap_err()).kind() {
        TransportErrorKind::StreamBroken { events, .. } => assert_eq!(*events, whole_events),
        other => panic!("expected StreamBroken, got {other:?}"),
    }
}
