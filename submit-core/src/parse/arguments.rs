//! Step 1: decode the arguments into one JSON object, and read its members.
//!
//! Arguments that arrived as a JSON value are read in place. Arguments that arrived as text
//! are decoded once into their members' raw JSON text (`&RawValue`), so the payload's text is
//! decoded into the response type later without being materialised as a `Value` first.

use std::borrow::Cow;
use std::fmt;

use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::cow_str::CowStr;
use super::duplicates::Seen;
use crate::error::{ParameterCause, SubmitError};

/// A call's arguments, provider-neutral.
#[derive(Clone, Copy, Debug)]
pub enum Arguments<'a> {
    /// Arguments that arrived as a JSON value (Anthropic `input`, Gemini `args`).
    Value(&'a Value),
    /// Arguments that arrived as JSON text (OpenAI `arguments`).
    Text(&'a str),
    /// No arguments field at all; read as `{}`.
    Missing,
}

/// The arguments object after step 1.
#[derive(Debug)]
pub(crate) enum Args<'a> {
    /// `{}`: a missing arguments field or JSON `null`.
    Empty,
    /// An object that arrived as a value.
    Value(&'a Map<String, Value>),
    /// An object that arrived as text, member by member.
    Raw(RawObject<'a>),
}

/// One argument: a value in place, or the raw JSON text of a member.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Param<'a> {
    Value(&'a Value),
    Raw(&'a RawValue),
}

/// The JSON type of a value, named as the messages name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum JsonType {
    Null,
    Object,
    Array,
    String,
    Boolean,
    Number,
}

impl fmt::Display for JsonType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            JsonType::Null => "null",
            JsonType::Object => "object",
            JsonType::Array => "array",
            JsonType::String => "string",
            JsonType::Boolean => "boolean",
            JsonType::Number => "number",
        })
    }
}

impl JsonType {
    pub(crate) fn of(value: &Value) -> JsonType {
        match value {
            Value::Null => JsonType::Null,
            Value::Bool(_) => JsonType::Boolean,
            Value::Number(_) => JsonType::Number,
            Value::String(_) => JsonType::String,
            Value::Array(_) => JsonType::Array,
            Value::Object(_) => JsonType::Object,
        }
    }

    /// The type of valid JSON text, from its first byte after whitespace.
    pub(crate) fn of_text(text: &str) -> JsonType {
        match text.trim_start().as_bytes().first() {
            Some(b'n') => JsonType::Null,
            Some(b'{') => JsonType::Object,
            Some(b'[') => JsonType::Array,
            Some(b'"') => JsonType::String,
            Some(b't' | b'f') => JsonType::Boolean,
            _ => JsonType::Number,
        }
    }
}

/// Step 1. Arguments that are not one JSON object reject with cause *undecodable arguments*;
/// JSON `null` and a missing field read as `{}`.
pub(crate) fn decode(arguments: Arguments<'_>) -> Result<Args<'_>, SubmitError> {
    match arguments {
        Arguments::Missing | Arguments::Value(Value::Null) => Ok(Args::Empty),
        Arguments::Value(Value::Object(map)) => Ok(Args::Value(map)),
        Arguments::Value(other) => Err(not_an_object(JsonType::of(other))),
        Arguments::Text(text) => decode_text(text).map_err(Step1::into_error),
    }
}

/// Why step 1 rejected argument text.
#[derive(Debug)]
pub(crate) enum Step1 {
    /// The text is not one JSON object: the rules of SUBMIT.md §10.1 may still read it.
    NotAnObject(SubmitError),
    /// The text is one JSON object, but it names a member twice (§10.2).
    Duplicate(SubmitError),
}

impl Step1 {
    pub(crate) fn into_error(self) -> SubmitError {
        match self {
            Step1::NotAnObject(error) | Step1::Duplicate(error) => error,
        }
    }
}

/// Step 1 for argument text, telling a duplicate member apart from text that is no object.
pub(crate) fn decode_text(text: &str) -> Result<Args<'_>, Step1> {
    if text.trim_start().starts_with('{') {
        super::duplicates::clear();
        return serde_json::from_str::<RawObject<'_>>(text)
            .map(Args::Raw)
            .map_err(|error| match super::duplicates::take() {
                Some(name) => Step1::Duplicate(super::duplicates::rejection(&name)),
                None => Step1::NotAnObject(undecodable(&error.to_string())),
            });
    }
    decode_other_text(text).map_err(Step1::NotAnObject)
}

