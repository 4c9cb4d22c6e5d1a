//! Parsing submit calls through the public API: each step of parsing (arguments, reasoning,
//! payload, recovery, decode) in every provider's call shape.

use serde_json::{json, Value};
use submit_result::{
    Arguments, ErrorClass, Options, Outcome, ParameterCause, Provider, RecoveryKind, SubmitError,
    SubmitTool,
};

#[derive(Debug, PartialEq, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
struct Analysis {
    summary: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    blocked: Option<bool>,
}

const OBJ: &str = r#"{"summary":"all good"}"#;

fn tool() -> SubmitTool<Analysis> {
    SubmitTool::new(Options::new().payload_field_name("analysis")).unwrap()
}

/// A call of `submit_result` in `provider`'s shape carrying `arguments`.
fn call(provider: Provider, arguments: &Value) -> Value {
    provider.call("submit_result", Some("call_1"), arguments)
}

fn each(tool: &SubmitTool<Analysis>, arguments: Value) -> Vec<Outcome<Analysis>> {
    Provider::ALL
        .into_iter()
        .map(|provider| tool.handle(provider, &call(provider, &arguments)))
        .collect()
}

fn all_good() -> Analysis {
    Analysis {
        summary: "all good".into(),
        blocked: None,
    }
}

#[test]
fn clean_call_is_accepted_in_every_provider() {
    for outcome in each(
        &tool(),
        json!({"reasoning": "done", "analysis": {"summary": "all good"}}),
    ) {
        let accepted = outcome.into_result().unwrap();
        assert_eq!(accepted.response, all_good());
        assert_eq!(accepted.reasoning, "done");
        assert_eq!(accepted.recovery(), None);
        assert_eq!(
            accepted.tool_result,
            json!({"success": true, "message": "Result submitted successfully."})
        );
    }
}

#[test]
fn stringified_payload_followed_by_closing_tokens_is_recovered() {
    let payload = format!("{OBJ}</analysis>\n</invoke>\n");
    for outcome in each(&tool(), json!({"reasoning": "done", "analysis": payload})) {
        let accepted = outcome.into_result().unwrap();
        assert_eq!(accepted.response, all_good());
        assert_eq!(accepted.recovery(), Some(RecoveryKind::Stringified));
    }
}

#[test]
fn payload_written_after_an_opener_in_reasoning_is_recovered() {
    let reasoning = format!("The log shows it.</reasoning>\n<parameter name=\"analysis\">{OBJ}");
    for outcome in each(&tool(), json!({ "reasoning": reasoning })) {
        let accepted = outcome.into_result().unwrap();
        assert_eq!(accepted.response, all_good());
        assert_eq!(accepted.reasoning, "The log shows it.");
        assert_eq!(accepted.recovery(), Some(RecoveryKind::ReasoningOpener));
    }
}

#[test]
fn payload_written_as_a_json_member_in_reasoning_is_recovered() {
    let reasoning = format!("The log shows it.\", \"analysis\": {OBJ}}}");
    for outcome in each(&tool(), json!({ "reasoning": reasoning, "analysis": null })) {
        let accepted = outcome.into_result().unwrap();
        assert_eq!(accepted.reasoning, "The log shows it.");
        assert_eq!(accepted.recovery(), Some(RecoveryKind::ReasoningMember));
    }
}

#[test]
fn rejections_carry_class_and_cause_as_values() {
    let cases = [
        (
            json!([1]),
            ErrorClass::Parameter,
            Some(ParameterCause::UndecodableArguments),
        ),
        (
            json!({"analysis": {}}),
            ErrorClass::Parameter,
            Some(ParameterCause::AbsentOrMistyped),
        ),
        (
            json!({"reasoning": "r", "analysis": "nope"}),
            ErrorClass::Parameter,
            Some(ParameterCause::StringifiedDeclined),
        ),
        (
            json!({"reasoning": "<parameter name=\"analysis\">nope"}),
            ErrorClass::Parameter,
            Some(ParameterCause::ReasoningDeclined),
        ),
        (
            json!({"reasoning": "r", "analysis": {"summary": 1}}),
            ErrorClass::Payload,
            None,
        ),
    ];
    for (arguments, class, cause) in cases {
        for outcome in each(&tool(), arguments.clone()) {
            let Outcome::Rejected(rejected) = outcome else {
                panic!("{arguments} was accepted")
            };
            assert_eq!(rejected.error.class(), class, "{arguments}");
            assert_eq!(rejected.error.cause(), cause, "{arguments}");
            assert_eq!(
                rejected.tool_result,
                json!({"error": rejected.error.message()})
            );
        }
    }
}

