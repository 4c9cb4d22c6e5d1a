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
mod cow_str;
mod decode;
mod duplicates;
mod echo;
mod flat;
mod located;
mod payload;
mod reasoning;
mod recover;
mod whole;

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

use arguments::{Args, Step1};
use clean::OnePass;
use recover::Recovered;

use crate::error::{ParameterCause, SubmitError};
use crate::outcome::{Accepted, AppliedRecovery, Outcome, Recovery, RecoveryKind, Rejected};
use crate::provider::{Call, CallShapeError, Provider};
use crate::tool::SubmitTool;
use crate::trace::Trace;

/// Why the steps rejected: at step 1 on argument text (the rules of §10.1 may still read
/// it), or anywhere else.
enum Failure {
    Step1(SubmitError),
    Other(SubmitError),
}

impl Failure {
    fn into_error(self) -> SubmitError {
        match self {
            Failure::Step1(error) | Failure::Other(error) => error,
        }
    }
}

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

    /// SUBMIT.md §10.1 around §5 steps 1 to 8: argument text that step 1 rejects is read by
    /// the rules for the arguments as a whole, and the steps run again on what they found.
    fn parse(&self, arguments: Arguments<'_>) -> Result<Accepted<R>, SubmitError> {
        let mut applied = Vec::new();
        // `input`/`args` that arrived as a string is argument text (§10.1).
        let (arguments, encoded) = match arguments {
            Arguments::Value(Value::String(text)) => {
                applied.push(AppliedRecovery::new(RecoveryKind::StringifiedArguments));
                (Arguments::Text(text.as_str()), false)
            }
            other => (other, true),
        };
        match self.steps(arguments, &mut applied) {
            Ok(accepted) => Ok(accepted),
            Err(Failure::Other(error)) => Err(error),
            Err(Failure::Step1(error)) => {
                let Arguments::Text(text) = arguments else {
                    return Err(error);
                };
                let Some(found) = whole::recover(text, encoded) else {
                    return Err(error);
                };
                applied.extend(found.kinds.into_iter().map(AppliedRecovery::new));
                self.steps(Arguments::Text(&found.object), &mut applied)
                    .map_err(Failure::into_error)
            }
        }
    }

    /// §5 steps 1 to 8, with §10.1e after step 1 and §10.3 inside step 3.
    fn steps(
        &self,
        arguments: Arguments<'_>,
        applied: &mut Vec<AppliedRecovery>,
    ) -> Result<Accepted<R>, Failure> {
        let options = &self.inner.options;
        let field = &options.payload_field_name;
        // The common cases, a clean call or a stringified payload in argument text, decode in
        // one pass; anything else, every rejection included, is decided by the steps.
        let mut read = None;
        if let Arguments::Text(text) = arguments {
            if !options.flat_payload && !options.strict && self.inner.validator.is_none() {
                match clean::decode(text, field, options.omit_reasoning) {
                    OnePass::Accepted(response, reasoning, recovery) => {
                        if let Some(recovery) = recovery {
                            applied.push(self.named(recovery));
                        }
                        return Ok(self.accept(response, reasoning, recovery, applied));
                    }
                    OnePass::Members(members, reasoning) => {
                        read = Some((Args::Raw(members), reasoning));
                    }
                    OnePass::Steps => {}
                }
            }
        }
        // 1. Decode the arguments (done already when the one pass handed over its members).
        let (mut args, mut read_reasoning) = match read {
            Some(read) => read,
            None => (Self::decode_arguments(arguments)?, None),
        };
        // §10.1e: one wrapper member (only where no other §10.1 rule applied; a reasoning the
        // one pass read is a member, so the object holds a parameter).
        if applied.is_empty() && read_reasoning.is_none() {
            let parameters = whole::Parameters {
                reasoning: !options.omit_reasoning,
                payload: Some(field),
                properties: &self.inner.properties,
                flat: options.flat_payload,
            };
            if let Some(inner) = whole::unwrap(&args, &parameters).map_err(Failure::Other)? {
                args = inner;
                read_reasoning = None;
                applied.push(AppliedRecovery::new(RecoveryKind::WrappedArguments));
            }
        }
        self.after_step_1(&args, read_reasoning, applied)
            .map_err(Failure::Other)
    }

    /// Step 1 proper: text that is no object may still be read by §10.1; anything else that
    /// fails here is final.
    fn decode_arguments(arguments: Arguments<'_>) -> Result<Args<'_>, Failure> {
        match arguments {
            Arguments::Text(text) => arguments::decode_text(text).map_err(|step1| match step1 {
                Step1::NotAnObject(error) => Failure::Step1(error),
                Step1::Duplicate(error) => Failure::Other(error),
            }),
            other => arguments::decode(other).map_err(Failure::Other),
        }
    }

    /// Steps 2 to 8.
    fn after_step_1<'a>(
        &self,
        args: &Args<'a>,
        read_reasoning: Option<Cow<'a, str>>,
        applied: &mut Vec<AppliedRecovery>,
    ) -> Result<Accepted<R>, SubmitError> {
        let options = &self.inner.options;
        // 2. Reasoning (already read when the one pass found it a string).
        let reasoning = match read_reasoning {
            Some(reasoning) => reasoning,
            None => reasoning::read(args, options.omit_reasoning)?,
        };
        let field = &options.payload_field_name;
        let found = if options.flat_payload {
            // 3. Flat payload.
            let flat = flat::Flat {
                properties: &self.inner.properties,
                omit_reasoning: options.omit_reasoning,
                omitted: &options.omit_payload_fields,
                closed: self.inner.closed,
            };
            Recovered::Located(flat::build(args, &reasoning, &flat, applied)?)
        } else if !options.strict && self.inner.validator.is_none() {
            // 4 to 6, and 7 for a payload recovered from reasoning: it is decoded as its end
            // is found.
            payload::locate_decoded(args, field, &reasoning)?
        } else {
            // 4. Nested payload; 5. recovery from reasoning; 6. stringified payload.
            Recovered::Located(payload::locate(args, field, &reasoning)?)
        };
        let (response, replacement, recovery) = match found {
            Recovered::Located(located) => {
                if let Some(recovery) = located.recovery {
                    applied.push(self.named(recovery));
                }
                if let Some(also) = located.also {
                    applied.push(AppliedRecovery::new(also));
                }
                // 7. Decode.
                let response = decode::decode(&self.inner, located.payload)?;
                (response, located.reasoning, located.recovery)
            }
            Recovered::Decoded(response, recovered, recovery) => {
                applied.push(self.named(recovery));
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
        Ok(self.accept(response, reasoning, recovery, applied))
    }

    /// A §5 recovery as §10.5 records it: naming the payload parameter.
    fn named(&self, recovery: Recovery) -> AppliedRecovery {
        AppliedRecovery::naming(
            recovery.into(),
            vec![self.inner.options.payload_field_name.to_string()],
        )
    }

    /// Step 8: the outcome of an accepted submit. Logs the reasoning's length, never its text,
    /// and one event for each rule that applied, naming its kind.
    fn accept(
        &self,
        response: R,
        reasoning: String,
        recovery: Option<Recovery>,
        applied: &mut Vec<AppliedRecovery>,
    ) -> Accepted<R> {
        let options = &self.inner.options;
        for rule in applied.iter() {
            self.log_recovery(rule);
        }
        tracing::info!(
            tool = %options.tool_name,
            reasoning_bytes = reasoning.len(),
            "submitting result"
        );
        Accepted {
            response,
            reasoning,
            recovery,
            recoveries: std::mem::take(applied),
            tool_result: json!({"success": true, "message": options.success_message}),
        }
    }

    fn log_recovery(&self, rule: &AppliedRecovery) {
        let how = match rule.kind {
            RecoveryKind::Stringified => "the payload from a JSON-encoded string",
            RecoveryKind::ReasoningOpener => {
                "the payload nested in reasoning after a parameter opener"
            }
            RecoveryKind::ReasoningMember => "the payload nested in reasoning as a JSON member",
            RecoveryKind::TrailingClosers => "arguments followed by closing tokens",
            RecoveryKind::StringifiedArguments => "arguments JSON-encoded into a string",
            RecoveryKind::FencedArguments => "JSON inside a Markdown fence",
            RecoveryKind::WrappedArguments => "arguments wrapped in one extra member",
            RecoveryKind::StringifiedProperty => "properties JSON-encoded into strings",
            RecoveryKind::ClosingMarkup => "tool-call markup at the end of string properties",
        };
        tracing::warn!(
            tool = %self.inner.options.tool_name,
            field = %self.inner.options.payload_field_name,
            recovery = rule.kind.as_str(),
            parameters = ?rule.parameters,
            "recovered submit payload: {how}"
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
