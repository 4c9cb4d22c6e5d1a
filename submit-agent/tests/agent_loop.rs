//! The loop (parallel calls, max turns, streamed chunks, restarts, external tools), panics,
//! and a 200-call stress round.

use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use futures::executor::{block_on, ThreadPool};
use futures::future::BoxFuture;
use futures::task::SpawnExt;
use futures::FutureExt;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use submit_agent::{
    hook::{tool_hook_fn, turn_hook_fn, ModelHook, ModelNext},
    message::{Chunk, Message, Part, Role},
    model::{FinishReason, ModelError, ModelRequest, ModelResponse, ScriptedModel},
    run::{Agent, Resume, RunErrorKind, SoftToolErrors},
    tool::{Tool, ToolContext, ToolError, ToolOutput},
};

#[derive(Deserialize, JsonSchema)]
struct Gablorken {
    value: i64,
}

fn gablorken() -> Tool {
    Tool::new("gablorken", "", |_: ToolContext, g: Gablorken| async move {
        Ok::<_, ToolError>(g.value * g.value + 1)
    })
}

fn call(name: &str, input: Value) -> Part {
    Part::tool_request(name, None, input)
}

fn outputs(message: &Message) -> Vec<Value> {
    message
        .tool_responses()
        .map(|r| r.output.clone().unwrap_or(Value::Null))
        .collect()
}

#[test]
fn parallel_calls_both_run_and_answer_in_order() {
    let model = ScriptedModel::new()
        .then_message(vec![
            call("gablorken", json!({"value": 2})),
            call("gablorken", json!({"value": 3})),
        ])
        .then_text("15");
    let done = block_on(
        Agent::new(model.clone())
            .tool(gablorken())
            .generate(vec![Message::user("sum")]),
    )
    .unwrap();
    assert_eq!(done.text(), "15");
    let tool_message = model.requests()[1].messages.last().cloned().unwrap();
    assert_eq!(outputs(&tool_message), [json!(5), json!(10)]);
    let refs: Vec<_> = tool_message
        .tool_responses()
        .map(|r| r.reference.clone().unwrap())
        .collect();
    assert_eq!(refs.len(), 2);
    assert_ne!(refs[0], refs[1]);
}

#[test]
fn max_turns_allows_that_many_rounds() {
    let model = ScriptedModel::new()
        .then_message(vec![call("gablorken", json!({"value": 1}))])
        .then_message(vec![call("gablorken", json!({"value": 2}))])
        .then_text("done");
    let done = block_on(
        Agent::new(model.clone())
            .tool(gablorken())
            .max_turns(2)
            .generate(vec![Message::user("go")]),
    )
    .unwrap();
    assert_eq!(done.text(), "done");
    assert_eq!(model.requests().len(), 3);
}

#[test]
fn one_round_too_many_fails_with_max_turns_exceeded() {
    let model = ScriptedModel::new().repeat_message(vec![call("gablorken", json!({"value": 1}))]);
    let err = block_on(
        Agent::new(model.clone())
            .tool(gablorken())
            .max_turns(2)
            .generate(vec![Message::user("go")]),
    )
    .unwrap_err();
    assert_eq!(err.kind, RunErrorKind::MaxTurnsExceeded(2));
    assert!(err
        .to_string()
        .contains("exceeded maximum tool call iterations (2)"));
    assert_eq!(model.requests().len(), 3);
    let partial = err.partial.unwrap();
    assert_eq!(partial.finish_reason, FinishReason::Aborted);
    // The history ends at a turn seam: user, then two complete rounds.
    assert_eq!(partial.messages.len(), 5);
}

#[derive(Deserialize, JsonSchema)]
struct Empty {}