/// Text that does not start with `{`: `null`, or a rejection naming what it is.
fn decode_other_text(text: &str) -> Result<Args<'_>, SubmitError> {
    // Not an object: validate it (serde_json skips a value without recursion) so the model
    // hears what the decoder said about broken text, and the type of well-formed text.
    match serde_json::from_str::<IgnoredAny>(text) {
        Err(error) => Err(undecodable(&error.to_string())),
        Ok(_) => match JsonType::of_text(text) {
            JsonType::Null => Ok(Args::Empty),
            other => Err(not_an_object(other)),
        },
    }
}

fn not_an_object(got: JsonType) -> SubmitError {
    undecodable(&format!("expected a JSON object, got {got}"))
}

fn undecodable(what: &str) -> SubmitError {
    SubmitError::parameter(
        ParameterCause::UndecodableArguments,
        format!("failed to parse tool arguments: {what}"),
    )
}

impl<'a> Args<'a> {
    /// The member named `name`.
    pub(crate) fn get(&self, name: &str) -> Option<Param<'a>> {
        match self {
            Args::Empty => None,
            Args::Value(map) => map.get(name).map(Param::Value),
            Args::Raw(object) => object.get(name).map(Param::Raw),
        }
    }
}

impl<'a> Args<'a> {
    /// Every member, in order.
    pub(crate) fn members(&self) -> Vec<(Cow<'a, str>, Param<'a>)> {
        match self {
            Args::Empty => Vec::new(),
            Args::Value(map) => map
                .iter()
                .map(|(name, value)| (Cow::Borrowed(name.as_str()), Param::Value(value)))
                .collect(),
            Args::Raw(object) => object
                .members
                .iter()
                .map(|(name, raw)| (name.clone(), Param::Raw(raw)))
                .collect(),
        }
    }
}

impl<'a> Param<'a> {
    pub(crate) fn json_type(self) -> JsonType {
        match self {
            Param::Value(value) => JsonType::of(value),
            Param::Raw(raw) => JsonType::of_text(raw.get()),
        }
    }

    /// The string this parameter holds, unescaped (borrowed when it can be).
    pub(crate) fn as_str(self) -> Option<Cow<'a, str>> {
        match self {
            Param::Value(value) => value.as_str().map(Cow::Borrowed),
            Param::Raw(raw) => serde_json::from_str::<CowStr<'a>>(raw.get())
                .ok()
                .map(|text| text.0),
        }
    }
}

/// The members of a JSON object, each as its raw JSON text, in order (keys unescaped).
#[derive(Debug, Default)]
pub(crate) struct RawObject<'a> {
    pub(crate) members: Vec<(Cow<'a, str>, &'a RawValue)>,
}

impl<'a> RawObject<'a> {
    /// The member named `name` (a name appears once: the reader rejects a repeat).
    pub(crate) fn get(&self, name: &str) -> Option<&'a RawValue> {
        self.members
            .iter()
            .rev()
            .find(|(key, _)| key == name)
            .map(|(_, value)| *value)
    }
}

