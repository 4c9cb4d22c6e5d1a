//! Handling a submit call: the steps of SUBMIT.md §5, top to bottom.
//!
//! `SubmitTool::parse` reads as the specification does: each step is one call into its own
//! file, and the first failure wins. Before the steps, argument text goes through one pass
//! (`clean.rs`) that accepts a clean call or a stringified payload directly and otherwise hands
//! over what it read; it never rejects, so every rejection is the steps' own.

mod arguments;
pub(crate) mod call;
mod clean;
mod closing;
mod decode;
mod echo;
mod flat;
mod payload;
mod reasoning;
mod recover;

#[cfg(test)]
mod corpus;
#[cfg(test)]
mod properties;
#[cfg(test)]
pub(crate) mod testing;
#[cfg(test)]
mod tests;

use std::borrow::Cow;

use serde::de::DeserializeOwned;
use serde_json::{json, Value};

pub use arguments::Arguments;

use arguments::Args;
use clean::OnePass;
use recover::Recovered;

use crate::error::{ParameterCause, SubmitError};
use crate::outcome::{Accepted, Outcome, Recovery, Rejected};
use crate::provider::{Call, CallShapeError, Provider};
use crate::tool::SubmitTool;
use crate::trace::Trace;

impl<R: DeserializeOwned> SubmitTool<R> {
    /// Handles a call in `provider`'s native shape (a `tool_use` block, a `functionCall` part,
    /// a Chat tool call, a Responses `function_call` item).
    ///
    /// A call that is not in the provider's shape (see [`Provider::read_call`]) is rejected
    /// like arguments that do not decode: cause
    /// [`ParameterCause::UndecodableArguments`], message `failed to parse tool arguments: not
    /// a <provider> tool call: <what is wrong>`. Never panics, whatever the input.
    ///
    /// ```
    /// # fn main() -> Result<(), submit_result::BuildError> {
    /// use serde_json::json;
    /// use submit_result::{Options, Outcome, Provider, Recovery, SubmitTool};
    ///
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Analysis {
    ///     summary: String,
    /// }
    ///
    /// let tool = SubmitTool::<Analysis>::new(Options::new().payload_field_name("analysis"))?;
    /// let call = json!({
    ///     "id": "call_1", "type": "function",
    ///     "function": {"name": "submit_result",
    ///                  "arguments": r#"{"reasoning":"done","analysis":"{\"summary\":\"ok\"}</analysis>"}"#}
    /// });
    /// let Outcome::Accepted(accepted) = tool.handle(Provider::OpenAiChat, &call) else {
    ///     panic!("rejected");
    /// };
    /// assert_eq!(accepted.response.summary, "ok");
    /// assert_eq!(accepted.recovery, Some(Recovery::Stringified));
    /// # Ok(())
    /// # }
    /// ```
    pub fn handle(&self, provider: Provider, call: &Value) -> Outcome<R> {
        self.handle_read(provider.read_call(call))
    }

    /// Handles a call's arguments directly.
    ///
    /// ```
    /// # fn main() -> Result<(), submit_result::BuildError> {
    /// use submit_result::{Arguments, ErrorClass, Options, Outcome, ParameterCause, SubmitTool};
    ///
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Analysis {
    ///     summary: String,
    /// }
    ///
    /// let tool = SubmitTool::<Analysis>::new(Options::new())?;
    /// let outcome = tool.handle_arguments(Arguments::Text(r#"{"result":{"summary":"ok"}}"#));
    /// let Outcome::Rejected(rejected) = outcome else { panic!("accepted") };
    /// assert_eq!(rejected.error.class(), ErrorClass::Parameter);
    /// assert_eq!(rejected.error.cause(), Some(ParameterCause::AbsentOrMistyped));
    /// assert_eq!(rejected.tool_result["error"], "reasoning parameter is required");
    /// # Ok(())
    /// # }
    /// ```
    pub fn handle_arguments(&self, arguments: Arguments<'_>) -> Outcome<R> {
        match self.parse(arguments) {
            Ok(accepted) => Outcome::Accepted(accepted),
            Err(error) => self.reject(error),
        }
    }

    /// Handles a call like [`SubmitTool::handle`] and records a rejection in `trace` (one
    /// record, marked recoverable, carrying the call's id).
    pub fn handle_traced(&self, provider: Provider, call: &Value, trace: &mut Trace) -> Outcome<R> {
        let read = provider.read_call(call);
        let id = read.as_ref().ok().and_then(|call| call.id);
        let outcome = self.handle_read(read);
        trace.record(id, self.name(), &outcome);
        outcome
    }

    /// A call read out of its provider's shape, or why it could not be.
    fn handle_read(&self, read: Result<Call<'_>, CallShapeError>) -> Outcome<R> {
        match read {
            Ok(call) => self.handle_arguments(call.arguments),
            Err(shape) => self.reject(SubmitError::parameter(
                ParameterCause::UndecodableArguments,
                format!("failed to parse tool arguments: {shape}"),
            )),
        }
    }

    /// §5 steps 1 to 8.
    fn parse(&self, arguments: Arguments<'_>) -> Result<Accepted<R>, SubmitError> {
        let options = &self.inner.options;
        // The common cases, a clean call or a stringified payload in argument text, decode in
        // one pass; anything else, every rejection included, is decided by the steps.
        let mut read = None;
        if let Arguments::Text(text) = arguments {
            if !options.flat_payload && !options.strict && self.inner.validator.is_none() {
                let field = &options.payload_field_name;
                match clean::decode(text, field, options.omit_reasoning) {
                    OnePass::Accepted(response, reasoning, recovery) => {
                        if let Some(recovery) = recovery {
                            self.log_recovery(recovery);
                        }
                        return Ok(self.accept(response, reasoning, recovery));
                    }
                    OnePass::Members(members, reasoning) => {
                        read = Some((Args::Raw(members), reasoning));
                    }
                    OnePass::Steps => {}
                }
            }
        }
        // 1. Decode the arguments (done already when the one pass handed over its members).
        let (args, read_reasoning) = match read {
            Some(read) => read,
            None => (arguments::decode(arguments)?, None),
        };
        // 2. Reasoning (already read when the one pass found it a string).
        let reasoning = match read_reasoning {
            Some(reasoning) => reasoning,
            None => reasoning::read(&args, options.omit_reasoning)?,
        };
        let field = &options.payload_field_name;
        let found = if options.flat_payload {
            // 3. Flat payload.
            Recovered::Located(flat::build(&args, &self.inner.properties)?)
        } else if !options.strict && self.inner.validator.is_none() {
            // 4 to 6, and 7 for a payload recovered from reasoning: it is decoded as its end
            // is found.
            payload::locate_decoded(&args, field, &reasoning)?
        } else {
            // 4. Nested payload; 5. recovery from reasoning; 6. stringified payload.
            Recovered::Located(payload::locate(&args, field, &reasoning)?)
        };
        let (response, replacement, recovery) = match found {
            Recovered::Located(located) => {
                if let Some(recovery) = located.recovery {
                    self.log_recovery(recovery);
                }
                // 7. Decode.
                let response = decode::decode(&self.inner, located.payload)?;
                (response, located.reasoning, located.recovery)
            }
            Recovered::Decoded(response, recovered, recovery) => {
                self.log_recovery(recovery);
                (response, Some(Cow::Borrowed(recovered)), Some(recovery))
            }
        };
        // 8. Accept.
        // A recovered reasoning is usually a prefix of the argument: cut it in place.
        let replacement = replacement.map(|text| match text {
            Cow::Borrowed(text) if text.as_ptr() == reasoning.as_ptr() => Err(text.len()),
            other => Ok(other.into_owned()),
        });
        let reasoning = match (replacement, reasoning) {
            (None, argument) => argument.into_owned(),
            (Some(Ok(text)), _) => text,
            (Some(Err(len)), Cow::Owned(mut argument)) => {
                argument.truncate(len);
                argument
            }
            (Some(Err(len)), Cow::Borrowed(argument)) => {
                argument.get(..len).unwrap_or_default().to_owned()
            }
        };
        Ok(self.accept(response, reasoning, recovery))
    }

    /// Step 8: the outcome of an accepted submit. Logs the reasoning's length, never its text.
    fn accept(&self, response: R, reasoning: String, recovery: Option<Recovery>) -> Accepted<R> {
        let options = &self.inner.options;
        tracing::info!(
            tool = %options.tool_name,
            reasoning_bytes = reasoning.len(),
            "submitting result"
        );
        Accepted {
            response,
            reasoning,
            recovery,
            tool_result: json!({"success": true, "message": options.success_message}),
        }
    }

    fn log_recovery(&self, recovery: Recovery) {
        let how = match recovery {
            Recovery::Stringified => "from a JSON-encoded string",
            Recovery::ReasoningOpener => "nested in reasoning after a parameter opener",
            Recovery::ReasoningMember => "nested in reasoning as a JSON member",
        };
        tracing::warn!(
            tool = %self.inner.options.tool_name,
            field = %self.inner.options.payload_field_name,
            recovery = recovery.as_str(),
            "recovered submit payload {how}"
        );
    }

    fn reject(&self, error: SubmitError) -> Outcome<R> {
        tracing::info!(
            tool = %self.inner.options.tool_name,
            class = ?error.class(),
            cause = ?error.cause(),
            error = %error.trace_text(),
            "rejected submit"
        );
        Outcome::Rejected(Rejected::new(error))
    }
}
