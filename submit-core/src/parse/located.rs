//! What the payload steps (4 to 6) and the recovery from reasoning (step 5) both hand on to
//! step 7: where the payload was found, and step 4's message when it was not an object. Below
//! both, so the payload step can call the recovery without the recovery reaching back.

use std::borrow::Cow;

use serde_json::Value;

use super::arguments::{JsonType, Param};
use crate::outcome::{Recovery, RecoveryKind};

/// Where the payload object was found, ready for step 7.
#[derive(Debug)]
pub(crate) enum Payload<'a> {
    /// An object argument, read in place.
    Value(&'a Value),
    /// An object built while parsing (strict mode's `null` removal).
    Owned(Value),
    /// The JSON text of an object: a raw argument, or recovered from a string or reasoning.
    Text(Cow<'a, str>),
    /// A flat payload picked from value arguments, property by property.
    Members(Vec<(&'a str, &'a Value)>),
}

impl<'a> Payload<'a> {
    pub(crate) fn of(param: Param<'a>) -> Self {
        match param {
            Param::Value(value) => Payload::Value(value),
            Param::Raw(raw) => Payload::Text(Cow::Borrowed(raw.get())),
        }
    }
}

/// The payload, the reasoning that replaces the argument's (after a recovery from reasoning),
/// and which recovery applied.
#[derive(Debug)]
pub(crate) struct Located<'a> {
    pub(crate) payload: Payload<'a>,
    pub(crate) reasoning: Option<Cow<'a, str>>,
    pub(crate) recovery: Option<Recovery>,
    /// A rule applied after the recovery (§10.1d inside step 6: the string held a fence).
    pub(crate) also: Option<RecoveryKind>,
}

impl<'a> Located<'a> {
    pub(crate) fn direct(payload: Payload<'a>) -> Self {
        Located {
            payload,
            reasoning: None,
            recovery: None,
            also: None,
        }
    }
}

/// Step 4's message: `<field> parameter is required` when absent (`got` is `None`), else
/// `<field> parameter must be a JSON object, got <type>`, with a hint for a string.
pub(crate) fn not_an_object(field: &str, got: Option<JsonType>) -> String {
    match got {
        None => format!("{field} parameter is required"),
        Some(JsonType::String) => format!(
            "{field} parameter must be a JSON object, got string \u{2014} it looks like the \
             object was JSON-encoded into a string; pass {field} as a nested JSON object, not \
             as a string"
        ),
        Some(got) => format!("{field} parameter must be a JSON object, got {got}"),
    }
}
