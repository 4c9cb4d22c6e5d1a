//! Tool approval (holds outside the allowlist, approving and denying restarts) and soft tool
//! errors (which errors reach the model, and which still fail the run).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use futures::executor::block_on;
use futures::FutureExt;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use submit_agent::{
    hook::{tool_hook_fn, ToolApproval, TOOL_APPROVAL},
    message::{Message, Part, PartKind},
    model::{FinishReason, ScriptedModel},
    run::{Agent, Resume, RunErrorKind, SoftToolErrors},
    tool::{Tool, ToolContext, ToolError, TypedTool},
};

#[derive(Deserialize, JsonSchema)]
struct Empty {}

fn ok_tool(name: &str, runs: &Arc<AtomicUsize>) -> Tool {
    let runs = Arc::clone(runs);
    let label = name.to_owned();
    Tool::new(name, "", move |_: ToolContext, _: Empty| {
        let runs = Arc::clone(&runs);
        let label = label.clone();
        async move {
            runs.fetch_add(1, Ordering::SeqCst);
            Ok::<_, ToolError>(format!("{label} ran"))
        }
    })
}

fn calls(names: &[&str]) -> Vec<Part> {
    names
        .iter()
        .enumerate()
        .map(|(i, n)| Part::tool_request(*n, Some(format!("{}", i + 1)), json!({})))
        .collect()
}

fn outputs_seen(model: &ScriptedModel, request: usize) -> Vec<Value> {
    model.requests()[request]
        .messages
        .last()
        .unwrap()
        .tool_responses()
        .map(|r| r.output.clone().unwrap())
        .collect()
}

#[test]
fn allowlisted_tools_run_without_interrupts() {
    let runs = Arc::new(AtomicUsize::new(0));
    let model = ScriptedModel::new()
        .then_message(calls(&["read", "list"]))
        .then_text("done");
    let agent = Agent::new(model)
        .hook(ToolApproval::new(["read", "list"]))
        .tool(ok_tool("read", &runs))
        .tool(ok_tool("list", &runs));
    let done = block_on(agent.generate(vec![Message::user("go")])).unwrap();
    assert_eq!(done.finish_reason, FinishReason::Stop);
    assert_eq!(runs.load(Ordering::SeqCst), 2);
}

#[test]
fn only_the_tool_outside_the_allowlist_is_held() {
    let runs = Arc::new(AtomicUsize::new(0));
    let model = ScriptedModel::new().then_message(calls(&["read", "delete"]));
    let agent = Agent::new(model)
        .hook(ToolApproval::new(["read"]))
        .tool(ok_tool("read", &runs))
        .tool(ok_tool("delete", &runs));
    let paused = block_on(agent.generate(vec![Message::user("go")])).unwrap();
    assert_eq!(paused.finish_reason, FinishReason::Interrupted);
    let held = paused.interrupts();
    assert_eq!(held.len(), 1);
    let request = held[0].as_tool_request().unwrap();
    assert_eq!(request.name, "delete");
    let interrupt = request.interrupt.as_ref().unwrap();
    assert_eq!(interrupt.raised_by.as_deref(), Some(TOOL_APPROVAL));
    assert_eq!(
        Value::Object(interrupt.data.clone().unwrap()),
        json!({"message": "Tool not in approved list: delete"})
    );
    assert_eq!(runs.load(Ordering::SeqCst), 1);
}

#[test]
fn an_empty_allowlist_holds_everything() {
    let runs = Arc::new(AtomicUsize::new(0));
    let model = ScriptedModel::new().then_message(calls(&["read"]));
    let agent = Agent::new(model)
        .hook(ToolApproval::new(Vec::<String>::new()))
        .tool(ok_tool("read", &runs));
    let paused = block_on(agent.generate(vec![Message::user("go")])).unwrap();
    assert_eq!(paused.finish_reason, FinishReason::Interrupted);
    assert_eq!(runs.load(Ordering::SeqCst), 0);
}

