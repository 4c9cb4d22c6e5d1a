//! A call read from its JSON bytes: the arguments member stays the text it arrived as, so the
//! parser reads the model's own bytes (a member written twice in an `input` object is still
//! there to be seen).
//!
//! The envelope is read once, borrowed, into the provider's own call type. Whatever that read
//! does not expect (a member of another type, a member written twice, bytes that are no JSON) is
//! read again by the general reading, whose members are checked by the provider's reader of
//! values, so the shape error says what that reader says of the same call.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{Deserializer, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::{CallShapeError, Provider};
use crate::parse::{object_members, Arguments};

/// A call read from its bytes.
#[derive(Debug)]
pub(crate) struct JsonCall<'a> {
    /// The called tool's name.
    pub(crate) name: Option<Cow<'a, str>>,
    /// The arguments, as they arrived.
    pub(crate) arguments: JsonArguments<'a>,
}

/// Arguments read from JSON bytes.
#[derive(Debug)]
pub(crate) enum JsonArguments<'a> {
    /// No arguments member.
    Missing,
    /// A JSON object, as its text.
    Object(&'a str),
    /// Argument text: the content of a JSON string member that carries text (OpenAI
    /// `arguments`), or valid JSON that is no `Value` (a number beyond `f64`).
    Text(Cow<'a, str>),
    /// Anything else, as a value (a string `input` or `args`, `null`, an array, a number).
    Value(Value),
}

impl<'a> JsonArguments<'a> {
    /// The arguments as the parser takes them.
    pub(crate) fn as_arguments(&self) -> Arguments<'_> {
        match self {
            JsonArguments::Missing => Arguments::Missing,
            JsonArguments::Object(text) => Arguments::Text(text),
            JsonArguments::Text(text) => Arguments::Text(text),
            JsonArguments::Value(value) => Arguments::Value(value),
        }
    }

    /// An arguments value read from its JSON text (an `input`/`args` member, an MCP
    /// `arguments`): an object stays text; a string is decoded once and read as a string
    /// `input` is; anything else is its value.
    pub(crate) fn of_value_text(text: &'a str) -> JsonArguments<'a> {
        let text = text.trim_matches([' ', '\t', '\r', '\n']);
        if text.starts_with('{') {
            return JsonArguments::Object(text);
        }
        match serde_json::from_str::<Value>(text) {
            Ok(value) => JsonArguments::Value(value),
            // Valid JSON no `Value` holds (`1e400`): the parser reads it as text and says why.
            Err(_) => JsonArguments::Text(Cow::Borrowed(text)),
        }
    }

    /// An OpenAI `arguments` member read from its JSON text: a string is argument text; any
    /// other value is read as a value is.
    fn of_text_member(text: &'a str) -> Result<JsonArguments<'a>, String> {
        if !text.starts_with('"') {
            return Ok(JsonArguments::of_value_text(text));
        }
        serde_json::from_str::<Cow<'a, str>>(text)
            .map(JsonArguments::Text)
            .map_err(|error| format!("`arguments` is no valid JSON string: {error}"))
    }
}

/// Where a provider's call keeps its arguments: the member that may hold them in a nested
/// object (Chat's `function`, Gemini's `functionCall`), and the arguments member's name.
fn arguments_member(provider: Provider) -> (Option<&'static str>, &'static str) {
    match provider {
        Provider::Claude => (None, "input"),
        Provider::Gemini => (Some("functionCall"), "args"),
        Provider::OpenAiChat => (Some("function"), "arguments"),
        Provider::OpenAiResponses => (None, "arguments"),
    }
}

/// Reads a call in `provider`'s shape from its JSON bytes.
///
/// Bytes that are no JSON, and a call object that is not in the shape, are shape errors with
/// the reason the provider's reader gives for the same call as a value; a member of the
/// envelope written twice is one too.
pub(crate) fn read_call(provider: Provider, bytes: &[u8]) -> Result<JsonCall<'_>, CallShapeError> {
    // The common case: the provider's call, each member once and of its type.
    match typed(provider, bytes) {
        Some(call) => Ok(call),
        None => general(provider, bytes),
    }
}

/// The general reading: the envelope's members as values, checked by the provider's reader of
/// values, the arguments member kept as its text.
fn general(provider: Provider, bytes: &[u8]) -> Result<JsonCall<'_>, CallShapeError> {
    let shape = |reason: String| CallShapeError { provider, reason };
    let text = std::str::from_utf8(bytes).map_err(|error| shape(format!("not JSON: {error}")))?;
    let Some(members) = object_members(text) else {
        // No object of members each named once: the reader of values says what is wrong.
        let value = serde_json::from_str::<Value>(text)
            .map_err(|error| shape(format!("not JSON: {error}")))?;
        provider.read_call(&value)?;
        return Err(shape(
            "a member of the call object appears twice".to_owned(),
        ));
    };
    let (nested, key) = arguments_member(provider);
    let mut arguments = None;
    let mut envelope = Map::new();
    let nested_object = nested.and_then(|nested| {
        members
            .get(nested)
            .filter(|raw| raw.get().starts_with('{'))
            .map(|raw| (nested, raw))
    });
    for (name, raw) in &members.list {
        let value = match nested_object {
            Some((nested, inner)) if name == nested => {
                let (object, found) = split(inner, key).map_err(shape)?;
                arguments = found;
                Value::Object(object)
            }
            // Gemini's bare `FunctionCall` holds `args` itself; Chat's arguments are only read
            // inside `function`.
            None if name == key && provider != Provider::OpenAiChat => {
                arguments = Some(*raw);
                continue;
            }
            _ => member_value(name, raw).map_err(shape)?,
        };
        envelope.insert(name.clone().into_owned(), value);
    }
    let envelope = Value::Object(envelope);
    let call = provider.read_call(&envelope)?;
    let arguments = match arguments {
        None => JsonArguments::Missing,
        Some(raw) if key == "arguments" => {
            JsonArguments::of_text_member(raw.get()).map_err(shape)?
        }
        Some(raw) => JsonArguments::of_value_text(raw.get()),
    };
    Ok(JsonCall {
        name: call.name.map(|name| Cow::Owned(name.to_owned())),
        arguments,
    })
}

