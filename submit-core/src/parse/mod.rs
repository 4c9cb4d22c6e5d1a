//! Handling a submit call: the steps of SUBMIT.md §5, top to bottom.

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::outcome::Outcome;
use crate::provider::Provider;
use crate::tool::SubmitTool;

/// A call's arguments, provider-neutral.
#[derive(Clone, Copy, Debug)]
pub enum Arguments<'a> {
    /// Arguments that arrived as a JSON value (Anthropic `input`, Gemini `args`).
    Value(&'a Value),
    /// Arguments that arrived as JSON text (OpenAI `arguments`).
    Text(&'a str),
    /// No arguments field at all; read as `{}`.
    Missing,
}

impl<R: DeserializeOwned> SubmitTool<R> {
    /// Handles a call in `provider`'s native shape (a `tool_use` block, a `functionCall` part,
    /// a Chat tool call, a Responses `function_call` item).
    pub fn handle(&self, provider: Provider, call: &Value) -> Outcome<R> {
        let _ = (provider, call);
        todo!("parse")
    }

    /// Handles a call's arguments directly.
    pub fn handle_arguments(&self, arguments: Arguments<'_>) -> Outcome<R> {
        let _ = arguments;
        todo!("parse")
    }
}
