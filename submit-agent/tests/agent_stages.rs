//! Restart delivery to the raising stage and the released rule (which hooks see a restart as
//! released, which as a fresh call), and hook order.

use std::sync::{Arc, Mutex};

use futures::executor::block_on;
use futures::FutureExt;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use submit_agent::{
    hook::{tool_hook_fn, ToolHook},
    message::{Message, Part},
    model::ScriptedModel,
    run::{Agent, Response, Resume, RunErrorKind},
    tool::{ToolContext, ToolError, TypedTool},
};

type Log = Arc<Mutex<Vec<&'static str>>>;

#[derive(Deserialize)]
struct GateAnswer {
    ok: bool,
}

/// Holds the call unless released or answered with `{"ok": true}`.
fn gate(name: &'static str, log: &Log) -> impl ToolHook {
    let log = Arc::clone(log);
    tool_hook_fn(name, move |ctx, call, next| {
        let log = Arc::clone(&log);
        async move {
            if ctx.released() {
                log.lock().unwrap().push("released");
                return next.run(call).await;
            }
            if let Some(answer) = ctx.resume_data::<GateAnswer>() {
                if answer.ok {
                    log.lock().unwrap().push("answered");
                    return next.run(call).await;
                }
            }
            log.lock().unwrap().push("held");
            Err(ctx.interrupt(json!({"gate": "hold"})))
        }
        .boxed()
    })
}

