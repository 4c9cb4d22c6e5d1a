//! A provider's whole answer holding one call, or only text, as a JSON body and as a
//! server-sent event stream, each written from the provider's documented answer shape
//! (Anthropic Messages and its streaming events, Gemini `generateContent` and
//! `streamGenerateContent?alt=sse`, OpenAI Chat Completions and its `chat.completion.chunk`
//! stream, OpenAI Responses and its `response.*` events), not from the transports' code.
//!
//! The answer says how its turn ended in the provider's own spelling: its output-token limit
//! (Anthropic `max_tokens`, Gemini `MAX_TOKENS`, Chat `length`, a Responses object `incomplete`
//! for `max_output_tokens`), or its usual stop after a call (`tool_use`, `STOP`, `tool_calls`,
//! `completed`) or after text (`end_turn`, `STOP`, `stop`, `completed`).
//!
//! The vector's call goes into the answer as it is, with two additions the parser never
//! reads: the id the API always sets on a call (a Claude block's `id`, a Chat call's `id`, a
//! Responses item's `call_id`) when the call has none, and, for Gemini, the `functionCall` part
//! around a bare function call (a body holds parts).

use serde_json::{json, Value};
use submit_result::{Provider, StopReason};

/// The most bytes of argument text one streamed delta carries: the text arrives in several
/// deltas, as the providers stream it.
const DELTA_BYTES: usize = 16;

/// The most deltas one text is cut into: a longer text (the corpus holds 100 kB ones) gets
/// longer deltas, so that its stream, received a byte at a time, stays quick to read.
const MAX_DELTAS: usize = 64;

/// `value` with `key` set to `default` when it is absent or `null` (an object only).
fn with_default(mut value: Value, key: &str, default: &str) -> Value {
    if let Some(object) = value.as_object_mut() {
        if object.get(key).is_none_or(Value::is_null) {
            object.insert(key.to_owned(), json!(default));
        }
    }
    value
}

/// A string member of an object, or `default`.
fn text_of<'a>(value: &'a Value, key: &str, default: &'a str) -> &'a str {
    value.get(key).and_then(Value::as_str).unwrap_or(default)
}

/// The call as one part of a Gemini answer: a `functionCall` part as it is, a bare function
/// call wrapped in one.
fn gemini_part(call: &Value) -> Value {
    if call.get("functionCall").is_some() {
        call.clone()
    } else {
        json!({ "functionCall": call })
    }
}

/// The provider's spelling of a turn stopped at its output-token limit (a Responses object's
/// `incomplete_details.reason`), as the command line's `--finish-reason` takes it.
pub fn limit_reason(provider: Provider) -> &'static str {
    match provider {
        Provider::Claude => "max_tokens",
        Provider::Gemini => "MAX_TOKENS",
        Provider::OpenAiChat => "length",
        Provider::OpenAiResponses => "max_output_tokens",
    }
}

/// The provider's stop reason (Claude `stop_reason`, Gemini `finishReason`, Chat
/// `finish_reason`) for a turn that ended as `end`, after a tool call (`call`) or after text.
fn stop_reason(provider: Provider, end: StopReason, call: bool) -> &'static str {
    if end == StopReason::OutputLimit {
        return limit_reason(provider);
    }
    match (provider, call) {
        (Provider::Claude, true) => "tool_use",
        (Provider::Claude, false) => "end_turn",
        (Provider::Gemini, _) => "STOP",
        (Provider::OpenAiChat, true) => "tool_calls",
        (Provider::OpenAiChat, false) => "stop",
        (Provider::OpenAiResponses, _) => "completed",
    }
}

/// A Responses object's `status` and `incomplete_details` for a turn that ended as `end`.
fn responses_status(end: StopReason) -> (&'static str, Value) {
    match end {
        StopReason::OutputLimit => (
            "incomplete",
            json!({"reason": limit_reason(Provider::OpenAiResponses)}),
        ),
        _ => ("completed", Value::Null),
    }
}

