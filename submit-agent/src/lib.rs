//! The tool loop: an agent runs a model and its tools until the model stops calling them, and
//! an executor ends the run with the first terminal submit that passes its gate.
//!
//! The loop is runtime-agnostic: models, tools, hooks and validators are `async`, and
//! concurrency uses `futures` only. Tools are typed at the edges and exchange JSON inside.
//!
//! ```
//! use schemars::JsonSchema;
//! use serde::Deserialize;
//! use serde_json::json;
//! use submit_agent::prelude::*;
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
//! # Modules
//!
//! [`prelude`] holds what a typical agent needs; everything else is in a module by concept.
//!
//! - [`run`]: the loop. [`Agent`](run::Agent) (a model, tools, hooks, limits), the
//!   [`Response`](run::Response) a run returns, the [`RunError`](run::RunError) that stops
//!   one and the [`Cause`](run::Cause) it keeps, [`Resume`](run::Resume) to answer a paused
//!   run's interrupts, and [`SoftToolErrors`](run::SoftToolErrors).
//! - [`tool`]: tools and their context. [`Tool`](tool::Tool) and
//!   [`TypedTool`](tool::TypedTool), the per-call [`ToolContext`](tool::ToolContext), the
//!   [`ToolError`](tool::ToolError) a call ends with, and the
//!   [`ToolDefinition`](tool::ToolDefinition) a model sees.
//! - [`hook`]: code around each tool call, turn and model call, and the shipped
//!   [`ToolApproval`](hook::ToolApproval) hook.
//! - [`message`]: messages, their parts, and the chunks a stream delivers.
//! - [`model`]: the [`Model`](model::Model) trait, its requests and responses, streaming, and
//!   the [`ScriptedModel`](model::ScriptedModel).
//! - [`executor`]: the loop with a terminal tool. The [`Executor`](executor::Executor), the
//!   [`TerminalTool`](executor::TerminalTool) it gates, result validators and their findings,
//!   and the record of each terminal call.
//! - `transport` (one feature per provider: `claude`, `gemini`, `openai-chat`,
//!   `openai-responses`): the model trait over each provider's HTTP API.
//! - `mcp` (feature `mcp`): an MCP server's tools as agent tools.
//! - [`rules`]: the rules of the loop, written for users: turns, tools, hooks, interrupts,
//!   stop reasons, the budget and the executor's gate.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod cause;
pub mod executor;
pub mod hook;
#[cfg(feature = "mcp")]
pub mod mcp;
pub mod message;
pub mod model;
pub mod rules;
pub mod run;
#[cfg(any(feature = "http", feature = "mcp"))]
mod runtime;
mod schema;
pub mod tool;
#[cfg(any(
    feature = "claude",
    feature = "gemini",
    feature = "openai-chat",
    feature = "openai-responses"
))]
pub mod transport;

/// What a typical agent needs: `use submit_agent::prelude::*;`.
pub mod prelude {
    pub use crate::executor::{Execution, Executor};
    pub use crate::message::{Message, Part, Role};
    pub use crate::model::{Model, ScriptedModel};
    pub use crate::run::{Agent, Response, Resume, RunError};
    pub use crate::tool::{Tool, ToolContext, ToolError, ToolOutput};
}

#[cfg(test)]
mod tests {
    use crate::executor::{Executor, TerminalTool};
    use crate::prelude::*;
    use crate::tool::ToolDefinition;

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

    impl TerminalTool<serde_json::Value> for Never {
        fn name(&self) -> &str {
            "submit_result"
        }
        fn definition(&self) -> ToolDefinition {
            ToolDefinition::new("submit_result", "", serde_json::json!({"type": "object"}))
        }
        fn payload_schema(&self) -> serde_json::Value {
            serde_json::json!({"type": "object"})
        }
        fn verdict(
            &self,
            _arguments: submit_core::Arguments<'_>,
            _end: submit_core::StopReason,
        ) -> submit_core::Outcome<serde_json::Value> {
            submit_core::Outcome::Accepted(submit_core::Accepted::new(
                serde_json::Value::Null,
                String::new(),
                serde_json::json!({"success": true}),
            ))
        }
    }

    #[test]
    fn executor_runs_can_be_spawned_on_multi_threaded_executors() {
        let executor = Executor::new(Agent::new(ScriptedModel::new()), Never).unwrap();
        assert_send(&executor.run(vec![Message::user("hi")]));
        assert_send(&executor.resume(vec![], Resume::new()));
    }
}