#[test]
fn streaming_labels_model_and_tool_chunks_with_roles_and_indices() {
    let chunks: Arc<Mutex<Vec<Chunk>>> = Arc::default();
    let sink = Arc::clone(&chunks);
    let progress = Tool::new("progress", "", |ctx: ToolContext, _: Empty| async move {
        ctx.send_chunk(Chunk::new(None, vec![Part::text("working")]));
        Ok::<_, ToolError>("ok")
    });
    let model = ScriptedModel::new()
        .then_streamed(
            vec![Chunk::new(None, vec![Part::text("thinking")])],
            ModelResponse::new(Message::model(vec![call("progress", json!({}))])),
        )
        .then_streamed(
            vec![Chunk::new(Some(Role::Model), vec![Part::text("done")])],
            ModelResponse::new(Message::model(vec![Part::text("done")])),
        );
    block_on(
        Agent::new(model)
            .tool(progress)
            .stream(move |c| {
                sink.lock().unwrap().push(c);
                Ok(())
            })
            .generate(vec![Message::user("go")]),
    )
    .unwrap();
    let seen: Vec<(Option<Role>, usize, String)> = chunks
        .lock()
        .unwrap()
        .iter()
        .map(|c| {
            let what = c
                .content
                .first()
                .and_then(Part::as_text)
                .map_or("responses".to_owned(), str::to_owned);
            (c.role, c.index, what)
        })
        .collect();
    assert_eq!(
        seen,
        [
            (Some(Role::Model), 0, "thinking".to_owned()),
            (Some(Role::Tool), 1, "working".to_owned()),
            (Some(Role::Tool), 1, "responses".to_owned()),
            (Some(Role::Model), 2, "done".to_owned()),
        ]
    );
}

#[test]
fn two_hundred_chunks_from_two_concurrent_tools_all_arrive() {
    let chunks: Arc<Mutex<Vec<Chunk>>> = Arc::default();
    let sink = Arc::clone(&chunks);
    let chatty = Tool::new("chatty", "", |ctx: ToolContext, _: Empty| async move {
        for i in 0..100 {
            ctx.send_chunk(Chunk::new(None, vec![Part::text(format!("{i}"))]));
        }
        Ok::<_, ToolError>(())
    });
    let model = ScriptedModel::new()
        .then_message(vec![call("chatty", json!({})), call("chatty", json!({}))])
        .then_text("done");
    block_on(
        Agent::new(model)
            .tool(chatty)
            .stream(move |c| {
                sink.lock().unwrap().push(c);
                Ok(())
            })
            .generate(vec![Message::user("go")]),
    )
    .unwrap();
    let tool_chunks = chunks
        .lock()
        .unwrap()
        .iter()
        .filter(|c| c.role == Some(Role::Tool) && c.content.len() == 1)
        .filter(|c| c.content[0].as_text().is_some())
        .count();
    assert_eq!(tool_chunks, 200);
}

#[test]
fn a_hook_turning_a_validation_error_into_output_lets_the_loop_continue() {
    let to_output = tool_hook_fn("validation-to-output", |_ctx, call, next| {
        async move {
            match next.run(call).await {
                Err(e) if e.to_string().contains("does not match its schema") => {
                    Ok(ToolOutput::value(json!({"invalid": e.to_string()})))
                }
                other => other,
            }
        }
        .boxed()
    });
    let model = ScriptedModel::new()
        .then_message(vec![call("gablorken", json!({"value": "two"}))])
        .then_message(vec![call("gablorken", json!({"value": 2}))])
        .then_text("5");
    let done = block_on(
        Agent::new(model.clone())
            .hook(to_output)
            .tool(gablorken())
            .generate(vec![Message::user("go")]),
    )
    .unwrap();
    assert_eq!(done.text(), "5");
    assert!(model.requests().len() >= 3);
    let first_answer = model.requests()[1].messages.last().cloned().unwrap();
    assert!(outputs(&first_answer)[0]["invalid"]
        .as_str()
        .unwrap()
        .contains("value"));
}

struct LogModel(Arc<Mutex<Vec<String>>>);

impl ModelHook for LogModel {
    fn wrap_model<'a>(
        &'a self,
        request: ModelRequest,
        next: ModelNext<'a>,
    ) -> BoxFuture<'a, Result<ModelResponse, ModelError>> {
        self.0.lock().unwrap().push("model".into());
        next.run(request)
    }
}

