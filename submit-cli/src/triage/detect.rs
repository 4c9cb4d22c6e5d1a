//! What a line is (`--input auto`), told from its top-level members: from a decoded
//! `serde_json::Value`, or from the line's bytes read once without decoding the members (the
//! few read further kept as their raw JSON text, borrowed; of the others only the type), so
//! that a bare call's bytes go to the tool as they are.

use std::borrow::Cow;
use std::fmt;

use serde::de::{
    Deserialize, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor,
};
use serde_json::value::RawValue;
use serde_json::Value;

use crate::args::InputFormat;

/// The type of a JSON value, as far as detection asks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    Object,
    Array,
    String,
    Other,
}

/// What detection reads of a JSON value.
pub(super) trait Probe: Copy {
    /// The value's type.
    fn kind(self) -> Kind;
    /// An object's member named `key` (the last one of that name, as a decoded object keeps
    /// it); `None` for anything but an object.
    fn get(self, key: &str) -> Option<Self>;
    /// Whether the value is the string `text`.
    fn is_str(self, text: &str) -> bool;
    /// Whether the value is a non-empty array of objects.
    fn objects(self) -> bool;
}

/// The format a line's shape shows; a bare call when it shows none.
pub(super) fn detect<P: Probe>(value: P) -> InputFormat {
    if value.kind() != Kind::Object {
        // A conversation is messages: a non-empty array of objects. Anything else is left to
        // the bare call's reader, which says why it is not a call.
        return if value.objects() {
            InputFormat::Conversation
        } else {
            InputFormat::Call
        };
    }
    let has = |key: &str| value.get(key).is_some();
    let is = |key: &str, kind: Kind| value.get(key).is_some_and(|v| v.kind() == kind);
    if has("custom_id") {
        if has("result") {
            return InputFormat::AnthropicBatch;
        }
        if has("response") || has("error") {
            return InputFormat::OpenaiBatch;
        }
    }
    if is("key", Kind::String) && (has("response") || has("error")) {
        return InputFormat::GeminiBatch;
    }
    let string_is = |key: &str, text: &str| value.get(key).is_some_and(|v| v.is_str(text));
    let response = is("choices", Kind::Array)
        || is("candidates", Kind::Array)
        || (string_is("object", "response") && is("output", Kind::Array))
        || (string_is("type", "message") && is("content", Kind::Array));
    if response {
        return InputFormat::Response;
    }
    // A request body holding a conversation: OpenAI's name their `model`; Gemini's do not.
    let holds = |key: &str| value.get(key).is_some_and(Probe::objects);
    if (has("model") && (holds("messages") || holds("input"))) || holds("contents") {
        return InputFormat::Conversation;
    }
    InputFormat::Call
}

impl Probe for &Value {
    fn kind(self) -> Kind {
        match self {
            Value::Object(_) => Kind::Object,
            Value::Array(_) => Kind::Array,
            Value::String(_) => Kind::String,
            _ => Kind::Other,
        }
    }

    fn get(self, key: &str) -> Option<Self> {
        self.as_object()?.get(key)
    }

    fn is_str(self, text: &str) -> bool {
        self.as_str() == Some(text)
    }

    fn objects(self) -> bool {
        self.as_array()
            .is_some_and(|items| !items.is_empty() && items.iter().all(Value::is_object))
    }
}

/// The members [`detect`] reads beyond their type: the line's reading keeps their raw text.
const READ_WHOLE: [&str; 5] = ["object", "type", "messages", "input", "contents"];

/// A line read once at its top level: an object's members (the raw JSON text of those
/// [`detect`] reads further, borrowed from the line, the type of the others) or the types of an
/// array's items, or the type of anything else. Nothing under the top level is decoded.
#[derive(Debug)]
pub(super) enum Top<'a> {
    Object(Vec<(Cow<'a, str>, Member<'a>)>),
    Array(Vec<Kind>),
    Scalar(Kind),
}

/// A member of the line's top level: its raw text, or only its type.
#[derive(Clone, Copy, Debug)]
pub(super) enum Member<'a> {
    Raw(&'a RawValue),
    Kind(Kind),
}

impl<'a> Top<'a> {
    /// Reads `line`, which must be one JSON value (whitespace around it allowed).
    pub(super) fn read(line: &'a [u8]) -> Result<Self, serde_json::Error> {
        serde_json::from_slice(line)
    }
}

