//! A call's arguments, and step *The arguments as a whole* of the parsing rules: decoding them
//! into one JSON object.
//!
//! Arguments that arrived as a JSON value are read in place. Arguments that arrived as text
//! are read once, member by member, each member kept as its raw JSON text (`&RawValue`), so the
//! payload's text is decoded into the response type later without becoming a `Value` first.
//!
//! The common case takes a fast path inside that one read, as serde_json's string reader takes
//! its borrowed path inside its one loop: when the tool decodes its payload straight from JSON
//! text, the reasoning string is unescaped and the payload object decoded into the response type
//! while the object is read, so a clean call is read once. Whatever that read does not expect
//! (a reasoning that is no string, a payload that does not decode, a member named twice, text
//! that is no object) stops it, and the object is read again with every member as written, for
//! the later steps to judge.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{DeserializeOwned, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::members::{decode_map, repeated, CowStr, Members, Seen, Stopped};
use super::reasoning::REASONING;
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

impl<'a> From<&'a Value> for Arguments<'a> {
    /// Arguments that arrived as a JSON value.
    fn from(value: &'a Value) -> Self {
        Arguments::Value(value)
    }
}

impl<'a> From<&'a str> for Arguments<'a> {
    /// Arguments that arrived as JSON text.
    fn from(text: &'a str) -> Self {
        Arguments::Text(text)
    }
}

impl<'a> From<&'a String> for Arguments<'a> {
    /// Arguments that arrived as JSON text.
    fn from(text: &'a String) -> Self {
        Arguments::Text(text)
    }
}

/// The arguments object after step *The arguments as a whole*.
#[derive(Debug)]
pub(crate) enum Object<'a> {
    /// `{}`: a missing arguments field or JSON `null`.
    Empty,
    /// An object that arrived as a value.
    Value(&'a Map<String, Value>),
    /// An object that arrived as text, member by member.
    Text(Members<'a>),
}

/// One member's value: a value in place, or its raw JSON text.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Member<'a> {
    Value(&'a Value),
    Text(&'a RawValue),
}

/// The JSON type of a value, named as the messages name it (`got array`).
///
/// ```
/// use serde_json::json;
/// use submit_core::JsonType;
///
/// assert_eq!(JsonType::of(&json!([1, 2])), JsonType::Array);
/// assert_eq!(JsonType::of(&json!(true)).as_str(), "boolean");
/// assert_eq!(format!("got {}", JsonType::of(&json!(null))), "got null");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum JsonType {
    /// `null`.
    Null,
    /// An object, `{…}`.
    Object,
    /// An array, `[…]`.
    Array,
    /// A string.
    String,
    /// `true` or `false`, named `boolean`.
    Boolean,
    /// A number, integer or not.
    Number,
}

impl fmt::Display for JsonType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl JsonType {
    /// The name the messages give the type: `null`, `object`, `array`, `string`, `boolean` or
    /// `number`.
    pub fn as_str(self) -> &'static str {
        match self {
            JsonType::Null => "null",
            JsonType::Object => "object",
            JsonType::Array => "array",
            JsonType::String => "string",
            JsonType::Boolean => "boolean",
            JsonType::Number => "number",
        }
    }

    /// The type of `value`.
    pub fn of(value: &Value) -> JsonType {
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

impl<'a> Object<'a> {
    /// The member named `name`.
    pub(crate) fn get(&self, name: &str) -> Option<Member<'a>> {
        match self {
            Object::Empty => None,
            Object::Value(map) => map.get(name).map(Member::Value),
            Object::Text(members) => members.get(name).map(Member::Text),
        }
    }

    /// How many members the object has.
    pub(crate) fn len(&self) -> usize {
        match self {
            Object::Empty => 0,
            Object::Value(map) => map.len(),
            Object::Text(members) => members.list.len(),
        }
    }

    /// Every member, in order.
    pub(crate) fn members(&self) -> Vec<(Cow<'a, str>, Member<'a>)> {
        match self {
            Object::Empty => Vec::new(),
            Object::Value(map) => map
                .iter()
                .map(|(name, value)| (Cow::Borrowed(name.as_str()), Member::Value(value)))
                .collect(),
            Object::Text(members) => members
                .list
                .iter()
                .map(|(name, raw)| (name.clone(), Member::Text(raw)))
                .collect(),
        }
    }
}

impl<'a> Member<'a> {
    pub(crate) fn json_type(self) -> JsonType {
        match self {
            Member::Value(value) => JsonType::of(value),
            Member::Text(raw) => JsonType::of_text(raw.get()),
        }
    }

    /// The first `\uXXXX` escape of a JSON string member that is half of a surrogate pair
    /// without its other half (which no Rust string can hold), with its byte offset in the
    /// member's text.
    pub(crate) fn lone_surrogate(self) -> Option<(usize, &'a str)> {
        let Member::Text(raw) = self else {
            return None;
        };
        let text = raw.get();
        let hex = |at: usize| {
            text.get(at..at + 4)
                .and_then(|digits| u16::from_str_radix(digits, 16).ok())
        };
        let bytes = text.as_bytes();
        let mut at = 0;
        while let Some(offset) = bytes.get(at..).and_then(|rest| memchr::memchr(b'\\', rest)) {
            at += offset;
            if bytes.get(at + 1) != Some(&b'u') {
                at += 2;
                continue;
            }
            let unit = hex(at + 2)?;
            let low = |next: usize| {
                bytes.get(next..next + 2) == Some(b"\\u")
                    && hex(next + 2).is_some_and(|unit| (0xDC00..0xE000).contains(&unit))
            };
            match unit {
                0xD800..0xDC00 if low(at + 6) => at += 12,
                0xD800..0xE000 => return text.get(at..at + 6).map(|escape| (at, escape)),
                _ => at += 6,
            }
        }
        None
    }

    /// The string this member holds, unescaped (borrowed when it can be).
    pub(crate) fn as_str(self) -> Option<Cow<'a, str>> {
        match self {
            Member::Value(value) => value.as_str().map(Cow::Borrowed),
            Member::Text(raw) => serde_json::from_str::<CowStr<'a>>(raw.get())
                .ok()
                .map(|text| text.0),
        }
    }
}

