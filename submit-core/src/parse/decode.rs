//! Step *Strict mode only* and step *Decode* of the parsing rules: strict mode's `null`s
//! removed, then the payload object decoded into the response type (or, for a tool built from a
//! JSON Schema document, validated against that schema). When that fails, the payload is walked
//! once against the full payload schema for values at depth (`values.rs`: `stringified_value`,
//! `enum_case`) and, if the walk mended anything, decoded again; the rejection is otherwise the
//! first decode's.

use std::borrow::Cow;

use serde::de::value::MapDeserializer;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::members::{decode_unique, repeated, Members, Stopped};
use super::payload::{Json, Payload};
use super::values::{self, Top};
use crate::error::{ErrorClass, SubmitError};
use crate::outcome::{Recovery, RecoveryKind};
use crate::schema::property::Property;

/// What step *Strict mode only* and step *Decode* need of the tool.
pub(crate) struct Decode<'t> {
    /// Strict mode: the optional properties' `null`s are removed first.
    pub(crate) strict: bool,
    /// The properties of the full schema, in schema order.
    pub(crate) properties: &'t [Property],
    /// For a tool built from a JSON Schema document: its validator.
    pub(crate) validator: Option<&'t jsonschema::Validator>,
    /// The full (un-omitted) payload schema, which a payload that did not decode is walked
    /// against.
    pub(crate) schema: &'t Value,
    /// The payload was built from flat properties.
    pub(crate) flat: bool,
}

/// How a validated JSON payload becomes the response: serde's decode, or for a tool built
/// from a JSON Schema document (whose response is that JSON) the payload itself, moved.
pub(crate) type FromValue<R> = fn(Value) -> Result<R, serde_json::Error>;

/// Step *Decode*, after step *Strict mode only*. The message is the same whether the payload
/// came direct, from a string or from reasoning: serde's text without the position, which
/// differs between those.
///
/// A payload that does not decode is walked once: strings that hold a value of the type the
/// schema admits there, and enum values in another letter case, are mended, and the result is
/// decoded again. When that decodes, one `stringified_value` entry and then one `enum_case`
/// entry (each naming its JSON Pointers) are appended to `applied`; otherwise the rejection is
/// the first decode's, and nothing is recorded.
pub(crate) fn decode<R: DeserializeOwned>(
    tool: &Decode<'_>,
    payload: Payload<'_, R>,
    applied: &mut Vec<Recovery>,
    from_value: FromValue<R>,
) -> Result<R, SubmitError> {
    let payload = match payload {
        Payload::Decoded(response) => return Ok(response),
        Payload::Json(json) => json,
    };
    let payload = if tool.strict {
        without_optional_nulls(payload, tool.properties)
    } else {
        payload
    };
    let (error, payload) = match attempt(tool, payload, from_value) {
        Ok(response) => return Ok(response),
        Err((error, Some(payload))) if error.class() == ErrorClass::Payload => (error, payload),
        Err((other, _)) => return Err(other),
    };
    // The properties a flat payload's own rule replaced are not walked into.
    let replaced: Vec<String> = applied
        .iter()
        .filter(|rule| rule.kind == RecoveryKind::StringifiedProperty)
        .flat_map(|rule| rule.parameters.iter().cloned())
        .collect();
    let top = Top {
        flat: tool.flat,
        replaced: &replaced,
    };
    let Some((mended, changes)) = values::repaired(&payload, tool.schema, top) else {
        return Err(error);
    };
    let response = attempt(tool, Json::Owned(mended), from_value).map_err(|_| error)?;
    for (kind, pointers) in [
        (RecoveryKind::StringifiedValue, changes.stringified),
        (RecoveryKind::EnumCase, changes.folded),
    ] {
        if !pointers.is_empty() {
            applied.push(Recovery::naming(kind, pointers));
        }
    }
    Ok(response)
}

/// One decode (or validation) of the payload. A rejection hands the payload back for the walk
/// of values at depth (`None` when it was spent).
#[allow(
    clippy::result_large_err,
    reason = "the payload is handed back by value on a rejection, which is not the hot path"
)]
fn attempt<'a, R: DeserializeOwned>(
    tool: &Decode<'_>,
    payload: Json<'a>,
    from_value: FromValue<R>,
) -> Result<R, (SubmitError, Option<Json<'a>>)> {
    match tool.validator {
        Some(validator) => validated(validator, payload, from_value),
        None => deserialize(&payload).map_err(|error| (error, Some(payload))),
    }
}

/// The payload text decoded with its own members each named once.
fn checked<R: DeserializeOwned>(text: &str) -> Result<R, SubmitError> {
    decode_unique(text).map_err(|stopped| match stopped {
        Stopped::Repeated(name) => repeated(&name),
        Stopped::Decoder(error) => SubmitError::payload(failed(&error)),
    })
}

fn deserialize<R: DeserializeOwned>(payload: &Json<'_>) -> Result<R, SubmitError> {
    match payload {
        Json::Value(value) => R::deserialize(*value),
        Json::Owned(value) => R::deserialize(value),
        Json::Text(text) => return checked(text),
        Json::Members(members) => R::deserialize(MapDeserializer::<_, serde_json::Error>::new(
            members.iter().copied(),
        )),
    }
    .map_err(|error| SubmitError::payload(failed(&error)))
}

/// `failed to decode payload: <serde error>`, without serde_json's ` at line L column C`.
fn failed(error: &serde_json::Error) -> String {
    let text = error.to_string();
    let position = format!(" at line {} column {}", error.line(), error.column());
    let text = match text.strip_suffix(&position) {
        Some(text) if error.line() > 0 => text,
        _ => &text,
    };
    format!("failed to decode payload: {text}")
}

