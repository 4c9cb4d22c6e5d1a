//! Handling a submit call: the steps of SUBMIT.md §5, top to bottom.
//!
//! `Parser::parse` reads as the specification does: each step is one call into its own
//! file, and the first failure wins. Before the steps, argument text goes through one pass
//! (`clean.rs`) that accepts a clean call or a stringified payload directly and otherwise hands
//! over what it read; it never rejects, so every rejection is the steps' own.
//! The one pass restates the rules of steps 1 to 6 for speed; `properties.rs` proves on
//! generated and damaged calls that it and the steps alone give the same outcome, call for call
//! (`the_one_pass_and_the_steps_agree_on_every_call`).

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
pub(crate) mod text;
mod values;
mod whole;
pub(crate) mod wrapper;

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

use crate::error::SubmitError;
use crate::options::Options;
use crate::outcome::{Accepted, AppliedRecovery, Recovery, RecoveryKind};
use crate::schema::property::Property;

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

/// What the steps read of a built tool, handed over by `tool.rs`: its options and what it
/// computed once from the payload schema.
pub(crate) struct Parser<'t> {
    /// The options with defaults applied and validated.
    pub(crate) options: &'t Options,
    /// The payload's top-level properties in schema order (full schema).
    pub(crate) properties: &'t [Property],
    /// For a tool built from a JSON Schema document: the validator of step 7.
    pub(crate) validator: Option<&'t jsonschema::Validator>,
    /// The full (un-omitted) payload schema: a payload that did not decode is walked against
    /// it at step 7.
    pub(crate) payload_schema: &'t Value,
    /// The payload schema is closed (`additionalProperties: false`): under `flat`, an unknown
    /// argument is rejected (SUBMIT.md §10.3c).
    pub(crate) closed: bool,
}