impl<'de> Deserialize<'de> for RawObject<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Members;

        impl<'de> Visitor<'de> for Members {
            type Value = RawObject<'de>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut members = Vec::new();
                let mut seen = Seen::default();
                while let Some(key) = map.next_key::<CowStr<'de>>()? {
                    if !seen.insert(&key.0) {
                        return Err(super::duplicates::stop(&key.0));
                    }
                    members.push((key.0, map.next_value::<&'de RawValue>()?));
                }
                Ok(RawObject { members })
            }
        }

        deserializer.deserialize_map(Members)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn message(error: SubmitError) -> (Option<ParameterCause>, String) {
        (error.cause(), error.message().to_owned())
    }

    #[test]
    fn missing_and_null_read_as_empty_object() {
        assert!(matches!(decode(Arguments::Missing), Ok(Args::Empty)));
        assert!(matches!(
            decode(Arguments::Value(&Value::Null)),
            Ok(Args::Empty)
        ));
        assert!(matches!(decode(Arguments::Text("null")), Ok(Args::Empty)));
        assert!(matches!(
            decode(Arguments::Text(" null \n")),
            Ok(Args::Empty)
        ));
    }

    #[test]
    fn value_object_is_read_in_place() {
        let value = json!({"reasoning": "r", "a": 1});
        let args = decode(Arguments::Value(&value)).unwrap();
        assert_eq!(args.get("reasoning").unwrap().as_str().unwrap(), "r");
        assert_eq!(args.get("a").unwrap().json_type(), JsonType::Number);
        assert!(args.get("b").is_none());
    }

    #[test]
    fn value_array_or_scalar_is_undecodable() {
        for (value, got) in [
            (json!([1]), "array"),
            (json!("x"), "string"),
            (json!(1), "number"),
            (json!(true), "boolean"),
        ] {
            let (cause, text) = message(decode(Arguments::Value(&value)).unwrap_err());
            assert_eq!(cause, Some(ParameterCause::UndecodableArguments));
            assert_eq!(
                text,
                format!("failed to parse tool arguments: expected a JSON object, got {got}")
            );
        }
    }

    #[test]
    fn text_object_is_read_member_by_member() {
        let args = decode(Arguments::Text(
            r#" {"reasoning":"a\"b","result":{"x":[1,2],"x":1}} "#,
        ))
        .unwrap();
        assert_eq!(args.get("reasoning").unwrap().as_str().unwrap(), "a\"b");
        let Some(Param::Raw(raw)) = args.get("result") else {
            panic!("raw member expected")
        };
        assert_eq!(
            raw.get(),
            r#"{"x":[1,2],"x":1}"#,
            "deeper members are not checked"
        );
        let error = decode(Arguments::Text(r#"{"result":{},"re\u0073ult":{}}"#)).unwrap_err();
        assert_eq!(
            message(error),
            (
                Some(ParameterCause::UndecodableArguments),
                "failed to parse tool arguments: \"result\" appears twice; send each parameter once"
                    .to_owned()
            )
        );
    }

    #[test]
    fn text_that_is_empty_truncated_or_not_an_object_is_undecodable() {
        for (text, said) in [
            ("", "EOF while parsing a value at line 1 column 0"),
            (
                "{\"reasoning\":",
                "EOF while parsing a value at line 1 column 13",
            ),
            ("[1,2]", "expected a JSON object, got array"),
            ("\"x\"", "expected a JSON object, got string"),
            ("12", "expected a JSON object, got number"),
            ("false", "expected a JSON object, got boolean"),
            ("{} x", "trailing characters at line 1 column 4"),
        ] {
            let (cause, text) = message(decode(Arguments::Text(text)).unwrap_err());
            assert_eq!(cause, Some(ParameterCause::UndecodableArguments));
            assert_eq!(text, format!("failed to parse tool arguments: {said}"));
        }
    }

    #[test]
    fn deeply_nested_text_is_rejected_without_overflowing_the_stack() {
        for text in [
            "[".repeat(1 << 22),
            "{".repeat(1 << 22),
            format!("{{\"a\":{}", "[".repeat(1 << 22)),
        ] {
            let error = decode(Arguments::Text(&text)).unwrap_err();
            assert_eq!(error.cause(), Some(ParameterCause::UndecodableArguments));
        }
    }

    #[test]
    fn escaped_keys_are_unescaped() {
        let args = decode(Arguments::Text(r#"{"re\u0061soning":"r"}"#)).unwrap();
        assert_eq!(args.get("reasoning").unwrap().as_str().unwrap(), "r");
    }
}