/// A value detection reads: the line's top level, or a value in it.
#[derive(Clone, Copy, Debug)]
pub(super) enum Node<'t, 'a> {
    Top(&'t Top<'a>),
    Member(Member<'a>),
}

/// The last member named `key`, as a decoded object keeps it.
fn last<'a>(members: &[(Cow<'_, str>, Member<'a>)], key: &str) -> Option<Member<'a>> {
    members
        .iter()
        .rev()
        .find(|(name, _)| name == key)
        .map(|(_, value)| *value)
}

impl<'t, 'a> Probe for Node<'t, 'a> {
    fn kind(self) -> Kind {
        match self {
            Node::Top(Top::Object(_)) => Kind::Object,
            Node::Top(Top::Array(_)) => Kind::Array,
            Node::Top(Top::Scalar(kind)) => *kind,
            Node::Member(Member::Kind(kind)) => kind,
            Node::Member(Member::Raw(raw)) => match raw.get().as_bytes().first() {
                Some(b'{') => Kind::Object,
                Some(b'[') => Kind::Array,
                Some(b'"') => Kind::String,
                _ => Kind::Other,
            },
        }
    }

    fn get(self, key: &str) -> Option<Self> {
        match self {
            Node::Top(Top::Object(members)) => last(members, key).map(Node::Member),
            Node::Top(_) | Node::Member(Member::Kind(_)) => None,
            Node::Member(Member::Raw(raw)) => match serde_json::from_str::<Top<'a>>(raw.get()) {
                Ok(Top::Object(members)) => last(&members, key).map(Node::Member),
                _ => None,
            },
        }
    }

    fn is_str(self, text: &str) -> bool {
        match self {
            Node::Member(Member::Raw(raw)) if self.kind() == Kind::String => {
                serde_json::from_str::<Cow<'_, str>>(raw.get()).is_ok_and(|s| s == text)
            }
            _ => false,
        }
    }

    fn objects(self) -> bool {
        let objects =
            |items: &[Kind]| !items.is_empty() && items.iter().all(|k| *k == Kind::Object);
        match self {
            Node::Top(Top::Array(items)) => objects(items),
            Node::Member(Member::Raw(raw)) => match serde_json::from_str::<Top<'_>>(raw.get()) {
                Ok(Top::Array(items)) => objects(&items),
                _ => false,
            },
            _ => false,
        }
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Top<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(TopVisitor)
    }
}

struct TopVisitor;

impl<'de> Visitor<'de> for TopVisitor {
    type Value = Top<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut members = Vec::new();
        while let Some(Key(name)) = map.next_key::<Key<'de>>()? {
            let value = if READ_WHOLE.contains(&name.as_ref()) {
                Member::Raw(map.next_value::<&'de RawValue>()?)
            } else {
                Member::Kind(map.next_value_seed(KindOf)?)
            };
            members.push((name, value));
        }
        Ok(Top::Object(members))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut items = Vec::new();
        while let Some(kind) = seq.next_element_seed(KindOf)? {
            items.push(kind);
        }
        Ok(Top::Array(items))
    }

    fn visit_borrowed_str<E>(self, _: &'de str) -> Result<Self::Value, E> {
        Ok(Top::Scalar(Kind::String))
    }

    fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
        Ok(Top::Scalar(Kind::String))
    }

    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(Top::Scalar(Kind::Other))
    }

    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(Top::Scalar(Kind::Other))
    }

    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok(Top::Scalar(Kind::Other))
    }

    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(Top::Scalar(Kind::Other))
    }

    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(Top::Scalar(Kind::Other))
    }
}

/// The type of a value, read past without keeping any of it.
#[derive(Clone, Copy)]
struct KindOf;

