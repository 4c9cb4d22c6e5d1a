//! The trace of rejected submits, and the logs: classes and causes as values, the bounded echo,
//! and reasoning that never reaches either.

use serde_json::json;
use submit_result::{ErrorClass, Options, ParameterCause, Provider, SubmitTool, Trace};

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct Analysis {
    #[allow(dead_code, reason = "decoded, not read")]
    summary: String,
}

fn tool() -> SubmitTool<Analysis> {
    SubmitTool::new(Options::new().payload_field_name("analysis")).unwrap()
}

fn chat(arguments: serde_json::Value) -> serde_json::Value {
    json!({"id": "call_7", "type": "function",
           "function": {"name": "submit_result", "arguments": arguments.to_string()}})
}

#[test]
fn every_rejection_is_one_recoverable_record() {
    let mut trace = Trace::new();
    let tool = tool();
    traced(
        &tool,
        Provider::OpenAiChat,
        &chat(json!({"analysis": {"summary": "s"}})),
        &mut trace,
    );
    traced(
        &tool,
        Provider::OpenAiChat,
        &chat(json!({"reasoning": "r", "analysis": {"summary": 1}})),
        &mut trace,
    );
    traced(
        &tool,
        Provider::OpenAiChat,
        &chat(json!({"reasoning": "r", "analysis": {"summary": "s"}})),
        &mut trace,
    );
    let calls = trace.calls();
    assert_eq!(calls.len(), 2, "the accepted submit is not recorded");
    assert!(calls
        .iter()
        .all(|call| call.recoverable && call.id.as_deref() == Some("call_7")));
    assert_eq!(calls[0].class, Some(ErrorClass::Parameter));
    assert_eq!(calls[0].cause, Some(ParameterCause::AbsentOrMistyped));
    assert_eq!(
        calls[0].error.as_deref(),
        Some("parameter error: reasoning parameter is required")
    );
    assert_eq!(calls[1].class, Some(ErrorClass::Payload));
    assert_eq!(calls[1].cause, None);
}

#[test]
fn trace_serializes_class_and_cause_as_values() {
    let mut trace = Trace::new();
    traced(
        &tool(),
        Provider::OpenAiChat,
        &chat(json!({"reasoning": "r", "analysis": "not a json object"})),
        &mut trace,
    );
    let value = serde_json::to_value(&trace).unwrap();
    assert_eq!(value["calls"][0]["class"], "parameter");
    assert_eq!(value["calls"][0]["cause"], "stringified_declined");
    assert_eq!(value["calls"][0]["recoverable"], true);
    let text = trace.to_string();
    assert!(text.contains("parameter error"));
    assert!(text.contains("pass analysis as a nested JSON object"));
    assert!(text.contains("analysis arrived as a 17-byte string: \"not a json object\""));
}

#[test]
fn echo_is_bounded_and_never_sent_to_the_model() {
    let payload = format!(
        "{{\"summary\":\"{}\"}} and then NEEDLE_PAST_THE_BOUND",
        "a".repeat(512)
    );
    let mut trace = Trace::new();
    let outcome = traced(
        &tool(),
        Provider::OpenAiChat,
        &chat(json!({"reasoning": "r", "analysis": payload})),
        &mut trace,
    );
    let record = trace.calls()[0].error.clone().unwrap();
    assert!(record.contains(&format!(
        "analysis arrived as a {}-byte string beginning ",
        payload.len()
    )));
    assert!(!record.contains("NEEDLE"));
    assert!(record.len() <= payload.len());
    let sent = outcome.tool_result()["error"].as_str().unwrap();
    assert!(!sent.contains("arrived as"));
}

#[test]
fn echo_escapes_control_characters() {
    let mut trace = Trace::new();
    traced(
        &tool(),
        Provider::OpenAiChat,
        &chat(json!({"reasoning": "r", "analysis": "\u{1b}[2J\u{7}"})),
        &mut trace,
    );
    let record = trace.calls()[0].error.clone().unwrap();
    assert!(record.ends_with("(analysis arrived as a 5-byte string: \"\\u{1b}[2J\\u{7}\")"));
    assert!(!record.contains('\u{1b}'));
}

/// `handle`, a rejection recorded in `trace` under the call's id.
fn traced(
    tool: &SubmitTool<Analysis>,
    provider: Provider,
    call: &serde_json::Value,
    trace: &mut Trace,
) -> submit_result::Outcome<Analysis> {
    let outcome = tool.handle(provider, call);
    let id = provider.read_call(call).unwrap().id;
    trace.record(id, tool.name(), &outcome);
    outcome
}