fn held_run(runs: &Arc<AtomicUsize>) -> (Agent, ScriptedModel, submit_agent::run::Response) {
    let model = ScriptedModel::new()
        .then_message(calls(&["delete"]))
        .then_text("done");
    let agent = Agent::new(model.clone())
        .hook(ToolApproval::new(["read"]))
        .tool(ok_tool("delete", runs));
    let paused = block_on(agent.generate(vec![Message::user("go")])).unwrap();
    (agent, model, paused)
}

#[test]
fn an_approving_restart_runs_the_tool_typed_or_raw() {
    for raw in [false, true] {
        let runs = Arc::new(AtomicUsize::new(0));
        let (agent, model, paused) = held_run(&runs);
        let restart = if raw {
            let mut wire = serde_json::to_value(paused.interrupts()[0]).unwrap();
            wire["metadata"]["resumed"] = json!({"toolApproved": true});
            serde_json::from_value(wire).unwrap()
        } else {
            paused.interrupts()[0]
                .to_tool_restart(Some(json!({"toolApproved": true})))
                .unwrap()
        };
        let done =
            block_on(agent.resume(paused.history(), Resume::new().restart(restart))).unwrap();
        assert_eq!(done.text(), "done");
        assert_eq!(runs.load(Ordering::SeqCst), 1);
        assert_eq!(outputs_seen(&model, 1), [json!("delete ran")]);
    }
}

#[test]
fn after_approval_the_tool_may_ask_its_own_question() {
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
    struct Answer {
        yes: bool,
    }
    let seen: Arc<Mutex<Vec<Option<Answer>>>> = Arc::default();
    let log = Arc::clone(&seen);
    let tool = TypedTool::<Empty, String, Answer>::resumable(
        "delete",
        "",
        move |ctx: ToolContext, _: Empty, resume: Option<Answer>| {
            let log = Arc::clone(&log);
            async move {
                log.lock().unwrap().push(resume.clone());
                match resume {
                    None => Err(ctx.interrupt(json!({"question": "really?"}))),
                    Some(a) => Ok(format!("deleted: {}", a.yes)),
                }
            }
        },
    )
    .unwrap();
    let model = ScriptedModel::new()
        .then_message(calls(&["delete"]))
        .then_text("done");
    let agent = Agent::new(model.clone())
        .hook(ToolApproval::new(Vec::<String>::new()))
        .tool(tool.clone());
    let paused = block_on(agent.generate(vec![Message::user("go")])).unwrap();
    let approve = paused.interrupts()[0]
        .to_tool_restart(Some(json!({"toolApproved": true})))
        .unwrap();
    let err = block_on(agent.resume(paused.history(), Resume::new().restart(approve))).unwrap_err();
    assert_eq!(err.kind, RunErrorKind::InterruptedOnResume);
    let asked = err.partial.unwrap();
    let claimed = tool.interrupted(asked.interrupts()[0]).unwrap();
    let done = block_on(agent.resume(
        asked.history(),
        Resume::new().restart(claimed.restart(Answer { yes: true })),
    ))
    .unwrap();
    assert_eq!(done.text(), "done");
    assert_eq!(*seen.lock().unwrap(), [None, Some(Answer { yes: true })]);
    assert_eq!(outputs_seen(&model, 1), [json!("deleted: true")]);
}

#[test]
fn a_hold_without_its_stage_reads_false_or_bare_as_a_denial() {
    for (resume, approved) in [
        (Some(json!({"toolApproved": false})), false),
        (None, false),
        (Some(json!({"toolApproved": true})), true),
    ] {
        let runs = Arc::new(AtomicUsize::new(0));
        let (agent, model, paused) = held_run(&runs);
        let mut stripped = paused.history();
        let last = stripped.last_mut().unwrap();
        for part in &mut last.content {
            if let PartKind::ToolRequest(r) = &mut part.kind {
                r.interrupt.as_mut().unwrap().raised_by = None;
            }
        }
        let part = last.content[0].clone();
        let restart = part.to_tool_restart(resume).unwrap();
        let done = block_on(agent.resume(stripped, Resume::new().restart(restart))).unwrap();
        assert_eq!(done.text(), "done");
        let output = &outputs_seen(&model, 1)[0];
        if approved {
            assert_eq!(output, &json!("delete ran"));
        } else {
            assert!(output["error"]
                .as_str()
                .unwrap()
                .starts_with("the tool call was denied"));
        }
        assert_eq!(runs.load(Ordering::SeqCst), usize::from(approved));
    }
}