impl<'de> DeserializeSeed<'de> for KindOf {
    type Value = Kind;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Kind, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for KindOf {
    type Value = Kind;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Kind, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Kind::Object)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Kind, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Kind::Array)
    }

    fn visit_borrowed_str<E>(self, _: &'de str) -> Result<Kind, E> {
        Ok(Kind::String)
    }

    fn visit_str<E>(self, _: &str) -> Result<Kind, E> {
        Ok(Kind::String)
    }

    fn visit_bool<E>(self, _: bool) -> Result<Kind, E> {
        Ok(Kind::Other)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Kind, E> {
        Ok(Kind::Other)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Kind, E> {
        Ok(Kind::Other)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Kind, E> {
        Ok(Kind::Other)
    }

    fn visit_unit<E>(self) -> Result<Kind, E> {
        Ok(Kind::Other)
    }
}

/// A member name, borrowed from the line unless it holds an escape.
struct Key<'a>(Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for Key<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a member name")
            }

            fn visit_borrowed_str<E>(self, name: &'de str) -> Result<Self::Value, E> {
                Ok(Key(Cow::Borrowed(name)))
            }

            fn visit_str<E>(self, name: &str) -> Result<Self::Value, E> {
                Ok(Key(Cow::Owned(name.to_owned())))
            }
        }
        deserializer.deserialize_str(KeyVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Both readings of `value` tell the same format.
    fn both(value: &Value) -> InputFormat {
        let text = value.to_string();
        let top = Top::read(text.as_bytes()).unwrap_or_else(|e| panic!("{e}: {text}"));
        let from_bytes = detect(Node::Top(&top));
        assert_eq!(from_bytes, detect(value), "{text}");
        from_bytes
    }

    #[test]
    fn the_bytes_and_the_decoded_value_tell_the_same_format() {
        let cases = [
            (
                json!({"type": "function", "function": {"name": "s", "arguments": "{}"}}),
                InputFormat::Call,
            ),
            (
                json!({"custom_id": "a", "result": {"type": "expired"}}),
                InputFormat::AnthropicBatch,
            ),
            (
                json!({"custom_id": "a", "response": null, "error": {}}),
                InputFormat::OpenaiBatch,
            ),
            (json!({"custom_id": "a"}), InputFormat::Call),
            (
                json!({"key": "k", "response": {}}),
                InputFormat::GeminiBatch,
            ),
            (json!({"key": 1, "response": {}}), InputFormat::Call),
            (json!({"choices": []}), InputFormat::Response),
            (json!({"choices": {}}), InputFormat::Call),
            (json!({"candidates": [{}]}), InputFormat::Response),
            (
                json!({"object": "response", "output": []}),
                InputFormat::Response,
            ),
            (
                json!({"object": "respons\u{65}", "output": {}}),
                InputFormat::Call,
            ),
            (
                json!({"type": "message", "content": []}),
                InputFormat::Response,
            ),
            (
                json!({"type": "message", "content": "hi"}),
                InputFormat::Call,
            ),
            (
                json!({"model": "m", "messages": [{"role": "user"}]}),
                InputFormat::Conversation,
            ),
            (json!({"model": "m", "messages": []}), InputFormat::Call),
            (json!({"model": "m", "input": [{}, 1]}), InputFormat::Call),
            (json!({"messages": [{"role": "user"}]}), InputFormat::Call),
            (
                json!({"contents": [{"parts": []}]}),
                InputFormat::Conversation,
            ),
            (json!([{"role": "user"}]), InputFormat::Conversation),
            (json!([]), InputFormat::Call),
            (json!([{}, []]), InputFormat::Call),
            (json!("text"), InputFormat::Call),
            (json!(1.5), InputFormat::Call),
            (json!(null), InputFormat::Call),
        ];
        for (value, format) in cases {
            assert_eq!(both(&value), format, "{value}");
        }
    }

    #[test]
    fn a_repeated_member_is_read_as_its_last_as_a_decoded_object_keeps_it() {
        let text = br#"{"type": "x", "content": [], "type": "message"}"#;
        let top = Top::read(text).unwrap();
        assert_eq!(detect(Node::Top(&top)), InputFormat::Response);
        let text = br#"{"type": "message", "content": [], "type": "x"}"#;
        let top = Top::read(text).unwrap();
        assert_eq!(detect(Node::Top(&top)), InputFormat::Call);
    }

    #[test]
    fn escaped_names_and_strings_are_read_decoded() {
        let text = br#"{"\u0074ype": "m\u0065ssage", "content": []}"#;
        let top = Top::read(text).unwrap();
        assert_eq!(detect(Node::Top(&top)), InputFormat::Response);
    }

    #[test]
    fn a_line_that_is_not_one_json_value_is_an_error() {
        for text in [&b"{"[..], b"{} {}", b"", b"{\"a\": \"\xff\"}"] {
            assert!(
                Top::read(text).is_err(),
                "{}",
                String::from_utf8_lossy(text)
            );
        }
    }
}
