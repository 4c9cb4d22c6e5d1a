//! The submit tool as a rig tool (feature `rig`), run through rig's own dispatch: a `ToolSet`
//! holding the registered handler, called by name with the model's raw argument text, as rig's
//! agent loop calls a tool. A clean call, the four payload mistakes, a declined call, the
//! result validators' gate, and every real case of the corpus
//! (`submit-core/tests/corpus/13_real_cases.json`, each with its source) read the same way.

#![cfg(feature = "rig")]

use crate::support::submit_cases;

use futures::executor::block_on;
use rig_agent::tool::{RegisteredTool, ToolSet};
use rig_core::tool::{ToolContext, ToolErrorKind, ToolResult};
use serde_json::{json, Value};
use submit_cases::{payload_mistakes, real_cases};
use submit_result::agent::executor::{validator_fn, Finding};
use submit_result::rig::{RigAccepted, RigSubmitTool};
use submit_result::{Arguments, Options, ParameterCause, Provider, RecoveryKind, SubmitTool};

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

/// A tool set holding `submit`, and the handle on its gate.
fn tool_set<R>(submit: RigSubmitTool<R>) -> (ToolSet, RigAccepted<R>)
where
    R: serde::de::DeserializeOwned + Send + Sync + 'static,
{
    let accepted = submit.accepted();
    let mut tools = ToolSet::default();
    tools.add_registered_tool(RegisteredTool::from_handler(submit).unwrap());
    (tools, accepted)
}

/// Calls `name` in `tools` with `arguments` as rig's agent loop does.
fn call(tools: &ToolSet, name: &str, arguments: &str) -> ToolResult {
    block_on(tools.execute(name, arguments, &mut ToolContext::new()))
}

/// What the model reads from `result`, as JSON.
fn answer(result: &ToolResult) -> Value {
    result
        .output()
        .as_json()
        .cloned()
        .unwrap_or_else(|| panic!("not a JSON answer: {}", result.output().render()))
}

#[test]
fn rig_lists_the_submit_tool_with_its_own_definition() {
    let tool = tool();
    let definition = tool.definition(Provider::Claude);
    let (tools, _) = tool_set(RigSubmitTool::new(tool));
    let listed = tools.tool_definitions();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].name, "submit_analysis");
    assert_eq!(listed[0].description, definition["description"]);
    assert_eq!(listed[0].parameters, definition["input_schema"]);
}

#[test]
fn rig_dispatch_of_a_clean_and_each_damaged_submit_hands_over_the_typed_response() {
    for (name, arguments, recovery) in payload_mistakes() {
        let (tools, accepted) = tool_set(RigSubmitTool::new(tool()));
        let result = call(&tools, "submit_analysis", &arguments);
        assert!(result.is_success(), "{name}: {}", result.output().render());
        assert_eq!(
            answer(&result),
            json!({"success": true, "message": "Result submitted successfully."}),
            "{name}"
        );
        assert!(accepted.is_committed(), "{name}");
        let committed = accepted.take().expect("the committed submit");
        assert_eq!(
            committed.response,
            Analysis {
                summary: "disk full".into()
            },
            "{name}"
        );
        assert_eq!(committed.reasoning, "r", "{name}");
        assert_eq!(committed.recovery(), recovery, "{name}");
        assert!(accepted.take().is_none(), "{name}: taken once");
    }
}

#[test]
fn rig_dispatch_answers_a_declined_submit_with_the_hint_and_commits_nothing() {
    let (tools, accepted) = tool_set(RigSubmitTool::new(tool()));
    let arguments =
        json!({"reasoning": "r", "analysis": "{\"summary\":\"x\"} Hope this helps!"}).to_string();
    let result = call(&tools, "submit_analysis", &arguments);
    assert!(
        result.is_error_kind(ToolErrorKind::InvalidArgs),
        "{result:?}"
    );
    let direct = tool().handle_arguments(Arguments::Text(&arguments));
    assert_eq!(
        direct.error().and_then(|e| e.cause()),
        Some(ParameterCause::StringifiedDeclined)
    );
    assert_eq!(&answer(&result), direct.tool_result());
    assert!(
        answer(&result)["error"]
            .as_str()
            .unwrap()
            .contains("pass analysis as a nested JSON object"),
        "{}",
        answer(&result)
    );
    let error = result.error().unwrap();
    assert_eq!(error.message(), direct.error().unwrap().to_string());
    assert!(!accepted.is_committed());
    assert!(accepted.take().is_none());

    // The model acts on the hint: the corrected call commits.
    let fixed = json!({"reasoning": "r", "analysis": {"summary": "x"}}).to_string();
    assert!(call(&tools, "submit_analysis", &fixed).is_success());
    assert_eq!(accepted.take().unwrap().response.summary, "x");
}

