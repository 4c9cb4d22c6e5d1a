//! The loop, bottom to top: one tool call through the hooks and the gate's seam (`call.rs`),
//! turns and tool rounds (`turn.rs`), resuming an interrupted conversation (`resume.rs`), and the
//! agent that holds the options and starts a run (`agent.rs`).

mod agent;
mod call;
mod resume;
mod turn;
mod wrapper;

pub use agent::{Agent, DEFAULT_MAX_TURNS};
pub(crate) use call::{GateStep, GateTurn, TerminalGate};
pub use resume::Resume;
