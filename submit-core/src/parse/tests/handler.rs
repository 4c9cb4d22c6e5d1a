//! The handler end to end, through every provider's call shape.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::testing::TestTool;
use crate::error::{ErrorClass, ParameterCause};
use crate::outcome::{Outcome, RecoveryKind};
use crate::provider::Provider;
use crate::tool::SubmitTool;
use crate::trace::Trace;

#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
struct Sample {
    summary: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    blocked: Option<bool>,
}

const OBJ: &str = r#"{"summary":"all good"}"#;

fn tool() -> SubmitTool<Sample> {
    TestTool::new("analysis").build()
}

/// A call of `submit_result` in `provider`'s shape carrying `arguments`, with an id where the
/// provider's answers carry one.
pub(crate) fn call(provider: Provider, arguments: &Value) -> Value {
    let id = (provider != Provider::Gemini).then_some("call_1");
    provider.call("submit_result", id, arguments)
}

fn all<R: serde::de::DeserializeOwned>(tool: &SubmitTool<R>, arguments: &Value) -> Vec<Outcome<R>> {
    Provider::ALL
        .into_iter()
        .map(|provider| tool.handle(provider, &call(provider, arguments)))
        .collect()
}

fn accepted(arguments: Value) -> (Sample, String, Option<RecoveryKind>) {
    let mut results = all(&tool(), &arguments)
        .into_iter()
        .map(|outcome| match outcome {
            Outcome::Accepted(a) => {
                assert_eq!(
                    a.tool_result,
                    json!({"success": true, "message": "Result submitted successfully."})
                );
                {
                    let recovery = a.recovery();
                    (a.response, a.reasoning, recovery)
                }
            }
            Outcome::Rejected(r) => panic!("rejected {arguments}: {}", r.error),
        });
    let first = results.next().unwrap();
    for other in results {
        assert_eq!(other, first, "providers disagree on {arguments}");
    }
    first
}

fn rejected(arguments: Value) -> (ErrorClass, Option<ParameterCause>, String, String) {
    let mut results = all(&tool(), &arguments)
        .into_iter()
        .map(|outcome| match outcome {
            Outcome::Rejected(r) => {
                assert_eq!(r.tool_result, json!({"error": r.error.message()}));
                (
                    r.error.class(),
                    r.error.cause(),
                    r.error.message().to_owned(),
                    r.error.trace_text(),
                )
            }
            Outcome::Accepted(a) => panic!("accepted {arguments}: {:?}", a.response),
        });
    let first = results.next().unwrap();
    for other in results {
        assert_eq!(other, first, "providers disagree on {arguments}");
    }
    first
}

fn all_good() -> Sample {
    Sample {
        summary: "all good".into(),
        blocked: None,
    }
}

#[test]
fn clean_call_is_accepted_in_every_provider() {
    let (response, reasoning, recovery) =
        accepted(json!({"reasoning": "done", "analysis": {"summary": "all good"}}));
    assert_eq!(response, all_good());
    assert_eq!(reasoning, "done");
    assert_eq!(recovery, None);
}

#[test]
fn stringified_payload_with_closing_tokens_is_recovered() {
    for tail in [
        "",
        "}",
        "}}",
        "]",
        "}]",
        " }\n} ",
        "]]}",
        "</analysis>\n",
        "</analysis>\n</invoke>\n",
        "\n</analysis>\n</invoke>\n",
        "</analysis>\n</submit_result>\n\n",
        "}</analysis>",
        "]</analysis>\n}",
    ] {
        let (response, reasoning, recovery) =
            accepted(json!({"reasoning": "done", "analysis": format!("{OBJ}{tail}")}));
        assert_eq!(response, all_good(), "{tail:?}");
        assert_eq!(reasoning, "done");
        assert_eq!(recovery, Some(RecoveryKind::Stringified));
    }
}

