//! Property tests of the parser through the public API: generated payloads are recovered
//! exactly from every accepted shape, and nothing but closing tokens may follow them.

use submit_result::{
    Metadata, Options, Outcome, ParameterCause, Provider, RecoveryKind, SubmitTool,
};

/// A tool whose payload `analysis` is any JSON object.
fn value_tool() -> SubmitTool<serde_json::Value> {
    SubmitTool::from_json_schema(
        serde_json::json!({"type": "object"}),
        Options::new().payload_field_name("analysis"),
    )
    .expect("an object schema builds")
}

include!("properties/props.rs");
