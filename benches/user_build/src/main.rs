//! A clean call timed as a user builds it: `benches/instructions` counts its instructions.
//!
//! Two paths: the parser on the arguments alone (`handle`, `value`), and the executor's gate on
//! a provider's answer (`gate_text` on an OpenAI Chat body, `gate_value` on an Anthropic body:
//! the answer decoded by the transport, the submit call handled as the gate hands it over),
//! each against its floor. And streamed answers read by the transports (`stream_claude`,
//! `stream_chat`: the same call streamed; `stream_pings`: events that carry nothing), counted
//! on two checkouts to compare them.

use std::hint::black_box;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use submit_result::agent::transport::{Claude, OpenAiChat};
use submit_result::agent::executor::TerminalTool;
use submit_result::{Arguments, Options, StopReason, SubmitTool};

#[derive(Debug, Deserialize, Serialize, schemars::JsonSchema)]
#[allow(dead_code)]
struct Report {
    summary: String,
    findings: Vec<Finding>,
}

#[derive(Debug, Deserialize, Serialize, schemars::JsonSchema)]
#[allow(dead_code)]
struct Finding {
    id: u32,
    severity: String,
    file: String,
    detail: String,
    tags: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct Whole {
    reasoning: String,
    analysis: Report,
}

/// `MODE N`: runs one mode N times; `none` measures the set-up alone.
fn main() {
    let mode = std::env::args().nth(1).unwrap();
    let n: usize = std::env::args().nth(2).unwrap().parse().unwrap();
    let tool = SubmitTool::<Report>::new(Options::new().payload_field_name("analysis")).unwrap();
    let findings: Vec<Value> = (0..40)
        .map(|id| {
            json!({"id": id, "severity": "high", "file": format!("src/module_{id}/lib.rs"),
                   "detail": "The cache key omits the toolchain version, so a \"stale\" artefact is reused.",
                   "tags": ["cache", "ci", "build"]})
        })
        .collect();
    let payload =
        json!({"summary": "The build failed because the cache key changed.", "findings": findings})
            .to_string();
    let arguments = format!(r#"{{"reasoning":"I read every log.","analysis":{payload}}}"#);
    let value: Value = serde_json::from_str(&arguments).unwrap();
    // The same call in a provider's answer: the Chat body carries the argument text in a JSON
    // string, the Anthropic body the arguments object.
    let chat_body = json!({"id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-4.1",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": null,
            "tool_calls": [{"id": "call_1", "type": "function",
                "function": {"name": "submit_result", "arguments": arguments}}]},
            "finish_reason": "tool_calls"}],
        "usage": {"prompt_tokens": 900, "completion_tokens": 2100}})
    .to_string();
    let claude_body = json!({"id": "msg_1", "type": "message", "role": "assistant",
        "model": "claude-sonnet-4-5", "content": [{"type": "tool_use", "id": "toolu_1",
            "name": "submit_result", "input": value}],
        "stop_reason": "tool_use", "usage": {"input_tokens": 900, "output_tokens": 2100}})
    .to_string();
    let chat = OpenAiChat::new("gpt-4.1").api_key("k");
    let claude = Claude::new("claude-sonnet-4-5").api_key("k");
    // The same call streamed, its argument text in pieces of 64 bytes, as each API sends it;
    // and 16 KiB of Anthropic pings, small events that carry nothing.
    let claude_stream = claude_stream(&arguments);
    let chat_stream = chat_stream(&arguments);
    let pings = "event: ping\ndata: {\"type\": \"ping\"}\n\n".repeat(16 * 1024 / 35);
    for _ in 0..n {
        match mode.as_str() {
            "handle" => {
                black_box(tool.handle_arguments(Arguments::Text(black_box(&arguments))));
            }
            "floor" => {
                black_box(serde_json::from_str::<Whole>(black_box(&arguments)).unwrap());
            }
            "value" => {
                black_box(tool.handle_arguments(Arguments::Value(black_box(&value))));
            }
            "value_floor" => {
                black_box(Whole::deserialize(black_box(&value)).unwrap());
            }
            "gate_text" => {
                let response = chat.decode_body(black_box(chat_body.as_bytes())).unwrap();
                let call = response.message.tool_requests().next().unwrap();
                black_box(TerminalTool::verdict(&tool, call.arguments(), StopReason::Complete));
            }
            "gate_text_floor" => {
                // The answer decoded, then one typed decode of its argument text.
                let body: Value = serde_json::from_slice(black_box(chat_body.as_bytes())).unwrap();
                let text = body["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"]
                    .as_str()
                    .unwrap();
                black_box(serde_json::from_str::<Whole>(text).unwrap());
            }
            "gate_value" => {
                let response = claude.decode_body(black_box(claude_body.as_bytes())).unwrap();
                let call = response.message.tool_requests().next().unwrap();
                black_box(TerminalTool::verdict(&tool, call.arguments(), StopReason::Complete));
            }
            "gate_value_floor" => {
                // The answer decoded, then one typed decode of its arguments object.
                let body: Value = serde_json::from_slice(black_box(claude_body.as_bytes())).unwrap();
                black_box(Whole::deserialize(&body["content"][0]["input"]).unwrap());
            }
            "stream_claude" => {
                let response = claude.decode_stream([black_box(claude_stream.as_bytes())]);
                black_box(response.unwrap());
            }
            "stream_chat" => {
                let response = chat.decode_stream([black_box(chat_stream.as_bytes())]);
                black_box(response.unwrap());
            }
            "stream_pings" => {
                black_box(claude.decode_stream([black_box(pings.as_bytes())])).ok();
            }
            "none" => {}
            _ => panic!(),
        }
    }
}