#[test]
fn stringified_payload_with_anything_else_after_it_is_declined() {
    let hint = "analysis parameter must be a JSON object, got string \u{2014} it looks like the \
                object was JSON-encoded into a string; pass analysis as a nested JSON object, \
                not as a string";
    for tail in [
        "</analysis>\n<parameter name=\"reasoning\">the log shows",
        "</analysis> and that is my answer",
        "</analysis",
        "</>",
        "</ analysis>",
        " and that is my answer",
    ] {
        let payload = format!("{OBJ}{tail}");
        let (class, cause, message, trace) =
            rejected(json!({"reasoning": "done", "analysis": payload}));
        assert_eq!(class, ErrorClass::Parameter);
        assert_eq!(cause, Some(ParameterCause::StringifiedDeclined));
        assert_eq!(message, hint);
        assert_eq!(
            trace,
            format!(
                "parameter error: {hint} (analysis arrived as a {}-byte string: {payload:?})",
                payload.len()
            )
        );
    }
}

#[test]
fn long_declined_string_echo_is_bounded() {
    let payload = format!(
        "{{\"summary\":\"{}\"}} and then NEEDLE_PAST_THE_BOUND",
        "a".repeat(512)
    );
    let (_, _, _, trace) = rejected(json!({"reasoning": "done", "analysis": payload}));
    assert!(trace.contains(&format!(
        "analysis arrived as a {}-byte string beginning ",
        payload.len()
    )));
    assert!(!trace.contains("NEEDLE"));
    assert!(trace.len() < payload.len());
}

#[test]
fn missing_reasoning_is_rejected_before_the_payload() {
    let (class, cause, message, _) = rejected(json!({"analysis": 42}));
    assert_eq!(class, ErrorClass::Parameter);
    assert_eq!(cause, Some(ParameterCause::AbsentOrMistyped));
    assert_eq!(message, "reasoning parameter is required");
}

#[test]
fn payload_decode_error_is_a_payload_error_identical_across_sources() {
    let direct = rejected(json!({"reasoning": "done", "analysis": {"summary": 42}}));
    let stringified = rejected(json!({"reasoning": "done", "analysis": "{\"summary\":42}"}));
    let nested = rejected(
        json!({"reasoning": "done</reasoning>\n<parameter name=\"analysis\">{\"summary\": 42}"}),
    );
    assert_eq!(direct.0, ErrorClass::Payload);
    assert_eq!(direct.1, None);
    assert_eq!(
        direct.2,
        "failed to decode payload: invalid type: integer `42`, expected a string"
    );
    assert_eq!(direct.2, stringified.2);
    assert_eq!(direct.2, nested.2);
    assert_eq!(direct.3, format!("payload error: {}", direct.2));
}

#[test]
fn payload_nested_in_reasoning_is_recovered_in_every_provider() {
    let (response, reasoning, recovery) = accepted(json!({
        "reasoning": format!("The log shows it.</reasoning>\n<parameter name=\"analysis\">{OBJ}")
    }));
    assert_eq!(response, all_good());
    assert_eq!(reasoning, "The log shows it.");
    assert_eq!(recovery, Some(RecoveryKind::ReasoningOpener));
    let (_, reasoning, recovery) = accepted(json!({
        "reasoning": format!("The log shows it.\", \"analysis\": {OBJ}}}"),
        "analysis": null
    }));
    assert_eq!(reasoning, "The log shows it.");
    assert_eq!(recovery, Some(RecoveryKind::ReasoningMember));
}

#[test]
fn present_payload_is_never_overridden_by_reasoning() {
    let (_, cause, message, _) = rejected(json!({
        "reasoning": format!("<parameter name=\"analysis\">{OBJ}"),
        "analysis": 42
    }));
    assert_eq!(cause, Some(ParameterCause::AbsentOrMistyped));
    assert_eq!(
        message,
        "analysis parameter must be a JSON object, got number"
    );
}

#[test]
fn omit_reasoning_reads_no_reasoning_and_recovers_nothing() {
    let tool: SubmitTool<Sample> = TestTool::new("analysis")
        .options(|o| o.omit_reasoning(true))
        .build();
    let outcome = tool.handle(
        Provider::Claude,
        &call(
            Provider::Claude,
            &json!({"analysis": {"summary": "all good"}}),
        ),
    );
    let accepted = outcome.into_result().unwrap();
    assert_eq!(accepted.reasoning, "");
    let outcome = tool.handle(
        Provider::Claude,
        &call(
            Provider::Claude,
            &json!({"reasoning": format!("<parameter name=\"analysis\">{OBJ}")}),
        ),
    );
    assert_eq!(
        outcome.error().unwrap().message(),
        "analysis parameter is required"
    );
}

