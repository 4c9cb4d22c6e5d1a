//! A provider's call envelope: the readers of its members the four wire formats share.

use serde_json::{Map, Value};

use super::{CallShapeError, Provider};
use crate::parse::{Arguments, JsonType};

/// The call object as a JSON object.
pub(crate) fn object(
    provider: Provider,
    call: &Value,
) -> Result<&Map<String, Value>, CallShapeError> {
    call.as_object().ok_or_else(|| {
        shape(
            provider,
            format!("expected a JSON object, got {}", JsonType::of(call)),
        )
    })
}

/// `key` must hold `expected` when present.
pub(crate) fn check_type(
    provider: Provider,
    object: &Map<String, Value>,
    expected: &str,
) -> Result<(), CallShapeError> {
    match object.get("type") {
        None => Ok(()),
        Some(Value::String(found)) if found == expected => Ok(()),
        Some(found) => Err(shape(
            provider,
            format!("`type` is {found}, expected \"{expected}\""),
        )),
    }
}

/// An optional string member.
pub(crate) fn optional_str<'a>(
    provider: Provider,
    object: &'a Map<String, Value>,
    key: &str,
) -> Result<Option<&'a str>, CallShapeError> {
    match object.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(text)),
        Some(other) => Err(shape(
            provider,
            format!("`{key}` must be a string, got {}", JsonType::of(other)),
        )),
    }
}

/// A required string member (the tool name).
pub(crate) fn required_str<'a>(
    provider: Provider,
    object: &'a Map<String, Value>,
    key: &str,
) -> Result<&'a str, CallShapeError> {
    optional_str(provider, object, key)?
        .ok_or_else(|| shape(provider, format!("no `{key}` string")))
}

/// A required object member (Chat's `function`, Gemini's `functionCall`).
pub(crate) fn required_object<'a>(
    provider: Provider,
    object: &'a Map<String, Value>,
    key: &str,
) -> Result<&'a Map<String, Value>, CallShapeError> {
    match object.get(key) {
        Some(Value::Object(inner)) => Ok(inner),
        None => Err(shape(provider, format!("no `{key}` object"))),
        Some(other) => Err(shape(
            provider,
            format!("`{key}` must be an object, got {}", JsonType::of(other)),
        )),
    }
}

/// Arguments that arrive as a value (`input`, `args`): absent reads as `{}`.
pub(crate) fn value_arguments<'a>(object: &'a Map<String, Value>, key: &str) -> Arguments<'a> {
    object.get(key).map_or(Arguments::Missing, Arguments::Value)
}

/// Arguments that arrive as JSON text (`arguments`): a string is text; absent or `null` reads
/// as `{}`; an already-decoded value is read as a value (step *The arguments as a whole* then
/// takes an object and rejects anything else).
pub(crate) fn text_arguments<'a>(object: &'a Map<String, Value>, key: &str) -> Arguments<'a> {
    match object.get(key) {
        None => Arguments::Missing,
        Some(Value::String(text)) => Arguments::Text(text),
        Some(value) => Arguments::Value(value),
    }
}

pub(crate) fn shape(provider: Provider, reason: String) -> CallShapeError {
    CallShapeError { provider, reason }
}
