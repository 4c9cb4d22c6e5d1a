//! The corpus of model-mistake vectors (`tests/corpus/*.json`), each run through all four
//! providers' call shapes with the public API (a model's text turn and an invented wrapper's
//! arguments through their own entry points).

use submit_result::{Arguments, Options, Provider, StopReason, SubmitTool, Trace};

const CORPUS_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/corpus");

#[derive(Debug, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
struct Sample {
    summary: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    blocked: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    tags: Option<Vec<String>>,
}

fn build_tool(options: Options) -> SubmitTool<Sample> {
    SubmitTool::new(options).expect("the corpus tool builds")
}

include!("corpus/runner.rs");

#[test]
fn corpus_vectors_hold_for_all_four_providers() {
    let count = run_corpus();
    assert!(count >= 150, "the corpus has {count} vectors");
}
