//! The trace of submit calls an engineer reads.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::error::{ErrorClass, ParameterCause, SubmitError};
use crate::outcome::Outcome;

/// The trace of submit calls: one record per rejected submit (marked recoverable), filled by
/// [`Trace::record`] with each outcome.
///
/// It serializes to JSON for tools and displays as text for people; neither ever holds the
/// reasoning, and a declined string appears only as its bounded, escaped echo.
///
/// ```
/// # extern crate submit_core as submit_result;
/// use serde_json::json;
/// use submit_result::{Options, Provider, SubmitTool, Trace};
///
/// let tool = SubmitTool::from_json_schema(json!({"type": "object"}), Options::new())?;
/// let call = json!({"type": "tool_use", "id": "toolu_1", "name": "submit_result",
///                   "input": {"reasoning": "done"}});
/// let mut trace = Trace::new();
/// let outcome = tool.handle(Provider::Claude, &call);
/// let id = Provider::Claude.read_call(&call).ok().and_then(|call| call.id);
/// trace.record(id, tool.name(), &outcome);
/// let record = &trace.calls()[0];
/// assert!(record.recoverable);
/// assert_eq!(record.id.as_deref(), Some("toolu_1"));
/// # Ok::<(), submit_result::BuildError>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Trace {
    calls: Vec<CallRecord>,
}

/// One recorded call.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CallRecord {
    /// The provider's call id, when the call carried one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The tool's name.
    pub tool: String,
    /// What went wrong, as [`SubmitError::trace_text`] renders it (echo included).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The error class of a rejection.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<ErrorClass>,
    /// The cause of a parameter error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cause: Option<ParameterCause>,
    /// The model can recover by calling again: true for every rejected submit.
    #[serde(default, skip_serializing_if = "is_false")]
    pub recoverable: bool,
}

fn is_false(flag: &bool) -> bool {
    !*flag
}

impl Trace {
    /// An empty trace.
    pub fn new() -> Self {
        Trace::default()
    }

    /// The records, in the order they were made.
    pub fn calls(&self) -> &[CallRecord] {
        &self.calls
    }

    /// Records a rejected submit: one record, marked recoverable.
    pub(crate) fn record_rejection(
        &mut self,
        id: Option<&str>,
        tool: &str,
        error: &SubmitError,
    ) -> &CallRecord {
        self.push(CallRecord {
            id: id.map(str::to_owned),
            tool: tool.to_owned(),
            error: Some(error.trace_text()),
            class: Some(error.class()),
            cause: error.cause(),
            recoverable: true,
        })
    }

    /// Records an outcome of the tool named `tool` for the call `id`: a rejection becomes one
    /// recoverable record; an accepted submit is not recorded (the executor records it once it
    /// commits). Returns the new record.
    ///
    /// ```
    /// # extern crate submit_core as submit_result;
    /// # fn main() -> Result<(), submit_result::BuildError> {
    /// use submit_result::{Arguments, Options, SubmitTool, Trace};
    ///
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Answer {
    ///     text: String,
    /// }
    ///
    /// let tool = SubmitTool::<Answer>::new(Options::new())?;
    /// let mut trace = Trace::new();
    /// let outcome = tool.handle_arguments(Arguments::Text("{}"));
    /// trace.record(Some("call_1"), tool.name(), &outcome);
    /// assert_eq!(trace.calls()[0].id.as_deref(), Some("call_1"));
    /// assert!(trace.calls()[0].recoverable);
    /// # Ok(())
    /// # }
    /// ```
    pub fn record<R>(
        &mut self,
        id: Option<&str>,
        tool: &str,
        outcome: &Outcome<R>,
    ) -> Option<&CallRecord> {
        match outcome {
            Outcome::Accepted(_) => None,
            Outcome::Rejected(rejected) => Some(self.record_rejection(id, tool, &rejected.error)),
        }
    }

    /// Appends a record.
    fn push(&mut self, record: CallRecord) -> &CallRecord {
        self.calls.push(record);
        let last = self.calls.len() - 1;
        &self.calls[last]
    }
}

impl fmt::Display for Trace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for call in &self.calls {
            write!(f, "call {}", call.tool)?;
            if let Some(id) = &call.id {
                write!(f, " {id:?}")?;
            }
            if call.recoverable {
                f.write_str(" (recoverable)")?;
            }
            writeln!(f)?;
            if let Some(error) = &call.error {
                writeln!(f, "  Error: {error}")?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn declined() -> SubmitError {
        SubmitError::Parameter {
            cause: ParameterCause::StringifiedDeclined,
            message: "analysis parameter must be a JSON object, got string".into(),
            echo: Some("analysis arrived as a 1-byte string: \"x\"".into()),
        }
    }

    #[test]
    fn rejection_is_one_recoverable_record_with_class_and_cause() {
        let mut trace = Trace::new();
        trace.record_rejection(Some("call_1"), "submit_result", &declined());
        assert_eq!(
            serde_json::to_value(&trace).unwrap(),
            json!({"calls": [{
                "id": "call_1",
                "tool": "submit_result",
                "error": "parameter error: analysis parameter must be a JSON object, got string \
                          (analysis arrived as a 1-byte string: \"x\")",
                "class": "parameter",
                "cause": "stringified_declined",
                "recoverable": true
            }]})
        );
        let text = trace.to_string();
        assert_eq!(
            text,
            "call submit_result \"call_1\" (recoverable)\n  Error: parameter error: analysis \
             parameter must be a JSON object, got string (analysis arrived as a 1-byte string: \
             \"x\")\n"
        );
    }

    #[test]
    fn trace_round_trips_through_json() {
        let mut trace = Trace::new();
        trace.record_rejection(
            None,
            "t",
            &SubmitError::payload("failed to decode payload: x".into()),
        );
        trace.record_rejection(Some("2"), "t", &declined());
        let back: Trace = serde_json::from_str(&serde_json::to_string(&trace).unwrap()).unwrap();
        assert_eq!(back, trace);
        assert_eq!(back.calls()[0].cause, None);
        assert_eq!(back.calls()[1].id.as_deref(), Some("2"));
    }
}
