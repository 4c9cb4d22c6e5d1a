//! The per-call verbs of `ToolContext`: interrupt, fail, attach parts, original input, resume
//! data, send chunk.

use std::sync::{Arc, Mutex};

use futures::executor::{block_on, ThreadPool};
use futures::task::SpawnExt;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use submit_agent::{
    message::{Chunk, Message, Part, PartKind, Role},
    model::ScriptedModel,
    run::{Agent, Resume},
    tool::{Tool, ToolContext, ToolError, ToolOutput, TypedTool},
};

#[derive(Deserialize, JsonSchema)]
struct Empty {}

fn one_call(name: &str, input: Value) -> ScriptedModel {
    ScriptedModel::new()
        .then_message(vec![Part::tool_request(name, Some("1".into()), input)])
        .then_text("done")
}

/// The tool message the model received in its second request.
fn tool_message(model: &ScriptedModel) -> Message {
    let requests = model.requests();
    requests[1]
        .messages
        .last()
        .map(|m| Message::clone(m))
        .unwrap()
}

#[test]
fn interrupt_with_struct_data_is_an_object() {
    #[derive(Serialize)]
    struct Reason {
        reason: String,
    }
    let err = ToolContext::detached().interrupt(Reason {
        reason: "large".into(),
    });
    assert!(err.is_interrupt());
    let data = err.interrupt_data().unwrap().unwrap();
    assert_eq!(Value::Object(data.clone()), json!({"reason": "large"}));
}

#[test]
fn interrupt_without_data_is_bare() {
    let ctx = ToolContext::detached();
    for err in [
        ctx.interrupt(()),
        ctx.interrupt(None::<Value>),
        ctx.interrupt_bare(),
    ] {
        assert!(err.is_interrupt());
        assert_eq!(err.interrupt_data(), Some(None));
    }
}

#[test]
fn interrupt_with_scalar_or_array_is_a_plain_error() {
    let ctx = ToolContext::detached();
    for err in [
        ctx.interrupt("approve?"),
        ctx.interrupt(vec!["a", "b"]),
        ctx.interrupt(3),
    ] {
        assert!(!err.is_interrupt());
        assert!(!err.is_fail());
        assert!(err.to_string().contains("JSON object"), "{err}");
    }
}

#[test]
fn fail_of_no_error_is_no_error() {
    // Rust has no nil error: a caller maps an absent error to no `ToolError` at all.
    let ctx = ToolContext::detached();
    let absent: Option<std::io::Error> = None;
    assert!(absent.map(|e| ctx.fail(e)).is_none());
}

#[test]
fn fail_wraps_the_error_and_keeps_its_message() {
    let ctx = ToolContext::detached();
    let err = ctx.fail(std::io::Error::new(
        std::io::ErrorKind::NotFound,
        "no such record",
    ));
    assert!(err.is_fail());
    assert_eq!(err.to_string(), "no such record");
    let source = err.source_error().unwrap();
    let io = source.downcast_ref::<std::io::Error>().unwrap();
    assert_eq!(io.kind(), std::io::ErrorKind::NotFound);
    // Wrapping keeps the fail and its inner message.
    let wrapped = err.context("lookup");
    assert!(wrapped.is_fail());
    assert_eq!(wrapped.fail_text(), Some("no such record"));
}

#[test]
fn attached_parts_collect_in_a_call_and_are_a_no_op_outside() {
    ToolContext::detached().attach_parts([Part::text("dropped")]);
    let tool = Tool::new("attach", "", |ctx: ToolContext, _: Empty| async move {
        ctx.attach_parts([Part::text("a"), Part::text("b")]);
        ctx.attach_parts([Part::text("c")]);
        Ok::<_, ToolError>("ok")
    });
    let model = one_call("attach", json!({}));
    block_on(
        Agent::new(model.clone())
            .tool(tool)
            .generate(vec![Message::user("go")]),
    )
    .unwrap();
    let message = tool_message(&model);
    let response = message.content[0].as_tool_response().unwrap();
    let texts: Vec<_> = response.content.iter().filter_map(Part::as_text).collect();
    assert_eq!(texts, ["a", "b", "c"]);
}

