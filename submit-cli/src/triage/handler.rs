//! A call handled by the submit tool: its outcome and the shape a declined recovery saw.

use serde_json::Value;
use submit_core::{Outcome, ParameterCause, Provider, SubmitTool};

use crate::shapes::declined_shape;

/// A call handled: its outcome and, for a declined recovery, the declined shape.
#[derive(Debug)]
pub struct Handled {
    /// The outcome.
    pub outcome: Outcome<Value>,
    /// What followed the payload object, when a recovery declined.
    pub shape: Option<String>,
}

/// Handles lines with `tool`: a line not in `provider`'s shape is an `Err` naming why.
pub fn handler(
    tool: &SubmitTool<Value>,
    provider: Provider,
) -> impl FnMut(&Value) -> Result<Handled, String> + '_ {
    move |value| {
        let call = provider
            .read_call(value)
            .map_err(|error| error.to_string())?;
        let outcome = tool.handle(provider, value);
        let shape = match &outcome {
            Outcome::Rejected(rejected) => match rejected.error.cause() {
                Some(
                    cause @ (ParameterCause::StringifiedDeclined
                    | ParameterCause::ReasoningDeclined),
                ) => declined_shape(call.arguments, tool.payload_field(), cause),
                _ => None,
            },
            Outcome::Accepted(_) => None,
        };
        Ok(Handled { outcome, shape })
    }
}