#[test]
fn any_struct_with_the_decisions_shape_approves() {
    #[derive(Serialize)]
    struct MyDecision {
        #[serde(rename = "toolApproved")]
        ok: bool,
    }
    let runs = Arc::new(AtomicUsize::new(0));
    let (agent, _model, paused) = held_run(&runs);
    let resume = serde_json::to_value(MyDecision { ok: true }).unwrap();
    let restart = paused.interrupts()[0]
        .to_tool_restart(Some(resume))
        .unwrap();
    block_on(agent.resume(paused.history(), Resume::new().restart(restart))).unwrap();
    assert_eq!(runs.load(Ordering::SeqCst), 1);
}

#[test]
fn leaving_a_hold_unanswered_names_the_call_and_the_middleware() {
    let runs = Arc::new(AtomicUsize::new(0));
    let ask = Tool::new("ask", "", |ctx: ToolContext, _: Empty| async move {
        Err::<(), _>(ctx.interrupt_bare())
    });
    let model = ScriptedModel::new().then_message(vec![
        Part::tool_request("held", Some("1".into()), json!({})),
        Part::tool_request("ask", Some("2".into()), json!({})),
    ]);
    let agent = Agent::new(model)
        .hook(ToolApproval::new(["ask"]))
        .tool(ok_tool("held", &runs))
        .tool(ask);
    let paused = block_on(agent.generate(vec![Message::user("go")])).unwrap();
    assert_eq!(paused.interrupts().len(), 2);
    let respond = paused.interrupts()[1]
        .to_tool_response(json!("yes"))
        .unwrap();
    let err = block_on(agent.resume(paused.history(), Resume::new().respond(respond))).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("\"held#1\""), "{text}");
    assert!(text.contains(TOOL_APPROVAL), "{text}");
}

#[test]
fn soft_errors_answer_tool_errors_and_unknown_tools() {
    let flaky = Tool::new("flaky", "", |_: ToolContext, _: Empty| async move {
        Err::<(), _>(ToolError::msg("upstream timeout"))
    });
    let model = ScriptedModel::new()
        .then_message(calls(&["flaky"]))
        .then_message(calls(&["missing"]))
        .then_message(calls(&["flaky"]))
        .then_text("done");
    let agent = Agent::new(model.clone())
        .tool(flaky)
        .soft_tool_errors(SoftToolErrors::all());
    let done = block_on(agent.generate(vec![Message::user("go")])).unwrap();
    assert_eq!(done.text(), "done");
    let answered: Vec<_> = (1..=3)
        .map(|i| outputs_seen(&model, i)[0].clone())
        .collect();
    assert_eq!(
        answered,
        [
            json!({"error": "upstream timeout"}),
            json!({"error": "tool \"missing\" not found"}),
            json!({"error": "upstream timeout"}),
        ]
    );
    let last = model.requests()[3].messages.last().cloned().unwrap();
    assert!(last.content[0].is_tool_error());
}

#[test]
fn uncovered_tools_still_fail_the_run() {
    let failing = |name: &str| {
        Tool::new(name, "", |_: ToolContext, _: Empty| async move {
            Err::<(), _>(ToolError::msg("boom"))
        })
    };
    let model = ScriptedModel::new()
        .then_message(calls(&["covered"]))
        .then_message(calls(&["uncovered"]))
        .then_text("never");
    let agent = Agent::new(model.clone())
        .tool(failing("covered"))
        .tool(failing("uncovered"))
        .soft_tool_errors(SoftToolErrors::only(["covered"]));
    let err = block_on(agent.generate(vec![Message::user("go")])).unwrap_err();
    assert_eq!(
        err.kind,
        RunErrorKind::ToolFailed {
            name: "uncovered".into(),
            error: "boom".into()
        }
    );
    assert_eq!(model.requests().len(), 2);
    assert_eq!(outputs_seen(&model, 1), [json!({"error": "boom"})]);
}