/// The members step *The arguments as a whole* reads in place on its fast path: the payload
/// parameter's name, and whether the reasoning parameter is advertised.
#[derive(Clone, Copy, Debug)]
pub(crate) struct InPlace<'t> {
    pub(crate) payload: &'t str,
    pub(crate) reasoning: bool,
    /// The payload object is read as JSON, to be validated at step *Decode* (a tool built from a
    /// JSON Schema document), instead of decoded into the response type.
    pub(crate) as_json: bool,
}

/// What step *The arguments as a whole* read: the arguments object, and what its fast path
/// read in place.
pub(crate) struct ArgumentsRead<'a, R> {
    /// The object. A member read in place stands in it as `null`: its value is below.
    pub(crate) object: Object<'a>,
    /// The reasoning string, unescaped.
    pub(crate) reasoning: Option<Cow<'a, str>>,
    /// The payload parameter, when it was an object (decoded) or a string.
    pub(crate) payload: Option<PayloadRead<'a, R>>,
}

impl<'a, R> ArgumentsRead<'a, R> {
    /// An object with nothing read in place.
    pub(crate) fn plain(object: Object<'a>) -> Self {
        ArgumentsRead {
            object,
            reasoning: None,
            payload: None,
        }
    }
}

/// The payload parameter as the fast path of step *The arguments as a whole* read it.
pub(crate) enum PayloadRead<'a, R> {
    /// An object, decoded into the response type.
    Decoded(R),
    /// An object, read as JSON for step *Decode* to validate.
    Json(Value),
    /// A string, its content unescaped.
    String(Cow<'a, str>),
}

/// The arguments as a whole: one JSON object, or text that is none.
pub(crate) enum AsWhole<'a, R> {
    /// One JSON object.
    Object(ArgumentsRead<'a, R>),
    /// Argument text that is no JSON object: the rules for the arguments as a whole may still
    /// read an object out of `text`; if none does, `rejection` is the answer.
    NotAnObject {
        text: &'a str,
        rejection: SubmitError,
    },
}

/// Step *The arguments as a whole*. JSON `null` and a missing field read as `{}`; a value that
/// is no object rejects with cause *undecodable arguments*, and so does an object that names a
/// member twice (step *Duplicate members*). `in_place` names the members the fast path reads in
/// place, when the tool decodes its payload straight from text.
pub(crate) fn read<'a, R: DeserializeOwned>(
    arguments: Arguments<'a>,
    in_place: Option<InPlace<'_>>,
) -> Result<AsWhole<'a, R>, SubmitError> {
    let object = match arguments {
        Arguments::Missing | Arguments::Value(Value::Null) => Object::Empty,
        Arguments::Value(Value::Object(map)) => Object::Value(map),
        Arguments::Value(other) => return Err(not_an_object(JsonType::of(other))),
        Arguments::Text(text) => return read_text(text, in_place),
    };
    Ok(AsWhole::Object(ArgumentsRead::plain(object)))
}

/// Step *The arguments as a whole* on argument text: the fast path first where it applies,
/// then the read of every member as written.
fn read_text<'a, R: DeserializeOwned>(
    text: &'a str,
    in_place: Option<InPlace<'_>>,
) -> Result<AsWhole<'a, R>, SubmitError> {
    if !text.trim_start().starts_with('{') {
        // Not an object: validate it (serde_json skips a value without recursion) so the model
        // hears what the decoder said about broken text, and the type of well-formed text.
        let rejection = match serde_json::from_str::<IgnoredAny>(text) {
            Err(error) => undecodable(&error.to_string()),
            Ok(_) => match JsonType::of_text(text) {
                JsonType::Null => return Ok(AsWhole::Object(ArgumentsRead::plain(Object::Empty))),
                other => not_an_object(other),
            },
        };
        return Ok(AsWhole::NotAnObject { text, rejection });
    }
    if let Some(read) = in_place.and_then(|names| read_in_place(text, names)) {
        return Ok(AsWhole::Object(read));
    }
    match Members::read(text) {
        Ok(members) => Ok(AsWhole::Object(ArgumentsRead::plain(Object::Text(members)))),
        Err(Stopped::Repeated(name)) => Err(repeated(&name)),
        Err(Stopped::Decoder(error)) => Ok(AsWhole::NotAnObject {
            text,
            rejection: undecodable(&error.to_string()),
        }),
    }
}

