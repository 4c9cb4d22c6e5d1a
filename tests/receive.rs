//! The one door, `SubmitTool::receive`: a call handed over in the form it arrived in gives the
//! same verdict as the same call in any other form, and bytes keep what a value loses.

use serde_json::{json, Value};
use submit_result::{
    Arguments, Incoming, Options, ParameterCause, Provider, RecoveryKind, StopReason, SubmitTool,
    PARALLEL_WRAPPER,
};

#[derive(Debug, PartialEq, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
struct Analysis {
    summary: String,
}

fn tool() -> SubmitTool<Analysis> {
    SubmitTool::new(Options::new().payload_field_name("analysis")).unwrap()
}

/// `text` as the arguments of a call in each provider's shape, as JSON bytes: spliced in as
/// written for the providers whose arguments are an object, as a JSON string for OpenAI's.
fn call_bytes(provider: Provider, text: &str) -> String {
    let quoted = Value::String(text.to_owned()).to_string();
    match provider {
        Provider::Claude => {
            format!(r#"{{"type":"tool_use","id":"toolu_1","name":"submit_result","input":{text}}}"#)
        }
        Provider::Gemini => {
            format!(r#"{{"functionCall":{{"name":"submit_result","args":{text}}}}}"#)
        }
        Provider::OpenAiChat => format!(
            r#"{{"id":"call_1","type":"function","function":{{"name":"submit_result","arguments":{quoted}}}}}"#
        ),
        Provider::OpenAiResponses => format!(
            r#"{{"type":"function_call","call_id":"call_1","name":"submit_result","arguments":{quoted}}}"#
        ),
    }
}

fn message(outcome: &submit_result::Outcome<Analysis>) -> &str {
    outcome.error().map_or("", |error| error.message())
}

#[test]
fn a_member_sent_twice_is_seen_in_the_bytes_of_every_provider_s_call() {
    let tool = tool();
    let text = r#"{"reasoning":"a","reasoning":"b","analysis":{"summary":"s"}}"#;
    for provider in Provider::ALL {
        let bytes = call_bytes(provider, text);
        let outcome = tool
            .receive(Incoming::call_json(provider, bytes.as_bytes()))
            .unwrap()
            .unwrap();
        assert_eq!(
            message(&outcome),
            "failed to parse tool arguments: \"reasoning\" appears twice; send each parameter once",
            "{provider}"
        );
        // An `input`/`args` value has lost the repeat (the last one wins there), which is why
        // bytes are read; OpenAI's argument text is text in a value too.
        let value: Value = serde_json::from_str(&bytes).unwrap();
        let text_in_value = matches!(provider, Provider::OpenAiChat | Provider::OpenAiResponses);
        assert_eq!(
            tool.handle(provider, &value).is_accepted(),
            !text_in_value,
            "{provider}"
        );
    }
}

#[test]
fn bytes_and_value_give_the_same_verdict_on_a_call_without_repeats() {
    let tool = tool();
    for text in [
        r#"{"reasoning":"done","analysis":{"summary":"ok"}}"#,
        r#"{"reasoning":"done","analysis":"{\"summary\":\"ok\"}</analysis>"}"#,
        r#"{"reasoning":"done"}"#,
        r#"{"reasoning":"done","analysis":{"summary":1}}"#,
        r#"  {"reasoning" : "spaced",  "analysis" : { "summary" : "ok" } }  "#,
        r#""{\"reasoning\":\"done\",\"analysis\":{\"summary\":\"ok\"}}""#,
        r#"null"#,
        r#"[1, 2]"#,
    ] {
        for provider in Provider::ALL {
            let bytes = call_bytes(provider, text);
            let value: Value = serde_json::from_str(&bytes).unwrap();
            for stop in [StopReason::Complete, StopReason::OutputLimit] {
                let from_bytes = tool
                    .receive(Incoming::call_json(provider, bytes.as_bytes()).stop(stop))
                    .unwrap()
                    .unwrap();
                let from_value = tool
                    .receive(Incoming::call(provider, &value).stop(stop))
                    .unwrap()
                    .unwrap();
                assert_eq!(
                    serde_json::to_value(&from_bytes).unwrap(),
                    serde_json::to_value(&from_value).unwrap(),
                    "{provider} {stop:?}: {text}"
                );
            }
        }
    }
}

#[test]
fn a_cut_object_counts_the_bytes_of_its_compact_json() {
    let tool = tool();
    let bytes = call_bytes(
        Provider::Claude,
        r#"{ "reasoning" : "a",  "analysis" : {} }"#,
    );
    let cut = Incoming::call_json(Provider::Claude, bytes.as_bytes()).stop(StopReason::OutputLimit);
    let outcome = tool.receive(cut).unwrap().unwrap();
    let compact = r#"{"reasoning":"a","analysis":{}}"#.len();
    assert!(
        message(&outcome).contains(&format!("after {compact} bytes of arguments")),
        "{}",
        message(&outcome)
    );
}

#[test]
fn what_is_no_call_is_the_caller_s_error() {
    let tool = tool();
    let not_json = tool.receive(Incoming::call_json(Provider::Claude, b"{\"name\":"));
    assert!(not_json.unwrap_err().reason.starts_with("not JSON"));
    let message = json!({"role": "assistant", "content": [{"type": "text", "text": "hi"}]});
    let error = tool
        .receive(Incoming::call(Provider::Claude, &message))
        .unwrap_err();
    assert_eq!(error.provider, Provider::Claude);
    // `handle` answers every input with an outcome: the same call is rejected there.
    let outcome = tool.handle(Provider::Claude, &message);
    assert_eq!(
        outcome.error().and_then(|e| e.cause()),
        Some(ParameterCause::UndecodableArguments)
    );
}

#[test]
fn a_wrapper_without_an_entry_of_the_tool_holds_no_call() {
    let tool = tool();
    let wrapper = json!({"tool_uses": [{"recipient_name": "functions.search", "parameters": {}}]});
    let incoming = Incoming::arguments(Some(PARALLEL_WRAPPER), Arguments::Value(&wrapper));
    assert!(tool.receive(incoming).unwrap().is_none());
}

#[test]
fn a_wrapper_entry_with_a_repeated_member_is_told_which_member() {
    let tool = tool();
    let arguments = r#"{"tool_uses": [
        {"recipient_name": "functions.search", "parameters": {"q": "x"}},
        {"recipient_name": "functions.submit_result",
         "parameters": {"reasoning": "a", "reasoning": "b", "analysis": {"summary": "s"}}}]}"#;
    let call = json!({"id": "call_1", "type": "function",
        "function": {"name": PARALLEL_WRAPPER, "arguments": arguments}});
    for outcome in [
        tool.handle(Provider::OpenAiChat, &call),
        tool.receive(Incoming::arguments(
            Some(PARALLEL_WRAPPER),
            Arguments::Text(arguments),
        ))
        .unwrap()
        .unwrap(),
    ] {
        let error = outcome.error().unwrap();
        assert_eq!(
            error.message(),
            "failed to parse tool arguments: \"reasoning\" appears twice; send each parameter once"
        );
        assert_eq!(error.cause(), Some(ParameterCause::UndecodableArguments));
    }
    // A repeat in another tool's entry, whose value would lose one, still declines the wrapper.
    let other = r#"{"tool_uses": [
        {"recipient_name": "functions.search", "parameters": {"q": "x", "q": "y"}},
        {"recipient_name": "functions.submit_result",
         "parameters": {"reasoning": "a", "analysis": {"summary": "s"}}}]}"#;
    let outcome = tool
        .receive(Incoming::arguments(
            Some(PARALLEL_WRAPPER),
            Arguments::Text(other),
        ))
        .unwrap()
        .unwrap();
    assert_eq!(
        message(&outcome),
        "multi_tool_use.parallel is not a tool; call each tool directly"
    );
    // A clean entry records the wrapper first.
    let clean = r#"{"tool_uses": [{"recipient_name": "functions.submit_result",
         "parameters": {"reasoning": "a", "analysis": {"summary": "s"}}}]}"#;
    let outcome = tool
        .receive(Incoming::arguments(
            Some(PARALLEL_WRAPPER),
            Arguments::Text(clean),
        ))
        .unwrap()
        .unwrap();
    let accepted = outcome.accepted().unwrap();
    assert_eq!(accepted.recoveries[0].kind, RecoveryKind::ParallelWrapper);
}

