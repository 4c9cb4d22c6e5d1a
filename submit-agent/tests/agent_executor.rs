//! The executor and its gate (the built-in schema check and the result validators, findings
//! sent back to the model, the commit), with a stand-in terminal tool that parses
//! `{"reasoning", "result"}` plainly. `agent_executor_submit.rs` runs the same cases with
//! the real `SubmitTool`.

use std::sync::{Arc, Mutex};

use futures::executor::block_on;
use futures::future::BoxFuture;
use futures::FutureExt;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use submit_agent::{
    executor::{
        validator_fn, BoxError, Execution, Executor, ExecutorError, Finding, GateStatus,
        ResultValidator, TerminalTool,
    },
    message::{Message, Part},
    model::{ScriptedModel, ToolChoice},
    run::{Agent, RunErrorKind},
    tool::{Tool, ToolContext, ToolDefinition, ToolError},
};
use submit_core::{
    Accepted, Arguments, Outcome, ParameterCause, Rejected, StopReason, SubmitError,
};

/// Yields once to the executor, waking itself so it is polled again.
async fn yield_now() {
    let mut yielded = false;
    futures::future::poll_fn(|cx| {
        if yielded {
            std::task::Poll::Ready(())
        } else {
            yielded = true;
            cx.waker().wake_by_ref();
            std::task::Poll::Pending
        }
    })
    .await
}

/// A terminal tool with the submit tool's shape and a plain parser.
struct StandIn {
    name: String,
    schema: Value,
}

impl StandIn {
    fn new(name: &str) -> Self {
        StandIn {
            name: name.into(),
            schema: json!({
                "type": "object",
                "properties": {"answer": {"type": "string"}},
                "required": ["answer"]
            }),
        }
    }

    fn with_schema(mut self, schema: Value) -> Self {
        self.schema = schema;
        self
    }
}

impl<R: DeserializeOwned> TerminalTool<R> for StandIn {
    fn name(&self) -> &str {
        &self.name
    }

    fn definition(&self) -> ToolDefinition {
        ToolDefinition::new(
            self.name.clone(),
            "Submit the final result.",
            json!({
                "type": "object",
                "properties": {"reasoning": {"type": "string"}, "result": self.schema},
                "required": ["reasoning", "result"]
            }),
        )
    }

    fn payload_schema(&self) -> Value {
        self.schema.clone()
    }