#[test]
fn twenty_tasks_attach_concurrently() {
    let pool = ThreadPool::builder().pool_size(4).create().unwrap();
    let tool = Tool::new("fan", "", move |ctx: ToolContext, _: Empty| {
        let pool = pool.clone();
        async move {
            let handles: Vec<_> = (0..20)
                .map(|i| {
                    let ctx = ctx.clone();
                    pool.spawn_with_handle(async move {
                        ctx.attach_parts([Part::text(format!("p{i}"))]);
                    })
                    .unwrap()
                })
                .collect();
            futures::future::join_all(handles).await;
            Ok::<_, ToolError>(())
        }
    });
    let out = block_on(tool.call(json!({}))).unwrap();
    assert_eq!(out.content.len(), 20);
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
struct City {
    city: String,
}

#[test]
fn original_input_reads_the_replaced_input() {
    let seen: Arc<Mutex<Vec<Option<City>>>> = Arc::default();
    let log = Arc::clone(&seen);
    let tool = TypedTool::<City, String>::new("weather", "", move |ctx: ToolContext, c: City| {
        let log = Arc::clone(&log);
        async move {
            log.lock().unwrap().push(ctx.original_input::<City>());
            if ctx.resume_object().is_none() {
                return Err(ctx.interrupt_bare());
            }
            Ok(c.city)
        }
    });
    let model = one_call("weather", json!({"city": "Paris"}));
    let agent = Agent::new(model.clone()).tool(tool.clone());
    let first = block_on(agent.generate(vec![Message::user("go")])).unwrap();
    let claimed = tool.interrupted(first.interrupts()[0]).unwrap();
    let restart = claimed.restart_with_input(
        City {
            city: "Lyon".into(),
        },
        Default::default(),
    );
    block_on(agent.resume(first.history(), Resume::new().restart(restart))).unwrap();
    let seen = seen.lock().unwrap();
    assert_eq!(seen[0], None);
    assert_eq!(
        seen[1],
        Some(City {
            city: "Paris".into()
        })
    );
    let answered = tool_message(&model);
    assert_eq!(
        answered.content[0].as_tool_response().unwrap().output,
        Some(json!("Lyon"))
    );
}

#[derive(Debug, Default, PartialEq, Deserialize)]
struct Approval {
    #[serde(default)]
    approved: bool,
}

#[test]
fn resume_data_decodes_by_shape_and_a_bare_restart_is_present() {
    let seen: Arc<Mutex<Vec<Option<Approval>>>> = Arc::default();
    let log = Arc::clone(&seen);
    let tool = Tool::new("gate", "", move |ctx: ToolContext, _: Empty| {
        let log = Arc::clone(&log);
        async move {
            let data = ctx.resume_data::<Approval>();
            let fresh = data.is_none();
            log.lock().unwrap().push(data);
            if fresh {
                return Err(ctx.interrupt_bare());
            }
            Ok::<_, ToolError>(())
        }
    });
    for (resume, expected) in [
        (Some(json!({"approved": true})), Approval { approved: true }),
        (None, Approval::default()),
    ] {
        seen.lock().unwrap().clear();
        let model = one_call("gate", json!({}));
        let agent = Agent::new(model).tool(tool.clone());
        let first = block_on(agent.generate(vec![Message::user("go")])).unwrap();
        let restart = first.interrupts()[0].to_tool_restart(resume).unwrap();
        block_on(agent.resume(first.history(), Resume::new().restart(restart))).unwrap();
        let seen = seen.lock().unwrap();
        assert_eq!(seen[0], None);
        assert_eq!(seen[1], Some(expected));
    }
}

#[test]
fn send_chunk_reaches_the_sink_or_is_a_no_op() {
    ToolContext::detached().send_chunk(Chunk::new(None, vec![Part::text("nobody")]));
    let chunks: Arc<Mutex<Vec<Chunk>>> = Arc::default();
    let sink = Arc::clone(&chunks);
    let tool = Tool::new("progress", "", |ctx: ToolContext, _: Empty| async move {
        ctx.send_chunk(Chunk::new(Some(Role::Tool), vec![Part::text("50%")]));
        Ok::<_, ToolError>(())
    });
    let agent = Agent::new(one_call("progress", json!({})))
        .tool(tool)
        .stream(move |c| {
            sink.lock().unwrap().push(c);
            Ok(())
        });
    block_on(agent.generate(vec![Message::user("go")])).unwrap();
    let chunks = chunks.lock().unwrap();
    let progress: Vec<_> = chunks
        .iter()
        .filter(|c| c.content.first().and_then(Part::as_text) == Some("50%"))
        .collect();
    assert_eq!(progress.len(), 1);
    assert_eq!(progress[0].role, Some(Role::Tool));
    assert_eq!(progress[0].index, 1);
}

#[test]
fn attach_skips_none_and_keeps_the_output() {
    let tool = Tool::new("chart", "", |ctx: ToolContext, _: Empty| async move {
        ctx.attach_parts([None, Some(Part::media("image/png", "https://x/c.png"))]);
        Ok::<_, ToolError>(json!({"rows": 3}))
    });
    let out = block_on(tool.call(json!({}))).unwrap();
    assert_eq!(out.output, Some(json!({"rows": 3})));
    assert_eq!(out.content.len(), 1);
    assert!(matches!(out.content[0].kind, PartKind::Media(_)));
}

#[test]
fn attached_parts_land_after_returned_content() {
    let tool = Tool::multipart("chart", "", |ctx: ToolContext, _: Empty| async move {
        ctx.attach_parts([Part::text("annotation")]);
        Ok(ToolOutput::default().with_content(vec![Part::text("chart")]))
    });
    let out = block_on(tool.call(json!({}))).unwrap();
    let texts: Vec<_> = out.content.iter().filter_map(Part::as_text).collect();
    assert_eq!(texts, ["chart", "annotation"]);
}

#[test]
fn attached_parts_land_on_an_empty_response() {
    let tool = Tool::multipart("chart", "", |ctx: ToolContext, _: Empty| async move {
        ctx.attach_parts([Part::text("attached")]);
        Ok(ToolOutput::default())
    });
    let out = block_on(tool.call(json!({}))).unwrap();
    let texts: Vec<_> = out.content.iter().filter_map(Part::as_text).collect();
    assert_eq!(texts, ["attached"]);
}

#[test]
fn parts_attached_before_an_error_are_discarded_and_after_return_are_dropped() {
    let late: Arc<Mutex<Option<ToolContext>>> = Arc::default();
    let keep = Arc::clone(&late);
    let tool = Tool::new("leak", "", move |ctx: ToolContext, _: Empty| {
        let keep = Arc::clone(&keep);
        async move {
            *keep.lock().unwrap() = Some(ctx);
            Ok::<_, ToolError>(())
        }
    });
    let out = block_on(tool.call(json!({}))).unwrap();
    late.lock()
        .unwrap()
        .as_ref()
        .unwrap()
        .attach_parts([Part::text("late")]);
    assert!(out.content.is_empty());

    let failing = Tool::new("fails", "", |ctx: ToolContext, _: Empty| async move {
        ctx.attach_parts([Part::text("lost")]);
        Err::<(), _>(ToolError::msg("broken"))
    });
    let err = block_on(failing.call(json!({}))).unwrap_err();
    assert_eq!(err.to_string(), "broken");
}