#[test]
fn error_displays_with_its_class() {
    let outcome = tool().handle_arguments(Arguments::Text(r#"{"analysis":{}}"#));
    let error: &SubmitError = outcome.error().unwrap();
    assert_eq!(
        error.to_string(),
        "parameter error: reasoning parameter is required"
    );
    let outcome = tool().handle_arguments(Arguments::Text(
        r#"{"reasoning":"r","analysis":{"summary":1}}"#,
    ));
    assert_eq!(
        outcome.error().unwrap().to_string(),
        "payload error: failed to decode payload: invalid type: integer `1`, expected a string"
    );
}

#[test]
fn handle_arguments_reads_values_text_and_missing_arguments() {
    let value = json!({"reasoning": "r", "analysis": {"summary": "all good"}});
    let text = value.to_string();
    for arguments in [Arguments::Value(&value), Arguments::Text(&text)] {
        assert_eq!(
            tool()
                .handle_arguments(arguments)
                .into_result()
                .unwrap()
                .response,
            all_good()
        );
    }
    let outcome = tool().handle_arguments(Arguments::Missing);
    assert_eq!(
        outcome.error().unwrap().message(),
        "reasoning parameter is required"
    );
}

#[test]
fn call_not_in_the_provider_shape_is_rejected_as_undecodable() {
    let outcome = tool().handle(Provider::Gemini, &json!({"text": "done"}));
    let error = outcome.error().unwrap();
    assert_eq!(error.cause(), Some(ParameterCause::UndecodableArguments));
    assert_eq!(
        error.message(),
        "failed to parse tool arguments: not a tool call in the gemini shape: no `name` string"
    );
}

#[test]
fn read_call_gives_id_name_and_arguments() {
    let chat = call(Provider::OpenAiChat, &json!({"reasoning": "r"}));
    let read = Provider::OpenAiChat.read_call(&chat).unwrap();
    assert_eq!(read.id, Some("call_1"));
    assert_eq!(read.name, Some("submit_result"));
    assert!(matches!(
        read.arguments,
        Arguments::Text(r#"{"reasoning":"r"}"#)
    ));
    let error = Provider::Claude.read_call(&chat).unwrap_err();
    assert_eq!(error.provider, Provider::Claude);
}

#[test]
fn flat_payload_is_read_from_top_level_parameters() {
    let tool: SubmitTool<Analysis> = SubmitTool::new(Options::new().flat_payload(true)).unwrap();
    for outcome in each(
        &tool,
        json!({"reasoning": "r", "summary": "all good", "blocked": true}),
    ) {
        assert_eq!(outcome.into_result().unwrap().response.blocked, Some(true));
    }
    for outcome in each(&tool, json!({"reasoning": "r", "blocked": true})) {
        assert_eq!(
            outcome.error().unwrap().message(),
            "summary parameter is required"
        );
    }
}

#[test]
fn outcome_serializes_as_the_command_line_prints_it() {
    let outcome = tool().handle(
        Provider::Claude,
        &call(
            Provider::Claude,
            &json!({"reasoning": "r", "analysis": OBJ}),
        ),
    );
    assert_eq!(
        serde_json::to_value(&outcome).unwrap(),
        json!({"accepted": true, "response": {"summary": "all good"}, "reasoning": "r",
               "recovery": "stringified",
               "recoveries": [{"kind": "stringified", "parameters": ["analysis"]}],
               "tool_result": {"success": true, "message": "Result submitted successfully."}})
    );
}

#[test]
fn adversarial_megabyte_arguments_are_rejected_without_overflowing_the_stack() {
    let tool = tool();
    let size = 8 << 20;
    for text in [
        "[".repeat(size),
        "{".repeat(size),
        format!(r#"{{"reasoning":"r","analysis":{}"#, "[".repeat(size)),
        format!(
            r#"{{"reasoning":"r","analysis":{{"a":{}{}}}}}"#,
            "[".repeat(size / 2),
            "]".repeat(size / 2)
        ),
        format!(
            r#"{{"reasoning":"{}"}}"#,
            "<parameter name=".repeat(size / 16)
        ),
        format!(
            r#"{{"reasoning":"<parameter name=\"analysis\">{}"}}"#,
            "</x>".repeat(size / 4)
        ),
    ] {
        let outcome = tool.handle_arguments(Arguments::Text(&text));
        assert!(!outcome.is_accepted());
    }
}
