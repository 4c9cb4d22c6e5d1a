//! Messages, parts, and the interrupt and restart state carried on tool requests.
//!
//! The JSON form of a part is one kind key (`text`, `media`, `data`, `reasoning`,
//! `toolRequest`, `toolResponse`, `custom`) plus an optional `metadata` object. The typed state
//! of a tool request (interrupt, restart, pending output) is folded into that metadata under
//! stable keys, so a conversation stored between an interrupt and its resume reads back as the
//! same state in another process.

mod chunk;
mod part;
mod wire;

pub use chunk::{Chunk, ToolCallDelta};
pub use part::*;