/// The provider's call read in one borrowed pass; `None` for anything the types do not take,
/// which the general reading then reads.
fn typed(provider: Provider, bytes: &[u8]) -> Option<JsonCall<'_>> {
    fn of<'a, T: Deserialize<'a>>(bytes: &'a [u8]) -> Option<T> {
        serde_json::from_slice(bytes).ok()
    }
    let (kind, expected, name, arguments) = match provider {
        Provider::Claude => {
            let call: ClaudeCall<'_> = of(bytes)?;
            let arguments = call
                .input
                .map(|raw| JsonArguments::of_value_text(raw.get()));
            (call.kind, "tool_use", call.name, arguments)
        }
        Provider::Gemini => {
            let part: GeminiPart<'_> = of(bytes)?;
            let (name, args) = match part.function_call {
                Some(raw) => {
                    let call = serde_json::from_str::<GeminiCall<'_>>(raw.get()).ok()?;
                    (call.name, call.args)
                }
                None => (part.name, part.args),
            };
            let arguments = args.map(|raw| JsonArguments::of_value_text(raw.get()));
            (None, "", name?, arguments)
        }
        Provider::OpenAiChat => {
            let call: ChatCall<'_> = of(bytes)?;
            let arguments = call.function.arguments.map(TextArgument::into_arguments);
            (call.kind, "function", call.function.name, arguments)
        }
        Provider::OpenAiResponses => {
            let call: ResponsesCall<'_> = of(bytes)?;
            let arguments = call.arguments.map(TextArgument::into_arguments);
            (call.kind, "function_call", call.name, arguments)
        }
    };
    // `type`, when present, is the shape's own, written without escapes.
    if let Some(kind) = kind {
        let written = kind.get();
        let inner = written.strip_prefix('"').and_then(|w| w.strip_suffix('"'));
        if inner != Some(expected) {
            return None;
        }
    }
    Some(JsonCall {
        name: Some(name),
        arguments: arguments.unwrap_or(JsonArguments::Missing),
    })
}

