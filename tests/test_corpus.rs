//! The corpus of model-mistake vectors (`tests/corpus/*.json`), each run through all four
//! providers' call shapes with the public API.

use submit_result::{Options, Provider, SubmitTool, Trace};

const CORPUS_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/corpus");

#[derive(Debug, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
struct Sample {
    summary: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    blocked: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    tags: Option<Vec<String>>,
}

fn build_tool(options: &serde_json::Value) -> SubmitTool<Sample> {
    let flag = |key: &str| options[key].as_bool().unwrap_or(false);
    let mut built = Options::new()
        .payload_field_name(options["payload"].as_str().unwrap_or("analysis").to_owned())
        .flat_payload(flag("flat"))
        .omit_reasoning(flag("omit_reasoning"))
        .strict(flag("strict"));
    if let Some(success) = options["success"].as_str() {
        built = built.success_message(success.to_owned());
    }
    if let Some(names) = options["omit_fields"].as_array() {
        built = built.omit_payload_fields(names.iter().map(|n| n.as_str().unwrap().to_owned()));
    }
    SubmitTool::new(built).expect("the corpus tool builds")
}

include!("corpus/runner.rs");

#[test]
fn corpus_vectors_hold_for_all_four_providers() {
    let count = run_corpus();
    assert!(count >= 150, "the corpus has {count} vectors");
}
