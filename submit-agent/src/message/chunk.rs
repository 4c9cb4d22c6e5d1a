//! What a stream delivers: chunks of a response, and the pieces of a tool call's arguments
//! as a streaming transport receives them.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::part::{Part, PartKind, Role};

const TOOL_CALL_DELTA: &str = "toolCallDelta";

/// A piece of a tool call being streamed: the chunk sink sees these as they arrive, before
/// the finished call; the pieces of one call share its `index` and, once known, its `id`.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct ToolCallDelta {
    /// The call's position among the answer's outputs, as the provider numbers it.
    pub index: u64,
    /// The call's id, when the provider has sent it.
    pub id: Option<String>,
    /// The tool's name, when the provider has sent it.
    pub name: Option<String>,
    /// The next piece of the arguments' JSON text.
    pub arguments: String,
}

impl Part {
    /// A piece of a tool call's arguments as a streaming transport received it (a custom
    /// part of type `toolCallDelta`; see [`ToolCallDelta`]).
    pub fn tool_call_delta(delta: ToolCallDelta) -> Self {
        let mut m = Map::new();
        m.insert("type".into(), Value::String(TOOL_CALL_DELTA.into()));
        m.insert("index".into(), Value::from(delta.index));
        if let Some(id) = delta.id {
            m.insert("id".into(), Value::String(id));
        }
        if let Some(name) = delta.name {
            m.insert("name".into(), Value::String(name));
        }
        m.insert("arguments".into(), Value::String(delta.arguments));
        PartKind::Custom(Value::Object(m)).into()
    }

    /// The tool-call argument delta this part holds.
    pub fn as_tool_call_delta(&self) -> Option<ToolCallDelta> {
        let PartKind::Custom(v) = &self.kind else {
            return None;
        };
        if v.get("type").and_then(Value::as_str) != Some(TOOL_CALL_DELTA) {
            return None;
        }
        let text = |key: &str| v.get(key).and_then(Value::as_str).map(str::to_owned);
        Some(ToolCallDelta {
            index: v.get("index").and_then(Value::as_u64)?,
            id: text("id"),
            name: text("name"),
            arguments: text("arguments").unwrap_or_default(),
        })
    }
}

/// A streamed piece of a response.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Chunk {
    /// Who produced it; the loop labels model chunks `model` and tool chunks `tool`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<Role>,
    /// The index of the message it belongs to in the response stream.
    #[serde(default)]
    pub index: usize,
    /// Its parts.
    pub content: Vec<Part>,
}

impl Chunk {
    /// A chunk with a role and content; the loop sets the index.
    pub fn new(role: Option<Role>, content: Vec<Part>) -> Self {
        Chunk {
            role,
            index: 0,
            content,
        }
    }
}
