//! Where the submit calls are in the files people have: a bare call, a batch result line, a
//! whole response, or a conversation, each found by the tool's name.
//!
//! The shapes read, each as its provider documents it:
//!
//! - OpenAI Batch API output: `{"custom_id", "response": {"status_code", "body"}, "error"}`,
//!   the body a chat completion or a Responses object.
//! - Anthropic Message Batches results: `{"custom_id", "result": {"type": "succeeded",
//!   "message"}}`, or `errored`, `canceled`, `expired`.
//! - Gemini Batch API output: `{"key", "response": <answer>}`, or `{"key", "error": <status>}`
//!   (a bare answer line is a whole response).
//! - Whole responses: a chat completion (`choices`), a Responses object (`output`), an
//!   Anthropic message (`"type": "message"`), a Gemini answer (`candidates`).
//! - Conversations: a JSON array of messages (or items) in one provider's shape, or a request
//!   body holding one (`messages`, `input`, `contents`).
//!
//! A whole response (alone or in a batch entry) also says why the turn stopped: Anthropic's
//! `stop_reason`, a chat choice's `finish_reason`, a Responses object's
//! `incomplete_details.reason` when its `status` is `incomplete`, a Gemini candidate's
//! `finishReason`. When that is the provider's output-token limit, the turn's last tool call,
//! of any tool, may be cut off: a submit call that is that last call is found with
//! [`StopReason::OutputLimit`]. Every other call, and every call of a bare call line or a
//! conversation (which carry no stop reason), is found with [`StopReason::Complete`].
//!
//! A turn of a whole response that made no call of the submit tool also gives its visible text
//! ([`FoundText`](super::line::FoundText)), to be read for a call the model wrote as text: an
//! Anthropic message's `text` blocks, a chat choice's `message.content` (a string, or its `text`
//! parts), a Responses object's `output_text` parts of its `message` items, a Gemini candidate's
//! `text` parts that are not thoughts and, when its `finishReason` is `MALFORMED_FUNCTION_CALL`,
//! its `finishMessage` (where Gemini puts the call it could not parse). Reasoning and thinking are
//! never part of it. The text is found with [`StopReason::OutputLimit`] when its turn stopped at
//! the limit and no tool call follows it. Bare calls and conversations give no text.

use serde_json::Value;
use submit_core::{Provider, StopReason};

use super::calls::{chat_calls, claude_blocks, gemini_parts, responses_items};
use super::detect::detect;
use super::response::{claude_message, response_of};
use crate::args::InputFormat;

pub use super::line::{Found, Line};

/// Reads `value` as `format` says (or, under [`InputFormat::Auto`], as its shape says),
/// finding the calls of the tool named `tool`. A bare call is read in `provider`'s shape
/// whatever its name; an `Err` says why the line is none of the shapes.
pub fn find<'a>(
    value: &'a Value,
    format: InputFormat,
    provider: Provider,
    tool: &str,
) -> Result<Line<'a>, String> {
    let format = match format {
        InputFormat::Auto => detect(value),
        chosen => chosen,
    };
    match format {
        InputFormat::Auto | InputFormat::Call => Ok(Line::Calls {
            custom_id: None,
            calls: vec![Found {
                provider,
                call: value,
                message: None,
                end: StopReason::Complete,
            }],
            texts: Vec::new(),
        }),
        InputFormat::OpenaiBatch => openai_batch(value, tool),
        InputFormat::AnthropicBatch => anthropic_batch(value, tool),
        InputFormat::GeminiBatch => gemini_batch(value, tool),
        InputFormat::Response => {
            let answer = response_of(value, tool, None).ok_or_else(|| {
                "not a response: expected a chat completion (`choices`), a Responses object \
                 (`output`), an Anthropic message (`\"type\": \"message\"`) or a Gemini answer \
                 (`candidates`)"
                    .to_owned()
            })?;
            Ok(answer.line(None))
        }
        InputFormat::Conversation => {
            let calls = conversation(value, tool).ok_or_else(|| {
                "not a conversation: expected a JSON array of messages (objects), or an object \
                 holding one under `messages`, `input` or `contents`"
                    .to_owned()
            })?;
            Ok(Line::Calls {
                custom_id: None,
                calls,
                texts: Vec::new(),
            })
        }
    }
}