#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
struct Pay {
    amount: i64,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
struct Approved {
    approved: bool,
}

type ToolSeen = Arc<Mutex<Vec<Option<Approved>>>>;

fn pay_tool(seen: &ToolSeen) -> TypedTool<Pay, String, Approved> {
    let seen = Arc::clone(seen);
    TypedTool::resumable(
        "pay",
        "",
        move |ctx: ToolContext, _p: Pay, resume: Option<Approved>| {
            let seen = Arc::clone(&seen);
            async move {
                seen.lock().unwrap().push(resume.clone());
                match resume {
                    Some(a) if a.approved => Ok("paid".to_owned()),
                    _ => Err(ctx.interrupt(json!({"tool": "confirm"}))),
                }
            }
        },
    )
    .unwrap()
}

fn model() -> ScriptedModel {
    ScriptedModel::new()
        .then_message(vec![Part::tool_request(
            "pay",
            Some("p".into()),
            json!({"amount": 5}),
        )])
        .then_text("done")
}

fn interrupt_of(response: &Response) -> (Option<String>, Vec<String>) {
    let part = response.interrupts()[0];
    let i = part.as_tool_request().unwrap().interrupt.clone().unwrap();
    (i.raised_by, i.released_by)
}

fn answer(response: &Response, resume: Value) -> Resume {
    Resume::new().restart(
        response.interrupts()[0]
            .to_tool_restart(Some(resume))
            .unwrap(),
    )
}

/// The gate's hold answered; the tool interrupts on its own. Returns the partial response.
fn through_the_gate(agent: &Agent) -> Response {
    let first = block_on(agent.generate(vec![Message::user("go")])).unwrap();
    let err =
        block_on(agent.resume(first.history(), answer(&first, json!({"ok": true})))).unwrap_err();
    assert_eq!(err.kind, RunErrorKind::InterruptedOnResume);
    *err.partial.unwrap()
}

#[test]
fn a_hook_hold_records_the_hook_and_is_not_the_tools_to_claim() {
    let log = Log::default();
    let seen = ToolSeen::default();
    let tool = pay_tool(&seen);
    let agent = Agent::new(model())
        .hook(gate("inline", &log))
        .tool(tool.clone());
    let first = block_on(agent.generate(vec![Message::user("go")])).unwrap();
    assert_eq!(interrupt_of(&first), (Some("inline".into()), vec![]));
    assert!(tool.interrupted(first.interrupts()[0]).is_none());
    assert!(seen.lock().unwrap().is_empty());
}

#[test]
fn answering_the_hold_runs_the_tool_fresh() {
    let log = Log::default();
    let seen = ToolSeen::default();
    let agent = Agent::new(model())
        .hook(gate("inline", &log))
        .tool(pay_tool(&seen));
    let partial = through_the_gate(&agent);
    assert_eq!(*log.lock().unwrap(), ["held", "answered"]);
    assert_eq!(*seen.lock().unwrap(), [None]);
    assert_eq!(interrupt_of(&partial).0, None);
}

#[test]
fn answering_the_tool_releases_the_gate_also_after_a_json_hop() {
    for hop in [false, true] {
        let log = Log::default();
        let seen = ToolSeen::default();
        let m = model();
        let agent = Agent::new(m.clone())
            .hook(gate("inline", &log))
            .tool(pay_tool(&seen));
        let partial = through_the_gate(&agent);
        let mut history = partial.history();
        if hop {
            history = serde_json::from_str(&serde_json::to_string(&history).unwrap()).unwrap();
        }
        let last = history.last().unwrap().clone();
        let part = last.content.iter().find(|p| p.is_interrupt()).unwrap();
        let resume = Resume::new().restart(
            part.to_tool_restart(Some(json!({"approved": true})))
                .unwrap(),
        );
        let done = block_on(agent.resume(history, resume)).unwrap();
        assert_eq!(done.text(), "done");
        assert_eq!(*log.lock().unwrap(), ["held", "answered", "released"]);
        assert_eq!(
            seen.lock().unwrap().last().unwrap(),
            &Some(Approved { approved: true })
        );
    }
}

#[test]
fn two_gates_hold_in_turn_with_numbered_ids() {
    let a = Log::default();
    let b = Log::default();
    let seen = ToolSeen::default();
    let agent = Agent::new(model())
        .hook(gate("inline", &a))
        .hook(gate("inline", &b))
        .tool(pay_tool(&seen));
    let first = block_on(agent.generate(vec![Message::user("go")])).unwrap();
    assert_eq!(interrupt_of(&first).0.as_deref(), Some("inline"));
    let err =
        block_on(agent.resume(first.history(), answer(&first, json!({"ok": true})))).unwrap_err();
    let second = err.partial.unwrap();
    assert_eq!(
        interrupt_of(&second),
        (Some("inline#2".into()), vec!["inline".into()])
    );
    let err =
        block_on(agent.resume(second.history(), answer(&second, json!({"ok": true})))).unwrap_err();
    let third = err.partial.unwrap();
    assert_eq!(
        interrupt_of(&third),
        (None, vec!["inline".into(), "inline#2".into()])
    );
    block_on(agent.resume(third.history(), answer(&third, json!({"approved": true})))).unwrap();
    assert_eq!(
        *a.lock().unwrap(),
        ["held", "answered", "released", "released"]
    );
    assert_eq!(*b.lock().unwrap(), ["held", "answered", "released"]);
}

#[test]
fn the_tools_own_interrupt_records_the_gate_as_released() {
    let log = Log::default();
    let seen = ToolSeen::default();
    let agent = Agent::new(model())
        .hook(gate("inline", &log))
        .tool(pay_tool(&seen));
    let partial = through_the_gate(&agent);
    assert_eq!(interrupt_of(&partial), (None, vec!["inline".into()]));
}

#[test]
fn a_gate_added_since_holds_the_restart() {
    let log = Log::default();
    let seen = ToolSeen::default();
    let m = model();
    let agent = Agent::new(m.clone())
        .hook(gate("inline", &log))
        .tool(pay_tool(&seen));
    let partial = through_the_gate(&agent);
    let newcomer = Log::default();
    let extended = Agent::new(m)
        .hook(gate("inline", &log))
        .hook(gate("newcomer", &newcomer))
        .tool(pay_tool(&seen));
    let err = block_on(extended.resume(
        partial.history(),
        answer(&partial, json!({"approved": true})),
    ))
    .unwrap_err();
    assert_eq!(err.kind, RunErrorKind::InterruptedOnResume);
    assert_eq!(*newcomer.lock().unwrap(), ["held"]);
    assert_eq!(log.lock().unwrap().last(), Some(&"released"));
}

#[test]
fn a_restart_that_replaces_the_input_is_held_again() {
    let log = Log::default();
    let seen = ToolSeen::default();
    let agent = Agent::new(model())
        .hook(gate("inline", &log))
        .tool(pay_tool(&seen));
    let partial = through_the_gate(&agent);
    let restart = partial.interrupts()[0]
        .to_tool_restart_with_input(json!({"amount": 1}), Some(json!({"approved": true})))
        .unwrap();
    let err =
        block_on(agent.resume(partial.history(), Resume::new().restart(restart))).unwrap_err();
    assert_eq!(err.kind, RunErrorKind::InterruptedOnResume);
    assert_eq!(*log.lock().unwrap(), ["held", "answered", "held"]);
    assert_eq!(
        interrupt_of(&err.partial.unwrap()).0.as_deref(),
        Some("inline")
    );
}

#[test]
fn parts_attached_around_next_land_in_call_order() {
    let hook = tool_hook_fn("wrap", |ctx, call, next| {
        async move {
            ctx.attach_parts([Part::text("before")]);
            let out = next.run(call).await;
            ctx.attach_parts([Part::text("after")]);
            out
        }
        .boxed()
    });
    #[derive(Deserialize, JsonSchema)]
    struct Empty {}
    let tool = TypedTool::<Empty, ()>::new("t", "", |ctx: ToolContext, _| async move {
        ctx.attach_parts([Part::text("tool")]);
        Ok::<_, ToolError>(())
    });
    let m = ScriptedModel::new()
        .then_message(vec![Part::tool_request("t", None, json!({}))])
        .then_text("ok");
    block_on(
        Agent::new(m.clone())
            .hook(hook)
            .tool(tool)
            .generate(vec![Message::user("go")]),
    )
    .unwrap();
    let tool_message = m.requests()[1].messages.last().cloned().unwrap();
    let texts: Vec<_> = tool_message.content[0]
        .as_tool_response()
        .unwrap()
        .content
        .iter()
        .filter_map(Part::as_text)
        .map(str::to_owned)
        .collect();
    assert_eq!(texts, ["before", "tool", "after"]);
}

#[test]
fn the_first_hook_is_outermost() {
    let log = Log::default();
    let step = |name: &'static str, before: &'static str, after: &'static str| {
        let log = Arc::clone(&log);
        tool_hook_fn(name, move |_ctx, call, next| {
            let log = Arc::clone(&log);
            async move {
                log.lock().unwrap().push(before);
                let out = next.run(call).await;
                log.lock().unwrap().push(after);
                out
            }
            .boxed()
        })
    };
    #[derive(Deserialize, JsonSchema)]
    struct Empty {}
    let tool = TypedTool::<Empty, ()>::new("t", "", |_ctx: ToolContext, _| async move {
        Ok::<_, ToolError>(())
    });
    let m = ScriptedModel::new()
        .then_message(vec![Part::tool_request("t", None, json!({}))])
        .then_text("ok");
    block_on(
        Agent::new(m)
            .hook(step("a", "a-before", "a-after"))
            .hook(step("b", "b-before", "b-after"))
            .tool(tool)
            .generate(vec![Message::user("go")]),
    )
    .unwrap();
    assert_eq!(
        *log.lock().unwrap(),
        ["a-before", "b-before", "b-after", "a-after"]
    );
}
