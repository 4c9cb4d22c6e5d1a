//! The whole flow on built-in data.
//!
//! A response type describes the answer; the submit tool built from it gives the tool
//! definition each provider receives. Run with `cargo run --example quickstart`.

use schemars::JsonSchema;
use serde::Deserialize;
use submit_result::{Provider, SubmitResult, SubmitTool};

/// The triage of a bug report.
#[allow(dead_code, reason = "the fields are read once calls are parsed")]
#[derive(Debug, Deserialize, JsonSchema, SubmitResult)]
#[submit_result(
    name = "submit_triage",
    payload = "triage",
    payload_description = "The triage of the report.",
    success = "Triage recorded."
)]
struct Triage {
    /// One sentence saying what is broken.
    summary: String,
    /// How urgent the fix is.
    severity: Severity,
    /// Components the report touches, most likely first.
    components: Vec<String>,
    /// How many users are affected, when the report says.
    affected_users: Option<u32>,
    /// A duplicate report, if there is one.
    duplicate_of: Option<Duplicate>,
}

/// How urgent a fix is.
#[allow(dead_code, reason = "the variants are read once calls are parsed")]
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Severity {
    /// Cosmetic; fix when convenient.
    Low,
    /// Broken for some users; fix this release.
    Medium,
    /// Data loss or outage; fix now.
    Critical,
}

/// A report this one duplicates.
#[allow(dead_code, reason = "the fields are read once calls are parsed")]
#[derive(Debug, Deserialize, JsonSchema)]
struct Duplicate {
    /// The other report's number.
    number: u64,
    /// Why they are the same bug.
    reason: String,
}

/// Builds the submit tool from the type's metadata: the schema and the four definitions are
/// computed here, once.
fn build_tool() -> Result<SubmitTool<Triage>, submit_result::BuildError> {
    SubmitTool::<Triage>::for_response()
}

/// Prints the definition each provider receives.
fn print_definitions(tool: &SubmitTool<Triage>) -> Result<(), serde_json::Error> {
    for provider in Provider::ALL {
        println!("── {provider} ──");
        println!(
            "{}",
            serde_json::to_string_pretty(&tool.definition(provider))?
        );
        println!();
    }
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let tool = build_tool()?;
    println!(
        "tool `{}`, payload parameter `{}`\n",
        tool.name(),
        tool.payload_field()
    );
    print_definitions(&tool)?;
    Ok(())
}