/// An OpenAI Batch API output line.
fn openai_batch<'a>(value: &'a Value, tool: &str) -> Result<Line<'a>, String> {
    let custom_id = value.get("custom_id").and_then(Value::as_str);
    let failed = |status: String| Ok(Line::Failed { custom_id, status });
    let response = value.get("response").filter(|r| !r.is_null());
    let Some(response) = response else {
        return match value.get("error").filter(|e| !e.is_null()) {
            Some(_) => failed("openai batch: error".to_owned()),
            None => Err("an OpenAI batch line with neither `response` nor `error`".to_owned()),
        };
    };
    match response.get("status_code").and_then(Value::as_u64) {
        Some(200) => {}
        Some(code) => return failed(format!("openai batch: HTTP {}", code.min(999))),
        None => return Err("an OpenAI batch line whose response has no `status_code`".to_owned()),
    }
    let body = response.get("body").unwrap_or(&Value::Null);
    let answer = response_of(
        body,
        tool,
        Some(&[Provider::OpenAiChat, Provider::OpenAiResponses]),
    )
    .ok_or_else(|| {
        "an OpenAI batch line whose body is neither a chat completion nor a Responses object"
            .to_owned()
    })?;
    Ok(answer.line(custom_id))
}

/// An Anthropic Message Batches result line.
fn anthropic_batch<'a>(value: &'a Value, tool: &str) -> Result<Line<'a>, String> {
    let custom_id = value.get("custom_id").and_then(Value::as_str);
    let result = value.get("result").unwrap_or(&Value::Null);
    match result.get("type").and_then(Value::as_str) {
        Some("succeeded") => {
            let message = result.get("message").unwrap_or(&Value::Null);
            let answer = claude_message(message, tool).ok_or_else(|| {
                "an Anthropic batch result whose message has no `content` array".to_owned()
            })?;
            Ok(answer.line(custom_id))
        }
        Some(status @ ("errored" | "canceled" | "expired")) => Ok(Line::Failed {
            custom_id,
            status: format!("anthropic batch: {status}"),
        }),
        _ => Err(
            "an Anthropic batch line whose `result.type` is not succeeded, errored, canceled \
             or expired"
                .to_owned(),
        ),
    }
}

/// A Gemini Batch API output line.
fn gemini_batch<'a>(value: &'a Value, tool: &str) -> Result<Line<'a>, String> {
    let custom_id = value.get("key").and_then(Value::as_str);
    if value.get("error").is_some_and(|e| !e.is_null()) {
        return Ok(Line::Failed {
            custom_id,
            status: "gemini batch: error".to_owned(),
        });
    }
    let response = value.get("response").unwrap_or(&Value::Null);
    let answer = response_of(response, tool, Some(&[Provider::Gemini])).ok_or_else(|| {
        "a Gemini batch line whose `response` is not an answer with `candidates`".to_owned()
    })?;
    Ok(answer.line(custom_id))
}