#[test]
fn a_restart_runs_inside_turn_zero_before_the_next_model_call() {
    let log: Arc<Mutex<Vec<String>>> = Arc::default();
    let tool_log = Arc::clone(&log);
    let ask = Tool::new("ask", "", move |ctx: ToolContext, _: Empty| {
        let log = Arc::clone(&tool_log);
        async move {
            if ctx.resume_object().is_none() {
                return Err(ctx.interrupt_bare());
            }
            log.lock().unwrap().push("tool".into());
            Ok::<_, ToolError>("answered")
        }
    });
    let turn_log = Arc::clone(&log);
    let model = ScriptedModel::new()
        .then_message(vec![call("ask", json!({}))])
        .then_text("done");
    let agent = Agent::new(model)
        .tool(ask)
        .turn_hook(turn_hook_fn(move |info, next| {
            turn_log
                .lock()
                .unwrap()
                .push(format!("generate {}", info.turn));
            next
        }))
        .model_hook(LogModel(Arc::clone(&log)));
    let paused = block_on(agent.generate(vec![Message::user("go")])).unwrap();
    log.lock().unwrap().clear();
    let restart = paused.interrupts()[0].to_tool_restart(None).unwrap();
    block_on(agent.resume(paused.history(), Resume::new().restart(restart))).unwrap();
    assert_eq!(
        *log.lock().unwrap(),
        ["generate 0", "tool", "generate 1", "model"]
    );
}

#[test]
fn an_error_result_from_an_external_tool_reaches_the_model_and_a_transport_error_stops() {
    // An adapter for an external tool protocol: a result flagged as an error becomes a fail
    // (the model reads its text); a protocol failure stays a hard error.
    #[derive(Deserialize, JsonSchema)]
    struct Remote {
        transport_ok: bool,
    }
    let remote = Tool::new("remote", "", |ctx: ToolContext, r: Remote| async move {
        if !r.transport_ok {
            return Err(ToolError::msg("connection reset"));
        }
        let result = json!({"isError": true, "text": "no such file"});
        if result["isError"] == json!(true) {
            return Err(ctx.fail_message(result["text"].as_str().unwrap_or_default()));
        }
        Ok(result)
    });
    let model = ScriptedModel::new()
        .then_message(vec![call("remote", json!({"transport_ok": true}))])
        .then_message(vec![call("remote", json!({"transport_ok": false}))]);
    let err = block_on(
        Agent::new(model.clone())
            .tool(remote)
            .generate(vec![Message::user("go")]),
    )
    .unwrap_err();
    let answered = model.requests()[1].messages.last().cloned().unwrap();
    assert_eq!(outputs(&answered), [json!({"error": "no such file"})]);
    assert!(answered.content[0].is_tool_error());
    assert!(err.to_string().contains("connection reset"));
}

#[test]
fn a_panicking_tool_is_a_tool_error_not_a_crashed_loop() {
    let explode = Tool::new("explode", "", |_: ToolContext, _: Empty| async move {
        if true {
            panic!("kaboom");
        }
        Ok::<_, ToolError>(())
    });
    let model = ScriptedModel::new().then_message(vec![call("explode", json!({}))]);
    let err = block_on(
        Agent::new(model)
            .tool(explode.clone())
            .generate(vec![Message::user("go")]),
    )
    .unwrap_err();
    assert_eq!(
        err.kind,
        RunErrorKind::ToolFailed {
            name: "explode".into(),
            error: "tool panicked: kaboom".into()
        }
    );

    let model = ScriptedModel::new()
        .then_message(vec![call("explode", json!({}))])
        .then_text("recovered");
    let done = block_on(
        Agent::new(model)
            .tool(explode)
            .soft_tool_errors(SoftToolErrors::all())
            .generate(vec![Message::user("go")]),
    )
    .unwrap();
    assert_eq!(done.text(), "recovered");
}

#[test]
fn input_is_validated_against_the_schema_before_the_tool_runs() {
    let runs = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&runs);
    let strict = Tool::new("strict", "", move |_: ToolContext, g: Gablorken| {
        counter.fetch_add(1, Ordering::SeqCst);
        async move { Ok::<_, ToolError>(g.value) }
    });
    let model = ScriptedModel::new().then_message(vec![call("strict", json!({"value": "x"}))]);
    let err = block_on(
        Agent::new(model)
            .tool(strict)
            .generate(vec![Message::user("go")]),
    )
    .unwrap_err();
    assert!(err.to_string().contains("input does not match its schema"));
    assert_eq!(runs.load(Ordering::SeqCst), 0);
}