#[test]
fn two_policies_combine() {
    let failing = |name: &str| {
        Tool::new(name, "", |_: ToolContext, _: Empty| async move {
            Err::<(), _>(ToolError::msg("boom"))
        })
    };
    let model = ScriptedModel::new()
        .then_message(calls(&["a", "b"]))
        .then_text("done");
    let agent = Agent::new(model.clone())
        .tool(failing("a"))
        .tool(failing("b"))
        .soft_tool_errors(SoftToolErrors::only(["a"]))
        .soft_tool_errors(SoftToolErrors::only(["b"]));
    let done = block_on(agent.generate(vec![Message::user("go")])).unwrap();
    assert_eq!(done.text(), "done");
    assert_eq!(
        outputs_seen(&model, 1),
        [json!({"error": "boom"}), json!({"error": "boom"})]
    );
}

#[test]
fn interrupts_are_never_softened() {
    let runs = Arc::new(AtomicUsize::new(0));
    let model = ScriptedModel::new().then_message(calls(&["read"]));
    let agent = Agent::new(model)
        .soft_tool_errors(SoftToolErrors::all())
        .hook(ToolApproval::new(Vec::<String>::new()))
        .tool(ok_tool("read", &runs));
    let paused = block_on(agent.generate(vec![Message::user("go")])).unwrap();
    assert_eq!(paused.finish_reason, FinishReason::Interrupted);
}

#[test]
fn an_error_a_hook_makes_in_place_of_the_tools_stays_hard_but_a_hook_fail_is_answered() {
    let replace = tool_hook_fn("replace", |_ctx, call, next| {
        async move {
            match next.run(call).await {
                Err(_) => Err(ToolError::msg("hook made this")),
                ok => ok,
            }
        }
        .boxed()
    });
    let failing = Tool::new("t", "", |_: ToolContext, _: Empty| async move {
        Err::<(), _>(ToolError::msg("tool error"))
    });
    let model = ScriptedModel::new().then_message(calls(&["t"]));
    let err = block_on(
        Agent::new(model)
            .hook(replace)
            .tool(failing.clone())
            .soft_tool_errors(SoftToolErrors::all())
            .generate(vec![Message::user("go")]),
    )
    .unwrap_err();
    assert!(err.to_string().contains("hook made this"));

    let fail_hook = tool_hook_fn("deny", |ctx, _call, _next| {
        async move { Err(ctx.fail_message("not today")) }.boxed()
    });
    let model = ScriptedModel::new()
        .then_message(calls(&["t"]))
        .then_text("done");
    block_on(
        Agent::new(model.clone())
            .hook(fail_hook)
            .tool(failing)
            .generate(vec![Message::user("go")]),
    )
    .unwrap();
    assert_eq!(outputs_seen(&model, 1), [json!({"error": "not today"})]);
}

#[test]
fn a_wrapped_tool_error_is_still_the_tools_own_and_answered_in_full() {
    let wrap = tool_hook_fn("wrap", |_ctx, call, next| {
        async move {
            next.run(call)
                .await
                .map_err(|e| e.context("while wrapping"))
        }
        .boxed()
    });
    let failing = Tool::new("t", "", |_: ToolContext, _: Empty| async move {
        Err::<(), _>(ToolError::msg("disk full"))
    });
    let model = ScriptedModel::new()
        .then_message(calls(&["t"]))
        .then_text("done");
    block_on(
        Agent::new(model.clone())
            .hook(wrap)
            .tool(failing)
            .soft_tool_errors(SoftToolErrors::all())
            .generate(vec![Message::user("go")]),
    )
    .unwrap();
    assert_eq!(
        outputs_seen(&model, 1),
        [json!({"error": "while wrapping: disk full"})]
    );
}