/// The fast path: the object read with the members `names` read in place; `None` wherever it
/// gives up.
pub(crate) fn read_in_place<'a, R: DeserializeOwned>(
    text: &'a str,
    names: InPlace<'_>,
) -> Option<ArgumentsRead<'a, R>> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let read = InPlaceReader::<R> {
        names,
        response: PhantomData,
    }
    .deserialize(&mut deserializer)
    .ok()?;
    deserializer.end().ok()?;
    Some(read)
}

/// The members of one JSON object of text, each named once; `None` for anything else.
pub(crate) fn object_members(text: &str) -> Option<Members<'_>> {
    match read_text::<IgnoredAny>(text, None) {
        Ok(AsWhole::Object(ArgumentsRead {
            object: Object::Text(members),
            ..
        })) => Some(members),
        _ => None,
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

/// The fast path's reader: the object member by member, the reasoning unescaped and the
/// payload decoded in place; any error gives up.
struct InPlaceReader<'t, R> {
    names: InPlace<'t>,
    response: PhantomData<fn() -> R>,
}

impl<'de, R: DeserializeOwned> DeserializeSeed<'de> for InPlaceReader<'_, R> {
    type Value = ArgumentsRead<'de, R>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de, R: DeserializeOwned> Visitor<'de> for InPlaceReader<'_, R> {
    type Value = ArgumentsRead<'de, R>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the arguments object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut list = Vec::new();
        let mut read = ArgumentsRead {
            object: Object::Empty,
            reasoning: None,
            payload: None,
        };
        let mut seen = Seen::default();
        while let Some(CowStr(key)) = map.next_key::<CowStr<'de>>()? {
            if !seen.insert(&key) {
                return Err(serde::de::Error::custom("a member appears twice"));
            }
            if key == self.names.payload {
                read.payload = map.next_value_seed(PayloadInPlace {
                    as_json: self.names.as_json,
                    response: PhantomData,
                })?;
            } else if self.names.reasoning && key == REASONING {
                read.reasoning = Some(map.next_value::<CowStr<'de>>()?.0);
            } else {
                list.push((key, map.next_value::<&'de RawValue>()?));
                continue;
            }
            list.push((key, RawValue::NULL));
        }
        read.object = Object::Text(Members { list });
        Ok(read)
    }
}

/// The payload read in place: an object decoded into the response type (or read as JSON), a
/// string's content, or `null` (`None`); anything else gives up.
struct PayloadInPlace<R> {
    as_json: bool,
    response: PhantomData<fn() -> R>,
}

impl<'de, R: DeserializeOwned> DeserializeSeed<'de> for PayloadInPlace<R> {
    type Value = Option<PayloadRead<'de, R>>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de, R: DeserializeOwned> Visitor<'de> for PayloadInPlace<R> {
    type Value = Option<PayloadRead<'de, R>>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        // As JSON, a member repeated at any depth gives up (the general reading then rejects or
        // reads it): the value read here is the one the text holds.
        Ok(Some(if self.as_json {
            PayloadRead::Json(Visitor::visit_map(super::values::UniqueValue, map)?)
        } else {
            PayloadRead::Decoded(decode_map(map, None)?)
        }))
    }

    fn visit_borrowed_str<E>(self, text: &'de str) -> Result<Self::Value, E> {
        Ok(Some(PayloadRead::String(Cow::Borrowed(text))))
    }

    fn visit_str<E>(self, text: &str) -> Result<Self::Value, E> {
        Ok(Some(PayloadRead::String(Cow::Owned(text.to_owned()))))
    }

    fn visit_string<E>(self, text: String) -> Result<Self::Value, E> {
        Ok(Some(PayloadRead::String(Cow::Owned(text))))
    }

    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Step *The arguments as a whole* without the fast path: the object, or the rejection.
    fn decode(arguments: Arguments<'_>) -> Result<Object<'_>, SubmitError> {
        match read::<IgnoredAny>(arguments, None)? {
            AsWhole::Object(read) => Ok(read.object),
            AsWhole::NotAnObject { rejection, .. } => Err(rejection),
        }
    }

    fn message(error: SubmitError) -> (Option<ParameterCause>, String) {
        (error.cause(), error.message().to_owned())
    }

    #[test]
    fn missing_and_null_read_as_empty_object() {
        assert!(matches!(decode(Arguments::Missing), Ok(Object::Empty)));
        assert!(matches!(
            decode(Arguments::Value(&Value::Null)),
            Ok(Object::Empty)
        ));
        assert!(matches!(decode(Arguments::Text("null")), Ok(Object::Empty)));
        assert!(matches!(
            decode(Arguments::Text(" null \n")),
            Ok(Object::Empty)
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
        let Some(Member::Text(raw)) = args.get("result") else {
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
