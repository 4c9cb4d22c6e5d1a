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
    let mut found = None;
    let mut reader = serde_json::Deserializer::from_reader(input);
    // The error only says where reading stopped; what was found before it stands.
    let _ = TopLevelId(&mut found).deserialize(&mut reader);
    found
}

/// A JSON-RPC error answering the request `id` (`null` when it is not known).
pub fn error(id: Option<&RequestId>, code: ErrorCode, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code.0, "message": message}})
}

/// Reads a top-level object, recording its `id` member as soon as it is read.
struct TopLevelId<'a>(&'a mut Option<RequestId>);

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
        while let Some(is_id) = map.next_key_seed(IsId)? {
            if is_id {
                *self.0 = Some(map.next_value()?);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(())
    }
}

/// Reads a member name as whether it is `id`.
struct IsId;

impl<'de> DeserializeSeed<'de> for IsId {
    type Value = bool;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<bool, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl Visitor<'_> for IsId {
    type Value = bool;

    fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
        formatter.write_str("a member name")
    }

    fn visit_str<E>(self, name: &str) -> Result<bool, E> {
        Ok(name == "id")
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