#[test]
fn flat_payload_is_read_from_top_level_properties() {
    let tool: SubmitTool<Sample> = TestTool::new("analysis")
        .options(|o| o.flat_payload(true))
        .build();
    for outcome in all(
        &tool,
        &json!({"reasoning": "r", "summary": "all good", "blocked": true}),
    ) {
        let accepted = outcome.into_result().unwrap();
        assert_eq!(accepted.response.blocked, Some(true));
        assert_eq!(accepted.reasoning, "r");
    }
    for outcome in all(
        &tool,
        &json!({"reasoning": "r", "analysis": {"summary": "all good"}}),
    ) {
        assert_eq!(
            outcome.error().unwrap().message(),
            "summary parameter is required"
        );
    }
    // A string is decoded only where the property's type admits no string.
    for outcome in all(
        &tool,
        &json!({"reasoning": "r", "summary": "s", "blocked": "true"}),
    ) {
        let accepted = outcome.into_result().unwrap();
        assert_eq!(accepted.response.blocked, Some(true));
        assert_eq!(
            accepted.recoveries[0].kind,
            crate::outcome::RecoveryKind::StringifiedProperty
        );
    }
    for outcome in all(
        &tool,
        &json!({"reasoning": "r", "summary": "s", "blocked": "yes"}),
    ) {
        assert_eq!(outcome.error().unwrap().class(), ErrorClass::Payload);
    }
}

#[test]
fn strict_mode_drops_nulls_for_optional_properties() {
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Strict {
        #[allow(dead_code, reason = "decoded to check the payload is accepted")]
        summary: String,
        #[serde(default = "unset")]
        blocked: String,
    }
    fn unset() -> String {
        "unset".into()
    }
    let strict: SubmitTool<Strict> = TestTool::new("analysis")
        .options(|o| o.strict(true))
        .build();
    let lenient: SubmitTool<Strict> = TestTool::new("analysis").build();
    let arguments = json!({"reasoning": "r", "analysis": {"summary": "s", "blocked": null}});
    for outcome in all(&strict, &arguments) {
        assert_eq!(outcome.into_result().unwrap().response.blocked, "unset");
    }
    for outcome in all(&lenient, &arguments) {
        assert_eq!(outcome.error().unwrap().class(), ErrorClass::Payload);
    }
    let arguments = json!({"reasoning": "r", "analysis": {"summary": null}});
    for outcome in all(&strict, &arguments) {
        assert_eq!(outcome.error().unwrap().class(), ErrorClass::Payload);
    }
}

#[test]
fn json_schema_tool_validates_and_names_the_pointer() {
    let tool: SubmitTool<Value> = TestTool::new("analysis")
        .schema(
            json!({"type": "object", "properties": {"summary": {"type": "string"}},
                       "required": ["summary"]}),
        )
        .build();
    for outcome in all(
        &tool,
        &json!({"reasoning": "r", "analysis": {"summary": 42}}),
    ) {
        let error = outcome.error().unwrap();
        assert_eq!(error.class(), ErrorClass::Payload);
        assert_eq!(
            error.message(),
            "failed to decode payload: at \"/summary\": 42 is not of type \"string\""
        );
    }
    for outcome in all(
        &tool,
        &json!({"reasoning": "r", "analysis": "{\"summary\":\"ok\"}</x>"}),
    ) {
        assert_eq!(
            outcome.into_result().unwrap().response,
            json!({"summary": "ok"})
        );
    }
}

#[test]
fn arguments_that_are_not_an_object_are_undecodable() {
    for provider in Provider::ALL {
        let outcome: Outcome<Sample> = tool().handle(provider, &call(provider, &json!([1])));
        let error = outcome.error().unwrap();
        assert_eq!(error.cause(), Some(ParameterCause::UndecodableArguments));
        assert_eq!(
            error.message(),
            "failed to parse tool arguments: expected a JSON object, got array"
        );
    }
    let chat =
        json!({"type": "function", "function": {"name": "s", "arguments": "{\"reasoning\":"}});
    let error = tool()
        .handle(Provider::OpenAiChat, &chat)
        .error()
        .cloned()
        .unwrap();
    assert_eq!(
        error.message(),
        "failed to parse tool arguments: EOF while parsing a value at line 1 column 13"
    );
}