/// The calls of a conversation, `None` when it is not one.
fn conversation<'a>(value: &'a Value, tool: &str) -> Option<Vec<Found<'a>>> {
    let messages = match value {
        Value::Array(messages) => messages,
        Value::Object(object) => ["messages", "input", "contents"]
            .iter()
            .find_map(|key| object.get(*key).and_then(Value::as_array))?,
        _ => return None,
    };
    let mut calls = Vec::new();
    for (index, message) in messages.iter().enumerate() {
        if !message.is_object() {
            return None;
        }
        let at = Some(index);
        if message.get("tool_calls").is_some() {
            calls.extend(chat_calls(Some(message), tool, at));
        } else if message.get("type").and_then(Value::as_str) == Some("function_call") {
            calls.extend(responses_items(std::iter::once(message), tool, at));
        } else if message.get("parts").is_some() {
            calls.extend(gemini_parts(message.get("parts"), tool, at));
        } else if let Some(found) = claude_blocks(message.get("content"), tool, at) {
            calls.extend(found);
        }
    }
    Some(calls)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn auto(value: &Value) -> Result<Line<'_>, String> {
        find(
            value,
            InputFormat::Auto,
            Provider::OpenAiChat,
            "submit_result",
        )
    }

    fn providers(line: &Line<'_>) -> Vec<(Provider, Option<usize>)> {
        match line {
            Line::Calls { calls, .. } => calls.iter().map(|c| (c.provider, c.message)).collect(),
            Line::Failed { .. } => Vec::new(),
        }
    }

    #[test]
    fn a_bare_call_is_read_in_the_chosen_provider_shape() {
        let call = json!({"type": "function", "function": {"name": "other", "arguments": "{}"}});
        let line = auto(&call).map_err(|e| e.to_string());
        assert_eq!(
            providers(&line.unwrap_or_else(|e| panic!("{e}"))),
            [(Provider::OpenAiChat, None)]
        );
    }

    #[test]
    fn every_response_shape_gives_its_submit_calls_only() {
        let submit =
            |name: &str| json!({"type": "function", "function": {"name": name, "arguments": "{}"}});
        let cases = [
            (
                json!({"choices": [{"message": {"tool_calls": [submit("x"), submit("submit_result")]}}]}),
                Provider::OpenAiChat,
            ),
            (
                json!({"object": "response", "output": [{"type": "function_call", "name": "submit_result", "arguments": "{}"}, {"type": "message"}]}),
                Provider::OpenAiResponses,
            ),
            (
                json!({"type": "message", "content": [{"type": "text", "text": "hi"}, {"type": "tool_use", "name": "submit_result", "input": {}}]}),
                Provider::Claude,
            ),
            (
                json!({"candidates": [{"content": {"parts": [{"functionCall": {"name": "submit_result", "args": {}}}]}}]}),
                Provider::Gemini,
            ),
        ];
        for (value, provider) in cases {
            let line = auto(&value).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(providers(&line), [(provider, None)], "{value}");
        }
    }

    #[test]
    fn batch_entries_without_an_answer_are_failed_with_a_bounded_status() {
        let cases = [
            (
                json!({"custom_id": "a", "response": null, "error": {"code": "x", "message": "m"}}),
                "openai batch: error",
            ),
            (
                json!({"custom_id": "b", "response": {"status_code": 500, "body": {}}, "error": null}),
                "openai batch: HTTP 500",
            ),
            (
                json!({"custom_id": "c", "result": {"type": "errored", "error": {}}}),
                "anthropic batch: errored",
            ),
            (
                json!({"custom_id": "d", "result": {"type": "expired"}}),
                "anthropic batch: expired",
            ),
            (
                json!({"custom_id": "e", "result": {"type": "canceled"}}),
                "anthropic batch: canceled",
            ),
            (
                json!({"key": "f", "error": {"code": 3, "message": "m"}}),
                "gemini batch: error",
            ),
        ];
        for (value, want) in cases {
            match auto(&value) {
                Ok(Line::Failed { custom_id, status }) => {
                    assert_eq!(status, want);
                    let id = value.get("custom_id").or_else(|| value.get("key"));
                    assert_eq!(custom_id, id.and_then(Value::as_str));
                }
                other => panic!("{value}: {other:?}"),
            }
        }
    }

    #[test]
    fn a_conversation_gives_each_call_with_its_message_index() {
        let conversation = json!([
            {"role": "user", "content": "go"},
            {"role": "assistant", "tool_calls": [{"type": "function", "function": {"name": "submit_result", "arguments": "{}"}}]},
            {"role": "assistant", "content": [{"type": "tool_use", "name": "submit_result", "input": {}}]},
            {"role": "model", "parts": [{"functionCall": {"name": "submit_result", "args": {}}}]},
            {"type": "function_call", "name": "submit_result", "arguments": "{}"}
        ]);
        let line = auto(&conversation).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            providers(&line),
            [
                (Provider::OpenAiChat, Some(1)),
                (Provider::Claude, Some(2)),
                (Provider::Gemini, Some(3)),
                (Provider::OpenAiResponses, Some(4)),
            ]
        );
    }

    /// Each call found with how its turn ended.
    fn ends(line: &Line<'_>) -> Vec<StopReason> {
        match line {
            Line::Calls { calls, .. } => calls.iter().map(|c| c.end).collect(),
            Line::Failed { .. } => Vec::new(),
        }
    }

    fn chat_call(name: &str) -> Value {
        json!({"id": "call_1", "type": "function", "function": {"name": name, "arguments": "{}"}})
    }

    /// A response of each provider that stopped at `reason`, its tool calls named `names`.
    fn responses_stopped(names: &[&str], reasons: [&str; 4]) -> [Value; 4] {
        let chat: Vec<Value> = names.iter().map(|name| chat_call(name)).collect();
        let items: Vec<Value> = names
            .iter()
            .map(|name| json!({"type": "function_call", "call_id": "c", "name": name, "arguments": "{}"}))
            .collect();
        let blocks: Vec<Value> = names
            .iter()
            .map(|name| json!({"type": "tool_use", "id": "t", "name": name, "input": {}}))
            .collect();
        let parts: Vec<Value> = names
            .iter()
            .map(|name| json!({"functionCall": {"name": name, "args": {}}}))
            .collect();
        let [claude, chat_reason, responses, gemini] = reasons;
        [
            json!({"type": "message", "role": "assistant", "content": blocks, "stop_reason": claude}),
            json!({"choices": [{"index": 0, "message": {"role": "assistant", "tool_calls": chat},
                                "finish_reason": chat_reason}]}),
            json!({"object": "response", "status": "incomplete",
                   "incomplete_details": {"reason": responses}, "output": items}),
            json!({"candidates": [{"content": {"role": "model", "parts": parts},
                                   "finishReason": gemini}]}),
        ]
    }

    const LIMITS: [&str; 4] = ["max_tokens", "length", "max_output_tokens", "MAX_TOKENS"];

    #[test]
    fn the_last_tool_call_of_a_response_cut_at_the_limit_is_found_at_the_limit() {
        let limit = StopReason::OutputLimit;
        let complete = StopReason::Complete;
        for value in responses_stopped(&["submit_result", "submit_result"], LIMITS) {
            let line = auto(&value).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(ends(&line), [complete, limit], "{value}");
        }
        for value in responses_stopped(
            &["submit_result"],
            ["end_turn", "tool_calls", "max_output_tokens", "STOP"],
        ) {
            let mut value = value;
            if let Some(status) = value.get_mut("status") {
                // An incomplete_details left over on a completed response says nothing.
                *status = json!("completed");
            }
            let line = auto(&value).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(ends(&line), [complete], "{value}");
        }
    }

    #[test]
    fn a_submit_call_before_another_tools_call_in_a_cut_response_is_complete() {
        for value in responses_stopped(&["submit_result", "get_weather"], LIMITS) {
            let line = auto(&value).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(ends(&line), [StopReason::Complete], "{value}");
        }
        // A server tool's call after it in an Anthropic message, a built-in tool's call after
        // it in a Responses object.
        let claude = json!({"type": "message", "stop_reason": "max_tokens", "content": [
            {"type": "tool_use", "id": "t", "name": "submit_result", "input": {}},
            {"type": "server_tool_use", "id": "s", "name": "web_search", "input": {}}]});
        let responses = json!({"object": "response", "status": "incomplete",
            "incomplete_details": {"reason": "max_output_tokens"}, "output": [
            {"type": "function_call", "call_id": "c", "name": "submit_result", "arguments": "{}"},
            {"type": "web_search_call", "id": "ws", "status": "incomplete"}]});
        for value in [claude, responses] {
            let line = auto(&value).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(ends(&line), [StopReason::Complete], "{value}");
        }
    }

    #[test]
    fn each_choice_and_candidate_stops_for_its_own_reason() {
        let chat = json!({"choices": [
            {"index": 0, "message": {"tool_calls": [chat_call("submit_result")]}, "finish_reason": "tool_calls"},
            {"index": 1, "message": {"tool_calls": [chat_call("submit_result")]}, "finish_reason": "length"}]});
        let part = json!({"functionCall": {"name": "submit_result", "args": {}}});
        let gemini = json!({"candidates": [
            {"content": {"parts": [part]}, "finishReason": "MAX_TOKENS"},
            {"content": {"parts": [part]}, "finishReason": "STOP"}]});
        let line = auto(&chat).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(ends(&line), [StopReason::Complete, StopReason::OutputLimit]);
        let line = auto(&gemini).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(ends(&line), [StopReason::OutputLimit, StopReason::Complete]);
    }

    #[test]
    fn batch_entries_read_the_stop_reason_of_the_response_they_carry() {
        let [claude, chat, _, gemini] = responses_stopped(&["submit_result"], LIMITS);
        let lines = [
            json!({"custom_id": "a", "result": {"type": "succeeded", "message": claude}}),
            json!({"custom_id": "b", "response": {"status_code": 200, "body": chat}, "error": null}),
            json!({"key": "c", "response": gemini}),
        ];
        for value in lines {
            let line = auto(&value).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(ends(&line), [StopReason::OutputLimit], "{value}");
        }
    }

    #[test]
    fn bare_calls_and_conversations_carry_no_stop_reason() {
        let bare = json!({"type": "tool_use", "id": "t", "name": "submit_result", "input": {}});
        let line = find(&bare, InputFormat::Auto, Provider::Claude, "submit_result")
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(ends(&line), [StopReason::Complete]);
        // A message in a conversation keeps no stop reason of its own, even if one is there.
        let conversation = json!([
            {"role": "user", "content": "go"},
            {"role": "assistant", "stop_reason": "max_tokens", "finish_reason": "length",
             "content": [{"type": "tool_use", "id": "t", "name": "submit_result", "input": {}}]}
        ]);
        let line = auto(&conversation).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(ends(&line), [StopReason::Complete]);
    }

    /// Each text found with how its turn ended.
    fn texts<'a>(line: &'a Line<'_>) -> Vec<(Provider, &'a str, StopReason)> {
        match line {
            Line::Calls { texts, .. } => texts
                .iter()
                .map(|t| (t.provider, t.text.as_ref(), t.end))
                .collect(),
            Line::Failed { .. } => Vec::new(),
        }
    }

    #[test]
    fn a_response_with_no_submit_call_gives_its_visible_text_and_never_its_reasoning() {
        let complete = StopReason::Complete;
        let cases = [
            (
                json!({"type": "message", "stop_reason": "end_turn", "content": [
                    {"type": "thinking", "thinking": "T", "signature": "s"},
                    {"type": "text", "text": "a"},
                    {"type": "tool_use", "id": "t", "name": "other", "input": {}},
                    {"type": "text", "text": "b"}]}),
                (Provider::Claude, "ab"),
            ),
            (
                json!({"choices": [{"finish_reason": "stop", "message": {"role": "assistant",
                    "reasoning_content": "T", "content": "a"}}]}),
                (Provider::OpenAiChat, "a"),
            ),
            (
                json!({"choices": [{"finish_reason": "stop", "message": {"role": "assistant",
                    "content": [{"type": "text", "text": "a"}, {"type": "refusal", "refusal": "T"},
                                {"type": "text", "text": "b"}]}}]}),
                (Provider::OpenAiChat, "ab"),
            ),
            (
                json!({"object": "response", "status": "completed", "output": [
                    {"type": "reasoning", "summary": [{"type": "summary_text", "text": "T"}]},
                    {"type": "message", "content": [{"type": "output_text", "text": "a"},
                                                    {"type": "output_text", "text": "b"}]},
                    {"type": "message", "content": [{"type": "refusal", "refusal": "T"}]}]}),
                (Provider::OpenAiResponses, "ab"),
            ),
            (
                json!({"candidates": [{"finishReason": "STOP", "content": {"role": "model",
                    "parts": [{"text": "T", "thought": true}, {"text": "a"}, {"text": "b"}]}}]}),
                (Provider::Gemini, "ab"),
            ),
            (
                json!({"candidates": [{"finishReason": "MALFORMED_FUNCTION_CALL",
                    "finishMessage": "Malformed function call: x"}]}),
                (Provider::Gemini, "Malformed function call: x"),
            ),
            (
                json!({"candidates": [{"finishReason": "MALFORMED_FUNCTION_CALL",
                    "finishMessage": "m", "content": {"parts": [{"text": "a"}]}}]}),
                (Provider::Gemini, "a\nm"),
            ),
        ];
        for (value, (provider, text)) in cases {
            let line = auto(&value).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(texts(&line), [(provider, text, complete)], "{value}");
            assert_eq!(providers(&line), [], "{value}");
        }
        // A finish message is read only as the malformed call it names.
        let stopped = json!({"candidates": [{"finishReason": "SAFETY", "finishMessage": "m"}]});
        let line = auto(&stopped).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(texts(&line), []);
    }

    #[test]
    fn a_turn_with_a_submit_call_or_no_text_gives_no_text() {
        let call = json!({"type": "tool_use", "id": "t", "name": "submit_result", "input": {}});
        let cases = [
            json!({"type": "message", "content": [{"type": "text", "text": "a"}, call]}),
            json!({"type": "message", "content": [{"type": "thinking", "thinking": "T"}]}),
            json!({"choices": [{"message": {"content": null, "reasoning_content": "T"}}]}),
            json!({"choices": [{"message": {"content": ""}}]}),
            json!({"object": "response", "output": [
                {"type": "reasoning", "summary": [{"type": "summary_text", "text": "T"}]}]}),
            json!({"candidates": [{"content": {"parts": [{"text": "T", "thought": true}]}}]}),
        ];
        for value in cases {
            let line = auto(&value).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(texts(&line), [], "{value}");
        }
        // Each choice is a turn of its own: the one without a submit call gives its text.
        let chat = json!({"choices": [
            {"message": {"content": "a", "tool_calls": [chat_call("submit_result")]}},
            {"message": {"content": "b"}}]});
        let line = auto(&chat).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            texts(&line),
            [(Provider::OpenAiChat, "b", StopReason::Complete)]
        );
        assert_eq!(providers(&line), [(Provider::OpenAiChat, None)]);
    }

    #[test]
    fn bare_calls_and_conversations_give_no_text() {
        let bare = json!({"type": "message", "role": "assistant", "content": "a"});
        let line = find(&bare, InputFormat::Call, Provider::Claude, "submit_result")
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(texts(&line), []);
        let conversation = json!([
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": [{"type": "text", "text": "a"}]},
            {"role": "assistant", "content": "b"}
        ]);
        let line = auto(&conversation).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(texts(&line), []);
    }

    #[test]
    fn text_at_the_end_of_a_turn_cut_at_the_limit_is_found_at_the_limit() {
        let limit = StopReason::OutputLimit;
        let text_only = [
            json!({"type": "message", "stop_reason": "max_tokens",
                   "content": [{"type": "text", "text": "a"}]}),
            json!({"choices": [{"finish_reason": "length", "message": {"content": "a"}}]}),
            json!({"object": "response", "status": "incomplete",
                   "incomplete_details": {"reason": "max_output_tokens"},
                   "output": [{"type": "message", "content": [{"type": "output_text", "text": "a"}]}]}),
            json!({"candidates": [{"finishReason": "MAX_TOKENS",
                                   "content": {"parts": [{"text": "a"}]}}]}),
        ];
        for value in &text_only {
            let line = auto(value).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(texts(&line)[0].2, limit, "{value}");
        }
        // Another tool's call after the text is where the cut fell: the text is whole.
        let followed = [
            json!({"type": "message", "stop_reason": "max_tokens", "content": [
                {"type": "text", "text": "a"},
                {"type": "tool_use", "id": "t", "name": "other", "input": {}}]}),
            json!({"choices": [{"finish_reason": "length",
                                "message": {"content": "a", "tool_calls": [chat_call("other")]}}]}),
            json!({"object": "response", "status": "incomplete",
                   "incomplete_details": {"reason": "max_output_tokens"}, "output": [
                {"type": "message", "content": [{"type": "output_text", "text": "a"}]},
                {"type": "function_call", "call_id": "c", "name": "other", "arguments": "{"}]}),
            json!({"candidates": [{"finishReason": "MAX_TOKENS", "content": {"parts": [
                {"text": "a"}, {"functionCall": {"name": "other", "args": {}}}]}}]}),
        ];
        for value in &followed {
            let line = auto(value).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(texts(&line)[0].2, StopReason::Complete, "{value}");
        }
    }

    #[test]
    fn a_line_not_in_the_chosen_format_is_an_error_naming_the_format() {
        let value = json!({"custom_id": "x", "result": {"type": "mystery"}});
        let error = auto(&value).err().unwrap_or_default();
        assert!(
            error.contains("succeeded, errored, canceled or expired"),
            "{error}"
        );
        let error = find(&json!(1), InputFormat::Response, Provider::Claude, "s")
            .err()
            .unwrap_or_default();
        assert!(error.starts_with("not a response"), "{error}");
        let error = find(&json!({}), InputFormat::Conversation, Provider::Claude, "s")
            .err()
            .unwrap_or_default();
        assert!(error.starts_with("not a conversation"), "{error}");
    }
}