#[test]
fn a_duplicate_tool_is_a_configuration_error() {
    let err = block_on(
        Agent::new(ScriptedModel::new())
            .tool(gablorken())
            .tool(gablorken())
            .generate(vec![Message::user("go")]),
    )
    .unwrap_err();
    assert!(matches!(err.kind, RunErrorKind::Config(_)));
}

#[test]
fn a_hard_error_wins_over_an_interrupt_in_the_same_round() {
    let ask = Tool::new("ask", "", |ctx: ToolContext, _: Empty| async move {
        Err::<(), _>(ctx.interrupt_bare())
    });
    let broken = Tool::new("broken", "", |_: ToolContext, _: Empty| async move {
        Err::<(), _>(ToolError::msg("db down"))
    });
    let model =
        ScriptedModel::new().then_message(vec![call("ask", json!({})), call("broken", json!({}))]);
    let err = block_on(
        Agent::new(model)
            .tool(ask)
            .tool(broken)
            .generate(vec![Message::user("go")]),
    )
    .unwrap_err();
    assert!(matches!(err.kind, RunErrorKind::ToolFailed { .. }));
    assert_eq!(err.partial.unwrap().messages.len(), 1);
}

#[derive(Serialize, Deserialize, JsonSchema)]
struct Job {
    n: usize,
}

#[test]
fn stress_two_hundred_calls_attach_and_stream_from_spawned_tasks() {
    let pool = ThreadPool::builder().pool_size(4).create().unwrap();
    let chunks: Arc<Mutex<Vec<Chunk>>> = Arc::default();
    let sink = Arc::clone(&chunks);
    let work = Tool::new("work", "", move |ctx: ToolContext, job: Job| {
        let pool = pool.clone();
        async move {
            let handles: Vec<_> = (0..3)
                .map(|k| {
                    let ctx = ctx.clone();
                    pool.spawn_with_handle(async move {
                        ctx.attach_parts([Part::text(format!("{}:{k}", job.n))]);
                        ctx.send_chunk(Chunk::new(
                            None,
                            vec![Part::text(format!("{}:{k}", job.n))],
                        ));
                    })
                    .unwrap()
                })
                .collect();
            futures::future::join_all(handles).await;
            Ok::<_, ToolError>(job.n)
        }
    });
    let requests: Vec<Part> = (0..200).map(|n| call("work", json!({ "n": n }))).collect();
    let model = ScriptedModel::new()
        .then_message(requests)
        .then_text("all done");
    let done = block_on(
        Agent::new(model.clone())
            .tool(work)
            .stream(move |c| {
                sink.lock().unwrap().push(c);
                Ok(())
            })
            .generate(vec![Message::user("go")]),
    )
    .unwrap();
    assert_eq!(done.text(), "all done");
    let tool_message = model.requests()[1].messages.last().cloned().unwrap();
    let outs = outputs(&tool_message);
    assert_eq!(outs, (0..200).map(|n| json!(n)).collect::<Vec<_>>());
    for (n, response) in tool_message.tool_responses().enumerate() {
        let mut parts: Vec<_> = response
            .content
            .iter()
            .filter_map(Part::as_text)
            .map(str::to_owned)
            .collect();
        parts.sort();
        assert_eq!(
            parts,
            [format!("{n}:0"), format!("{n}:1"), format!("{n}:2")]
        );
    }
    let streamed: HashSet<String> = chunks
        .lock()
        .unwrap()
        .iter()
        .filter(|c| c.content.len() == 1)
        .filter_map(|c| c.content[0].as_text().map(str::to_owned))
        .filter(|t| t.contains(':'))
        .collect();
    assert_eq!(streamed.len(), 600);
}