/// The provider's whole JSON answer (a non-streaming response body) holding `call` as its one
/// tool call, its turn ended as `end`.
pub fn body(provider: Provider, call: &Value, end: StopReason) -> Value {
    let stop = stop_reason(provider, end, true);
    let (status, incomplete) = responses_status(end);
    match provider {
        // Anthropic Messages: a `message` whose `content` holds the `tool_use` block.
        Provider::Claude => json!({
            "id": "msg_01",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": [with_default(call.clone(), "id", "toolu_01")],
            "stop_reason": stop,
            "stop_sequence": null,
            "usage": {"input_tokens": 12, "output_tokens": 34}
        }),
        // Gemini `GenerateContentResponse`: one candidate whose content holds the part.
        Provider::Gemini => json!({
            "candidates": [{
                "content": {"role": "model", "parts": [gemini_part(call)]},
                "finishReason": stop,
                "index": 0
            }],
            "usageMetadata": {"promptTokenCount": 12, "candidatesTokenCount": 34,
                              "totalTokenCount": 46},
            "modelVersion": "gemini-2.5-flash",
            "responseId": "resp_01"
        }),
        // Chat Completions: a `chat.completion` whose first choice's message holds the call.
        Provider::OpenAiChat => json!({
            "id": "chatcmpl-01",
            "object": "chat.completion",
            "created": 1_700_000_000,
            "model": "gpt-4.1",
            "choices": [{
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": null,
                    "refusal": null,
                    "tool_calls": [with_default(call.clone(), "id", "call_01")],
                    "annotations": []
                },
                "logprobs": null,
                "finish_reason": stop
            }],
            "usage": {"prompt_tokens": 12, "completion_tokens": 34, "total_tokens": 46}
        }),
        // Responses: a `response` whose `output` holds the `function_call` item.
        Provider::OpenAiResponses => json!({
            "id": "resp_01",
            "object": "response",
            "created_at": 1_700_000_000,
            "status": status,
            "incomplete_details": incomplete,
            "model": "gpt-5",
            "output": [with_default(call.clone(), "call_id", "call_01")],
            "usage": {"input_tokens": 12, "output_tokens": 34, "total_tokens": 46}
        }),
    }
}

