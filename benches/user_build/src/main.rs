//! A clean call timed as a user builds it: `benches/instructions` counts its instructions.

use std::hint::black_box;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use submit_result::{Arguments, Options, SubmitTool};

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
            "none" => {}
            _ => panic!(),
        }
    }
}