#[test]
fn a_resumed_tool_message_is_streamed_before_the_next_model_call() {
    let chunks: Arc<Mutex<Vec<Chunk>>> = Arc::default();
    let sink = Arc::clone(&chunks);
    let ask = Tool::new("ask", "", |ctx: ToolContext, _: Empty| async move {
        match ctx.resume_object() {
            None => Err(ctx.interrupt_bare()),
            Some(_) => {
                ctx.send_chunk(Chunk::new(None, vec![Part::text("resuming")]));
                Ok::<_, ToolError>("answered")
            }
        }
    });
    let model = ScriptedModel::new()
        .then_message(vec![call("ask", json!({}))])
        .then_streamed(
            vec![Chunk::new(None, vec![Part::text("final")])],
            ModelResponse::new(Message::model(vec![Part::text("final")])),
        );
    let agent = Agent::new(model).tool(ask).stream(move |c| {
        sink.lock().unwrap().push(c);
        Ok(())
    });
    let paused = block_on(agent.generate(vec![Message::user("go")])).unwrap();
    chunks.lock().unwrap().clear();
    let restart = paused.interrupts()[0].to_tool_restart(None).unwrap();
    block_on(agent.resume(paused.history(), Resume::new().restart(restart))).unwrap();
    let seen: Vec<_> = chunks
        .lock()
        .unwrap()
        .iter()
        .map(|c| (c.role, c.index))
        .collect();
    assert_eq!(
        seen,
        [
            (Some(Role::Tool), 0),
            (Some(Role::Tool), 0),
            (Some(Role::Model), 1)
        ]
    );
}

#[test]
fn a_failing_stream_callback_after_a_round_fails_the_run() {
    let model = ScriptedModel::new()
        .then_message(vec![call("gablorken", json!({"value": 1}))])
        .then_text("never");
    let err = block_on(
        Agent::new(model)
            .tool(gablorken())
            .stream(|c| {
                if c.role == Some(Role::Tool) {
                    Err(submit_agent::model::StreamError("client gone".into()))
                } else {
                    Ok(())
                }
            })
            .generate(vec![Message::user("go")]),
    )
    .unwrap_err();
    assert_eq!(
        err.kind,
        RunErrorKind::Stream(submit_agent::model::StreamError("client gone".into()))
    );
}

/// A model's own error type, to find again through the run's error.
#[derive(Debug, PartialEq)]
struct QuotaError {
    project: String,
}

impl std::fmt::Display for QuotaError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "quota exhausted for {}", self.project)
    }
}

impl std::error::Error for QuotaError {}

#[test]
fn model_error_keeps_its_typed_source_through_the_run_error() {
    use std::error::Error as _;

    let model = submit_agent::model::model_fn(|_| {
        Err(ModelError::from_source(QuotaError {
            project: "atlas".into(),
        }))
    });
    let err = block_on(Agent::new(model).generate(vec![Message::user("go")])).unwrap_err();
    assert_eq!(
        err.kind,
        RunErrorKind::Model(ModelError::new("quota exhausted for atlas"))
    );
    assert_eq!(
        err.to_string(),
        "model call failed: quota exhausted for atlas"
    );
    let model_error = err
        .source()
        .and_then(|e| e.downcast_ref::<ModelError>())
        .expect("the run error's source is the model error");
    assert_eq!(
        model_error.downcast_ref::<QuotaError>(),
        Some(&QuotaError {
            project: "atlas".into()
        })
    );
    let typed = model_error
        .source()
        .and_then(|e| e.downcast_ref::<QuotaError>());
    assert_eq!(typed.map(|q| q.project.as_str()), Some("atlas"));
}

#[test]
fn a_plain_model_error_has_no_source() {
    use std::error::Error as _;

    let model = ScriptedModel::new().then_fail("service unavailable");
    let err = block_on(Agent::new(model).generate(vec![Message::user("go")])).unwrap_err();
    let model_error = err
        .source()
        .and_then(|e| e.downcast_ref::<ModelError>())
        .expect("the run error's source is the model error");
    assert_eq!(model_error.message(), "service unavailable");
    assert!(model_error.source().is_none());
    assert!(model_error.downcast_ref::<std::io::Error>().is_none());
}
