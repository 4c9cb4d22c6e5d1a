//! The corpus of model-mistake vectors (`tests/corpus/*.json`), run through a tool built
//! directly. `tests/test_corpus.rs` runs the same vectors through the public API.

use serde::{Deserialize, Serialize};

use super::testing::TestTool;
use crate::provider::Provider;
use crate::tool::SubmitTool;
use crate::trace::Trace;

const CORPUS_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/corpus");

#[derive(Debug, Deserialize, Serialize)]
struct Sample {
    summary: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    blocked: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    tags: Option<Vec<String>>,
}

fn build_tool(options: &serde_json::Value) -> SubmitTool<Sample> {
    let flag = |key: &str| options[key].as_bool().unwrap_or(false);
    let payload = options["payload"].as_str().unwrap_or("analysis");
    let success = options["success"].as_str().map(str::to_owned);
    let omitted: Vec<String> = options["omit_fields"]
        .as_array()
        .map(|names| {
            names
                .iter()
                .filter_map(|n| n.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    TestTool::new(payload)
        .options(|o| {
            let o = o
                .flat_payload(flag("flat"))
                .omit_reasoning(flag("omit_reasoning"))
                .strict(flag("strict"))
                .omit_payload_fields(omitted);
            match success {
                Some(success) => o.success_message(success),
                None => o,
            }
        })
        .build()
}

include!("../../../tests/corpus/runner.rs");

#[test]
fn corpus_vectors_hold_for_all_four_providers() {
    let count = run_corpus();
    assert!(count >= 150, "the corpus has {count} vectors");
}
