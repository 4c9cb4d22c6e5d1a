//! Interrupts and resume (restart and respond directives, what is checked before any tool
//! runs, pending output replayed) and the stored-state round trip.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use futures::executor::block_on;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use submit_agent::{
    executor::{Execution, Executor},
    message::{Message, Part, PartKind, Role},
    model::{FinishReason, ScriptedModel},
    run::{Agent, Resume, RunErrorKind},
    tool::{interrupt_as, Tool, ToolContext, ToolError, TypedTool},
};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
struct Transfer {
    amount: i64,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
struct Confirmation {
    approved: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
struct Status {
    status: String,
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Reason {
    reason: String,
    amount: i64,
}

type Seen = Arc<Mutex<Vec<(i64, Option<Confirmation>, Option<Transfer>)>>>;

/// A transfer tool that interrupts on a fresh call and records what each call saw.
fn transfer_tool(seen: &Seen) -> TypedTool<Transfer, Status, Confirmation> {
    let log = Arc::clone(seen);
    TypedTool::resumable(
        "transfer",
        "Moves money.",
        move |ctx: ToolContext, t: Transfer, resume: Option<Confirmation>| {
            let log = Arc::clone(&log);
            async move {
                log.lock().unwrap().push((
                    t.amount,
                    resume.clone(),
                    ctx.original_input::<Transfer>(),
                ));
                match resume {
                    None => Err(ctx.interrupt(Reason {
                        reason: "large".into(),
                        amount: t.amount,
                    })),
                    Some(c) if c.approved => Ok(Status {
                        status: "done".into(),
                    }),
                    Some(_) => Ok(Status {
                        status: "cancelled".into(),
                    }),
                }
            }
        },
    )
    .unwrap()
}

fn call(name: &str, reference: &str, input: Value) -> Part {
    Part::tool_request(name, Some(reference.into()), input)
}

fn interrupted_run(
    tool: &TypedTool<Transfer, Status, Confirmation>,
) -> (Agent, ScriptedModel, submit_agent::run::Response) {
    let model = ScriptedModel::new()
        .then_message(vec![call("transfer", "t1", json!({"amount": 200}))])
        .then_text("finished");
    let agent = Agent::new(model.clone()).tool(tool.clone());
    let first = block_on(agent.generate(vec![Message::user("pay")])).unwrap();
    assert_eq!(first.finish_reason, FinishReason::Interrupted);
    (agent, model, first)
}

fn last_tool_output(model: &ScriptedModel) -> Value {
    let request = model.requests().last().cloned().unwrap();
    let message = request.messages.last().cloned().unwrap();
    assert_eq!(message.role, Role::Tool);
    message.content[0]
        .as_tool_response()
        .unwrap()
        .output
        .clone()
        .unwrap()
}

#[test]
fn restart_with_typed_resume_runs_the_tool_with_it() {
    let seen = Seen::default();
    let tool = transfer_tool(&seen);
    let (agent, model, first) = interrupted_run(&tool);
    let claimed = tool.interrupted(first.interrupts()[0]).unwrap();
    assert_eq!(claimed.input, Transfer { amount: 200 });
    let restart = claimed.restart(Confirmation { approved: true });
    let done = block_on(agent.resume(first.history(), Resume::new().restart(restart))).unwrap();
    assert_eq!(done.text(), "finished");
    assert_eq!(last_tool_output(&model), json!({"status": "done"}));
    assert_eq!(
        seen.lock().unwrap()[1].1,
        Some(Confirmation { approved: true })
    );
}

#[test]
fn restart_with_a_zero_resume_gives_a_present_zero_value() {
    let seen = Seen::default();
    let tool = transfer_tool(&seen);
    let (agent, model, first) = interrupted_run(&tool);
    let restart = tool
        .interrupted(first.interrupts()[0])
        .unwrap()
        .restart(Confirmation::default());
    block_on(agent.resume(first.history(), Resume::new().restart(restart))).unwrap();
    assert_eq!(seen.lock().unwrap()[1].1, Some(Confirmation::default()));
    assert_eq!(last_tool_output(&model), json!({"status": "cancelled"}));
}

#[test]
fn restart_with_input_replaces_it_and_keeps_the_original() {
    let seen = Seen::default();
    let tool = transfer_tool(&seen);
    let (agent, _model, first) = interrupted_run(&tool);
    let restart = tool
        .interrupted(first.interrupts()[0])
        .unwrap()
        .restart_with_input(Transfer { amount: 50 }, Confirmation { approved: true });
    block_on(agent.resume(first.history(), Resume::new().restart(restart))).unwrap();
    let seen = seen.lock().unwrap();
    assert_eq!(seen[1].0, 50);
    assert_eq!(seen[1].2, Some(Transfer { amount: 200 }));
}

#[test]
fn respond_answers_without_running_the_tool_and_checks_the_output_schema() {
    let seen = Seen::default();
    let tool = transfer_tool(&seen);
    let (agent, model, first) = interrupted_run(&tool);
    let respond = tool
        .interrupted(first.interrupts()[0])
        .unwrap()
        .respond(Status {
            status: "handled by a human".into(),
        });
    block_on(agent.resume(first.history(), Resume::new().respond(respond))).unwrap();
    assert_eq!(seen.lock().unwrap().len(), 1);
    assert_eq!(
        last_tool_output(&model),
        json!({"status": "handled by a human"})
    );

    let bad = first.interrupts()[0]
        .to_tool_response(json!({"status": 3}))
        .unwrap();
    let err = block_on(agent.resume(first.history(), Resume::new().respond(bad))).unwrap_err();
    assert!(matches!(err.kind, RunErrorKind::InvalidResume(_)));
    assert!(
        err.to_string().contains("output validation failed"),
        "{err}"
    );
    assert_eq!(seen.lock().unwrap().len(), 1);
}

#[test]
fn part_directives_equal_the_typed_ones() {
    let seen = Seen::default();
    let tool = transfer_tool(&seen);
    let (_agent, _model, first) = interrupted_run(&tool);
    let part = first.interrupts()[0];
    let claimed = tool.interrupted(part).unwrap();
    assert_eq!(
        claimed.restart(Confirmation { approved: true }),
        part.to_tool_restart(Some(json!({"approved": true})))
            .unwrap()
    );
    assert_eq!(
        claimed.restart_with_input(Transfer { amount: 1 }, Confirmation { approved: true }),
        part.to_tool_restart_with_input(json!({"amount": 1}), Some(json!({"approved": true})))
            .unwrap()
    );
    assert_eq!(
        claimed.respond(Status { status: "x".into() }),
        part.to_tool_response(json!({"status": "x"})).unwrap()
    );
    assert!(Part::text("x").to_tool_restart(None).is_err());
}

#[derive(Deserialize, JsonSchema)]
struct Question {
    #[allow(dead_code, reason = "decoded for the schema only")]
    question: String,
}

fn question_tool() -> TypedTool<Question, String> {
    TypedTool::new(
        "ask",
        "Asks the user.",
        |ctx: ToolContext, _q: Question| async move { Err::<String, _>(ctx.interrupt_bare()) },
    )
}

#[test]
fn a_question_tool_is_answered_by_respond_and_reinterrupts_on_restart() {
    let tool = question_tool();
    let model = ScriptedModel::new()
        .then_message(vec![call("ask", "q1", json!({"question": "proceed?"}))])
        .then_text("done");
    let agent = Agent::new(model.clone()).tool(tool.clone());
    let first = block_on(agent.generate(vec![Message::user("go")])).unwrap();
    let part = first.interrupts()[0];
    assert_eq!(interrupt_as::<Value>(part), None);

    let claimed = tool.interrupted(part).unwrap();
    let done = block_on(agent.resume(
        first.history(),
        Resume::new().respond(claimed.respond("yes".into())),
    ))
    .unwrap();
    assert_eq!(done.text(), "done");

    let err = block_on(agent.resume(
        first.history(),
        Resume::new().restart(claimed.restart(Default::default())),
    ))
    .unwrap_err();
    assert_eq!(err.kind, RunErrorKind::InterruptedOnResume);
    let partial = err.partial.unwrap();
    assert_eq!(partial.finish_reason, FinishReason::Interrupted);
    assert_eq!(partial.interrupts().len(), 1);
}

#[test]
fn two_interrupts_answered_by_one_restart_and_one_respond() {
    let seen = Seen::default();
    let tool = transfer_tool(&seen);
    let model = ScriptedModel::new()
        .then_message(vec![
            call("transfer", "a", json!({"amount": 100})),
            call("transfer", "b", json!({"amount": 300})),
        ])
        .then_text("finished");
    let agent = Agent::new(model.clone()).tool(tool.clone());
    let first = block_on(agent.generate(vec![Message::user("pay")])).unwrap();
    let interrupts = first.interrupts();
    assert_eq!(interrupts.len(), 2);
    let a = tool.interrupted(interrupts[0]).unwrap();
    let b = tool.interrupted(interrupts[1]).unwrap();
    let resume = Resume::new()
        .restart(a.restart(Confirmation { approved: true }))
        .respond(b.respond(Status {
            status: "refused".into(),
        }));
    let done = block_on(agent.resume(first.history(), resume)).unwrap();
    assert_eq!(done.text(), "finished");
    let tool_message = model.requests()[1].messages.last().cloned().unwrap();
    let outputs: Vec<_> = tool_message
        .tool_responses()
        .map(|r| r.output.clone().unwrap())
        .collect();
    assert_eq!(
        outputs,
        [json!({"status": "done"}), json!({"status": "refused"})]
    );
    assert_eq!(
        seen.lock().unwrap().last().unwrap().1,
        Some(Confirmation { approved: true })
    );
}

#[test]
fn a_plain_tool_reads_resume_data_from_its_context() {
    #[derive(Deserialize, JsonSchema)]
    struct Empty {}
    let tool = Tool::new("gate", "", |ctx: ToolContext, _: Empty| async move {
        match ctx.resume_data::<Confirmation>() {
            None => Err(ctx.interrupt(json!({"why": "check"}))),
            Some(c) => Ok(c.approved),
        }
    });
    let model = ScriptedModel::new()
        .then_message(vec![call("gate", "g", json!({}))])
        .then_text("ok");
    let agent = Agent::new(model.clone()).tool(tool);
    let first = block_on(agent.generate(vec![Message::user("go")])).unwrap();
    let restart = first.interrupts()[0]
        .to_tool_restart(Some(json!({"approved": true})))
        .unwrap();
    block_on(agent.resume(first.history(), Resume::new().restart(restart))).unwrap();
    assert_eq!(last_tool_output(&model), json!(true));
}

#[test]
fn interrupted_claims_only_its_own_unresolved_interrupts() {
    let seen = Seen::default();
    let tool = transfer_tool(&seen);
    let (_agent, _model, first) = interrupted_run(&tool);
    let own = first.interrupts()[0].clone();
    assert!(tool.interrupted(&own).is_some());

    let other_tool = question_tool();
    assert!(other_tool.interrupted(&own).is_none());

    let mut resolved = own.clone();
    if let PartKind::ToolRequest(r) = &mut resolved.kind {
        r.interrupt.as_mut().unwrap().resolved = true;
    }
    assert!(tool.interrupted(&resolved).is_none());
    assert!(tool
        .interrupted(&call("transfer", "x", json!({"amount": 1})))
        .is_none());
    assert!(tool.interrupted(&Part::text("transfer")).is_none());

    let mut held = own.clone();
    if let PartKind::ToolRequest(r) = &mut held.kind {
        r.interrupt.as_mut().unwrap().raised_by = Some("gate".into());
    }
    assert!(tool.interrupted(&held).is_none());
}

#[test]
fn a_resume_type_that_is_not_an_object_is_a_definition_error() {
    let err = TypedTool::<Transfer, Status, String>::resumable(
        "bad",
        "",
        |_ctx: ToolContext, _t: Transfer, _r: Option<String>| async move {
            Ok::<_, ToolError>(Status { status: "x".into() })
        },
    )
    .unwrap_err();
    let text = err.to_string();
    assert!(text.contains("TypedTool::resumable"));
    assert!(text.contains("JSON object"));
}

#[test]
fn interrupting_with_a_scalar_fails_the_run_naming_json_object() {
    #[derive(Deserialize, JsonSchema)]
    struct Empty {}
    let tool = Tool::new("scalar", "", |ctx: ToolContext, _: Empty| async move {
        Err::<(), _>(ctx.interrupt("approve?"))
    });
    let model = ScriptedModel::new().then_message(vec![call("scalar", "s", json!({}))]);
    let err = block_on(
        Agent::new(model)
            .tool(tool)
            .generate(vec![Message::user("go")]),
    )
    .unwrap_err();
    assert!(matches!(err.kind, RunErrorKind::ToolFailed { .. }));
    assert!(err.to_string().contains("JSON object"));
}

#[test]
fn resume_data_is_checked_against_the_resume_schema_before_any_tool_runs() {
    let seen = Seen::default();
    let tool = transfer_tool(&seen);
    let (agent, _model, first) = interrupted_run(&tool);
    let part = first.interrupts()[0];
    let wrong = part
        .to_tool_restart(Some(json!({"approved": "yes"})))
        .unwrap();
    let err = block_on(agent.resume(first.history(), Resume::new().restart(wrong))).unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("resume data") && text.contains("approved"),
        "{text}"
    );