#[test]
fn rig_dispatch_rejects_a_submit_the_validators_find_fault_with_then_commits_the_fixed_one() {
    let submit = RigSubmitTool::new(tool()).validator(validator_fn(
        |answer: &Analysis, _reasoning: &str| {
            Ok(
                if answer.summary.trim().is_empty() || answer.summary == "TODO" {
                    vec![Finding::new(
                        "summary",
                        "the summary is a placeholder: write what the logs show",
                    )]
                } else {
                    vec![]
                },
            )
        },
    ));
    let (tools, accepted) = tool_set(submit);
    let placeholder = json!({"reasoning": "r", "analysis": {"summary": "TODO"}}).to_string();
    let result = call(&tools, "submit_analysis", &placeholder);
    assert!(
        result.is_error_kind(ToolErrorKind::InvalidArgs),
        "{result:?}"
    );
    let answered = answer(&result);
    assert_eq!(
        answered["error"],
        "Result rejected: validation raised 1 finding(s). Address each finding and call submit_analysis again with your corrected, complete result."
    );
    assert_eq!(answered["findings"][0]["identifier"], "summary");
    assert_eq!(
        answered["findings"][0]["details"],
        "the summary is a placeholder: write what the logs show"
    );
    assert!(!accepted.is_committed());

    let fixed = json!({"reasoning": "r", "analysis": {"summary": "disk full"}}).to_string();
    assert!(call(&tools, "submit_analysis", &fixed).is_success());
    assert_eq!(accepted.take().unwrap().response.summary, "disk full");

    // Once committed, later submits are refused and nothing replaces the commit.
    let again = call(&tools, "submit_analysis", &fixed);
    assert!(!again.is_success());
    assert_eq!(
        answer(&again),
        json!({"error": "a terminal result was already accepted"})
    );
    assert!(accepted.take().is_none());
}

#[test]
fn a_failing_validator_closes_the_gate_and_the_handle_holds_its_error() {
    let submit = RigSubmitTool::new(tool()).validator(validator_fn(|_: &Analysis, _: &str| {
        Err("the policy service is down".into())
    }));
    let (tools, accepted) = tool_set(submit);
    let clean = json!({"reasoning": "r", "analysis": {"summary": "disk full"}}).to_string();
    let result = call(&tools, "submit_analysis", &clean);
    assert!(!result.is_success());
    assert_eq!(
        answer(&result),
        json!({"error": "result validation failed; the run is over"})
    );
    assert_eq!(
        accepted.aborted().as_deref(),
        Some("result validation: the policy service is down")
    );
    assert!(!call(&tools, "submit_analysis", &clean).is_success());
    assert!(!accepted.is_committed());
}

/// Each real case with argument text, called through rig's tool set, ends as its vector
/// expects and as the same text handled directly.
#[test]
fn real_cases_called_through_rig_end_as_the_corpus_says() {
    let mut read = 0;
    for case in real_cases() {
        let (name, text) = (case.name, case.arguments);
        let direct = case.tool.handle_arguments(Arguments::Text(&text));
        let tool_name = case.tool.name().to_owned();
        let (tools, accepted) = tool_set(RigSubmitTool::new(case.tool));
        let result = call(&tools, &tool_name, &text);
        assert_eq!(
            Value::Bool(result.is_success()),
            case.expected["accepted"],
            "{name}"
        );
        assert_eq!(&answer(&result), direct.tool_result(), "{name}");
        match accepted.take() {
            Some(committed) => {
                if let Some(response) = case.expected.get("response") {
                    assert_eq!(&committed.response, response, "{name}");
                }
            }
            None => assert!(!result.is_success(), "{name}"),
        }
        read += 1;
    }
    assert_eq!(read, 25, "the real cases with argument text");
}

#[test]
fn a_call_of_another_name_reaches_rig_not_the_submit_tool() {
    let (tools, accepted) = tool_set(RigSubmitTool::new(tool()));
    let result = call(&tools, "submit_result", "{}");
    assert!(result.is_error_kind(ToolErrorKind::NotFound), "{result:?}");
    assert!(!accepted.is_committed());
}

/// The model's answer: a Chat Completions body whose submit payload is JSON-encoded into a
/// string (`submit-agent/tests/transport/openai_chat/stringified_submit.json`, written in the
/// shape of the recorded bodies beside it).
const STRINGIFIED_REPLY: &str =
    include_str!("../submit-agent/tests/transport/openai_chat/stringified_submit.json");

#[derive(Debug, PartialEq, serde::Deserialize, schemars::JsonSchema)]
struct CityFacts {
    city: String,
    population: u64,
}

#[test]
fn a_rig_agent_ends_with_the_recovered_submit_and_spends_no_model_call_after_it() {
    use rig_agent::agent::AgentBuilder;
    use rig_agent::tool::server::ToolServer;
    use rig_http::test_utils::{MockHttpResponse, SequencedHttpClient};

    let submit = RigSubmitTool::new(SubmitTool::<CityFacts>::new(Options::new()).unwrap());
    let accepted = submit.accepted();
    // A second answer is scripted: the run must not ask for it.
    let http = SequencedHttpClient::new([
        MockHttpResponse::success(STRINGIFIED_REPLY),
        MockHttpResponse::success(STRINGIFIED_REPLY),
    ]);
    let model = rig_core::providers::openai::OpenAIConfig::new("no key")
        .connect(http.clone())
        .chat("gpt-4.1");
    let tools = ToolServer::new()
        .registered_tool(RegisteredTool::from_handler(submit).unwrap())
        .run();
    let agent = AgentBuilder::new(model)
        .tool_server_handle(tools)
        .add_hook(accepted.clone())
        .build();
    let run = block_on(std::future::IntoFuture::into_future(
        agent.prompt("How many people live in Paris?").max_turns(4),
    ));
    assert!(run.is_err(), "the hook ends the run at the commit");
    let committed = accepted.take().expect("the committed submit");
    assert_eq!(
        committed.response,
        CityFacts {
            city: "Paris".into(),
            population: 2_102_650
        }
    );
    assert_eq!(committed.recovery(), Some(RecoveryKind::Stringified));
    assert_eq!(http.requests().len(), 1);
    assert_eq!(http.remaining_responses(), 1);
    // rig sent the tool's own definition.
    let sent: Value = serde_json::from_slice(&http.requests()[0].body).unwrap();
    assert_eq!(sent["tools"][0]["function"]["name"], "submit_result");
}
