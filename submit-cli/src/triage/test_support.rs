//! Outcomes made by hand, for the tests of the counts and of the reader.

use serde_json::{json, Value};
use submit_core::{
    Accepted, AppliedRecovery, Outcome, ParameterCause, Recovery, Rejected, SubmitError,
};

pub(crate) fn accepted(recovery: Option<Recovery>) -> Outcome<Value> {
    Outcome::Accepted(Accepted {
        response: json!({}),
        reasoning: String::new(),
        recovery,
        recoveries: Vec::new(),
        tool_result: json!({"success": true}),
    })
}

pub(crate) fn recovered(recoveries: Vec<AppliedRecovery>) -> Outcome<Value> {
    Outcome::Accepted(Accepted {
        response: json!({}),
        reasoning: String::new(),
        recovery: None,
        recoveries,
        tool_result: json!({"success": true}),
    })
}

pub(crate) fn parameter(cause: ParameterCause) -> Outcome<Value> {
    Outcome::Rejected(Rejected {
        error: SubmitError::Parameter {
            cause,
            message: "m".to_owned(),
            echo: None,
        },
        tool_result: json!({"error": "m"}),
    })
}

pub(crate) fn payload() -> Outcome<Value> {
    Outcome::Rejected(Rejected {
        error: SubmitError::Payload {
            message: "m".to_owned(),
        },
        tool_result: json!({"error": "m"}),
    })
}

pub(crate) fn outcome_shape(outcome: &Outcome<Value>) -> Option<String> {
    match outcome {
        Outcome::Rejected(rejected) => rejected.error.cause().map(|c| format!("{c:?}")),
        Outcome::Accepted(_) => None,
    }
}
