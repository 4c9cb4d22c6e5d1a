//! Reference table row A3 of tool approval: a held call is traced once as a `tool` span.
//!
//! Alone in its test binary: a span callsite that a concurrent test meets while no subscriber
//! is set can be cached as "never interested", which would hide the span from this test.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use futures::executor::block_on;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use submit_result::agent::{
    Agent, Message, Part, ScriptedModel, Tool, ToolApproval, ToolContext, ToolError,
};

#[derive(Deserialize, JsonSchema)]
struct Empty {}

fn calls(names: &[&str]) -> Vec<Part> {
    names
        .iter()
        .enumerate()
        .map(|(i, n)| Part::tool_request(*n, Some(format!("{}", i + 1)), json!({})))
        .collect()
}

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

/// Counts spans named `tool`.
struct SpanCounter(Arc<AtomicUsize>);

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for SpanCounter {
    fn on_new_span(
        &self,
        attrs: &tracing::span::Attributes<'_>,
        _id: &tracing::span::Id,
        _ctx: tracing_subscriber::layer::Context<'_, S>,
    ) {
        if attrs.metadata().name() == "tool" {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }
}

#[test]
fn a3_a_hold_is_traced_once_as_a_tool_span() {
    use tracing_subscriber::layer::SubscriberExt;
    let spans = Arc::new(AtomicUsize::new(0));
    let subscriber = tracing_subscriber::registry().with(SpanCounter(Arc::clone(&spans)));
    let runs = Arc::new(AtomicUsize::new(0));
    let model = ScriptedModel::new().then_message(calls(&["delete"]));
    let agent = Agent::new(model)
        .hook(ToolApproval::new(Vec::<String>::new()))
        .tool(ok_tool("delete", &runs));
    tracing::subscriber::with_default(subscriber, || {
        block_on(agent.generate(vec![Message::user("go")])).unwrap();
    });
    assert_eq!(spans.load(Ordering::SeqCst), 1);
    assert_eq!(runs.load(Ordering::SeqCst), 0);
}
