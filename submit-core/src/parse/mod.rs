//! Parsing a submit call: every rule, in the order the rules apply (see
//! [parsing](crate::rules::parsing)).
//!
//! [`Parser::parse`] is the one algorithm for a call, read top to bottom, each step named as the
//! page names it: step *The arguments as a whole* (the arguments object, and the recoveries
//! where it is not one), with step *Duplicate members* inside every read of an object; step
//! *Reasoning*; the payload, by step *Flat payload* or step *Nested payload* (an object, or
//! recovered from the reasoning or from a string); step *Strict mode only* and step *Decode*;
//! and step *Accept*. Step *Where the call was found* and step *Cut off at the output limit* run
//! before it, at the door (`receive.rs`, `calls_in_text.rs`). Each step is one call into the file
//! that holds it, and the first rejection wins.
//!
//! The common case takes fast paths inside those steps, never beside them: where the tool decodes
//! its payload straight from JSON text, step *The arguments as a whole* reads the reasoning and
//! decodes the payload object in place while it reads argument text, and step *Nested payload*
//! decodes an object it recovers from a string or from the reasoning as it finds its end. Each fast
//! path falls back to the general reading of its own step on anything it does not expect, so every
//! rejection and every recovery is decided and worded in one place. `tests/properties.rs`
//! checks, on generated and damaged calls, that the parser with and without the fast paths gives
//! the same outcome, call for call.

mod arguments;
mod closing;
mod decode;
mod flat;
mod from_reasoning;
mod members;
pub(crate) mod parallel;
mod payload;
mod reasoning;
pub(crate) mod text;
mod values;
mod whole;

#[cfg(test)]
mod tests;

use std::borrow::Cow;

use serde::de::DeserializeOwned;
use serde_json::{json, Value};

pub(crate) use arguments::object_members;
pub use arguments::{Arguments, JsonType};
pub(crate) use decode::FromValue;

use arguments::{ArgumentsRead, AsWhole, InPlace, Object, PayloadRead};
use payload::{Located, NewReasoning};
use whole::Unwrapped;

use crate::error::SubmitError;
use crate::options::Options;
use crate::outcome::{Accepted, Recovery, RecoveryKind};
use crate::schema::property::Property;

/// What the parsing rules read of a built tool: its options and what it computed once from
/// the payload schema.
pub(crate) struct Parser<'t> {
    /// The options with defaults applied and validated.
    pub(crate) options: &'t Options,
    /// The payload's top-level properties in schema order (full schema).
    pub(crate) properties: &'t [Property],
    /// For a tool built from a JSON Schema document: the validator step *Decode* runs.
    pub(crate) validator: Option<&'t jsonschema::Validator>,
    /// The full (un-omitted) payload schema: a payload that did not decode is walked against
    /// it at step *Decode*.
    pub(crate) payload_schema: &'t Value,
    /// The payload schema is closed (`additionalProperties: false`): under `flat`, an unknown
    /// argument is rejected.
    pub(crate) closed: bool,
    /// Whether the fast paths are taken; the property tests compare the parser without them.
    #[cfg(test)]
    pub(crate) fast_paths: bool,
}

