//! What parsing a submit call yields.

use crate::error::SubmitError;

/// The result of handling one submit call.
#[derive(Clone, Debug)]
pub enum Outcome<R> {
    /// The payload decoded; the executor may commit it after its validators pass.
    Accepted(Accepted<R>),
    /// The call was rejected; send `tool_result` back to the model.
    Rejected(Rejected),
}

/// Which recovery, if any, produced an accepted payload.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Recovery {
    /// The payload arrived JSON-encoded into a string.
    Stringified,
    /// The payload was written in reasoning after a `<parameter name="…">` opener.
    ReasoningOpener,
    /// The payload was written in reasoning as a `"<payload>": {…}` JSON member.
    ReasoningMember,
}

/// An accepted submit.
#[derive(Clone, Debug)]
pub struct Accepted<R> {
    /// The decoded response.
    pub response: R,
    /// The final reasoning (`""` under `omit_reasoning`).
    pub reasoning: String,
    /// The recovery that applied, if any.
    pub recovery: Option<Recovery>,
    /// `{"success": true, "message": <success message>}`.
    pub tool_result: serde_json::Value,
}

/// A rejected submit.
#[derive(Clone, Debug)]
pub struct Rejected {
    /// The classified error.
    pub error: SubmitError,
    /// `{"error": <message>}`, what the model reads.
    pub tool_result: serde_json::Value,
}
