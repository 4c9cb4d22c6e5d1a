//! A provider's answer through the executor's gate (the answer decoded by the transport, the
//! submit call handled in the form it arrived), against the answer decoded as JSON plus one
//! typed decode of its arguments, measured in the same run.
//!
//! `cargo bench --bench gate --features claude,openai-chat -- --warm-up-time 1 --measurement-time 3`

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use submit_result::agent::executor::TerminalTool;
use submit_result::agent::transport::{Claude, OpenAiChat};
use submit_result::{Options, StopReason, SubmitTool};

#[derive(Debug, Deserialize, Serialize, schemars::JsonSchema)]
struct Report {
    summary: String,
    findings: Vec<Finding>,
}

#[derive(Debug, Deserialize, Serialize, schemars::JsonSchema)]
struct Finding {
    id: u32,
    severity: String,
    file: String,
    detail: String,
    tags: Vec<String>,
}

/// The whole arguments object, as a program that trusted the model would decode it.
#[derive(Debug, Deserialize)]
#[allow(dead_code, reason = "decoded to be timed")]
struct Whole {
    reasoning: String,
    analysis: Report,
}

/// The arguments of a clean call with a payload of about 8 KiB.
fn arguments() -> String {
    let findings: Vec<Value> = (0..40)
        .map(|id| {
            json!({"id": id, "severity": "high", "file": format!("src/module_{id}/lib.rs"),
                   "detail": "The cache key omits the toolchain version, so a \"stale\" artefact is reused.",
                   "tags": ["cache", "ci", "build"]})
        })
        .collect();
    let payload =
        json!({"summary": "The build failed because the cache key changed.", "findings": findings});
    json!({"reasoning": "I read every log.", "analysis": payload}).to_string()
}

fn gate(c: &mut Criterion) {
    let tool =
        SubmitTool::<Report>::new(Options::new().payload_field_name("analysis")).expect("builds");
    let arguments = arguments();
    let value: Value = serde_json::from_str(&arguments).expect("JSON");
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

    let mut group = c.benchmark_group("gate");
    group.bench_function("chat_floor", |b| {
        b.iter(|| {
            let body: Value = serde_json::from_slice(black_box(chat_body.as_bytes())).unwrap();
            let text = body["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"]
                .as_str()
                .unwrap();
            serde_json::from_str::<Whole>(text).unwrap()
        })
    });
    group.bench_function("chat_through_the_gate", |b| {
        b.iter(|| {
            let response = chat.decode_body(black_box(chat_body.as_bytes())).unwrap();
            let call = response.message.tool_requests().next().unwrap();
            TerminalTool::verdict(&tool, call.arguments(), StopReason::Complete).is_accepted()
        })
    });
    group.bench_function("claude_floor", |b| {
        b.iter(|| {
            let body: Value = serde_json::from_slice(black_box(claude_body.as_bytes())).unwrap();
            Whole::deserialize(&body["content"][0]["input"]).unwrap()
        })
    });
    group.bench_function("claude_through_the_gate", |b| {
        b.iter(|| {
            let response = claude
                .decode_body(black_box(claude_body.as_bytes()))
                .unwrap();
            let call = response.message.tool_requests().next().unwrap();
            TerminalTool::verdict(&tool, call.arguments(), StopReason::Complete).is_accepted()
        })
    });
    group.finish();
}

criterion_group!(benches, gate);
criterion_main!(benches);