impl<'t> Parser<'t> {
    /// Parses a call's arguments. `found` records where a call was found when the model did
    /// not make it as a call (written as text, or an entry of an invented wrapper): it is
    /// recorded first, and every rule applies after it.
    ///
    /// `from_value` makes the response of a payload validated as JSON (a tool built from a
    /// JSON Schema document).
    pub(crate) fn parse<R: DeserializeOwned>(
        &self,
        arguments: Arguments<'_>,
        found: Option<Recovery>,
        from_value: FromValue<R>,
    ) -> Result<Accepted<R>, SubmitError> {
        let options = self.options;
        let field = &*options.payload_field_name;
        let decodes_text = self.decodes_text();
        let in_place = (decodes_text || self.reads_json_in_place()).then_some(InPlace {
            payload: field,
            reasoning: !options.omit_reasoning,
            as_json: !decodes_text,
        });
        let mut applied: Vec<Recovery> = found.into_iter().collect();
        // Text that a recovery of the arguments as a whole read an object out of.
        let extracted: Cow<'_, str>;
        let unwrapped: String;

        // `input`/`args` that arrived as a string is argument text, encoded once already.
        let (arguments, encoded) = match arguments {
            Arguments::Value(Value::String(text)) => {
                applied.push(Recovery::new(RecoveryKind::StringifiedArguments));
                (Arguments::Text(text.as_str()), false)
            }
            other => (other, true),
        };

        // Step *The arguments as a whole*. Argument text that is no object may still hold one:
        // empty or whitespace-only text, `trailing_closers`, `stringified_arguments`,
        // `fenced_arguments`.
        let mut read: ArgumentsRead<'_, R> = match arguments::read(arguments, in_place)? {
            AsWhole::Object(read) => read,
            AsWhole::NotAnObject { text, rejection } => {
                let Some(found) = whole::recover(text, encoded) else {
                    return Err(rejection);
                };
                applied.extend(found.kinds.into_iter().map(Recovery::new));
                extracted = found.object;
                object_of(&extracted, in_place)?
            }
        };

        // `wrapped_arguments`, one extra member wrapping the arguments, or beside it
        // `wrapped_call`, the whole call given as the arguments: only where no other recovery of
        // the arguments as a whole applied (where the call was found counts for nothing here).
        if only_where_found(&applied) {
            match whole::unwrap(&read.object, &self.parameters())? {
                Some(Unwrapped::Object(inner, kinds)) => {
                    applied.extend(kinds.into_iter().map(Recovery::new));
                    read = ArgumentsRead::plain(inner);
                }
                // The whole call's arguments were text, read as step *The arguments as a whole*
                // reads text.
                Some(Unwrapped::Text(text, kinds)) => {
                    applied.extend(kinds.into_iter().map(Recovery::new));
                    unwrapped = text;
                    read = object_of(&unwrapped, in_place)?;
                }
                None => {}
            }
        }

        // Step *Reasoning*.
        let reasoning =
            reasoning::read(&read.object, read.reasoning.take(), options.omit_reasoning)?;

        // Step *Flat payload*; or step *Nested payload*.
        let located = self.locate_payload(
            &read.object,
            read.payload.take(),
            &reasoning,
            decodes_text,
            &mut applied,
        )?;

        // Step *Strict mode only*, then step *Decode*.
        let decode = decode::Decode {
            strict: options.strict,
            properties: self.properties,
            validator: self.validator,
            schema: self.payload_schema,
            flat: options.flat_payload,
        };
        let response = decode::decode(&decode, located.payload, &mut applied, from_value)?;