/// A member that is present, whatever it holds (`null` included), as its JSON text.
fn present<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(deserializer).map(Some)
}

/// OpenAI's `arguments` when present, `null` included.
fn present_text<'de: 'a, 'a, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<TextArgument<'a>>, D::Error> {
    TextArgument::deserialize(deserializer).map(Some)
}

/// An Anthropic `tool_use` block.
#[derive(Deserialize)]
struct ClaudeCall<'a> {
    #[serde(rename = "type", default, borrow, deserialize_with = "present")]
    kind: Option<&'a RawValue>,
    #[serde(default, borrow, rename = "id")]
    _id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(default, borrow, deserialize_with = "present")]
    input: Option<&'a RawValue>,
}

/// A Gemini part holding a `functionCall`, or the bare call (whose members a part holding one
/// may have beside it, unread).
#[derive(Deserialize)]
struct GeminiPart<'a> {
    #[serde(rename = "functionCall", default, borrow, deserialize_with = "present")]
    function_call: Option<&'a RawValue>,
    #[serde(default, borrow)]
    name: Option<Cow<'a, str>>,
    #[serde(default, borrow, rename = "id")]
    _id: Option<Cow<'a, str>>,
    #[serde(default, borrow, deserialize_with = "present")]
    args: Option<&'a RawValue>,
}

/// A Gemini `FunctionCall`.
#[derive(Deserialize)]
struct GeminiCall<'a> {
    #[serde(default, borrow)]
    name: Option<Cow<'a, str>>,
    #[serde(default, borrow, rename = "id")]
    _id: Option<Cow<'a, str>>,
    #[serde(default, borrow, deserialize_with = "present")]
    args: Option<&'a RawValue>,
}

/// An OpenAI Chat tool call.
#[derive(Deserialize)]
struct ChatCall<'a> {
    #[serde(rename = "type", default, borrow, deserialize_with = "present")]
    kind: Option<&'a RawValue>,
    #[serde(default, borrow, rename = "id")]
    _id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    function: ChatFunction<'a>,
}

/// A Chat tool call's `function`.
#[derive(Deserialize)]
struct ChatFunction<'a> {
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(default, borrow, deserialize_with = "present_text")]
    arguments: Option<TextArgument<'a>>,
}

/// An OpenAI Responses `function_call` item.
#[derive(Deserialize)]
struct ResponsesCall<'a> {
    #[serde(rename = "type", default, borrow, deserialize_with = "present")]
    kind: Option<&'a RawValue>,
    #[serde(default, borrow, rename = "call_id")]
    _call_id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(default, borrow, deserialize_with = "present_text")]
    arguments: Option<TextArgument<'a>>,
}

/// OpenAI's `arguments`: a JSON string, its content argument text (borrowed where it has no
/// escapes), or `null`; anything else is the general reading's.
struct TextArgument<'a>(Option<Cow<'a, str>>);

impl<'a> TextArgument<'a> {
    fn into_arguments(self) -> JsonArguments<'a> {
        match self.0 {
            Some(text) => JsonArguments::Text(text),
            None => JsonArguments::Value(Value::Null),
        }
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for TextArgument<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Text<'a>(PhantomData<&'a ()>);

        impl<'de: 'a, 'a> Visitor<'de> for Text<'a> {
            type Value = TextArgument<'a>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON string or null")
            }

            fn visit_borrowed_str<E>(self, text: &'de str) -> Result<Self::Value, E> {
                Ok(TextArgument(Some(Cow::Borrowed(text))))
            }

            fn visit_str<E>(self, text: &str) -> Result<Self::Value, E> {
                Ok(TextArgument(Some(Cow::Owned(text.to_owned()))))
            }

            fn visit_string<E>(self, text: String) -> Result<Self::Value, E> {
                Ok(TextArgument(Some(Cow::Owned(text))))
            }

            fn visit_unit<E>(self) -> Result<Self::Value, E> {
                Ok(TextArgument(None))
            }
        }

        deserializer.deserialize_any(Text(PhantomData))
    }
}