/// Full validation against the document's schema, naming the first failing JSON pointer. The
/// validated value becomes the response through `from_value`: a payload parsed here or before
/// is moved, not copied.
#[allow(
    clippy::result_large_err,
    reason = "the payload is handed back by value on a rejection, which is not the hot path"
)]
fn validated<'a, R>(
    validator: &jsonschema::Validator,
    payload: Json<'a>,
    from_value: FromValue<R>,
) -> Result<R, (SubmitError, Option<Json<'a>>)> {
    let invalid = |value: &Value| {
        validator.validate(value).err().map(|error| {
            SubmitError::payload(format!(
                "failed to decode payload: at {:?}: {error}",
                error.instance_path().as_str()
            ))
        })
    };
    let value = match payload {
        Json::Value(value) => match invalid(value) {
            Some(error) => return Err((error, Some(payload))),
            None => value.clone(),
        },
        Json::Owned(value) => match invalid(&value) {
            Some(error) => return Err((error, Some(Json::Owned(value)))),
            None => value,
        },
        // A payload that fails is handed back as its text: the walk of values at depth reads
        // the text itself (declining a member repeated at any depth).
        Json::Text(text) => match checked::<Value>(&text) {
            Err(error) => return Err((error, Some(Json::Text(text)))),
            Ok(value) => match invalid(&value) {
                Some(error) => return Err((error, Some(Json::Text(text)))),
                None => value,
            },
        },
        Json::Members(members) => {
            let value = Value::Object(
                members
                    .iter()
                    .map(|(name, value)| ((*name).to_owned(), (*value).clone()))
                    .collect(),
            );
            match invalid(&value) {
                Some(error) => return Err((error, Some(Json::Members(members)))),
                None => value,
            }
        }
    };
    from_value(value).map_err(|error| (SubmitError::payload(failed(&error)), None))
}

fn is_optional(properties: &[Property], name: &str) -> bool {
    !properties
        .iter()
        .any(|property| property.required && property.name == name)
}

/// Strict mode: the strict schema told the model to send `null` for every property the
/// original schema does not require; those `null`s are removed before decoding.
fn without_optional_nulls<'a>(payload: Json<'a>, properties: &[Property]) -> Json<'a> {
    let optional_null = |name: &str, is_null: bool| is_null && is_optional(properties, name);
    match payload {
        Json::Value(Value::Object(map))
            if map
                .iter()
                .any(|(name, value)| optional_null(name, value.is_null())) =>
        {
            let kept: Map<String, Value> = map
                .iter()
                .filter(|(name, value)| !optional_null(name, value.is_null()))
                .map(|(name, value)| (name.clone(), value.clone()))
                .collect();
            Json::Owned(Value::Object(kept))
        }
        Json::Owned(Value::Object(mut map)) => {
            map.retain(|name, value| !optional_null(name, value.is_null()));
            Json::Owned(Value::Object(map))
        }
        Json::Members(mut members) => {
            members.retain(|(name, value)| !optional_null(name, value.is_null()));
            Json::Members(members)
        }
        Json::Text(text) => match serde_json::from_str::<Members<'_>>(&text) {
            Ok(object)
                if object
                    .list
                    .iter()
                    .any(|(name, raw)| optional_null(name, raw.get() == "null")) =>
            {
                let mut kept = String::with_capacity(text.len());
                kept.push('{');
                for (name, raw) in &object.list {
                    if optional_null(name, raw.get() == "null") {
                        continue;
                    }
                    if kept.len() > 1 {
                        kept.push(',');
                    }
                    kept.push_str(&Value::from(name.as_ref()).to_string());
                    kept.push(':');
                    kept.push_str(raw.get());
                }
                kept.push('}');
                Json::Text(Cow::Owned(kept))
            }
            _ => Json::Text(text),
        },
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Debug, Deserialize, PartialEq)]
    struct Sample {
        summary: String,
    }

    #[test]
    fn payload_errors_are_identical_for_value_and_text() {
        let value = json!({"summary": 42});
        let from_value = deserialize::<Sample>(&Json::Value(&value)).unwrap_err();
        let text = "{\n  \"summary\": 42}";
        let from_text = deserialize::<Sample>(&Json::Text(text.into())).unwrap_err();
        assert_eq!(from_value, from_text);
        assert_eq!(
            from_value.message(),
            "failed to decode payload: invalid type: integer `42`, expected a string"
        );
    }

    #[test]
    fn members_decode_without_cloning() {
        let summary = json!("s");
        let decoded = deserialize::<Sample>(&Json::Members(vec![("summary", &summary)])).unwrap();
        assert_eq!(decoded.summary, "s");
    }

    #[test]
    fn deep_payload_text_hits_the_recursion_limit_cleanly() {
        let text = format!("{{\"summary\":{}", "[".repeat(1 << 20));
        let error = deserialize::<Value>(&Json::Text(text.into())).unwrap_err();
        assert!(error
            .message()
            .starts_with("failed to decode payload: recursion limit exceeded"));
    }

    #[test]
    fn strict_mode_removes_optional_nulls_only() {
        let properties = vec![
            Property {
                name: "summary".into(),
                required: true,
                types: None,
            },
            Property {
                name: "note".into(),
                required: false,
                types: None,
            },
        ];
        let value = json!({"summary": null, "note": null});
        let Json::Owned(stripped) = without_optional_nulls(Json::Value(&value), &properties) else {
            panic!("owned expected")
        };
        assert_eq!(stripped, json!({"summary": null}));
        let Json::Text(stripped) = without_optional_nulls(
            Json::Text(r#"{"summary":"s","note":null}"#.into()),
            &properties,
        ) else {
            panic!("text expected")
        };
        assert_eq!(stripped, r#"{"summary":"s"}"#);
    }
}