        // Step *Accept*.
        let replacement = located.reasoning.map(NewReasoning::into_owned);
        let reasoning = accepted_reasoning(replacement, reasoning);
        Ok(self.accept(response, reasoning, &mut applied))
    }

    /// Step *Flat payload*, or step *Nested payload*: the payload parameter, recovered from
    /// the reasoning when absent or `null`, or from a string. The recovery that located it is
    /// appended to `applied`.
    fn locate_payload<'a, R: DeserializeOwned>(
        &self,
        object: &Object<'a>,
        payload: Option<PayloadRead<'a, R>>,
        reasoning: &'a str,
        decodes_text: bool,
        applied: &mut Vec<Recovery>,
    ) -> Result<Located<'a, R>, SubmitError>
    where
        't: 'a,
    {
        let options = self.options;
        let field = &*options.payload_field_name;
        let located = if options.flat_payload {
            let flat = flat::Flat {
                properties: self.properties,
                omit_reasoning: options.omit_reasoning,
                omitted: &options.omit_payload_fields,
                closed: self.closed,
            };
            flat::build(object, reasoning, &flat, applied)?
        } else {
            payload::locate(object, payload, field, reasoning, decodes_text)?
        };
        if let Some(recovery) = located.recovery {
            applied.push(self.named(recovery));
        }
        if let Some(also) = located.also {
            // A fence inside the stringified payload names the payload too.
            applied.push(Recovery::naming(also, vec![field.to_owned()]));
        }
        Ok(located)
    }

    /// Whether the tool decodes its payload straight from JSON text: a nested payload, without
    /// strict mode's `null` removal or a JSON Schema document's validation before the decode.
    /// Only then are the fast paths taken.
    fn decodes_text(&self) -> bool {
        #[cfg(test)]
        if !self.fast_paths {
            return false;
        }
        let options = self.options;
        !options.flat_payload && !options.strict && self.validator.is_none()
    }

    /// Whether a tool built from a JSON Schema document reads its nested payload in place as
    /// JSON (validated at step *Decode*), without strict mode's `null` removal first.
    fn reads_json_in_place(&self) -> bool {
        #[cfg(test)]
        if !self.fast_paths {
            return false;
        }
        let options = self.options;
        !options.flat_payload && !options.strict && self.validator.is_some()
    }

    /// The advertised parameters, as the recoveries of the arguments as a whole read them.
    fn parameters(&self) -> whole::Parameters<'_> {
        let options = self.options;
        whole::Parameters {
            tool: &options.tool_name,
            reasoning: !options.omit_reasoning,
            payload: Some(&options.payload_field_name),
            properties: self.properties,
            omitted: &options.omit_payload_fields,
            flat: options.flat_payload,
        }
    }

    /// A payload recovery as it is recorded: naming the payload parameter.
    fn named(&self, recovery: RecoveryKind) -> Recovery {
        Recovery::naming(recovery, vec![self.options.payload_field_name.to_string()])
    }

    /// Step *Accept*: the outcome of an accepted submit. Logs the reasoning's length, never its
    /// text, and one event for each recovery that applied, naming its kind.
    fn accept<R>(
        &self,
        response: R,
        reasoning: String,
        applied: &mut Vec<Recovery>,
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
            recoveries: std::mem::take(applied),
            tool_result: json!({"success": true, "message": options.success_message}),
        }
    }

    fn log_recovery(&self, rule: &Recovery) {
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

/// Whether the only recoveries so far say where the call was found (written as text, an entry
/// of an invented wrapper): `wrapped_arguments` and `wrapped_call` apply only then.
fn only_where_found(applied: &[Recovery]) -> bool {
    applied.iter().all(|rule| {
        matches!(
            rule.kind,
            RecoveryKind::CallInText | RecoveryKind::ParallelWrapper
        )
    })
}

/// The reasoning an accepted call commits: the argument's, or the one a recovery from the
/// reasoning gave. That one is usually a prefix of the argument: cut in place.
fn accepted_reasoning(replacement: Option<NewReasoning<'_>>, argument: Cow<'_, str>) -> String {
    match (replacement, argument) {
        (None, argument) => argument.into_owned(),
        (Some(NewReasoning::Text(text)), _) => text.into_owned(),
        (Some(NewReasoning::Prefix(len)), Cow::Owned(mut argument)) => {
            argument.truncate(len);
            argument
        }
        (Some(NewReasoning::Prefix(len)), Cow::Borrowed(argument)) => {
            argument.get(..len).unwrap_or_default().to_owned()
        }
    }
}

/// Step *The arguments as a whole* on text that one of its recoveries found to hold one object.
fn object_of<'a, R: DeserializeOwned>(
    text: &'a str,
    in_place: Option<InPlace<'_>>,
) -> Result<ArgumentsRead<'a, R>, SubmitError> {
    match arguments::read(Arguments::Text(text), in_place)? {
        AsWhole::Object(read) => Ok(read),
        AsWhole::NotAnObject { rejection, .. } => Err(rejection),
    }
}
