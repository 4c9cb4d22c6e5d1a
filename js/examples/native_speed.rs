//! The module's work on a clean 8 KiB OpenAI Chat call, natively: what `sr_handle` does (the
//! call's bytes through the door, the outcome written as JSON) beside `serde_json` reading the
//! call's arguments into a value, timed side by side (the best of alternating rounds), with
//! the same call and schema as `benches/handle_speed.mjs`. It tells how much of `handle`'s
//! time in Node is the WebAssembly build's own.
//!
//!     cargo run --release --example native_speed

use serde_json::{json, Value};
use submit_core::{Incoming, Options, Provider, SubmitTool};

const SEVERITY: [&str; 3] = ["low", "medium", "high"];

fn best_of(rounds: usize, runs: u32, mut f: impl FnMut()) -> f64 {
    (0..rounds)
        .map(|_| {
            let start = std::time::Instant::now();
            for _ in 0..runs {
                f();
            }
            start.elapsed().as_secs_f64() / f64::from(runs)
        })
        .fold(f64::MAX, f64::min)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let schema = json!({"type": "object", "properties": {
        "summary": {"type": "string"},
        "findings": {"type": "array", "items": {"type": "object", "properties": {
            "id": {"type": "integer"}, "title": {"type": "string"},
            "severity": {"type": "string", "enum": SEVERITY}, "score": {"type": "number"},
            "tags": {"type": "array", "items": {"type": "string"}}},
            "required": ["id", "title", "severity", "score", "tags"]}}},
        "required": ["summary", "findings"]});
    let tool = SubmitTool::<Value>::from_json_schema(schema, Options::new())?;
    let mut findings = Vec::new();
    let payload = loop {
        let payload =
            json!({"summary": "The review found the issues below.", "findings": findings});
        if payload.to_string().len() >= 8192 {
            break payload;
        }
        let n = findings.len();
        findings.push(json!({"id": n, "title": format!("Finding {n}: the handler reads the body twice"),
            "severity": SEVERITY[n % 3], "score": n as f64 / 7.0, "tags": ["io", "parser", format!("t{n}")]}));
    };
    let arguments = json!({"reasoning": "All findings checked.", "result": payload}).to_string();
    let call = json!({"id": "call_1", "type": "function",
        "function": {"name": "submit_result", "arguments": arguments}})
    .to_string();
    let (mut handle, mut parse) = (f64::MAX, f64::MAX);
    for _ in 0..9 {
        handle = handle.min(best_of(1, 300, || {
            let outcome = tool.receive(Incoming::call_json(Provider::OpenAiChat, call.as_bytes()));
            std::hint::black_box(
                outcome
                    .map(|found| found.map(|o| serde_json::to_vec(&o).ok()))
                    .ok(),
            );
        }));
        parse = parse.min(best_of(1, 300, || {
            std::hint::black_box(serde_json::from_str::<Value>(&arguments).ok());
        }));
    }
    println!("arguments: {} bytes", arguments.len());
    println!("the door and the outcome's JSON: {:.1} µs", handle * 1e6);
    println!("serde_json::from_str::<Value>:   {:.1} µs", parse * 1e6);
    Ok(())
}
