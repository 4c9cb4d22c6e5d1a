//! The whole flow on built-in data.
//!
//! A response type describes the answer; the submit tool built from it gives the tool
//! definition each provider receives. Run with `cargo run --example quickstart`.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};
use submit_result::{Outcome, Provider, SubmitResult, SubmitTool};

/// The triage of a bug report.
#[derive(Debug, Deserialize, JsonSchema, SubmitResult)]
#[submit_result(
    name = "submit_triage",
    payload = "triage",
    payload_description = "The triage of the report.",
    success = "Triage recorded."
)]
pub struct Triage {
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
pub enum Severity {
    /// Cosmetic; fix when convenient.
    Low,
    /// Broken for some users; fix this release.
    Medium,
    /// Data loss or outage; fix now.
    Critical,
}

/// A report this one duplicates.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Duplicate {
    /// The other report's number.
    number: u64,
    /// Why they are the same bug.
    reason: String,
}

/// Builds the submit tool from the type's metadata: the schema and the four definitions are
/// computed here, once.
pub fn build_tool() -> Result<SubmitTool<Triage>, submit_result::BuildError> {
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

/// Calls the way models really send them, one per provider shape.
pub fn sample_calls() -> Vec<(&'static str, Provider, Value)> {
    let payload = r#"{"summary":"Export to CSV drops the last row","severity":"medium","components":["export"],"affected_users":120}"#;
    vec![
        (
            "a clean call",
            Provider::Claude,
            json!({
                "type": "tool_use", "id": "toolu_01", "name": "submit_triage",
                "input": {
                    "reasoning": "The report has steps to reproduce and a sample file.",
                    "triage": serde_json::from_str::<Value>(payload).unwrap_or(Value::Null),
                }
            }),
        ),
        (
            "the payload JSON-encoded into a string, closed with stray tags",
            Provider::OpenAiChat,
            json!({
                "id": "call_02", "type": "function",
                "function": {
                    "name": "submit_triage",
                    "arguments": json!({
                        "reasoning": "Reproduced on the latest build.",
                        "triage": format!("{payload}</triage>\n</invoke>"),
                    }).to_string(),
                }
            }),
        ),
        (
            "the payload written inside the reasoning",
            Provider::Gemini,
            json!({
                "functionCall": {
                    "name": "submit_triage",
                    "args": {
                        "reasoning": format!(
                            "Two users confirm it.</reasoning>\n<parameter name=\"triage\">{payload}"
                        ),
                    }
                }
            }),
        ),
        (
            "the whole arguments JSON-encoded twice and followed by a stray brace",
            Provider::OpenAiResponses,
            json!({
                "type": "function_call", "call_id": "call_03", "name": "submit_triage",
                "arguments": Value::from(format!(
                    "{{\"reasoning\":\"Seen in two exports.\",\"triage\":{payload}}}}}"
                )).to_string(),
            }),
        ),
        (
            "a string with prose after the object: ambiguous, so declined",
            Provider::OpenAiResponses,
            json!({
                "type": "function_call", "call_id": "call_04", "name": "submit_triage",
                "arguments": json!({
                    "reasoning": "Done.",
                    "triage": format!("{payload} and I also think it is urgent"),
                }).to_string(),
            }),
        ),
    ]
}

/// Prints an accepted triage field by field.
fn print_triage(triage: &Triage) {
    println!("summary: {}", triage.summary);
    println!("severity: {:?}", triage.severity);
    println!("components: {}", triage.components.join(", "));
    if let Some(users) = triage.affected_users {
        println!("affected users: {users}");
    }
    if let Some(duplicate) = &triage.duplicate_of {
        println!("duplicate of #{}: {}", duplicate.number, duplicate.reason);
    }
}

/// Parses each sample call and prints what happened to it.
fn parse_calls(tool: &SubmitTool<Triage>) {
    for (what, provider, call) in sample_calls() {
        println!("── {what} ({provider}) ──");
        match tool.handle(provider, &call) {
            Outcome::Accepted(accepted) => {
                let recovery = accepted
                    .recovery()
                    .map_or("none".to_owned(), |r| format!("{r:?}"));
                println!("accepted, recovery: {recovery}");
                for rule in &accepted.recoveries {
                    println!(
                        "  rule applied: {} {:?}",
                        rule.kind.as_str(),
                        rule.parameters
                    );
                }
                println!("reasoning: {:?}", accepted.reasoning);
                print_triage(&accepted.response);
                println!("tool result: {}", accepted.tool_result);
            }
            Outcome::Rejected(rejected) => {
                println!(
                    "rejected, class: {:?}, cause: {:?}",
                    rejected.error.class(),
                    rejected.error.cause()
                );
                println!("trace: {}", rejected.error.trace_text());
                println!("tool result: {}", rejected.tool_result);
            }
        }
        println!();
    }
}

pub fn main() -> Result<(), Box<dyn std::error::Error>> {
    let tool = build_tool()?;
    println!(
        "tool `{}`, payload parameter `{}`\n",
        tool.name(),
        tool.payload_field()
    );
    print_definitions(&tool)?;
    parse_calls(&tool);
    Ok(())
}