    fn verdict(&self, arguments: Arguments<'_>, _end: StopReason) -> Outcome<R> {
        let decoded;
        let input = match arguments {
            Arguments::Value(value) => value,
            Arguments::Text(text) => {
                decoded = serde_json::from_str::<Value>(text).unwrap_or(Value::Null);
                &decoded
            }
            Arguments::Missing => &Value::Null,
        };
        let Some(reasoning) = input.get("reasoning").and_then(Value::as_str) else {
            let message = "reasoning parameter is required".to_owned();
            return Outcome::Rejected(Rejected::new(SubmitError::parameter(
                ParameterCause::AbsentOrMistyped,
                message,
            )));
        };
        match serde_json::from_value::<R>(input.get("result").cloned().unwrap_or(Value::Null)) {
            Ok(response) => Outcome::Accepted(Accepted::new(
                response,
                reasoning.to_owned(),
                json!({"success": true, "message": "Result submitted successfully."}),
            )),
            Err(e) => {
                let message = format!("failed to decode payload: {e}");
                Outcome::Rejected(Rejected::new(SubmitError::payload(message)))
            }
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
struct Answer {
    answer: String,
}

fn submit(name: &str, reasoning: &str, answer: &str) -> Part {
    Part::tool_request(
        name,
        None,
        json!({"reasoning": reasoning, "result": {"answer": answer}}),
    )
}

fn committed<R>(execution: Execution<R>) -> submit_agent::executor::Committed<R> {
    execution.committed().expect("a committed result")
}

fn request_text(model: &ScriptedModel, i: usize) -> String {
    serde_json::to_string(&model.requests()[i]).unwrap()
}

fn only_correct() -> impl ResultValidator<Answer> {
    validator_fn(|a: &Answer, _r: &str| {
        Ok(if a.answer == "correct" {
            vec![]
        } else {
            vec![Finding::new("wrong-answer", "the answer is not correct")]
        })
    })
}

#[test]
fn validator_findings_go_back_and_the_corrected_submit_commits() {
    let model = ScriptedModel::new()
        .then_message(vec![submit("submit_result", "first try", "wrong")])
        .then_message(vec![submit("submit_result", "fixed", "correct")]);
    let executor =
        Executor::<Answer>::new(Agent::new(model.clone()), StandIn::new("submit_result"))
            .unwrap()
            .validator(only_correct());
    let done = committed(block_on(executor.run(vec![Message::user("go")])).unwrap());
    assert_eq!(done.response.answer, "correct");
    assert_eq!(model.requests().len(), 2);
    let second = request_text(&model, 1);
    assert!(second.contains("findings"));
    assert!(second.contains("wrong-answer"));
    assert!(second.contains("Result rejected"));
}

#[test]
fn findings_answer_uses_the_exact_text() {
    let model = ScriptedModel::new()
        .then_message(vec![submit("submit_answer", "r", "wrong")])
        .then_message(vec![submit("submit_answer", "r", "correct")]);
    let executor =
        Executor::<Answer>::new(Agent::new(model.clone()), StandIn::new("submit_answer"))
            .unwrap()
            .validator(only_correct());
    block_on(executor.run(vec![Message::user("go")])).unwrap();
    let tool_message = model.requests()[1].messages.last().cloned().unwrap();
    let output = tool_message.content[0]
        .as_tool_response()
        .unwrap()
        .output
        .clone()
        .unwrap();
    assert_eq!(
        output["error"],
        json!("Result rejected: validation raised 1 finding(s). Address each finding and call submit_answer again with your corrected, complete result.")
    );
    assert_eq!(output["findings"][0]["identifier"], json!("wrong-answer"));
    assert!(tool_message.content[0].is_tool_error());
}

#[test]
fn zero_value_payload_commits_after_one_request() {
    let model = ScriptedModel::new().then_message(vec![submit("submit_result", "empty", "")]);
    let executor =
        Executor::<Answer>::new(Agent::new(model.clone()), StandIn::new("submit_result")).unwrap();
    let done = committed(block_on(executor.run(vec![Message::user("go")])).unwrap());
    assert_eq!(done.response, Answer { answer: "".into() });
    assert_eq!(model.requests().len(), 1);
}

#[test]
fn validator_error_aborts_the_run() {
    let model = ScriptedModel::new().then_message(vec![submit("submit_result", "r", "x")]);
    let executor = Executor::<Answer>::new(Agent::new(model), StandIn::new("submit_result"))
        .unwrap()
        .validator(validator_fn(|_: &Answer, _: &str| {
            Err::<Vec<Finding>, BoxError>("ci unreachable".into())
        }));
    let err = block_on(executor.run(vec![Message::user("go")])).unwrap_err();
    assert_eq!(
        err.kind,
        RunErrorKind::ResultValidation("ci unreachable".into())
    );
    assert_eq!(err.to_string(), "result validation: ci unreachable");
}

#[test]
fn validator_sees_the_reasoning() {
    let seen: Arc<Mutex<Vec<String>>> = Arc::default();
    let log = Arc::clone(&seen);
    let model = ScriptedModel::new().then_message(vec![submit(
        "submit_result",
        "the analysis is complete",
        "x",
    )]);
    let executor = Executor::<Answer>::new(Agent::new(model), StandIn::new("submit_result"))
        .unwrap()
        .validator(validator_fn(move |_: &Answer, reasoning: &str| {
            log.lock().unwrap().push(reasoning.to_owned());
            Ok(vec![])
        }));
    let done = committed(block_on(executor.run(vec![Message::user("go")])).unwrap());
    assert_eq!(*seen.lock().unwrap(), ["the analysis is complete"]);
    assert_eq!(done.reasoning, "the analysis is complete");
}

#[test]
fn caller_tool_named_like_the_submit_tool_is_a_configuration_error() {
    #[derive(Deserialize, JsonSchema)]
    struct Empty {}
    let shadow = Tool::new("submit_result", "", |_: ToolContext, _: Empty| async {
        Ok::<_, ToolError>(())
    });
    let agent = Agent::new(ScriptedModel::new()).tool(shadow);
    let err = Executor::<Answer>::new(agent, StandIn::new("submit_result")).unwrap_err();
    assert_eq!(
        err,
        ExecutorError::TerminalNameTaken("submit_result".into())
    );
    assert!(err.to_string().contains("rename"));
}

#[test]
fn builtin_schema_validator_rejects_a_value_outside_the_enum() {
    let model = ScriptedModel::new()
        .then_message(vec![submit("submit_result", "r", "maybe")])
        .then_message(vec![submit("submit_result", "r", "yes")]);
    let stand_in = StandIn::new("submit_result").with_schema(json!({
        "type": "object",
        "properties": {"answer": {"type": "string", "enum": ["yes", "no"]}},
        "required": ["answer"]
    }));
    let executor = Executor::<Answer>::new(Agent::new(model.clone()), stand_in).unwrap();
    let done = committed(block_on(executor.run(vec![Message::user("go")])).unwrap());
    assert_eq!(done.response.answer, "yes");
    let second = request_text(&model, 1);
    assert!(second.contains("schema:answer"));
    assert!(second.contains("allowed values"));
    assert!(second.contains("Result rejected"));
    assert!(matches!(done.trace[0].status, GateStatus::Findings(1)));
    assert!(
        matches!(done.trace[1].status, GateStatus::Committed { ref recoveries, forced_by_budget: false } if recoveries.is_empty())
    );
}

#[test]
fn builtin_schema_validator_ignores_required_but_checks_bounds_and_patterns() {
    #[derive(Clone, Debug, Serialize, Deserialize)]
    struct Loose {
        #[serde(skip_serializing_if = "Option::is_none")]
        code: Option<String>,
        score: i64,
    }
    let schema = json!({
        "type": "object",
        "properties": {
            "code": {"type": "string", "pattern": "^[A-Z]{3}$"},
            "score": {"type": "integer", "minimum": 0, "maximum": 10}
        },
        "required": ["code", "score"]
    });
    let model = ScriptedModel::new()
        .then_message(vec![Part::tool_request(
            "submit_result",
            None,
            json!({"reasoning": "r", "result": {"code": "abc", "score": 11}}),
        )])
        .then_message(vec![Part::tool_request(
            "submit_result",
            None,
            json!({"reasoning": "r", "result": {"score": 3}}),
        )]);
    let executor = Executor::<Loose>::new(
        Agent::new(model.clone()),
        StandIn::new("submit_result").with_schema(schema),
    )
    .unwrap();
    let done = committed(block_on(executor.run(vec![Message::user("go")])).unwrap());
    assert_eq!(done.response.score, 3);
    let second = request_text(&model, 1);
    assert!(
        second.contains("validation raised 2 finding(s)"),
        "{second}"
    );
    assert!(second.contains("schema:code"));
    assert!(second.contains("schema:score"));
}

#[test]
fn text_only_turn_redirects_to_the_configured_tool() {
    let model = ScriptedModel::new()
        .then_text("Here is my answer in prose.")
        .then_message(vec![submit("submit_widget", "r", "x")]);
    let executor =
        Executor::<Answer>::new(Agent::new(model.clone()), StandIn::new("submit_widget")).unwrap();
    committed(block_on(executor.run(vec![Message::user("go")])).unwrap());
    let second = &model.requests()[1];
    let redirect = second.messages.last().unwrap();
    assert_eq!(redirect.role, submit_agent::message::Role::User);
    assert!(redirect.text().contains("call the submit_widget tool"));
    assert!(!redirect.text().contains("submit_result"));
    assert_eq!(second.tool_choice, ToolChoice::Tool("submit_widget".into()));
}

#[test]
fn forced_tool_choice_is_not_used_when_the_provider_forbids_it() {
    let model = ScriptedModel::new()
        .then_text("prose")
        .then_message(vec![submit("submit_result", "r", "x")]);
    let executor =
        Executor::<Answer>::new(Agent::new(model.clone()), StandIn::new("submit_result"))
            .unwrap()
            .forbid_forced_tool_choice(true);
    committed(block_on(executor.run(vec![Message::user("go")])).unwrap());
    assert_eq!(model.requests()[1].tool_choice, ToolChoice::Auto);
}

#[test]
fn three_unusable_turns_in_a_row_fail_the_run() {
    let model = ScriptedModel::new()
        .then_text("one")
        .then_text("two")
        .then_text("three")
        .then_message(vec![submit("submit_result", "r", "x")]);
    let executor =
        Executor::<Answer>::new(Agent::new(model.clone()), StandIn::new("submit_result")).unwrap();
    let err = block_on(executor.run(vec![Message::user("go")])).unwrap_err();
    assert_eq!(
        err.kind,
        RunErrorKind::Unusable {
            turns: 3,
            tool: "submit_result".into()
        }
    );
    assert_eq!(model.requests().len(), 3);
}

#[test]
fn a_later_submit_in_the_same_turn_is_told_a_result_was_already_accepted() {
    let model = ScriptedModel::new().then_message(vec![
        submit("submit_result", "r", "first"),
        submit("submit_result", "r", "second"),
    ]);
    let executor =
        Executor::<Answer>::new(Agent::new(model), StandIn::new("submit_result")).unwrap();
    let done = committed(block_on(executor.run(vec![Message::user("go")])).unwrap());
    assert_eq!(done.response.answer, "first");
    let tool_message = done.messages.last().unwrap();
    let outputs: Vec<_> = tool_message
        .tool_responses()
        .map(|r| r.output.clone().unwrap())
        .collect();
    assert_eq!(outputs[0]["success"], json!(true));
    assert_eq!(
        outputs[1],
        json!({"error": "a terminal result was already accepted"})
    );
}

#[test]
fn submit_calls_run_after_the_turns_other_tools() {
    #[derive(Deserialize, JsonSchema)]
    struct Empty {}
    let order: Arc<Mutex<Vec<&'static str>>> = Arc::default();
    let tool_log = Arc::clone(&order);
    let slow = Tool::new("slow", "", move |_: ToolContext, _: Empty| {
        let log = Arc::clone(&tool_log);
        async move {
            // Yield a few times so a submit run concurrently would overtake it.
            for _ in 0..10 {
                yield_now().await;
            }
            log.lock().unwrap().push("slow");
            Ok::<_, ToolError>(())
        }
        .boxed()
    });
    let validator_log = Arc::clone(&order);
    let model = ScriptedModel::new().then_message(vec![
        submit("submit_result", "r", "x"),
        Part::tool_request("slow", None, json!({})),
    ]);
    let executor =
        Executor::<Answer>::new(Agent::new(model).tool(slow), StandIn::new("submit_result"))
            .unwrap()
            .validator(validator_fn(move |_: &Answer, _: &str| {
                validator_log.lock().unwrap().push("validate");
                Ok(vec![])
            }));
    let done = committed(block_on(executor.run(vec![Message::user("go")])).unwrap());
    assert_eq!(*order.lock().unwrap(), ["slow", "validate"]);
    // Responses stay in request order even though the submit ran last.
    let names: Vec<_> = done
        .messages
        .last()
        .unwrap()
        .tool_responses()
        .map(|r| r.name.clone())
        .collect();
    assert_eq!(names, ["submit_result", "slow"]);
}

/// An async validator that yields before answering, to run concurrently with others.
struct Delayed {
    id: &'static str,
    yields: usize,
    log: Arc<Mutex<Vec<&'static str>>>,
}

impl ResultValidator<Answer> for Delayed {
    fn validate<'a>(
        &'a self,
        _response: &'a Answer,
        _reasoning: &'a str,
    ) -> BoxFuture<'a, Result<Vec<Finding>, BoxError>> {
        async move {
            for _ in 0..self.yields {
                yield_now().await;
            }
            self.log.lock().unwrap().push(self.id);
            Ok(vec![Finding::new(self.id, "finding")])
        }
        .boxed()
    }
}

#[test]
fn validators_run_concurrently_and_findings_keep_registration_order() {
    let log: Arc<Mutex<Vec<&'static str>>> = Arc::default();
    let model = ScriptedModel::new()
        .then_message(vec![submit("submit_result", "r", "x")])
        .then_fail("stop here");
    let executor =
        Executor::<Answer>::new(Agent::new(model.clone()), StandIn::new("submit_result"))
            .unwrap()
            .validator(Delayed {
                id: "slow",
                yields: 20,
                log: Arc::clone(&log),
            })
            .validator(Delayed {
                id: "fast",
                yields: 0,
                log: Arc::clone(&log),
            });
    let _ = block_on(executor.run(vec![Message::user("go")]));
    // The fast one finished first: they ran concurrently.
    assert_eq!(*log.lock().unwrap(), ["fast", "slow"]);
    let answer = model.requests()[1].messages.last().cloned().unwrap();
    let output = answer.content[0]
        .as_tool_response()
        .unwrap()
        .output
        .clone()
        .unwrap();
    let ids: Vec<_> = output["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["identifier"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(ids, ["slow", "fast"]);
}

#[test]
fn a_rejected_submit_is_answered_and_traced_as_recoverable() {
    let model = ScriptedModel::new()
        .then_message(vec![Part::tool_request(
            "submit_result",
            None,
            json!({"result": {"answer": "x"}}),
        )])
        .then_message(vec![submit("submit_result", "r", "x")]);
    let executor =
        Executor::<Answer>::new(Agent::new(model.clone()), StandIn::new("submit_result")).unwrap();
    let done = committed(block_on(executor.run(vec![Message::user("go")])).unwrap());
    let answer = model.requests()[1].messages.last().cloned().unwrap();
    assert_eq!(
        answer.content[0].as_tool_response().unwrap().output,
        Some(json!({"error": "reasoning parameter is required"}))
    );
    assert!(done.trace[0].recoverable());
    assert_eq!(
        done.trace[0].to_string(),
        "parameter error: reasoning parameter is required"
    );
}

#[test]
fn the_submit_tool_is_advertised_with_the_callers_tools() {
    #[derive(Deserialize, JsonSchema)]
    struct Empty {}
    let other = Tool::new("lookup", "", |_: ToolContext, _: Empty| async {
        Ok::<_, ToolError>(())
    });
    let model = ScriptedModel::new().then_message(vec![submit("submit_result", "r", "x")]);
    let executor = Executor::<Answer>::new(
        Agent::new(model.clone()).tool(other),
        StandIn::new("submit_result"),
    )
    .unwrap();
    committed(block_on(executor.run(vec![Message::user("go")])).unwrap());
    let names: Vec<_> = model.requests()[0]
        .tools
        .iter()
        .map(|t| t.name.clone())
        .collect();
    assert_eq!(names, ["submit_result", "lookup"]);
}

#[test]
fn a_submit_beside_an_interrupted_call_is_gated_after_the_resume() {
    use submit_agent::{hook::ToolApproval, run::Resume};
    #[derive(Deserialize, JsonSchema)]
    struct Empty {}
    let runs = Arc::new(Mutex::new(0));
    let counter = Arc::clone(&runs);
    let refund = Tool::new("refund", "", move |_: ToolContext, _: Empty| {
        let counter = Arc::clone(&counter);
        async move {
            *counter.lock().unwrap() += 1;
            Ok::<_, ToolError>("refunded")
        }
    });
    let model = ScriptedModel::new().then_message(vec![
        Part::tool_request("refund", None, json!({})),
        submit("submit_result", "refund issued", "done"),
    ]);
    let agent = Agent::new(model.clone())
        .hook(ToolApproval::new(Vec::<String>::new()))
        .tool(refund);
    let executor = Executor::<Answer>::new(agent, StandIn::new("submit_result")).unwrap();
    let Execution::Interrupted(paused) = block_on(executor.run(vec![Message::user("go")])).unwrap()
    else {
        panic!("expected the refund to be held");
    };
    assert_eq!(paused.interrupts().len(), 1);
    let approve = paused.interrupts()[0]
        .to_tool_restart(Some(json!({"toolApproved": true})))
        .unwrap();
    let done = committed(
        block_on(executor.resume(paused.history(), Resume::new().restart(approve))).unwrap(),
    );
    assert_eq!(done.response.answer, "done");
    assert_eq!(*runs.lock().unwrap(), 1);
    // Committed during the resume: the model was not called again.
    assert_eq!(model.requests().len(), 1);
    let outputs: Vec<_> = done
        .messages
        .last()
        .unwrap()
        .tool_responses()
        .map(|r| r.output.clone().unwrap())
        .collect();
    assert_eq!(outputs[0], json!("refunded"));
    assert_eq!(outputs[1]["success"], json!(true));
}