    let bare = part.to_tool_restart(None).unwrap();
    let err = block_on(agent.resume(first.history(), Resume::new().restart(bare))).unwrap_err();
    assert!(err.to_string().contains("approved is required"), "{err}");
    assert_eq!(seen.lock().unwrap().len(), 1);
}

#[test]
fn a_restart_that_keeps_the_interrupt_marker_still_resumes() {
    let seen = Seen::default();
    let tool = transfer_tool(&seen);
    let (agent, model, first) = interrupted_run(&tool);
    let mut wire = serde_json::to_value(first.interrupts()[0]).unwrap();
    wire["metadata"]["resumed"] = json!({"approved": true});
    let restart: Part = serde_json::from_value(wire).unwrap();
    assert!(restart.is_interrupt() && restart.is_restart());
    block_on(agent.resume(first.history(), Resume::new().restart(restart))).unwrap();
    assert_eq!(last_tool_output(&model), json!({"status": "done"}));
}

#[test]
fn resumed_false_reruns_the_tool_fresh_and_it_interrupts_again() {
    let seen = Seen::default();
    let tool = transfer_tool(&seen);
    let (agent, _model, first) = interrupted_run(&tool);
    let mut wire = serde_json::to_value(first.interrupts()[0]).unwrap();
    wire["metadata"]["resumed"] = json!(false);
    let directive: Part = serde_json::from_value(wire).unwrap();
    assert!(!directive.is_restart());
    let err =
        block_on(agent.resume(first.history(), Resume::new().restart(directive))).unwrap_err();
    assert_eq!(err.kind, RunErrorKind::InterruptedOnResume);
    assert_eq!(
        err.partial.unwrap().finish_reason,
        FinishReason::Interrupted
    );
    assert_eq!(seen.lock().unwrap()[1].1, None);
}

#[test]
fn a_non_object_resume_marker_is_rejected() {
    let seen = Seen::default();
    let tool = transfer_tool(&seen);
    let (agent, _model, first) = interrupted_run(&tool);
    for marker in [json!("approved"), json!(1.0), json!(["a"])] {
        let mut wire = serde_json::to_value(first.interrupts()[0]).unwrap();
        wire["metadata"]["resumed"] = marker;
        let directive: Part = serde_json::from_value(wire).unwrap();
        let err =
            block_on(agent.resume(first.history(), Resume::new().restart(directive))).unwrap_err();
        assert!(matches!(err.kind, RunErrorKind::InvalidResume(_)));
        assert!(err.to_string().contains("must be a JSON object"), "{err}");
    }
    assert_eq!(seen.lock().unwrap().len(), 1);
}

#[test]
fn a_directive_of_the_wrong_kind_is_rejected() {
    // Rust has no nil part; the nearest mistake is a part of the wrong kind.
    let seen = Seen::default();
    let tool = transfer_tool(&seen);
    let (agent, _model, first) = interrupted_run(&tool);
    let err = block_on(agent.resume(first.history(), Resume::new().respond(Part::text("yes"))))
        .unwrap_err();
    assert!(err.to_string().contains("must be a tool response part"));
    let err = block_on(agent.resume(first.history(), Resume::new().restart(Part::text("yes"))))
        .unwrap_err();
    assert!(err.to_string().contains("must be a tool request part"));
}

#[test]
fn interrupt_data_decodes_into_another_struct_of_the_same_shape() {
    #[derive(Debug, PartialEq, Deserialize)]
    struct Mine {
        reason: String,
        amount: i64,
    }
    let seen = Seen::default();
    let tool = transfer_tool(&seen);
    let (_agent, _model, first) = interrupted_run(&tool);
    let part = first.interrupts()[0];
    assert_eq!(
        interrupt_as::<Mine>(part),
        Some(Mine {
            reason: "large".into(),
            amount: 200
        })
    );
    let data = part.as_tool_request().unwrap().interrupt.as_ref().unwrap();
    assert_eq!(
        Value::Object(data.data.clone().unwrap()),
        json!({"reason": "large", "amount": 200})
    );
}

#[test]
fn integer_resume_data_stays_an_integer() {
    #[derive(Debug, Deserialize, Serialize, JsonSchema)]
    struct N {
        n: i64,
    }
    #[derive(Deserialize, JsonSchema)]
    struct Empty {}
    type Calls = Vec<(Option<N>, Option<Value>)>;
    let seen: Arc<Mutex<Calls>> = Arc::default();
    let log = Arc::clone(&seen);
    let tool = TypedTool::<Empty, i64, N>::resumable(
        "count",
        "",
        move |ctx: ToolContext, _: Empty, resume: Option<N>| {
            let log = Arc::clone(&log);
            async move {
                let fresh = resume.is_none();
                log.lock()
                    .unwrap()
                    .push((resume, ctx.resume_data::<Value>()));
                if fresh {
                    return Err(ctx.interrupt_bare());
                }
                Ok(5)
            }
        },
    )
    .unwrap();
    let model = ScriptedModel::new()
        .then_message(vec![call("count", "c", json!({}))])
        .then_text("ok");
    let agent = Agent::new(model).tool(tool.clone());
    let first = block_on(agent.generate(vec![Message::user("go")])).unwrap();
    let restart = tool
        .interrupted(first.interrupts()[0])
        .unwrap()
        .restart(N { n: 5 });
    block_on(agent.resume(first.history(), Resume::new().restart(restart))).unwrap();
    let seen = seen.lock().unwrap();
    assert_eq!(seen[1].0.as_ref().unwrap().n, 5);
    assert_eq!(seen[1].1, Some(json!({"n": 5})));
    assert!(seen[1].1.as_ref().unwrap()["n"].is_i64());
}

#[test]
fn a_completed_sibling_is_replayed_from_pending_output() {
    #[derive(Deserialize, JsonSchema)]
    struct Empty {}
    let runs = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&runs);
    let sibling = Tool::new("lookup", "", move |_: ToolContext, _: Empty| {
        let counter = Arc::clone(&counter);
        async move {
            counter.fetch_add(1, Ordering::SeqCst);
            Ok::<_, ToolError>(json!({"rows": 7}))
        }
    });
    let seen = Seen::default();
    let tool = transfer_tool(&seen);
    let model = ScriptedModel::new()
        .then_message(vec![
            call("transfer", "t", json!({"amount": 9})),
            call("lookup", "l", json!({})),
        ])
        .then_text("ok");
    let agent = Agent::new(model.clone()).tool(tool.clone()).tool(sibling);
    let first = block_on(agent.generate(vec![Message::user("go")])).unwrap();
    assert_eq!(first.interrupts().len(), 1);
    let pending = first.message.as_ref().unwrap().content[1]
        .as_tool_request()
        .unwrap()
        .pending
        .clone()
        .unwrap();
    assert_eq!(pending.output, Some(json!({"rows": 7})));
    let respond = tool
        .interrupted(first.interrupts()[0])
        .unwrap()
        .respond(Status {
            status: "ok".into(),
        });
    block_on(agent.resume(first.history(), Resume::new().respond(respond))).unwrap();
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    let tool_message = model.requests()[1].messages.last().cloned().unwrap();
    assert!(tool_message.content[1].is_pending_replay());
    assert_eq!(
        tool_message.content[1].as_tool_response().unwrap().output,
        Some(json!({"rows": 7}))
    );
    assert!(tool_message.content[0].is_interrupt_response());
}

#[test]
fn a_typed_tool_given_to_the_agent_is_registered_and_runs() {
    let seen = Seen::default();
    let tool = transfer_tool(&seen);
    let (_agent, _model, first) = interrupted_run(&tool);
    assert_eq!(seen.lock().unwrap().len(), 1);
    assert_eq!(first.interrupts().len(), 1);
}

#[test]
fn the_definition_carries_the_resume_schema() {
    let seen = Seen::default();
    let tool = transfer_tool(&seen);
    let definition = tool.tool().definition();
    let resume = definition.resume_schema.as_ref().unwrap();
    assert_eq!(resume["type"], json!("object"));
    assert!(resume["properties"]["approved"].is_object());
    let plain = question_tool();
    assert_eq!(
        plain.tool().definition().resume_schema,
        Some(json!({"type": "object"}))
    );
    assert_eq!(
        definition.output_schema.as_ref().unwrap()["properties"]["status"]["type"],
        json!("string")
    );
}

#[test]
fn unanswered_requests_fail_the_resume_naming_them() {
    let seen = Seen::default();
    let tool = transfer_tool(&seen);
    let (agent, _model, first) = interrupted_run(&tool);
    let err = block_on(agent.resume(first.history(), Resume::new())).unwrap_err();
    assert!(err.to_string().contains("\"transfer#t1\""), "{err}");
    let err = block_on(agent.resume(vec![], Resume::new())).unwrap_err();
    assert!(err.to_string().contains("no messages"));
    let err = block_on(agent.resume(vec![Message::user("x")], Resume::new())).unwrap_err();
    assert!(err.to_string().contains("last message is by the model"));
}

/// What the round trip's run submits.
#[derive(Debug, PartialEq, Serialize, Deserialize, JsonSchema, submit_result::SubmitResult)]
struct Paid {
    /// The amount paid.
    paid: u64,
}

#[test]
fn round_trip_stored_interrupt_resumes_in_a_fresh_agent_and_commits() {
    #[derive(Deserialize, JsonSchema)]
    struct Empty {}
    let sibling_runs = Arc::new(AtomicUsize::new(0));
    let build = |model: ScriptedModel, seen: &Seen| {
        let counter = Arc::clone(&sibling_runs);
        let sibling = Tool::new("lookup", "", move |_: ToolContext, _: Empty| {
            let counter = Arc::clone(&counter);
            async move {
                counter.fetch_add(1, Ordering::SeqCst);
                Ok::<_, ToolError>(json!({"rows": 7}))
            }
        });
        let tool = transfer_tool(seen);
        let agent = Agent::new(model).tool(tool.clone()).tool(sibling);
        let submit = submit_core::SubmitTool::<Paid>::for_response().unwrap();
        (Executor::<Paid>::new(agent, submit).unwrap(), tool)
    };

    // First process: the run stops on two interrupts and one completed sibling.
    let seen_before = Seen::default();
    let model = ScriptedModel::new().then_message(vec![
        call("transfer", "a", json!({"amount": 100})),
        call("transfer", "b", json!({"amount": 900})),
        call("lookup", "l", json!({})),
    ]);
    let (executor, _) = build(model, &seen_before);
    let Execution::Interrupted(paused) =
        block_on(executor.run(vec![Message::user("pay")])).unwrap()
    else {
        panic!("expected an interrupt");
    };
    let stored = serde_json::to_string(&paused.history()).unwrap();
    drop(executor);

    // Second process: read the state back and answer one interrupt each way.
    let history: Vec<Message> = serde_json::from_str(&stored).unwrap();
    let seen_after = Seen::default();
    let model = ScriptedModel::new().then_message(vec![Part::tool_request(
        "submit_result",
        None,
        json!({"reasoning": "both handled", "result": {"paid": 100}}),
    )]);
    let (executor, tool) = build(model.clone(), &seen_after);
    let last = history.last().unwrap();
    let interrupted: Vec<&Part> = last.content.iter().filter(|p| p.is_interrupt()).collect();
    assert_eq!(interrupted.len(), 2);
    let a = tool.interrupted(interrupted[0]).unwrap();
    let b = tool.interrupted(interrupted[1]).unwrap();
    let resume = Resume::new()
        .restart(a.restart(Confirmation { approved: true }))
        .respond(b.respond(Status {
            status: "declined".into(),
        }));
    let done = block_on(executor.resume(history, resume))
        .unwrap()
        .committed()
        .unwrap();

    assert_eq!(done.response, Paid { paid: 100 });
    assert_eq!(sibling_runs.load(Ordering::SeqCst), 1, "sibling ran again");
    assert_eq!(seen_after.lock().unwrap().len(), 1, "only the restart ran");
    // The model saw each of the three responses exactly once, in request order.
    let request = &model.requests()[0];
    let responses: Vec<_> = request
        .messages
        .iter()
        .flat_map(|m| m.tool_responses())
        .map(|r| (r.reference.clone().unwrap(), r.output.clone().unwrap()))
        .collect();
    assert_eq!(
        responses,
        [
            ("a".to_owned(), json!({"status": "done"})),
            ("b".to_owned(), json!({"status": "declined"})),
            ("l".to_owned(), json!({"rows": 7})),
        ]
    );
    // The resumed history marks the interrupts resolved and keeps no pending output.
    let model_message = &request.messages[1];
    assert!(model_message
        .tool_requests()
        .all(|r| r.pending.is_none() && r.interrupt.as_ref().is_none_or(|i| i.resolved)));
}
