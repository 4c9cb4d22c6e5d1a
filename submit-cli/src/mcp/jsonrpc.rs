//! JSON-RPC errors the server writes itself, for what arrives but never becomes a message rmcp
//! handles: the request's `id` read back from the bytes, and the error object.
//!
//! rmcp's own error object leaves `id` out when it is not known (`JsonRpcError`, after MCP
//! 2026-07-28); the protocol revisions hosts speak today follow JSON-RPC 2.0, whose section 5
//! asks for `"id": null` then, and these answers write that.

use std::io::Read;

use rmcp::model::{ErrorCode, RequestId};
use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::{json, Value};

/// The `id` member of the JSON object `input` holds, read in one pass that keeps nothing it
/// skips (long strings and deep values included): its value when that is a string or an
/// integer and comes before the input ends or stops being JSON. An input that is not an
/// object, or whose `id` is missing, `null` or of another type, has none.
pub fn id_in(input: impl Read) -> Option<RequestId> {
    top_level(input).id
}

/// What the top level of a JSON object holds of a message, as far as answering it needs.
#[derive(Debug, Default)]
struct TopLevel {
    /// Its `id` (see [`id_in`]).
    id: Option<RequestId>,
    /// Whether it has a `method` member.
    method: bool,
}

/// Reads the top level of the JSON object `input` holds (see [`id_in`]).
fn top_level(input: impl Read) -> TopLevel {
    let mut found = TopLevel::default();
    let mut reader = serde_json::Deserializer::from_reader(input);
    // The error only says where reading stopped; what was found before it stands.
    let _ = TopLevelId(&mut found).deserialize(&mut reader);
    found
}

/// How bytes that hold no message rmcp can read are answered, the same whatever carried them
/// (the same bytes get the same answer over every transport): bytes that are no JSON get a
/// parse error (`-32700`, `"id": null`); JSON that is no message an invalid request (`-32600`)
/// with the `id` read back, or nothing when it is a notification (a `method` and no `id`),
/// which JSON-RPC leaves unanswered. Whether the bytes are JSON is JSON's grammar alone (a
/// number out of range or a lone surrogate is JSON).
pub fn not_a_message(bytes: &[u8], wrong: &serde_json::Error) -> Option<Value> {
    if serde_json::from_slice::<IgnoredAny>(bytes).is_err() {
        let message = format!(
            "parse error: {wrong}; send one JSON-RPC 2.0 message as JSON (over standard input \
             and output, one message a line)"
        );
        return Some(error(None, ErrorCode::PARSE_ERROR, &message));
    }
    let top = top_level(bytes);
    if top.id.is_none() && top.method {
        return None;
    }
    Some(error(
        top.id.as_ref(),
        ErrorCode::INVALID_REQUEST,
        &invalid_request(wrong),
    ))
}

/// The message of an invalid request, `wrong` saying why.
pub fn invalid_request(wrong: &serde_json::Error) -> String {
    format!("invalid request: {wrong}; send a JSON-RPC 2.0 request, notification or response")
}

/// A JSON-RPC error answering the request `id` (`null` when it is not known).
pub fn error(id: Option<&RequestId>, code: ErrorCode, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code.0, "message": message}})
}

/// Reads a top-level object, recording its `id` member as soon as it is read, and whether it
/// has a `method`.
struct TopLevelId<'a>(&'a mut TopLevel);

impl<'de> DeserializeSeed<'de> for TopLevelId<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for TopLevelId<'_> {
    type Value = ();

    fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
        formatter.write_str("a JSON-RPC message object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(member) = map.next_key_seed(Member)? {
            match member {
                Some(Named::Id) => self.0.id = map.next_value()?,
                Some(Named::Method) => {
                    self.0.method = true;
                    map.next_value::<IgnoredAny>()?;
                }
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
}

/// The members of a message's top level that are looked for.
enum Named {
    Id,
    Method,
}

/// Reads a member name as one of [`Named`], or none of them.
struct Member;

impl<'de> DeserializeSeed<'de> for Member {
    type Value = Option<Named>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl Visitor<'_> for Member {
    type Value = Option<Named>;

    fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
        formatter.write_str("a member name")
    }

    fn visit_str<E>(self, name: &str) -> Result<Self::Value, E> {
        Ok(match name {
            "id" => Some(Named::Id),
            "method" => Some(Named::Method),
            _ => None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(text: &str) -> Option<RequestId> {
        id_in(text.as_bytes())
    }

    #[test]
    fn the_top_level_id_is_found_wherever_it_stands() {
        assert_eq!(
            id(r#"{"id": 1, "method": "x"}"#),
            Some(RequestId::Number(1))
        );
        assert_eq!(
            id(r#"{"method": "x", "params": {"id": 2, "a": [{"id": 3}]}, "id": "last"}"#),
            Some(RequestId::String("last".into()))
        );
    }

    #[test]
    fn an_id_before_the_input_breaks_off_is_kept() {
        assert_eq!(
            id(r#"{"jsonrpc": "2.0", "id": 9, "params": {"text": "cut of"#),
            Some(RequestId::Number(9))
        );
        assert_eq!(id(r#"{"params": {"text": "cut of"#), None);
    }

    #[test]
    fn no_object_or_no_usable_id_has_none() {
        for text in [
            "",
            "[1]",
            "\"id\"",
            r#"{"id": null}"#,
            r#"{"id": [1]}"#,
            "{",
        ] {
            assert_eq!(id(text), None, "{text}");
        }
    }

    #[test]
    fn errors_name_the_id_or_null() {
        let answer = error(None, ErrorCode::PARSE_ERROR, "parse error");
        assert_eq!(
            answer,
            json!({"jsonrpc": "2.0", "id": null,
                   "error": {"code": -32700, "message": "parse error"}})
        );
        let answer = error(
            Some(&RequestId::String("a".into())),
            ErrorCode::INVALID_REQUEST,
            "m",
        );
        assert_eq!(answer["id"], "a");
        assert_eq!(answer["error"]["code"], -32600);
    }
}