#[test]
fn null_or_missing_arguments_read_as_an_empty_object() {
    for arguments in [json!(null)] {
        for outcome in all(&tool(), &arguments) {
            assert_eq!(
                outcome.error().unwrap().message(),
                "reasoning parameter is required"
            );
        }
    }
    let outcome = tool().handle(Provider::Claude, &json!({"type": "tool_use", "name": "s"}));
    assert_eq!(
        outcome.error().unwrap().message(),
        "reasoning parameter is required"
    );
}

#[test]
fn call_not_in_the_provider_shape_is_rejected_as_undecodable() {
    let outcome = tool().handle(Provider::Claude, &json!({"type": "text", "text": "hi"}));
    let error = outcome.error().unwrap();
    assert_eq!(error.cause(), Some(ParameterCause::UndecodableArguments));
    assert_eq!(
        error.message(),
        "failed to parse tool arguments: not a tool call in the claude shape: `type` is \"text\", expected \"tool_use\""
    );
}

#[test]
fn success_message_is_configurable() {
    let tool: SubmitTool<Sample> = TestTool::new("analysis")
        .options(|o| o.success_message("Analysis recorded."))
        .build();
    let arguments = json!({"reasoning": "r", "analysis": {"summary": "s"}});
    for outcome in all(&tool, &arguments) {
        assert_eq!(
            outcome.tool_result(),
            &json!({"success": true, "message": "Analysis recorded."})
        );
    }
}

#[test]
fn trace_records_one_recoverable_record_per_rejection() {
    let mut trace = Trace::new();
    let tool = tool();
    for provider in Provider::ALL {
        for arguments in [
            json!({"reasoning": "secret reasoning", "analysis": "not a json object"}),
            json!({"reasoning": "r", "analysis": {"summary": "ok"}}),
        ] {
            let call = call(provider, &arguments);
            let id = provider.read_call(&call).unwrap().id;
            trace.record(id, tool.name(), &tool.handle(provider, &call));
        }
    }
    assert_eq!(trace.calls().len(), 4);
    let ids: Vec<_> = trace
        .calls()
        .iter()
        .map(|record| record.id.as_deref())
        .collect();
    assert_eq!(ids, [Some("call_1"), None, Some("call_1"), Some("call_1")]);
    for record in trace.calls() {
        assert!(record.recoverable);
        assert_eq!(record.tool, "submit_result");
        assert_eq!(record.class, Some(ErrorClass::Parameter));
        assert_eq!(record.cause, Some(ParameterCause::StringifiedDeclined));
    }
    let text = trace.to_string();
    assert!(text.contains("parameter error"));
    assert!(text.contains("analysis arrived as a 17-byte string: \"not a json object\""));
    assert!(!text.contains("secret reasoning"));
}

#[test]
fn adversarial_arguments_are_rejected_cleanly() {
    let tool: SubmitTool<Value> = TestTool::new("analysis").build();
    let eight_mib = 8 << 20;
    for text in [
        "[".repeat(eight_mib),
        "{".repeat(eight_mib),
        format!(
            "{{\"reasoning\":\"r\",\"analysis\":{}",
            "[".repeat(eight_mib)
        ),
        format!(
            "{{\"reasoning\":\"r\",\"analysis\":{{\"a\":{}{}}}}}",
            "[".repeat(1 << 16),
            "]".repeat(1 << 16)
        ),
        format!(
            "{{\"reasoning\":\"{}\"}}",
            "<parameter name=".repeat(eight_mib / 16)
        ),
        format!(
            "{{\"reasoning\":\"<parameter name=\\\"analysis\\\">{}\"}}",
            "</x>".repeat(eight_mib / 4)
        ),
        format!(
            "{{\"reasoning\":\"r\",\"analysis\":\"{{}}{}\"}}",
            "</x>".repeat(eight_mib / 4) + " x"
        ),
    ] {
        for provider in [Provider::OpenAiChat, Provider::OpenAiResponses] {
            let call = json!({"type": if provider == Provider::OpenAiChat { "function" } else { "function_call" },
                              "name": "s", "function": {"name": "s", "arguments": text},
                              "arguments": text});
            assert!(!tool.handle(provider, &call).is_accepted());
        }
    }
}
