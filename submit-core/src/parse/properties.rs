//! Property tests of the parser (`tests/properties/props.rs`), run through a tool built
//! directly. `tests/test_properties.rs` runs the same properties through the public API.

use super::testing::TestTool;
use crate::error::ParameterCause;
use crate::metadata::Metadata;
use crate::options::Options;
use crate::outcome::{Outcome, Recovery, RecoveryKind};
use crate::provider::Provider;
use crate::tool::SubmitTool;

fn value_tool() -> SubmitTool<serde_json::Value> {
    TestTool::new("analysis").build()
}

include!("../../../tests/properties/props.rs");