/// A nested object's members as values, but for the member `key`, kept as its text.
fn split<'a>(
    object: &'a RawValue,
    key: &str,
) -> Result<(Map<String, Value>, Option<&'a RawValue>), String> {
    let members = object_members(object.get())
        .ok_or_else(|| "a member of the call object appears twice".to_owned())?;
    let mut map = Map::new();
    let mut found = None;
    for (name, raw) in members.list {
        if name == key {
            found = Some(raw);
            continue;
        }
        let value = member_value(&name, raw)?;
        map.insert(name.into_owned(), value);
    }
    Ok((map, found))
}

fn member_value(name: &str, raw: &RawValue) -> Result<Value, String> {
    serde_json::from_str(raw.get()).map_err(|error| format!("`{name}` is not JSON: {error}"))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn arguments(provider: Provider, text: &str) -> String {
        let call = read_call(provider, text.as_bytes()).unwrap();
        format!("{:?}", call.arguments.as_arguments())
    }

    #[test]
    fn an_object_is_kept_as_its_text_in_every_shape() {
        let input = r#"{"a":1,"a":2}"#;
        for (provider, call) in [
            (
                Provider::Claude,
                format!(r#"{{"type":"tool_use","id":"t","name":"s","input":{input}}}"#),
            ),
            (
                Provider::Gemini,
                format!(r#"{{"functionCall":{{"name":"s","args":{input}}}}}"#),
            ),
            (
                Provider::Gemini,
                format!(r#"{{"name":"s","args":{input}}}"#),
            ),
            (
                Provider::OpenAiChat,
                format!(r#"{{"type":"function","function":{{"name":"s","arguments":{input}}}}}"#),
            ),
            (
                Provider::OpenAiResponses,
                format!(r#"{{"type":"function_call","name":"s","arguments":{input}}}"#),
            ),
        ] {
            assert_eq!(
                arguments(provider, &call),
                format!("Text({input:?})"),
                "{call}"
            );
            let read = read_call(provider, call.as_bytes()).unwrap();
            assert_eq!(read.name.as_deref(), Some("s"));
        }
    }

    #[test]
    fn a_string_is_text_for_openai_and_a_string_value_for_the_others() {
        let chat = r#"{"function":{"name":"s","arguments":"{\"a\":\"\\u00e9\"}"}}"#;
        assert_eq!(
            arguments(Provider::OpenAiChat, chat),
            format!("Text({:?})", r#"{"a":"\u00e9"}"#)
        );
        let claude = r#"{"name":"s","input":"{\"a\":1}"}"#;
        assert_eq!(
            arguments(Provider::Claude, claude),
            format!("Value({:?})", json!("{\"a\":1}"))
        );
        let missing = r#"{"name":"s"}"#;
        assert_eq!(arguments(Provider::Claude, missing), "Missing");
        let number = r#"{"name":"s","input":1e400}"#;
        assert_eq!(arguments(Provider::Claude, number), "Text(\"1e400\")");
    }

    #[test]
    fn the_typed_read_gives_what_the_general_reading_gives() {
        let input = r#"{"reasoning":"a","result":{"x":"\u00e9"}}"#;
        let quoted = Value::String(input.to_owned()).to_string();
        let mut taken = 0;
        for (provider, call) in [
            (
                Provider::Claude,
                format!(r#"{{"type":"tool_use","id":"t","name":"s","input":{input}}}"#),
            ),
            (Provider::Claude, r#"{"name":"s"}"#.to_owned()),
            (
                Provider::Claude,
                r#"{"name":"s","input":null,"extra":[1,{"a":2}]}"#.to_owned(),
            ),
            (
                Provider::Claude,
                r#"{"name":"s","input":"{\"a\":1}"}"#.to_owned(),
            ),
            (
                Provider::Claude,
                r#"{"type":null,"name":"s","input":{}}"#.to_owned(),
            ),
            (
                Provider::Claude,
                r#"{"type":"tool_\u0075se","name":"s","input":{}}"#.to_owned(),
            ),
            (
                Provider::Claude,
                r#"{"type":"text","name":"s","input":{}}"#.to_owned(),
            ),
            (
                Provider::Claude,
                r#"{"id":5,"name":"s","input":{}}"#.to_owned(),
            ),
            (
                Provider::Claude,
                r#"{"name":"s","name":"t","input":{}}"#.to_owned(),
            ),
            (
                Provider::Claude,
                r#"{"n\u0061me":"s","input":[1]}"#.to_owned(),
            ),
            (
                Provider::Gemini,
                format!(r#"{{"functionCall":{{"name":"s","args":{input}}}}}"#),
            ),
            (
                Provider::Gemini,
                format!(r#"{{"name":"s","args":{input},"id":"c"}}"#),
            ),
            (
                Provider::Gemini,
                r#"{"functionCall":null,"name":"s"}"#.to_owned(),
            ),
            (
                Provider::Gemini,
                r#"{"functionCall":{"args":{}},"name":"s"}"#.to_owned(),
            ),
            (
                Provider::Gemini,
                r#"{"functionCall":{"name":"s"},"name":"t","args":{"a":1}}"#.to_owned(),
            ),
            (
                Provider::OpenAiChat,
                format!(
                    r#"{{"id":"c","type":"function","function":{{"name":"s","arguments":{quoted}}}}}"#
                ),
            ),
            (
                Provider::OpenAiChat,
                r#"{"function":{"name":"s","arguments":"{}"}}"#.to_owned(),
            ),
            (
                Provider::OpenAiChat,
                r#"{"function":{"name":"s","arguments":null}}"#.to_owned(),
            ),
            (
                Provider::OpenAiChat,
                r#"{"function":{"name":"s","arguments":{"a":1,"a":2}}}"#.to_owned(),
            ),
            (
                Provider::OpenAiChat,
                r#"{"type":"function_call","function":{"name":"s"}}"#.to_owned(),
            ),
            (
                Provider::OpenAiChat,
                r#"{"function":{"name":"s","arguments":"{}","arguments":"{}"}}"#.to_owned(),
            ),
            (
                Provider::OpenAiResponses,
                format!(
                    r#"{{"type":"function_call","call_id":"c","name":"s","arguments":{quoted}}}"#
                ),
            ),
            (
                Provider::OpenAiResponses,
                r#"{"name":"s","arguments":7}"#.to_owned(),
            ),
            (
                Provider::OpenAiResponses,
                r#"{"name":"s","arguments":"\ud800"}"#.to_owned(),
            ),
        ] {
            let general = general(provider, call.as_bytes()).map(|call| format!("{call:?}"));
            if let Some(read) = typed(provider, call.as_bytes()) {
                taken += 1;
                assert_eq!(Ok(format!("{read:?}")), general, "{call}");
            }
        }
        assert!(taken >= 12, "the typed read took only {taken} of the calls");
    }

    #[test]
    fn the_envelope_is_checked_as_the_value_reader_checks_it() {
        for (provider, call, reason) in [
            (Provider::Claude, "[]", "expected a JSON object, got array"),
            (
                Provider::Claude,
                "{",
                "not JSON: EOF while parsing an object at line 1 column 1",
            ),
            (Provider::Claude, r#"{"input":{}}"#, "no `name` string"),
            (
                Provider::Claude,
                r#"{"name":"s","name":"t"}"#,
                "a member of the call object appears twice",
            ),
            (
                Provider::OpenAiChat,
                r#"{"name":"s","arguments":"{}"}"#,
                "no `function` object",
            ),
            (
                Provider::OpenAiResponses,
                r#"{"type":"function","name":"s"}"#,
                "`type` is \"function\", expected \"function_call\"",
            ),
        ] {
            let error = read_call(provider, call.as_bytes()).unwrap_err();
            assert_eq!(error.reason, reason, "{call}");
        }
        let error = read_call(Provider::Claude, b"\xff").unwrap_err();
        assert!(
            error.reason.starts_with("not JSON: invalid utf-8"),
            "{}",
            error.reason
        );
    }
}
