//! Table H of the executor with the real `SubmitTool`: the rows of `agent_executor.rs`,
//! end to end through definition, parsing, recovery and the gate.

use futures::executor::block_on;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;
use submit_agent::{
    executor::{
        validator_fn, BoxError, Committed, Execution, Executor, ExecutorError, Finding, GateStatus,
    },
    message::{Message, Part},
    model::ScriptedModel,
    run::{Agent, RunErrorKind},
    tool::{Tool, ToolContext, ToolError},
};
use submit_core::{Options, RecoveryKind, SubmitTool};
use submit_result::SubmitResult;

/// The final answer of the run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, SubmitResult)]
#[submit_result(payload = "analysis")]
struct Answer {
    /// The answer.
    answer: String,
}

/// An answer restricted to yes or no.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, SubmitResult)]
struct YesNo {
    /// Yes or no.
    answer: Choice,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Choice {
    Yes,
    No,
}

fn tool() -> SubmitTool<Answer> {
    SubmitTool::for_response().unwrap()
}

fn submit(reasoning: &str, answer: &str) -> Part {
    Part::tool_request(
        "submit_result",
        None,
        json!({"reasoning": reasoning, "analysis": {"answer": answer}}),
    )
}

fn committed<R>(execution: Execution<R>) -> Committed<R> {
    execution.committed().expect("a committed result")
}

fn request_text(model: &ScriptedModel, i: usize) -> String {
    serde_json::to_string(&model.requests()[i]).unwrap()
}

#[test]
fn real_tool_validator_findings_go_back_and_the_corrected_submit_commits() {
    let model = ScriptedModel::new()
        .then_message(vec![submit("first try", "wrong")])
        .then_message(vec![submit("fixed", "correct")]);
    let executor = Executor::<Answer>::new(Agent::new(model.clone()), tool())
        .unwrap()
        .validator(validator_fn(|a: &Answer, _: &str| {
            Ok(if a.answer == "correct" {
                vec![]
            } else {
                vec![Finding::new("wrong-answer", "the answer is not correct")]
            })
        }));
    let done = committed(block_on(executor.run(vec![Message::user("go")])).unwrap());
    assert_eq!(done.response.answer, "correct");
    assert_eq!(model.requests().len(), 2);
    let second = request_text(&model, 1);
    assert!(second.contains("findings"));
    assert!(second.contains("wrong-answer"));
    assert!(second.contains("Result rejected"));
}

#[test]
fn real_tool_zero_value_payload_commits_after_one_request() {
    let model = ScriptedModel::new().then_message(vec![submit("empty", "")]);
    let executor = Executor::<Answer>::new(Agent::new(model.clone()), tool()).unwrap();
    let done = committed(block_on(executor.run(vec![Message::user("go")])).unwrap());
    assert_eq!(done.response.answer, "");
    assert_eq!(model.requests().len(), 1);
}

#[test]
fn real_tool_validator_error_aborts_the_run() {
    let model = ScriptedModel::new().then_message(vec![submit("r", "x")]);
    let executor = Executor::<Answer>::new(Agent::new(model), tool())
        .unwrap()
        .validator(validator_fn(|_: &Answer, _: &str| {
            Err::<Vec<Finding>, BoxError>("ci unreachable".into())
        }));
    let err = block_on(executor.run(vec![Message::user("go")])).unwrap_err();
    assert_eq!(
        err.kind,
        RunErrorKind::ResultValidation("ci unreachable".into())
    );
    assert!(err.to_string().contains("result validation"));
}

#[test]
fn real_tool_validator_sees_the_recovered_reasoning() {
    // The payload arrives inside the reasoning; the validator sees only the prose before it.
    let reasoning =
        "the analysis is complete</reasoning>\n<parameter name=\"analysis\">{\"answer\":\"x\"}";
    let model = ScriptedModel::new().then_message(vec![Part::tool_request(
        "submit_result",
        None,
        json!({ "reasoning": reasoning }),
    )]);
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let log = std::sync::Arc::clone(&seen);
    let executor = Executor::<Answer>::new(Agent::new(model), tool())
        .unwrap()
        .validator(validator_fn(move |_: &Answer, reasoning: &str| {
            log.lock().unwrap().push(reasoning.to_owned());
            Ok(vec![])
        }));
    let done = committed(block_on(executor.run(vec![Message::user("go")])).unwrap());
    assert_eq!(*seen.lock().unwrap(), ["the analysis is complete"]);
    assert_eq!(done.reasoning, "the analysis is complete");
    assert_eq!(done.response.answer, "x");
}

#[test]
fn real_tool_caller_tool_named_like_the_submit_tool_is_a_configuration_error() {
    #[derive(Deserialize, JsonSchema)]
    struct Empty {}
    let shadow = Tool::new("submit_result", "", |_: ToolContext, _: Empty| async {
        Ok::<_, ToolError>(())
    });
    let agent = Agent::new(ScriptedModel::new()).tool(shadow);
    let err = Executor::<Answer>::new(agent, tool()).unwrap_err();
    assert_eq!(
        err,
        ExecutorError::TerminalNameTaken("submit_result".into())
    );
}

#[test]
fn real_tool_enum_outside_its_variants_is_a_payload_error_then_commits() {
    // A Rust enum decodes strictly, so "maybe" is a payload error answered to the model
    // before the gate; the corrected "yes" commits.
    let call = |answer: &str| {
        Part::tool_request(
            "submit_result",
            None,
            json!({"reasoning": "r", "result": {"answer": answer}}),
        )
    };
    let model = ScriptedModel::new()
        .then_message(vec![call("maybe")])
        .then_message(vec![call("yes")]);
    let tool = SubmitTool::<YesNo>::for_response().unwrap();
    let executor = Executor::<YesNo>::new(Agent::new(model.clone()), tool).unwrap();
    let done = committed(block_on(executor.run(vec![Message::user("go")])).unwrap());
    assert_eq!(done.response.answer, Choice::Yes);
    let second = request_text(&model, 1);
    assert!(second.contains("failed to decode payload"), "{second}");
    assert!(second.contains("maybe"), "{second}");
    assert!(done.trace[0].recoverable());
    assert!(matches!(done.trace[1].status, GateStatus::Committed { .. }));
}

#[test]
fn real_tool_text_only_turn_redirects_to_the_configured_tool() {
    let model = ScriptedModel::new()
        .then_text("Here is my answer in prose.")
        .then_message(vec![Part::tool_request(
            "submit_widget",
            None,
            json!({"reasoning": "r", "result": {"answer": "x"}}),
        )]);
    let tool = SubmitTool::<Answer>::new(
        Options::new()
            .tool_name("submit_widget")
            .payload_field_name("result"),
    )
    .unwrap();
    let executor = Executor::<Answer>::new(Agent::new(model.clone()), tool).unwrap();
    committed(block_on(executor.run(vec![Message::user("go")])).unwrap());
    let second = request_text(&model, 1);
    assert!(second.contains("call the submit_widget tool"), "{second}");
    assert!(!second.contains("submit_result"), "{second}");
}

#[test]
fn real_tool_stringified_payload_with_closing_tags_commits() {
    let model = ScriptedModel::new().then_message(vec![Part::tool_request(
        "submit_result",
        None,
        json!({"reasoning": "done", "analysis": "{\"answer\":\"ok\"}</analysis>\n</invoke>\n"}),
    )]);
    let executor = Executor::<Answer>::new(Agent::new(model.clone()), tool()).unwrap();
    let done = committed(block_on(executor.run(vec![Message::user("go")])).unwrap());
    assert_eq!(done.response.answer, "ok");
    assert_eq!(model.requests().len(), 1);
    assert_eq!(done.recovery(), Some(RecoveryKind::Stringified));
}

/// An answer whose schema allows only yes or no, which serde alone does not enforce.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, SubmitResult)]
struct Verdict {
    /// Yes or no.
    #[schemars(extend("enum" = ["yes", "no"]))]
    answer: String,
}

#[test]
fn real_tool_builtin_schema_validator_rejects_maybe_then_commits_yes() {
    let call = |answer: &str| {
        Part::tool_request(
            "submit_result",
            None,
            json!({"reasoning": "r", "result": {"answer": answer}}),
        )
    };
    let model = ScriptedModel::new()
        .then_message(vec![call("maybe")])
        .then_message(vec![call("yes")]);
    let tool = SubmitTool::<Verdict>::for_response().unwrap();
    assert_eq!(
        tool.payload_schema()["properties"]["answer"]["enum"],
        json!(["yes", "no"])
    );
    let executor = Executor::<Verdict>::new(Agent::new(model.clone()), tool).unwrap();
    let done = committed(block_on(executor.run(vec![Message::user("go")])).unwrap());
    assert_eq!(done.response.answer, "yes");
    let second = request_text(&model, 1);
    assert!(second.contains("schema:answer"), "{second}");
    assert!(second.contains("allowed values"), "{second}");
    assert!(second.contains("Result rejected"), "{second}");
    assert!(matches!(done.trace[0].status, GateStatus::Findings(1)));
}

#[test]
fn submit_tool_definition_carries_each_providers_exact_definition() {
    use submit_agent::{executor::TerminalTool, tool::ToolDefinition};
    use submit_core::Provider;

    let tool = tool();
    let model = ScriptedModel::new().then_message(vec![submit("r", "x")]);
    let executor = Executor::<Answer>::new(Agent::new(model.clone()), tool.clone()).unwrap();
    block_on(executor.run(vec![Message::user("go")])).unwrap();
    let sent = model.requests()[0]
        .tools
        .iter()
        .find(|d| d.name == "submit_result")
        .cloned()
        .expect("the submit tool is offered");
    for provider in Provider::ALL {
        assert_eq!(
            sent.wire_definition(provider),
            Some(&tool.definition(provider)),
            "{provider}"
        );
    }
    // The Anthropic-form fields stay as before.
    let claude = tool.definition(Provider::Claude);
    assert_eq!(sent.input_schema, claude["input_schema"]);
    assert_eq!(TerminalTool::definition(&tool), sent);
    // The per-provider definitions survive a serde round trip.
    let text = serde_json::to_string(&sent).unwrap();
    let back: ToolDefinition = serde_json::from_str(&text).unwrap();
    assert_eq!(back, sent);
    assert_eq!(
        back.wire_definition(Provider::Gemini),
        Some(&tool.definition(Provider::Gemini))
    );
}
