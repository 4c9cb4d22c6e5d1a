//! The generated impl compiles clean under strict lints.

#![deny(warnings, unused_qualifications, missing_docs, unreachable_pub)]
#![deny(clippy::all, clippy::pedantic, clippy::absolute_paths)]

use submit_result::SubmitResult;

/// A response type under every lint.
#[derive(serde::Deserialize, schemars::JsonSchema, SubmitResult)]
#[submit_result(name = "submit_lints", payload = "lints", flat)]
#[submit_result("payloadDescription=Linted\\, strictly.,omitReasoning=false")]
pub struct Linted {
    /// A field.
    pub summary: String,
}

/// A generic response type under every lint.
#[derive(serde::Deserialize, schemars::JsonSchema, SubmitResult)]
#[submit_result(omit_reasoning)]
pub struct Generic<T> {
    /// A field.
    pub items: Vec<T>,
}

#[test]
fn derive_is_clean_under_deny_warnings_and_unused_qualifications() {
    let metadata = Linted::metadata();
    assert_eq!(metadata.name.as_deref(), Some("submit_lints"));
    assert_eq!(
        metadata.payload_description.as_deref(),
        Some("Linted, strictly.")
    );
    assert!(Generic::<u8>::metadata().omit_reasoning);
}

#[test]
fn derive_is_clean_inside_a_function_under_unused_qualifications() {
    #![deny(unused_qualifications)]
    #[derive(serde::Deserialize, schemars::JsonSchema, SubmitResult)]
    struct Local {
        _summary: String,
    }
    assert!(!Local::metadata().flat);
}