/// An Anthropic Messages stream of one `tool_use` block whose `input_json_delta` pieces make
/// `arguments`.
fn claude_stream(arguments: &str) -> String {
    let event = |name: &str, data: Value| format!("event: {name}\ndata: {data}\n\n");
    let mut stream = event(
        "message_start",
        json!({"type": "message_start", "message": {"id": "msg_1", "type": "message",
            "role": "assistant", "model": "claude-sonnet-4-5", "content": [],
            "stop_reason": null, "usage": {"input_tokens": 900, "output_tokens": 1}}}),
    );
    stream += &event(
        "content_block_start",
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use",
            "id": "toolu_1", "name": "submit_result", "input": {}}}),
    );
    for piece in pieces(arguments) {
        stream += &event(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0,
                "delta": {"type": "input_json_delta", "partial_json": piece}}),
        );
    }
    stream += &event("content_block_stop", json!({"type": "content_block_stop", "index": 0}));
    stream += &event(
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"},
            "usage": {"output_tokens": 2100}}),
    );
    stream + &event("message_stop", json!({"type": "message_stop"}))
}

/// An OpenAI Chat stream of one tool call whose `arguments` pieces make `arguments`.
fn chat_stream(arguments: &str) -> String {
    let chunk = |delta: Value, finish: Value| {
        let data = json!({"id": "chatcmpl-1", "object": "chat.completion.chunk",
            "model": "gpt-4.1", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]});
        format!("data: {data}\n\n")
    };
    let mut stream = chunk(
        json!({"role": "assistant", "content": null, "tool_calls": [{"index": 0, "id": "call_1",
            "type": "function", "function": {"name": "submit_result", "arguments": ""}}]}),
        Value::Null,
    );
    for piece in pieces(arguments) {
        stream += &chunk(
            json!({"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}),
            Value::Null,
        );
    }
    stream += &chunk(json!({}), json!("tool_calls"));
    stream + "data: [DONE]\n\n"
}

/// `text` in pieces of 64 bytes (it is ASCII).
fn pieces(text: &str) -> Vec<&str> {
    text.as_bytes()
        .chunks(64)
        .map(|c| std::str::from_utf8(c).unwrap())
        .collect()
}
