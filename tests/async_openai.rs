//! The submit tool with async-openai's own types (feature `async-openai`): definitions that are
//! the tool's own, the four payload mistakes and a clean call handled from Chat and
//! Responses tool calls built with async-openai's types, and every real case of the corpus
//! (`submit-core/tests/corpus/13_real_cases.json`, each with its source) read the same way.

#![cfg(feature = "async-openai")]

use crate::support::submit_cases;

use async_openai::types::chat::{ChatCompletionMessageToolCall, FunctionCall};
use async_openai::types::responses::{FunctionCallOutput, FunctionToolCall};
use serde_json::{json, Value};
use submit_cases::{payload_mistakes, real_cases};
use submit_result::openai::OpenAiTool;
use submit_result::{Arguments, Options, Outcome, ParameterCause, Provider, SubmitTool};

#[derive(Debug, PartialEq, serde::Deserialize, schemars::JsonSchema)]
struct Analysis {
    summary: String,
}

fn tool() -> SubmitTool<Analysis> {
    SubmitTool::new(
        Options::new()
            .tool_name("submit_analysis")
            .payload_field_name("analysis"),
    )
    .unwrap()
}

fn chat_call(arguments: &str) -> ChatCompletionMessageToolCall {
    ChatCompletionMessageToolCall {
        id: "call_abc".into(),
        function: FunctionCall {
            name: "submit_analysis".into(),
            arguments: arguments.into(),
        },
    }
}

fn response_call(arguments: &str) -> FunctionToolCall {
    FunctionToolCall {
        arguments: arguments.into(),
        call_id: "call_abc".into(),
        name: "submit_analysis".into(),
        id: Some("fc_abc".into()),
        ..FunctionToolCall::default()
    }
}

#[test]
fn async_openai_definitions_are_the_tools_own() {
    let tool = tool();
    assert_eq!(
        serde_json::to_value(tool.openai_chat_tool()).unwrap(),
        tool.definition(Provider::OpenAiChat)
    );
    assert_eq!(
        serde_json::to_value(tool.openai_responses_tool()).unwrap(),
        tool.definition(Provider::OpenAiResponses)
    );
    let strict = SubmitTool::<Analysis>::new(Options::new().strict(true)).unwrap();
    assert_eq!(
        serde_json::to_value(strict.openai_chat_tool()).unwrap(),
        strict.definition(Provider::OpenAiChat)
    );
    assert_eq!(
        serde_json::to_value(strict.openai_responses_tool()).unwrap(),
        strict.definition(Provider::OpenAiResponses)
    );
}

#[test]
fn chat_tool_calls_built_with_async_openai_types_are_recovered_exactly() {
    let tool = tool();
    for (name, arguments, recovery) in payload_mistakes() {
        let outcome = tool.handle_openai_chat(&chat_call(&arguments));
        let Outcome::Accepted(accepted) = &outcome else {
            panic!("{name}: {:?}", outcome.error());
        };
        assert_eq!(
            accepted.response,
            Analysis {
                summary: "disk full".into()
            },
            "{name}"
        );
        assert_eq!(accepted.reasoning, "r", "{name}");
        assert_eq!(accepted.recovery(), recovery, "{name}");
        let reply = tool.openai_chat_reply(&chat_call(&arguments), &outcome);
        assert_eq!(reply.tool_call_id, "call_abc");
        assert_eq!(
            serde_json::to_value(&reply.content).unwrap(),
            json!(
                json!({"success": true, "message": "Result submitted successfully."}).to_string()
            )
        );
    }
}

#[test]
fn responses_function_calls_built_with_async_openai_types_are_recovered_exactly() {
    let tool = tool();
    for (name, arguments, recovery) in payload_mistakes() {
        let outcome = tool.handle_openai_response(&response_call(&arguments));
        let Outcome::Accepted(accepted) = &outcome else {
            panic!("{name}: {:?}", outcome.error());
        };
        assert_eq!(
            accepted.response,
            Analysis {
                summary: "disk full".into()
            },
            "{name}"
        );
        assert_eq!(accepted.recovery(), recovery, "{name}");
        let reply = tool.openai_response_reply(&response_call(&arguments), &outcome);
        assert_eq!(reply.call_id.as_deref(), Some("call_abc"));
    }
}

#[test]
fn a_declined_call_is_answered_with_the_hint_in_both_apis() {
    let tool = tool();
    let arguments =
        json!({"reasoning": "r", "analysis": "{\"summary\":\"x\"} Hope this helps!"}).to_string();
    let outcome = tool.handle_openai_chat(&chat_call(&arguments));
    assert_eq!(
        outcome.error().and_then(|e| e.cause()),
        Some(ParameterCause::StringifiedDeclined)
    );
    let reply = tool.openai_chat_reply(&chat_call(&arguments), &outcome);
    let text = serde_json::to_value(&reply.content).unwrap();
    let answered: Value = serde_json::from_str(text.as_str().unwrap()).unwrap();
    assert_eq!(&answered, outcome.tool_result());
    assert!(
        answered["error"]
            .as_str()
            .unwrap()
            .contains("pass analysis as a nested JSON object"),
        "{answered}"
    );
    let outcome = tool.handle_openai_response(&response_call(&arguments));
    let reply = tool.openai_response_reply(&response_call(&arguments), &outcome);
    let FunctionCallOutput::Text(text) = &reply.output else {
        panic!("{reply:?}")
    };
    assert_eq!(
        &serde_json::from_str::<Value>(text).unwrap(),
        outcome.tool_result()
    );
}

/// Each real case with argument text, carried in async-openai's Chat and Responses call
/// types, ends as its vector expects and as the same text handled directly.
#[test]
fn real_cases_read_through_async_openai_types_end_as_the_corpus_says() {
    let cases = real_cases();
    for case in &cases {
        let (tool, name, text) = (&case.tool, &case.name, case.arguments.as_str());
        let direct = serde_json::to_value(tool.handle_arguments(Arguments::Text(text))).unwrap();
        let chat = ChatCompletionMessageToolCall {
            id: "call_real".into(),
            function: FunctionCall {
                name: tool.name().into(),
                arguments: text.into(),
            },
        };
        let response = FunctionToolCall {
            arguments: text.into(),
            call_id: "call_real".into(),
            name: tool.name().into(),
            ..FunctionToolCall::default()
        };
        for outcome in [
            tool.handle_openai_chat(&chat),
            tool.handle_openai_response(&response),
        ] {
            let outcome = serde_json::to_value(outcome).unwrap();
            assert_eq!(outcome, direct, "{name}");
            assert_eq!(outcome["accepted"], case.expected["accepted"], "{name}");
            if let Some(response) = case.expected.get("response") {
                assert_eq!(&outcome["response"], response, "{name}");
            }
        }
    }
    assert_eq!(cases.len(), 25, "the real cases with argument text");
}
