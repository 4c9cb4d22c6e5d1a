//! The recoveries of step *The arguments as a whole* through a built tool, in every provider's
//! call shape.

use serde_json::{json, Value};

use super::handler::call;
use super::testing::TestTool;
use crate::error::{ParameterCause, SubmitError};
use crate::outcome::{Accepted, Recovery, RecoveryKind};
use crate::provider::Provider;
use crate::tool::SubmitTool;

fn nested() -> SubmitTool<Value> {
    TestTool::new("analysis").build()
}

fn flat(omitted: &[&str]) -> SubmitTool<Value> {
    let omitted: Vec<String> = omitted.iter().map(|name| (*name).to_owned()).collect();
    TestTool::new("analysis")
        .options(|o| o.flat_payload(true).omit_payload_fields(omitted))
        .build()
}

/// The outcome of `provider`'s call carrying `arguments` (a string goes as it is: argument
/// text for OpenAI, a string `input`/`args` for the others).
fn handled(
    tool: &SubmitTool<Value>,
    provider: Provider,
    arguments: &Value,
) -> Result<Accepted<Value>, SubmitError> {
    let call = match arguments {
        Value::String(text) => provider.call("submit_result", Some("c"), text),
        _ => call(provider, arguments),
    };
    tool.handle(provider, &call)
        .into_result()
        .map_err(|rejected| rejected.error)
}

fn kinds(accepted: &Accepted<Value>) -> Vec<RecoveryKind> {
    accepted.recoveries.iter().map(|rule| rule.kind).collect()
}

#[test]
fn a_string_input_holding_a_fence_records_stringified_arguments_then_fenced_arguments() {
    let text = "```json\n{\"reasoning\":\"r\",\"analysis\":{\"summary\":\"s\"}}\n```";
    for provider in Provider::ALL {
        let accepted = handled(&nested(), provider, &Value::from(text)).unwrap();
        assert_eq!(accepted.response, json!({"summary": "s"}));
        let want: &[RecoveryKind] = match provider {
            Provider::Claude | Provider::Gemini => &[
                RecoveryKind::StringifiedArguments,
                RecoveryKind::FencedArguments,
            ],
            _ => &[RecoveryKind::FencedArguments],
        };
        assert_eq!(kinds(&accepted), want, "{provider}");
        assert!(accepted.recoveries.iter().all(|r| r.parameters.is_empty()));
    }
}

#[test]
fn a_fence_inside_a_stringified_payload_records_stringified_then_fenced_arguments_both_naming_the_payload(
) {
    let arguments = json!({"reasoning": "r", "analysis": "```json\n{\"summary\":\"s\"}\n```\n"});
    for provider in Provider::ALL {
        let accepted = handled(&nested(), provider, &arguments).unwrap();
        assert_eq!(accepted.response, json!({"summary": "s"}));
        let named = |kind| Recovery::naming(kind, vec!["analysis".into()]);
        assert_eq!(
            accepted.recoveries,
            [
                named(RecoveryKind::Stringified),
                named(RecoveryKind::FencedArguments)
            ],
            "{provider}"
        );
    }
}

#[test]
fn a_wrapper_holding_only_advertised_parameters_is_unwrapped() {
    let arguments = json!({"args": {"reasoning": "r", "summary": "s", "tags": ["a"]}});
    for tool in [flat(&[]), flat(&["blocked"])] {
        for provider in Provider::ALL {
            let accepted = handled(&tool, provider, &arguments).unwrap();
            assert_eq!(accepted.response, json!({"summary": "s", "tags": ["a"]}));
            assert_eq!(kinds(&accepted), [RecoveryKind::WrappedArguments]);
        }
    }
}

#[test]
fn a_wrapper_holding_a_member_the_options_omit_is_not_unwrapped() {
    let arguments = json!({"args": {"reasoning": "r", "summary": "s", "tags": ["a"]}});
    let tool = flat(&["tags"]);
    for provider in Provider::ALL {
        let error = handled(&tool, provider, &arguments).unwrap_err();
        assert_eq!(error.cause(), Some(ParameterCause::AbsentOrMistyped));
        assert_eq!(error.message(), "reasoning parameter is required");
    }
}

fn clean() -> Value {
    json!({"reasoning": "r", "analysis": {"summary": "s"}})
}

#[test]
fn wrapped_call_with_an_object_is_unwrapped_under_each_member_name() {
    for key in ["arguments", "parameters", "input", "args"] {
        let arguments = json!({"name": "submit_result", key: clean()});
        for provider in Provider::ALL {
            let accepted = handled(&nested(), provider, &arguments).unwrap();
            assert_eq!(accepted.response, json!({"summary": "s"}));
            assert_eq!(accepted.reasoning, "r");
            assert_eq!(
                accepted.recoveries,
                [Recovery::new(RecoveryKind::WrappedCall)],
                "{key} {provider}"
            );
        }
    }
}

