//! The corpus of model-mistake vectors (`tests/corpus/*.json`), run through a tool built
//! directly. The facade's `tests/corpus.rs` runs the same vectors through the public API.

use serde::{Deserialize, Serialize};

use super::testing::TestTool;
use super::Arguments;
use crate::options::Options;
use crate::provider::Provider;
use crate::stop::StopReason;
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

/// The sample tool with the vector's options (its properties as `TestTool::new` gives them).
fn build_tool(options: Options) -> SubmitTool<Sample> {
    let payload = options.payload_field_name.to_string();
    TestTool::new(&payload).options(|_| options).build()
}

include!("../../../tests/corpus/runner.rs");

#[test]
fn corpus_vectors_hold_for_all_four_providers() {
    let count = run_corpus();
    assert!(count >= 150, "the corpus has {count} vectors");
}
