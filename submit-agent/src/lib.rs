//! The tool loop: tools and their context, hooks, interrupts and resume, streaming, and the
//! executor that gates a terminal submit through result validators.
//!
//! The loop is runtime-agnostic: models, tools, hooks and validators are `async`, and
//! concurrency uses `futures` only. Tools are typed at the edges and exchange JSON inside.
//!
//! ```
//! use schemars::JsonSchema;
//! use serde::Deserialize;
//! use serde_json::json;
//! use submit_agent::{Agent, Message, Part, ScriptedModel, Tool, ToolContext, ToolError};
//!
//! #[derive(Deserialize, JsonSchema)]
//! struct Weather { city: String }
//!
//! let model = ScriptedModel::new()
//!     .then_message(vec![Part::tool_request("weather", None, json!({"city": "Paris"}))])
//!     .then_text("Sunny in Paris.");
//! let weather = Tool::new("weather", "Current weather.", |_ctx: ToolContext, w: Weather| async move {
//!     Ok::<_, ToolError>(format!("sunny in {}", w.city))
//! });
//! let agent = Agent::new(model).tool(weather);
//! let response = futures::executor::block_on(agent.generate(vec![Message::user("Weather?")])).unwrap();
//! assert_eq!(response.text(), "Sunny in Paris.");
//! ```
//!
//! # Layers
//!
//! Read bottom to top: each file uses only the ones listed before it.
//!
//! 1. `message/`: the data: `part.rs` messages, parts and interrupt state (a tool request keeps
//!    its argument text as the model sent it); `chunk.rs` what a stream delivers; `wire.rs`
//!    their JSON form.
//! 2. `definition.rs`: a tool's definition as a model sees it.
//! 3. `stream.rs`: chunks on their way to the caller's sink.
//! 4. `model.rs`: the model seam: requests, answers, the scripted model.
//! 5. `response.rs`: what a run returns, and how a turn ended.
//! 6. `error.rs`: tool and run errors (a run error carries the partial [`Response`]).
//! 7. `schema.rs`: input, output and resume schemas checked on values.
//! 8. `context.rs`: a call's context: attach, fail, interrupt, resume data, send chunks.
//! 9. `tool.rs`: typed tools and their outputs.
//! 10. `hook.rs`: tool, turn and model hooks, and the chain a call runs through.
//! 11. `run/`: the loop: `call.rs` one call and the terminal gate's seam, `turn.rs` turns and
//!     rounds, `resume.rs` resuming, `agent.rs` the options and the start of a run.
//! 12. `validator.rs`, then `executor.rs`: result validators and their findings; the terminal
//!     submit gated through them.
//! 13. `middleware.rs`: soft tool errors and tool approval, built on hooks and the agent's
//!     options; the loop never names them.
//! 14. `runtime.rs`, then `mcp.rs` (feature `mcp`) and `transport/` (one feature per
//!     provider): `wire.rs`, `sse.rs`, `http.rs`, then `client.rs` (the one transport over
//!     any provider's `Api`), under one file per provider (its `Api`: request, answer, stream).

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod context;
mod definition;
mod error;
mod executor;
mod hook;
#[cfg(feature = "mcp")]
pub mod mcp;
mod message;
mod middleware;
mod model;
mod response;
pub mod rules;
mod run;
#[cfg(any(feature = "http", feature = "mcp"))]
mod runtime;
mod schema;
mod stream;
mod tool;
#[cfg(any(
    feature = "claude",
    feature = "gemini",
    feature = "openai-chat",
    feature = "openai-responses"
))]
pub mod transport;
mod validator;

pub use context::ToolContext;
pub use definition::ToolDefinition;
pub use error::{BoxError, RunError, RunErrorKind, ToolError};
pub use executor::{
    Committed, Execution, Executor, ExecutorError, Terminal, TraceRecord, TraceStatus,
};
pub use hook::{
    tool_hook_fn, turn_hook_fn, ModelHook, ModelNext, Next, ToolCall, ToolHook, TurnEnd, TurnHook,
    TurnInfo,
};
pub use message::{
    Chunk, Interrupt, JsonObject, Media, MediaSource, Message, Part, PartError, PartKind,
    PendingOutput, Restart, Role, ToolCallDelta, ToolRequest, ToolResponse,
};
pub use middleware::{SoftToolErrors, ToolApproval, ToolCallDecision, TOOL_APPROVAL};
pub use model::{
    model_fn, FinishReason, Model, ModelError, ModelRequest, ModelResponse, ScriptedModel,
    SharedError, ToolChoice, Usage,
};
pub use response::Response;
pub use run::{Agent, Resume, DEFAULT_MAX_TURNS};
pub use stream::{ChunkSink, ModelStream, StreamError};
pub use tool::{interrupt_as, DefinitionError, InterruptedCall, Tool, ToolOutput, TypedTool};
pub use validator::{validator_fn, Finding, FindingKind, ResultValidator};

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_send<T: Send>(_: &T) {}
    fn assert_send_sync<T: Send + Sync>() {}

    #[test]
    fn runs_can_be_spawned_on_multi_threaded_executors() {
        assert_send_sync::<Agent>();
        assert_send_sync::<Tool>();
        assert_send_sync::<ToolContext>();
        assert_send_sync::<Executor<serde_json::Value>>();
        let agent = Agent::new(ScriptedModel::new().then_text("hi"));
        let run = agent.generate(vec![Message::user("hi")]);
        assert_send(&run);
        let resume = agent.resume(vec![], Resume::new());
        assert_send(&resume);
        assert_eq!(futures::executor::block_on(run).unwrap().text(), "hi");
    }

    struct Never;

    impl Terminal<serde_json::Value> for Never {
        fn name(&self) -> &str {
            "submit_result"
        }
        fn definition(&self) -> ToolDefinition {
            ToolDefinition {
                name: "submit_result".into(),
                description: String::new(),
                input_schema: serde_json::json!({"type": "object"}),
                output_schema: None,
                resume_schema: None,
                wire: None,
            }
        }
        fn payload_schema(&self) -> serde_json::Value {
            serde_json::json!({"type": "object"})
        }
        fn handle(
            &self,
            _arguments: submit_core::Arguments<'_>,
            _end: submit_core::StopReason,
        ) -> submit_core::Outcome<serde_json::Value> {
            submit_core::Outcome::Accepted(submit_core::Accepted {
                response: serde_json::Value::Null,
                reasoning: String::new(),
                recovery: None,
                recoveries: Vec::new(),
                tool_result: serde_json::json!({"success": true}),
            })
        }
    }

    #[test]
    fn executor_runs_can_be_spawned_on_multi_threaded_executors() {
        let executor = Executor::new(Agent::new(ScriptedModel::new()), Never).unwrap();
        assert_send(&executor.run(vec![Message::user("hi")]));
        assert_send(&executor.resume(vec![], Resume::new()));
    }
}
