//! The loop: an [`Agent`] (a model, tools, hooks and limits) runs a conversation until the
//! model stops calling tools, a call interrupts, or an error stops it; a [`Response`] is what
//! it returns, a [`RunError`] what stops it (with the error under it: a [`Cause`] for a failed
//! tool or result validator), and a [`Resume`] answers the interrupts of a stored
//! conversation.
//!
//! ```
//! use submit_agent::prelude::*;
//!
//! let agent = Agent::new(ScriptedModel::new().then_text("Hello."));
//! let response = futures::executor::block_on(agent.generate(vec![Message::user("Hi")])).unwrap();
//! assert_eq!(response.text(), "Hello.");
//! ```
//!
//! One turn is a model call and the tool round after it. A turn's calls run concurrently
//! through the tool hooks; a call that interrupts pauses the run, and the partial response
//! holds the interrupts to answer with a [`Resume`]. A `multi_tool_use.parallel` call, which
//! models invent to call several tools at once, is read for its entries, each run as a call.
//! The [tool loop rules](crate::rules::tool_loop) say how turns, interrupts and stop reasons
//! go, with examples.

mod agent;
mod call;
mod error;
pub(crate) mod response;
mod resume;
mod soft_errors;
mod turn;
mod wrapper;

pub use crate::cause::Cause;
pub use agent::{Agent, DEFAULT_MAX_TURNS};
pub(crate) use call::{GateStep, GateTurn, TerminalGate};
pub use error::{RunError, RunErrorKind};
pub use response::Response;
pub use resume::Resume;
pub use soft_errors::SoftToolErrors;
