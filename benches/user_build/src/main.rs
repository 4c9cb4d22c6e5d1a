//! A clean call timed as a user builds it: `benches/instructions` counts its instructions.
//!
//! Two paths: the parser on the arguments alone (`handle`, `value`), and the executor's gate on
//! a provider's answer (`gate_text` on an OpenAI Chat body, `gate_value` on an Anthropic body:
//! the answer decoded by the transport, the submit call handled as the gate hands it over),
//! each against its floor.

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
            "none" => {}
            _ => panic!(),
        }
    }
}