#[test]
fn a_lone_surrogate_in_reasoning_is_named_as_such() {
    let tool = tool();
    for (text, escape, at) in [
        (
            r#"{"reasoning":"ok \ud800 then","analysis":{"summary":"s"}}"#,
            r"\ud800",
            4,
        ),
        (
            r#"{"reasoning":"\udfff","analysis":{"summary":"s"}}"#,
            r"\udfff",
            1,
        ),
        // A high half followed by another high half: the first has no low half after it.
        (
            r#"{"reasoning":"\uD83D\uD83D","analysis":{"summary":"s"}}"#,
            r"\uD83D",
            1,
        ),
        // A valid pair, then an escaped backslash before a `u`, then a lone low half.
        (
            r#"{"reasoning":"\ud83d\ude00 \\u \udc00","analysis":{"summary":"s"}}"#,
            r"\udc00",
            18,
        ),
    ] {
        let outcome = tool.handle_arguments(Arguments::Text(text));
        let error = outcome.error().unwrap();
        assert_eq!(
            error.message(),
            format!(
                "reasoning parameter holds the escape {escape} at byte {at} of its JSON string, \
                 which is no Unicode scalar value (half of a surrogate pair); send the reasoning \
                 as text without it"
            ),
            "{text}"
        );
        assert_eq!(error.cause(), Some(ParameterCause::AbsentOrMistyped));
    }
    // A valid pair is the character it encodes.
    let pair = r#"{"reasoning":"\ud83d\ude00","analysis":{"summary":"s"}}"#;
    let accepted = tool.handle_arguments(Arguments::Text(pair));
    assert_eq!(accepted.accepted().unwrap().reasoning, "\u{1F600}");
}

#[test]
fn arguments_as_json_text_read_an_object_as_text_and_a_string_once() {
    let tool = tool();
    let twice = r#"{"reasoning":"a","reasoning":"b","analysis":{"summary":"s"}}"#;
    let outcome = tool
        .receive(Incoming::arguments_json(Some("submit_result"), twice))
        .unwrap()
        .unwrap();
    assert!(message(&outcome).contains("\"reasoning\" appears twice"));
    let string = r#""{\"reasoning\":\"a\",\"analysis\":{\"summary\":\"s\"}}""#;
    let outcome = tool
        .receive(Incoming::arguments_json(Some("submit_result"), string))
        .unwrap()
        .unwrap();
    let accepted = outcome.accepted().unwrap();
    assert_eq!(
        accepted.recoveries[0].kind,
        RecoveryKind::StringifiedArguments
    );
    for (text, expected) in [
        (
            "[1]",
            "failed to parse tool arguments: expected a JSON object, got array",
        ),
        (
            "7",
            "failed to parse tool arguments: expected a JSON object, got number",
        ),
    ] {
        let outcome = tool
            .receive(Incoming::arguments_json(Some("submit_result"), text))
            .unwrap()
            .unwrap();
        assert_eq!(message(&outcome), expected);
    }
}
