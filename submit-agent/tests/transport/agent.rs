//! The small agent every transport test runs: a `lookup` tool and the submit tool, ending
//! with a committed `Answer`.

#![allow(dead_code, reason = "each transport test uses part of the helpers")]

use std::sync::{Arc, Mutex};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use submit_agent::{
    executor::{Committed, Execution, Executor},
    message::{Chunk, Message},
    model::Model,
    run::Agent,
    tool::{Tool, ToolContext, ToolError},
};
use submit_core::{Options, SubmitTool};

/// The agent's typed result.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct Answer {
    /// The city.
    pub city: String,
    /// Its population.
    pub population: u64,
}

#[derive(Deserialize, JsonSchema)]
struct Lookup {
    /// The city to look up.
    city: String,
}

/// Looks a city up; an unknown city is an error answered to the model.
pub fn lookup() -> Tool {
    Tool::new(
        "lookup",
        "Looks up a city's population.",
        |_ctx: ToolContext, input: Lookup| async move {
            match input.city.as_str() {
                "Paris" => Ok(json!({"city": "Paris", "population": 2102650})),
                other => Err(ToolError::fail_message(format!("unknown city {other}"))),
            }
        },
    )
}

/// The conversation the agent starts from.
pub fn question() -> Vec<Message> {
    vec![
        Message::system("You answer questions about cities. Finish by calling submit_result."),
        Message::user("How many people live in Paris? Also check Atlantis."),
    ]
}

/// The executor around `model`, with a chunk recorder when `chunks` is given.
pub fn executor(
    model: impl Model + 'static,
    chunks: Option<Arc<Mutex<Vec<Chunk>>>>,
) -> Executor<Answer> {
    let mut agent = Agent::new(model).tool(lookup()).max_turns(4);
    if let Some(chunks) = chunks {
        agent = agent.stream(move |chunk| {
            chunks.lock().unwrap().push(chunk);
            Ok(())
        });
    }
    Executor::new(agent, submit_tool()).unwrap()
}

/// The submit tool the executor runs.
pub fn submit_tool() -> SubmitTool<Answer> {
    SubmitTool::<Answer>::new(Options::new()).unwrap()
}

/// Runs the agent to a committed answer.
pub fn run_to_commit(executor: &Executor<Answer>) -> Committed<Answer> {
    match futures::executor::block_on(executor.run(question())) {
        Ok(Execution::Committed(c)) => *c,
        Ok(Execution::Interrupted(r)) => panic!("interrupted: {r:?}"),
        Err(e) => panic!("run failed: {e}"),
    }
}

/// The expected answer.
pub fn paris() -> Answer {
    Answer {
        city: "Paris".into(),
        population: 2102650,
    }
}

/// The text of every chunk's text parts, in order.
pub fn chunk_text(chunks: &[Chunk]) -> String {
    chunks
        .iter()
        .flat_map(|c| c.content.iter())
        .filter_map(|p| p.as_text())
        .collect()
}

/// The tool requests streamed as model chunks.
pub fn chunk_tool_names(chunks: &[Chunk]) -> Vec<String> {
    chunks
        .iter()
        .filter(|c| c.role == Some(submit_agent::message::Role::Model))
        .flat_map(|c| c.content.iter())
        .filter_map(|p| p.as_tool_request().map(|r| r.name.clone()))
        .collect()
}

/// A JSON value with the volatile parts removed, for snapshots.
pub fn redacted_headers(headers: &std::collections::BTreeMap<String, String>) -> Value {
    let keep = [
        "anthropic-version",
        "content-type",
        "authorization",
        "x-api-key",
        "x-goog-api-key",
    ];
    Value::Object(
        headers
            .iter()
            .filter(|(k, _)| keep.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
            .collect(),
    )
}

/// Wraps a model and records every response it returns.
pub struct Recording<M> {
    pub inner: Arc<M>,
    pub responses: Arc<Mutex<Vec<submit_agent::model::ModelResponse>>>,
}

impl<M> Clone for Recording<M> {
    fn clone(&self) -> Self {
        Recording {
            inner: Arc::clone(&self.inner),
            responses: Arc::clone(&self.responses),
        }
    }
}

impl<M> Recording<M> {
    pub fn new(inner: M) -> Self {
        Recording {
            inner: Arc::new(inner),
            responses: Arc::new(Mutex::new(Vec::new())),
        }
    }

    pub fn responses(&self) -> Vec<submit_agent::model::ModelResponse> {
        self.responses.lock().unwrap().clone()
    }
}

impl<M: Model> Model for Recording<M> {
    fn generate<'a>(
        &'a self,
        request: submit_agent::model::ModelRequest,
        stream: Option<submit_agent::model::ModelStream>,
    ) -> futures::future::BoxFuture<
        'a,
        Result<submit_agent::model::ModelResponse, submit_agent::model::ModelError>,
    > {
        use futures::FutureExt;
        async move {
            let response = self.inner.generate(request, stream).await;
            if let Ok(r) = &response {
                self.responses.lock().unwrap().push(r.clone());
            }
            response
        }
        .boxed()
    }
}