/// `text` cut into pieces of at most [`DELTA_BYTES`] bytes (or, for a text that would take
/// more than [`MAX_DELTAS`] of them, of a [`MAX_DELTAS`]th of it), on character boundaries.
pub fn pieces(text: &str) -> Vec<&str> {
    let size = DELTA_BYTES.max(text.len().div_ceil(MAX_DELTAS));
    let mut out = Vec::new();
    let mut start = 0;
    for (at, ch) in text.char_indices() {
        if at + ch.len_utf8() - start > size && at > start {
            out.push(&text[start..at]);
            start = at;
        }
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

/// One server-sent event: `event:` (when named) and `data:` lines, then the blank line, with
/// `eol` ending each line.
fn event(out: &mut String, name: Option<&str>, data: &Value, eol: &str) {
    if let Some(name) = name {
        out.push_str("event: ");
        out.push_str(name);
        out.push_str(eol);
    }
    out.push_str("data: ");
    out.push_str(&data.to_string());
    out.push_str(eol);
    out.push_str(eol);
}

/// An event named by its data's `type`, as Anthropic and Responses streams name theirs.
fn typed_event(out: &mut String, data: Value) {
    let name = data["type"].as_str().unwrap_or_default().to_owned();
    event(out, Some(&name), &data, "\n");
}

/// The provider's event stream answering with `call` as its one tool call, its arguments
/// streamed as `text` (Claude, Chat, Responses: the argument text in several deltas; Gemini
/// sends each call whole, so `text` is not used), its turn ended as `end`.
pub fn stream(provider: Provider, call: &Value, text: &str, end: StopReason) -> String {
    let stop = stop_reason(provider, end, true);
    let (status, incomplete) = responses_status(end);
    let mut out = String::new();
    match provider {
        Provider::Claude => {
            let id = text_of(call, "id", "toolu_01");
            let name = text_of(call, "name", "");
            typed_event(
                &mut out,
                json!({"type": "message_start", "message": {
                    "id": "msg_01", "type": "message", "role": "assistant",
                    "model": "claude-sonnet-4-5", "content": [], "stop_reason": null,
                    "stop_sequence": null, "usage": {"input_tokens": 12, "output_tokens": 1}}}),
            );
            typed_event(
                &mut out,
                json!({"type": "content_block_start", "index": 0, "content_block": {
                    "type": "tool_use", "id": id, "name": name, "input": {}}}),
            );
            typed_event(&mut out, json!({"type": "ping"}));
            // The first `input_json_delta` of a block is empty, as Anthropic sends it.
            for piece in std::iter::once("").chain(pieces(text)) {
                typed_event(
                    &mut out,
                    json!({"type": "content_block_delta", "index": 0,
                           "delta": {"type": "input_json_delta", "partial_json": piece}}),
                );
            }
            typed_event(&mut out, json!({"type": "content_block_stop", "index": 0}));
            typed_event(
                &mut out,
                json!({"type": "message_delta",
                       "delta": {"stop_reason": stop, "stop_sequence": null},
                       "usage": {"output_tokens": 34}}),
            );
            typed_event(&mut out, json!({"type": "message_stop"}));
        }
        Provider::Gemini => {
            // Each event is a whole `GenerateContentResponse`; the call arrives whole, the
            // finish reason and the usage in the last event.
            event(
                &mut out,
                None,
                &json!({"candidates": [{"content": {"role": "model",
                                                   "parts": [gemini_part(call)]},
                                        "index": 0}],
                        "modelVersion": "gemini-2.5-flash", "responseId": "resp_01"}),
                "\r\n",
            );
            event(
                &mut out,
                None,
                &json!({"candidates": [{"content": {"role": "model", "parts": [{"text": ""}]},
                                        "finishReason": stop, "index": 0}],
                        "usageMetadata": {"promptTokenCount": 12, "candidatesTokenCount": 34,
                                          "totalTokenCount": 46},
                        "modelVersion": "gemini-2.5-flash", "responseId": "resp_01"}),
                "\r\n",
            );
        }
        Provider::OpenAiChat => {
            let id = text_of(call, "id", "call_01");
            let name = text_of(&call["function"], "name", "");
            let chunk = |choice: Value| {
                json!({"id": "chatcmpl-01", "object": "chat.completion.chunk",
                       "created": 1_700_000_000, "model": "gpt-4.1",
                       "system_fingerprint": null, "choices": [choice], "usage": null})
            };
            event(
                &mut out,
                None,
                &chunk(json!({"index": 0, "delta": {
                    "role": "assistant", "content": null, "refusal": null,
                    "tool_calls": [{"index": 0, "id": id, "type": "function",
                                    "function": {"name": name, "arguments": ""}}]},
                    "logprobs": null, "finish_reason": null})),
                "\n",
            );
            for piece in pieces(text) {
                event(
                    &mut out,
                    None,
                    &chunk(json!({"index": 0, "delta": {"tool_calls": [
                        {"index": 0, "function": {"arguments": piece}}]},
                        "logprobs": null, "finish_reason": null})),
                    "\n",
                );
            }
            event(
                &mut out,
                None,
                &chunk(json!({"index": 0, "delta": {}, "logprobs": null,
                              "finish_reason": stop})),
                "\n",
            );
            // `stream_options.include_usage`: a last chunk with no choices and the usage.
            event(
                &mut out,
                None,
                &json!({"id": "chatcmpl-01", "object": "chat.completion.chunk",
                        "created": 1_700_000_000, "model": "gpt-4.1", "choices": [],
                        "usage": {"prompt_tokens": 12, "completion_tokens": 34,
                                  "total_tokens": 46}}),
                "\n",
            );
            out.push_str("data: [DONE]\n\n");
        }
        Provider::OpenAiResponses => {
            let call_id = text_of(call, "call_id", "call_01");
            let name = text_of(call, "name", "");
            let mut sequence = 0u64;
            let mut next = |mut data: Value| {
                data["sequence_number"] = json!(sequence);
                sequence += 1;
                data
            };
            let response = |status: &str, output: Value, usage: Value| {
                let incomplete = match status {
                    "incomplete" => incomplete.clone(),
                    _ => Value::Null,
                };
                json!({"id": "resp_01", "object": "response", "created_at": 1_700_000_000,
                       "status": status, "incomplete_details": incomplete, "model": "gpt-5",
                       "output": output, "usage": usage})
            };
            let item = |status: &str, arguments: &str| {
                json!({"id": "fc_01", "type": "function_call", "status": status,
                       "arguments": arguments, "call_id": call_id, "name": name})
            };
            typed_event(
                &mut out,
                next(json!({"type": "response.created",
                            "response": response("in_progress", json!([]), Value::Null)})),
            );
            typed_event(
                &mut out,
                next(json!({"type": "response.in_progress",
                            "response": response("in_progress", json!([]), Value::Null)})),
            );
            typed_event(
                &mut out,
                next(
                    json!({"type": "response.output_item.added", "output_index": 0,
                            "item": item("in_progress", "")}),
                ),
            );
            for piece in pieces(text) {
                typed_event(
                    &mut out,
                    next(json!({"type": "response.function_call_arguments.delta",
                                "item_id": "fc_01", "output_index": 0, "delta": piece})),
                );
            }
            typed_event(
                &mut out,
                next(json!({"type": "response.function_call_arguments.done",
                            "item_id": "fc_01", "output_index": 0, "arguments": text})),
            );
            typed_event(
                &mut out,
                next(
                    json!({"type": "response.output_item.done", "output_index": 0,
                            "item": item(status, text)}),
                ),
            );
            let usage = json!({"input_tokens": 12, "output_tokens": 34, "total_tokens": 46});
            typed_event(
                &mut out,
                next(json!({"type": format!("response.{status}"),
                            "response": response(status, json!([item(status, text)]), usage)})),
            );
        }
    }
    out
}

/// The provider's whole JSON answer whose only content is the model's visible `text`, its turn
/// ended as `end`.
pub fn text_body(provider: Provider, text: &str, end: StopReason) -> Value {
    let stop = stop_reason(provider, end, false);
    let (status, incomplete) = responses_status(end);
    match provider {
        // Anthropic Messages: a `message` whose `content` holds one `text` block.
        Provider::Claude => json!({
            "id": "msg_01",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": [{"type": "text", "text": text}],
            "stop_reason": stop,
            "stop_sequence": null,
            "usage": {"input_tokens": 12, "output_tokens": 34}
        }),
        // Gemini `GenerateContentResponse`: one candidate whose content holds one text part.
        Provider::Gemini => json!({
            "candidates": [{
                "content": {"role": "model", "parts": [{"text": text}]},
                "finishReason": stop,
                "index": 0
            }],
            "usageMetadata": {"promptTokenCount": 12, "candidatesTokenCount": 34,
                              "totalTokenCount": 46},
            "modelVersion": "gemini-2.5-flash",
            "responseId": "resp_01"
        }),
        // Chat Completions: a `chat.completion` whose first choice's message holds the text.
        Provider::OpenAiChat => json!({
            "id": "chatcmpl-01",
            "object": "chat.completion",
            "created": 1_700_000_000,
            "model": "gpt-4.1",
            "choices": [{
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": text,
                    "refusal": null,
                    "annotations": []
                },
                "logprobs": null,
                "finish_reason": stop
            }],
            "usage": {"prompt_tokens": 12, "completion_tokens": 34, "total_tokens": 46}
        }),
        // Responses: a `response` whose `output` holds one `message` item with one
        // `output_text` part.
        Provider::OpenAiResponses => json!({
            "id": "resp_01",
            "object": "response",
            "created_at": 1_700_000_000,
            "status": status,
            "incomplete_details": incomplete,
            "model": "gpt-5",
            "output": [responses_message(status, text)],
            "usage": {"input_tokens": 12, "output_tokens": 34, "total_tokens": 46}
        }),
    }
}

/// A Responses `message` item holding `text` as its one `output_text` part.
fn responses_message(status: &str, text: &str) -> Value {
    json!({"id": "msg_01", "type": "message", "status": status, "role": "assistant",
           "content": [output_text(text)]})
}

/// A Responses `output_text` content part.
fn output_text(text: &str) -> Value {
    json!({"type": "output_text", "annotations": [], "logprobs": [], "text": text})
}

/// The provider's event stream answering with only the model's visible `text`, in several
/// deltas, its turn ended as `end`.
pub fn text_stream(provider: Provider, text: &str, end: StopReason) -> String {
    let stop = stop_reason(provider, end, false);
    let (status, incomplete) = responses_status(end);
    let mut out = String::new();
    match provider {
        Provider::Claude => {
            typed_event(
                &mut out,
                json!({"type": "message_start", "message": {
                    "id": "msg_01", "type": "message", "role": "assistant",
                    "model": "claude-sonnet-4-5", "content": [], "stop_reason": null,
                    "stop_sequence": null, "usage": {"input_tokens": 12, "output_tokens": 1}}}),
            );
            typed_event(
                &mut out,
                json!({"type": "content_block_start", "index": 0,
                       "content_block": {"type": "text", "text": ""}}),
            );
            typed_event(&mut out, json!({"type": "ping"}));
            for piece in pieces(text) {
                typed_event(
                    &mut out,
                    json!({"type": "content_block_delta", "index": 0,
                           "delta": {"type": "text_delta", "text": piece}}),
                );
            }
            typed_event(&mut out, json!({"type": "content_block_stop", "index": 0}));
            typed_event(
                &mut out,
                json!({"type": "message_delta",
                       "delta": {"stop_reason": stop, "stop_sequence": null},
                       "usage": {"output_tokens": 34}}),
            );
            typed_event(&mut out, json!({"type": "message_stop"}));
        }
        Provider::Gemini => {
            // Each event is a whole `GenerateContentResponse` holding the next piece of text;
            // the last also holds the finish reason and the usage.
            let pieces = pieces(text);
            let last = pieces.len().saturating_sub(1);
            for (n, piece) in pieces
                .into_iter()
                .chain((text.is_empty()).then_some(""))
                .enumerate()
            {
                let mut candidate = json!({"content": {"role": "model", "parts": [{"text": piece}]},
                                           "index": 0});
                let mut data = json!({"modelVersion": "gemini-2.5-flash",
                                      "responseId": "resp_01"});
                if n == last {
                    candidate["finishReason"] = json!(stop);
                    data["usageMetadata"] = json!({"promptTokenCount": 12,
                                                   "candidatesTokenCount": 34,
                                                   "totalTokenCount": 46});
                }
                data["candidates"] = json!([candidate]);
                event(&mut out, None, &data, "\r\n");
            }
        }
        Provider::OpenAiChat => {
            let chunk = |choice: Value| {
                json!({"id": "chatcmpl-01", "object": "chat.completion.chunk",
                       "created": 1_700_000_000, "model": "gpt-4.1",
                       "system_fingerprint": null, "choices": [choice], "usage": null})
            };
            event(
                &mut out,
                None,
                &chunk(json!({"index": 0,
                              "delta": {"role": "assistant", "content": "", "refusal": null},
                              "logprobs": null, "finish_reason": null})),
                "\n",
            );
            for piece in pieces(text) {
                event(
                    &mut out,
                    None,
                    &chunk(json!({"index": 0, "delta": {"content": piece},
                                  "logprobs": null, "finish_reason": null})),
                    "\n",
                );
            }
            event(
                &mut out,
                None,
                &chunk(json!({"index": 0, "delta": {}, "logprobs": null,
                              "finish_reason": stop})),
                "\n",
            );
            event(
                &mut out,
                None,
                &json!({"id": "chatcmpl-01", "object": "chat.completion.chunk",
                        "created": 1_700_000_000, "model": "gpt-4.1", "choices": [],
                        "usage": {"prompt_tokens": 12, "completion_tokens": 34,
                                  "total_tokens": 46}}),
                "\n",
            );
            out.push_str("data: [DONE]\n\n");
        }
        Provider::OpenAiResponses => {
            let mut sequence = 0u64;
            let mut next = |mut data: Value| {
                data["sequence_number"] = json!(sequence);
                sequence += 1;
                data
            };
            let response = |status: &str, output: Value, usage: Value| {
                let incomplete = match status {
                    "incomplete" => incomplete.clone(),
                    _ => Value::Null,
                };
                json!({"id": "resp_01", "object": "response", "created_at": 1_700_000_000,
                       "status": status, "incomplete_details": incomplete, "model": "gpt-5",
                       "output": output, "usage": usage})
            };
            let at = |data: Value| {
                let mut data = data;
                data["item_id"] = json!("msg_01");
                data["output_index"] = json!(0);
                data["content_index"] = json!(0);
                data
            };
            typed_event(
                &mut out,
                next(json!({"type": "response.created",
                            "response": response("in_progress", json!([]), Value::Null)})),
            );
            typed_event(
                &mut out,
                next(json!({"type": "response.in_progress",
                            "response": response("in_progress", json!([]), Value::Null)})),
            );
            typed_event(
                &mut out,
                next(
                    json!({"type": "response.output_item.added", "output_index": 0,
                            "item": {"id": "msg_01", "type": "message", "status": "in_progress",
                                     "role": "assistant", "content": []}}),
                ),
            );
            typed_event(
                &mut out,
                next(at(
                    json!({"type": "response.content_part.added", "part": output_text("")}),
                )),
            );
            for piece in pieces(text) {
                typed_event(
                    &mut out,
                    next(at(
                        json!({"type": "response.output_text.delta", "delta": piece,
                                   "logprobs": []}),
                    )),
                );
            }
            typed_event(
                &mut out,
                next(at(
                    json!({"type": "response.output_text.done", "text": text,
                               "logprobs": []}),
                )),
            );
            typed_event(
                &mut out,
                next(at(
                    json!({"type": "response.content_part.done", "part": output_text(text)}),
                )),
            );
            typed_event(
                &mut out,
                next(
                    json!({"type": "response.output_item.done", "output_index": 0,
                            "item": responses_message(status, text)}),
                ),
            );
            let usage = json!({"input_tokens": 12, "output_tokens": 34, "total_tokens": 46});
            typed_event(
                &mut out,
                next(json!({"type": format!("response.{status}"),
                            "response": response(status, json!([responses_message(status, text)]),
                                                 usage)})),
            );
        }
    }
    out
}
