//! Tool approval in the trace: a held call is traced once as a `tool` span.
//!
//! Alone in its test binary: a span callsite that a concurrent test meets while no subscriber
//! is set can be cached as "never interested", which would hide the span from this test.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use futures::executor::block_on;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use submit_agent::{
    hook::ToolApproval,
    message::{Message, Part},
    model::ScriptedModel,
    run::Agent,
    tool::{Tool, ToolContext, ToolError},
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
fn a_hold_is_traced_once_as_a_tool_span() {
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

/// Collects every event's fields as text.
#[derive(Clone, Default)]
struct Events(Arc<std::sync::Mutex<Vec<std::collections::BTreeMap<String, String>>>>);

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for Events {
    fn on_event(
        &self,
        event: &tracing::Event<'_>,
        _ctx: tracing_subscriber::layer::Context<'_, S>,
    ) {
        struct Fields(std::collections::BTreeMap<String, String>);
        impl tracing::field::Visit for Fields {
            fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
                self.0.insert(field.name().to_owned(), format!("{value:?}"));
            }
            fn record_str(&mut self, field: &tracing::field::Field, value: &str) {
                self.0.insert(field.name().to_owned(), value.to_owned());
            }
        }
        let mut fields = Fields(Default::default());
        event.record(&mut fields);
        self.0.lock().unwrap().push(fields.0);
    }
}

#[test]
fn the_loops_events_name_the_cause_of_a_rejection_and_the_recoveries_of_a_commit() {
    use submit_agent::executor::Executor;
    use submit_core::{Options, SubmitTool};
    use tracing_subscriber::layer::SubscriberExt;

    #[derive(Deserialize, JsonSchema, serde::Serialize)]
    struct Summary {
        #[allow(dead_code, reason = "decoded, not read")]
        summary: String,
    }
    let model = ScriptedModel::new()
        .then_message(vec![Part::tool_request_text(
            "submit_result",
            None,
            r#"{"reasoning":"a","result":{"summary":"x"},"result":{"summary":"y"}}"#,
        )])
        .then_message(vec![Part::tool_request_text(
            "submit_result",
            None,
            r#"{"reasoning":"a","result":{"summary":"x"}}</invoke>"#,
        )]);
    let executor = Executor::new(
        Agent::new(model),
        SubmitTool::<Summary>::new(Options::new()).unwrap(),
    )
    .unwrap();
    let events = Events::default();
    let subscriber = tracing_subscriber::registry().with(events.clone());
    tracing::subscriber::with_default(subscriber, || {
        block_on(executor.run(vec![Message::user("go")])).unwrap();
    });
    let events = events.0.lock().unwrap().clone();
    let rejected = events
        .iter()
        .find(|e| {
            e.get("message")
                .is_some_and(|m| m.contains("terminal call rejected"))
        })
        .expect("the rejection is an event");
    assert_eq!(rejected["tool"], "submit_result");
    assert_eq!(rejected["class"], "parameter");
    assert_eq!(rejected["cause"], "undecodable_arguments");
    let committed = events
        .iter()
        .find(|e| e.get("message").is_some_and(|m| m == "result committed"))
        .expect("the commit is an event");
    assert_eq!(committed["recoveries"], r#"["trailing_closers"]"#);
    assert_eq!(committed["forced_by_budget"], "false");
}