impl Parser<'_> {
    /// SUBMIT.md §10.1 around §5 steps 1 to 8: argument text that step 1 rejects is read by
    /// the rules for the arguments as a whole, and the steps run again on what they found.
    pub(crate) fn parse<R: DeserializeOwned>(
        &self,
        arguments: Arguments<'_>,
    ) -> Result<Accepted<R>, SubmitError> {
        self.parse_with(arguments, Vec::new(), true)
    }

    /// [`parse`](Self::parse) for a call found where calls do not arrive (written as text, or
    /// an entry of an invented wrapper): `found` is recorded first, and every rule applies
    /// after it.
    pub(crate) fn parse_found<R: DeserializeOwned>(
        &self,
        arguments: Arguments<'_>,
        found: AppliedRecovery,
    ) -> Result<Accepted<R>, SubmitError> {
        self.parse_with(arguments, vec![found], true)
    }

    /// [`parse`](Self::parse), with the one pass tried first (`one_pass`) or left out, after
    /// the rules already `applied`. The steps alone are the reference the one pass is tested
    /// against (`properties.rs`).
    fn parse_with<R: DeserializeOwned>(
        &self,
        arguments: Arguments<'_>,
        mut applied: Vec<AppliedRecovery>,
        one_pass: bool,
    ) -> Result<Accepted<R>, SubmitError> {
        // `input`/`args` that arrived as a string is argument text (§10.1).
        let (arguments, encoded) = match arguments {
            Arguments::Value(Value::String(text)) => {
                applied.push(AppliedRecovery::new(RecoveryKind::StringifiedArguments));
                (Arguments::Text(text.as_str()), false)
            }
            other => (other, true),
        };
        match self.steps(arguments, &mut applied, one_pass) {
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
                self.steps(Arguments::Text(&found.object), &mut applied, one_pass)
                    .map_err(Failure::into_error)
            }
        }
    }

    /// §5 steps 1 to 8, with §10.1e after step 1 and §10.3 inside step 3.
    fn steps<R: DeserializeOwned>(
        &self,
        arguments: Arguments<'_>,
        applied: &mut Vec<AppliedRecovery>,
        one_pass: bool,
    ) -> Result<Accepted<R>, Failure> {
        let options = &self.options;
        let field = &options.payload_field_name;
        // The common cases, a clean call or a stringified payload in argument text, decode in
        // one pass; anything else, every rejection included, is decided by the steps.
        let mut read = None;
        if let Arguments::Text(text) = arguments {
            if one_pass && !options.flat_payload && !options.strict && self.validator.is_none() {
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
            None => (decode_arguments(arguments)?, None),
        };
        // §10.1e: one wrapper member, or beside it §11.4: the whole call as the arguments (only
        // where no other §10.1 rule applied; a reasoning the one pass read is a member, so the
        // object holds a parameter). Where the call was found counts for nothing here.
        let found_only = applied.iter().all(|r| {
            matches!(
                r.kind,
                RecoveryKind::CallInText | RecoveryKind::ParallelWrapper
            )
        });
        if found_only && read_reasoning.is_none() {
            let parameters = whole::Parameters {
                tool: &options.tool_name,
                reasoning: !options.omit_reasoning,
                payload: Some(field),
                properties: self.properties,
                omitted: &options.omit_payload_fields,
                flat: options.flat_payload,
            };
            match whole::unwrap(&args, &parameters).map_err(Failure::Other)? {
                Some(whole::Unwrapped::Object(inner, kinds)) => {
                    args = inner;
                    read_reasoning = None;
                    applied.extend(kinds.into_iter().map(AppliedRecovery::new));
                }
                // §11.4: the inner arguments were text, read here as step 1 reads text.
                Some(whole::Unwrapped::Text(text, kinds)) => {
                    applied.extend(kinds.into_iter().map(AppliedRecovery::new));
                    let inner = decode_arguments(Arguments::Text(&text))
                        .map_err(|failure| Failure::Other(failure.into_error()))?;
                    return self
                        .after_step_1(&inner, None, applied)
                        .map_err(Failure::Other);
                }
                None => {}
            }
        }
        self.after_step_1(&args, read_reasoning, applied)
            .map_err(Failure::Other)
    }

    /// Steps 2 to 8.
    fn after_step_1<'a, R: DeserializeOwned>(
        &self,
        args: &Args<'a>,
        read_reasoning: Option<Cow<'a, str>>,
        applied: &mut Vec<AppliedRecovery>,
    ) -> Result<Accepted<R>, SubmitError> {
        let options = &self.options;
        // 2. Reasoning (already read when the one pass found it a string).
        let reasoning = match read_reasoning {
            Some(reasoning) => reasoning,
            None => reasoning::read(args, options.omit_reasoning)?,
        };
        let field = &options.payload_field_name;
        let found = if options.flat_payload {
            // 3. Flat payload.
            let flat = flat::Flat {
                properties: self.properties,
                omit_reasoning: options.omit_reasoning,
                omitted: &options.omit_payload_fields,
                closed: self.closed,
            };
            Recovered::Located(flat::build(args, &reasoning, &flat, applied)?)
        } else if !options.strict && self.validator.is_none() {
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
                    // A fence inside the stringified payload names the payload too.
                    applied.push(AppliedRecovery::naming(also, vec![field.to_string()]));
                }
                // 7. Decode.
                let tool = decode::Decode {
                    strict: options.strict,
                    properties: self.properties,
                    validator: self.validator,
                    schema: self.payload_schema,
                    flat: options.flat_payload,
                };
                let response = decode::decode(&tool, located.payload, applied)?;
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
            vec![self.options.payload_field_name.to_string()],
        )
    }

    /// Step 8: the outcome of an accepted submit. Logs the reasoning's length, never its text,
    /// and one event for each rule that applied, naming its kind.
    fn accept<R>(
        &self,
        response: R,
        reasoning: String,
        recovery: Option<Recovery>,
        applied: &mut Vec<AppliedRecovery>,
    ) -> Accepted<R> {
        let options = &self.options;
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
            RecoveryKind::CallInText => "a call written as text in the model's turn",
            RecoveryKind::ParallelWrapper => "a call inside a multi_tool_use.parallel wrapper",
            RecoveryKind::WrappedCall => "the whole call given as the arguments",
            RecoveryKind::StringifiedValue => "values inside the payload JSON-encoded into strings",
            RecoveryKind::EnumCase => "enum values in another letter case",
        };
        tracing::warn!(
            tool = %self.options.tool_name,
            field = %self.options.payload_field_name,
            recovery = rule.kind.as_str(),
            parameters = ?rule.parameters,
            format = rule.format.map_or("", |f| f.as_str()),
            "recovered submit payload: {how}"
        );
    }
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