#[test]
fn wrapped_call_reads_its_argument_text_as_its_own_layer() {
    let text = clean().to_string();
    for (inner, after) in [
        (text.clone(), vec![]),
        (format!(" {text}\n"), vec![]),
        (
            format!("{text}}}</invoke>"),
            vec![RecoveryKind::TrailingClosers],
        ),
        (
            format!("```json\n{text}\n```"),
            vec![RecoveryKind::FencedArguments],
        ),
        (
            Value::from(text.clone()).to_string(),
            vec![RecoveryKind::StringifiedArguments],
        ),
    ] {
        let arguments = json!({"arguments": inner, "name": "submit_result"});
        for provider in Provider::ALL {
            let accepted = handled(&nested(), provider, &arguments).unwrap();
            assert_eq!(accepted.response, json!({"summary": "s"}), "{inner:?}");
            let mut want = vec![RecoveryKind::WrappedCall];
            want.extend(after.iter().copied());
            assert_eq!(kinds(&accepted), want, "{inner:?} {provider}");
        }
    }
}

#[test]
fn wrapped_call_of_another_tool_or_with_more_members_or_no_object_is_not_unwrapped() {
    for arguments in [
        json!({"name": "other_tool", "arguments": clean()}),
        json!({"name": "Submit_Result", "arguments": clean()}),
        json!({"name": "submit_result", "arguments": clean(), "id": "call_1"}),
        json!({"name": "submit_result", "function": clean()}),
        json!({"name": ["submit_result"], "arguments": clean()}),
        json!({"name": "submit_result", "arguments": null}),
        json!({"name": "submit_result", "arguments": [clean()]}),
        json!({"name": "submit_result", "arguments": "null"}),
        json!({"name": "submit_result", "arguments": "{\"reasoning\": \"r\"} and more"}),
    ] {
        for provider in Provider::ALL {
            let error = handled(&nested(), provider, &arguments).unwrap_err();
            assert_eq!(
                error.message(),
                "reasoning parameter is required",
                "{arguments}"
            );
        }
    }
}

#[test]
fn wrapped_call_whose_member_is_a_parameter_is_not_unwrapped() {
    let arguments = json!({"name": "submit_result", "input": {"summary": "s"}});
    let tool: SubmitTool<Value> = TestTool::new("input")
        .options(|o| o.omit_reasoning(true))
        .build();
    let accepted = handled(&tool, Provider::Claude, &arguments).unwrap();
    assert_eq!(accepted.response, json!({"summary": "s"}));
    assert!(accepted.recoveries.is_empty());
    let tool: SubmitTool<Value> = TestTool::new("analysis")
        .options(|o| o.flat_payload(true).omit_reasoning(true))
        .properties(&[("name", true), ("args", false)])
        .build();
    let accepted = handled(
        &tool,
        Provider::Claude,
        &json!({"name": "submit_result",
        "args": {"name": "x"}}),
    )
    .unwrap();
    assert_eq!(
        accepted.response,
        json!({"name": "submit_result", "args": {"name": "x"}})
    );
    assert!(accepted.recoveries.is_empty());
}

#[test]
fn wrapped_call_applies_where_the_tool_has_no_required_parameter() {
    let tool: SubmitTool<Value> = TestTool::new("analysis")
        .options(|o| o.flat_payload(true).omit_reasoning(true))
        .properties(&[("note", false)])
        .build();
    let arguments = json!({"name": "submit_result", "parameters": {"note": "x"}});
    for provider in Provider::ALL {
        let accepted = handled(&tool, provider, &arguments).unwrap();
        assert_eq!(accepted.response, json!({"note": "x"}));
        assert_eq!(kinds(&accepted), [RecoveryKind::WrappedCall]);
    }
}

#[test]
fn wrapped_call_is_not_read_after_closers_nor_inside_a_string_input() {
    let wrapped = json!({"name": "submit_result", "arguments": clean()}).to_string();
    for provider in [Provider::OpenAiChat, Provider::OpenAiResponses] {
        let text = Value::from(format!("{wrapped}}}"));
        let error = handled(&nested(), provider, &text).unwrap_err();
        assert_eq!(error.message(), "reasoning parameter is required");
    }
    for provider in [Provider::Claude, Provider::Gemini] {
        let error = handled(&nested(), provider, &Value::from(wrapped.clone())).unwrap_err();
        assert_eq!(error.message(), "reasoning parameter is required");
    }
}

#[test]
fn wrapped_call_holding_a_member_twice_is_rejected() {
    let inner = r#"{"reasoning":"a","analysis":{"summary":"s"},"reasoning":"b"}"#;
    for arguments in [
        json!({"name": "submit_result", "arguments": inner}),
        Value::from(format!(r#"{{"name":"submit_result","arguments":{inner}}}"#)),
    ] {
        for provider in Provider::ALL {
            if arguments.is_string() && matches!(provider, Provider::Claude | Provider::Gemini) {
                continue;
            }
            let error = handled(&nested(), provider, &arguments).unwrap_err();
            assert_eq!(error.cause(), Some(ParameterCause::UndecodableArguments));
            assert_eq!(
                error.message(),
                "failed to parse tool arguments: \"reasoning\" appears twice; send each \
                 parameter once"
            );
        }
    }
}
