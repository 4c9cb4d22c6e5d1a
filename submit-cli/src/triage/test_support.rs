//! Outcomes made by hand, for the tests of the counts and of the reader.

use serde_json::{json, Value};
use submit_core::{
    Accepted, Outcome, ParameterCause, Recovery, RecoveryKind, Rejected, SubmitError,
};

pub(crate) fn accepted(recovery: Option<RecoveryKind>) -> Outcome<Value> {
    recovered(recovery.into_iter().map(Recovery::new).collect())
}

pub(crate) fn recovered(recoveries: Vec<Recovery>) -> Outcome<Value> {
    Outcome::Accepted(
        Accepted::new(json!({}), String::new(), json!({"success": true}))
            .with_recoveries(recoveries),
    )
}

pub(crate) fn parameter(cause: ParameterCause) -> Outcome<Value> {
    Outcome::Rejected(Rejected::new(SubmitError::parameter(cause, "m".to_owned())))
}

pub(crate) fn payload() -> Outcome<Value> {
    Outcome::Rejected(Rejected::new(SubmitError::payload("m".to_owned())))
}

pub(crate) fn outcome_shape(outcome: &Outcome<Value>) -> Option<String> {
    match outcome {
        Outcome::Rejected(rejected) => rejected.error.cause().map(|c| format!("{c:?}")),
        Outcome::Accepted(_) => None,
    }
}
