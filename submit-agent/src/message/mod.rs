//! Messages: a conversation is a list of [`Message`]s, each a [`Role`] and [`Part`]s (text,
//! media, data, reasoning, tool requests and responses); a [`Chunk`] is a piece of one a
//! stream delivers. A tool request carries its interrupt and restart state, so a stored
//! conversation holds everything a resume needs.
//!
//! ```
//! use serde_json::json;
//! use submit_agent::message::{Message, Part, Role};
//!
//! let call = Part::tool_request("weather", Some("call_1".into()), json!({"city": "Paris"}));
//! let message = Message::model(vec![Part::text("Let me look."), call]);
//! assert_eq!(message.role, Role::Model);
//! assert_eq!(message.tool_requests().next().unwrap().name, "weather");
//! ```
//!
//! The JSON form of a part is one kind key (`text`, `media`, `data`, `reasoning`,
//! `toolRequest`, `toolResponse`, `custom`) plus an optional `metadata` object. The typed state
//! of a tool request (interrupt, restart, pending output) is folded into that metadata under
//! stable keys, so a conversation stored between an interrupt and its resume reads back as the
//! same state in another process.

mod chunk;
mod json_form;
pub(crate) mod output;
mod part;

pub use chunk::{Chunk, ToolCallDelta};
pub use part::*;
