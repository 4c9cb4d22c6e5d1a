//! The outcome JSON of `parse` and of each `triage --out` line: one shape for an accepted
//! call, one for a rejected one.

use serde::Serialize;
use serde_json::Value;
use submit_core::{ErrorClass, Outcome, ParameterCause, Recovery, RecoveryKind};

/// An outcome as printed: borrowed from the [`Outcome`], serialized without copying the payload.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum OutcomeView<'a> {
    /// `{"accepted": true, "response", "reasoning", "recovery", "recoveries", "tool_result"}`.
    Accepted {
        /// The input line, for `triage --out`; absent for `parse`.
        #[serde(skip_serializing_if = "Option::is_none")]
        line: Option<u64>,
        /// The batch entry's `custom_id`, for `triage --out`.
        #[serde(skip_serializing_if = "Option::is_none")]
        custom_id: Option<&'a str>,
        /// The call's message index in a conversation, for `triage --out`.
        #[serde(skip_serializing_if = "Option::is_none")]
        message: Option<usize>,
        /// Always `true`.
        accepted: bool,
        /// The decoded payload.
        response: &'a Value,
        /// The final reasoning.
        reasoning: &'a str,
        /// Where the payload came from when it was not the payload parameter's object
        /// ([`Accepted::recovery`](submit_core::Accepted::recovery)), `null` otherwise.
        recovery: Option<RecoveryKind>,
        /// Every rule that applied, in order: `[{"kind", "parameters"}, …]`.
        recoveries: &'a [Recovery],
        /// `{"success": true, "message": …}`.
        tool_result: &'a Value,
    },
    /// `{"accepted": false, "class", "cause", "trace_error", "tool_result"}`.
    Rejected {
        /// The input line, for `triage --out`; absent for `parse`.
        #[serde(skip_serializing_if = "Option::is_none")]
        line: Option<u64>,
        /// The batch entry's `custom_id`, for `triage --out`.
        #[serde(skip_serializing_if = "Option::is_none")]
        custom_id: Option<&'a str>,
        /// The call's message index in a conversation, for `triage --out`.
        #[serde(skip_serializing_if = "Option::is_none")]
        message: Option<usize>,
        /// Always `false`.
        accepted: bool,
        /// `parameter` or `payload`.
        class: ErrorClass,
        /// The parameter cause; `null` exactly when the class is `payload`.
        cause: Option<ParameterCause>,
        /// What the trace records, echo included.
        trace_error: String,
        /// `{"error": …}`.
        tool_result: &'a Value,
    },
}

impl<'a> OutcomeView<'a> {
    /// The view of `outcome`, tagged with its input line when one is given.
    pub fn new(outcome: &'a Outcome<Value>, line: Option<u64>) -> Self {
        match outcome {
            Outcome::Accepted(accepted) => OutcomeView::Accepted {
                line,
                custom_id: None,
                message: None,
                accepted: true,
                response: &accepted.response,
                reasoning: &accepted.reasoning,
                recovery: accepted.recovery(),
                recoveries: &accepted.recoveries,
                tool_result: &accepted.tool_result,
            },
            Outcome::Rejected(rejected) => OutcomeView::Rejected {
                line,
                custom_id: None,
                message: None,
                accepted: false,
                class: rejected.error.class(),
                cause: rejected.error.cause(),
                trace_error: rejected.error.trace_text(),
                tool_result: &rejected.tool_result,
            },
        }
    }

    /// The view tagged with where its call came from: a batch entry's `custom_id`, a
    /// conversation's message index.
    pub fn from(mut self, from_entry: Option<&'a str>, at_message: Option<usize>) -> Self {
        match &mut self {
            OutcomeView::Accepted {
                custom_id, message, ..
            }
            | OutcomeView::Rejected {
                custom_id, message, ..
            } => {
                *custom_id = from_entry;
                *message = at_message;
            }
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use submit_core::{Accepted, Rejected, SubmitError};

    #[test]
    fn accepted_outcome_has_the_accepted_shape() {
        let outcome = Outcome::Accepted(
            Accepted::new(
                json!({"summary": "done"}),
                "checked".to_owned(),
                json!({"success": true, "message": "ok"}),
            )
            .with_recoveries(vec![Recovery::naming(
                RecoveryKind::ReasoningOpener,
                vec!["result".to_owned()],
            )]),
        );
        let text = serde_json::to_string(&OutcomeView::new(&outcome, None)).unwrap();
        assert_eq!(
            text,
            r#"{"accepted":true,"response":{"summary":"done"},"reasoning":"checked","recovery":"reasoning_opener","recoveries":[{"kind":"reasoning_opener","parameters":["result"]}],"tool_result":{"success":true,"message":"ok"}}"#
        );
    }

    #[test]
    fn clean_accept_has_null_recovery() {
        let outcome = Outcome::Accepted(Accepted::new(json!(1), String::new(), json!({})));
        let value = serde_json::to_value(OutcomeView::new(&outcome, None)).unwrap();
        assert_eq!(value["recovery"], Value::Null);
    }

    #[test]
    fn rejected_parameter_outcome_has_cause_and_echo() {
        let outcome = Outcome::Rejected(Rejected::new(
            SubmitError::parameter(ParameterCause::StringifiedDeclined, "bad".to_owned())
                .with_echo("result arrived as a 3-byte string: \"x y\"".to_owned()),
        ));
        let text = serde_json::to_string(&OutcomeView::new(&outcome, Some(7))).unwrap();
        assert_eq!(
            text,
            r#"{"line":7,"accepted":false,"class":"parameter","cause":"stringified_declined","trace_error":"parameter error: bad (result arrived as a 3-byte string: \"x y\")","tool_result":{"error":"bad"}}"#
        );
    }

    #[test]
    fn rejected_payload_outcome_has_null_cause() {
        let outcome = Outcome::Rejected(Rejected::new(SubmitError::payload(
            "failed to decode payload: x".to_owned(),
        )));
        let value = serde_json::to_value(OutcomeView::new(&outcome, None)).unwrap();
        assert_eq!(value["class"], "payload");
        assert_eq!(value["cause"], Value::Null);
        assert_eq!(
            value["trace_error"],
            "payload error: failed to decode payload: x"
        );
    }
}
