//! What parsing a submit call yields.

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{json, Value};

use crate::error::SubmitError;

/// The result of handling one submit call.
///
/// Serializes as the command-line tool prints it: `{"accepted": true, "response", "reasoning",
/// "recovery", "tool_result"}` or `{"accepted": false, "class", "cause", "trace_error",
/// "tool_result"}`.
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

impl Recovery {
    /// The recovery's name as it is serialized: `stringified`, `reasoning_opener`,
    /// `reasoning_member`.
    pub fn as_str(self) -> &'static str {
        match self {
            Recovery::Stringified => "stringified",
            Recovery::ReasoningOpener => "reasoning_opener",
            Recovery::ReasoningMember => "reasoning_member",
        }
    }
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
    pub tool_result: Value,
}

/// A rejected submit.
#[derive(Clone, Debug)]
pub struct Rejected {
    /// The classified error.
    pub error: SubmitError,
    /// `{"error": <message>}`, what the model reads.
    pub tool_result: Value,
}

impl Rejected {
    /// A rejection whose tool result is `{"error": <the error's message>}`.
    pub fn new(error: SubmitError) -> Self {
        let tool_result = json!({ "error": error.message() });
        Rejected { error, tool_result }
    }
}

impl<R> Outcome<R> {
    /// Whether the submit was accepted.
    pub fn is_accepted(&self) -> bool {
        matches!(self, Outcome::Accepted(_))
    }

    /// The tool result to send back to the model.
    pub fn tool_result(&self) -> &Value {
        match self {
            Outcome::Accepted(accepted) => &accepted.tool_result,
            Outcome::Rejected(rejected) => &rejected.tool_result,
        }
    }

    /// The accepted submit, if it was accepted.
    pub fn accepted(&self) -> Option<&Accepted<R>> {
        match self {
            Outcome::Accepted(accepted) => Some(accepted),
            Outcome::Rejected(_) => None,
        }
    }

    /// The error, if the submit was rejected.
    pub fn error(&self) -> Option<&SubmitError> {
        match self {
            Outcome::Accepted(_) => None,
            Outcome::Rejected(rejected) => Some(&rejected.error),
        }
    }

    /// The accepted submit as a `Result`, the rejection as its error.
    #[allow(
        clippy::result_large_err,
        reason = "the same two values the enum holds, unboxed as the enum holds them"
    )]
    pub fn into_result(self) -> Result<Accepted<R>, Rejected> {
        match self {
            Outcome::Accepted(accepted) => Ok(accepted),
            Outcome::Rejected(rejected) => Err(rejected),
        }
    }
}

impl<R: Serialize> Serialize for Outcome<R> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(5))?;
        match self {
            Outcome::Accepted(accepted) => {
                map.serialize_entry("accepted", &true)?;
                map.serialize_entry("response", &accepted.response)?;
                map.serialize_entry("reasoning", &accepted.reasoning)?;
                map.serialize_entry("recovery", &accepted.recovery)?;
                map.serialize_entry("tool_result", &accepted.tool_result)?;
            }
            Outcome::Rejected(rejected) => {
                map.serialize_entry("accepted", &false)?;
                map.serialize_entry("class", &rejected.error.class())?;
                map.serialize_entry("cause", &rejected.error.cause())?;
                map.serialize_entry("trace_error", &rejected.error.trace_text())?;
                map.serialize_entry("tool_result", &rejected.tool_result)?;
            }
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ParameterCause;

    #[test]
    fn rejected_tool_result_carries_the_message() {
        let rejected = Rejected::new(SubmitError::Parameter {
            cause: ParameterCause::StringifiedDeclined,
            message: "m".into(),
            echo: Some("e".into()),
        });
        assert_eq!(rejected.tool_result, json!({"error": "m"}));
        let outcome = Outcome::<()>::Rejected(rejected);
        assert_eq!(
            serde_json::to_value(&outcome).unwrap(),
            json!({"accepted": false, "class": "parameter", "cause": "stringified_declined",
                   "trace_error": "parameter error: m (e)", "tool_result": {"error": "m"}})
        );
    }

    #[test]
    fn accepted_serializes_with_its_recovery() {
        let outcome = Outcome::Accepted(Accepted {
            response: json!({"a": 1}),
            reasoning: "r".into(),
            recovery: Some(Recovery::ReasoningMember),
            tool_result: json!({"success": true, "message": "ok"}),
        });
        assert_eq!(
            serde_json::to_value(&outcome).unwrap(),
            json!({"accepted": true, "response": {"a": 1}, "reasoning": "r",
                   "recovery": "reasoning_member", "tool_result": {"success": true, "message": "ok"}})
        );
    }

    #[test]
    fn payload_error_has_no_cause() {
        let outcome = Outcome::<()>::Rejected(Rejected::new(SubmitError::Payload {
            message: "failed to decode payload: x".into(),
        }));
        let value = serde_json::to_value(&outcome).unwrap();
        assert_eq!(value["class"], "payload");
        assert_eq!(value["cause"], Value::Null);
        assert_eq!(
            value["trace_error"],
            "payload error: failed to decode payload: x"
        );
    }
}
