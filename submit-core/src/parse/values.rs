//! Values of the wrong JSON type inside a payload that did not decode, and enum values in the
//! wrong letter case: the payload is walked once against the full payload schema.
//!
//! A string where the location's schema admits no string is read as a flat property's string
//! is (one value of an admitted type, see `flat.rs`) and, when that gives a value, replaced by
//! it; the value is not walked into. A string that is not one of the strings a location lists
//! (`enum`, `const`, or a union of them) but equals exactly one of them when ASCII letters are
//! compared without case becomes that member. Each change is named by the JSON Pointer (RFC
//! 6901) of its location from the payload root, in document order.
//!
//! The walk keeps its own stack of containers, so it never recurses on the payload's depth, and
//! visits each value once. A payload nested deeper than serde_json reads text is declined.

use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::map::Entry;
use serde_json::{Map, Value};

use super::flat::destringified;
use super::members::CowStr;
use super::payload::Json;
use crate::schema::locations::{Location, Schema};
use crate::schema::property::Types;

/// Containers nested at most this deep are walked: serde_json's own limit for text.
const DEPTH: usize = 128;

/// What the walk changed, each list in document order.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Changes {
    /// Strings replaced by the value they held.
    pub(crate) stringified: Vec<String>,
    /// Strings replaced by the enum member they match in another letter case.
    pub(crate) folded: Vec<String>,
}

/// The payload's top level under `flat`, where each property is an argument of its own: a
/// string there is not replaced (the flat payload's own rule did that), a property that rule
/// replaced is not walked into, and only the letter case of an enum member is mended.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Top<'a> {
    pub(crate) flat: bool,
    /// The properties the flat payload's rule replaced.
    pub(crate) replaced: &'a [String],
}

/// The payload as a value with the walk's changes applied, and the changes; `None` when the
/// walk changed nothing or declined (a payload nested too deep, or holding a member twice).
pub(crate) fn repaired(
    payload: &Json<'_>,
    schema: &Value,
    top: Top<'_>,
) -> Option<(Value, Changes)> {
    if !schema.is_object() {
        return None;
    }
    let mut value = materialized(payload)?;
    let changes = walk(&mut value, schema, top)?;
    let changed = !changes.stringified.is_empty() || !changes.folded.is_empty();
    changed.then_some((value, changes))
}

/// The payload as an owned value: text decoded (declined when any object in it repeats a
/// member, which a value cannot show), values copied when they are not nested too deep.
fn materialized(payload: &Json<'_>) -> Option<Value> {
    match payload {
        Json::Value(value) => within_depth(value).then(|| (*value).clone()),
        Json::Owned(value) => within_depth(value).then(|| value.clone()),
        Json::Text(text) => {
            let mut deserializer = serde_json::Deserializer::from_str(text);
            let value = UniqueValue.deserialize(&mut deserializer).ok()?;
            deserializer.end().ok()?;
            Some(value)
        }
        Json::Members(members) => {
            let mut map = Map::with_capacity(members.len());
            for (name, value) in members {
                if !within_depth(value) {
                    return None;
                }
                map.insert((*name).to_owned(), (*value).clone());
            }
            Some(Value::Object(map))
        }
    }
}

/// Whether `value` nests containers at most [`DEPTH`] deep; checked without recursion.
fn within_depth(value: &Value) -> bool {
    let mut pending = vec![(value, 0)];
    while let Some((value, depth)) = pending.pop() {
        let is_container = value.is_array() || value.is_object();
        if is_container && depth >= DEPTH {
            return false;
        }
        match value {
            Value::Array(items) => pending.extend(items.iter().map(|item| (item, depth + 1))),
            Value::Object(members) => {
                pending.extend(members.values().map(|member| (member, depth + 1)));
            }
            _ => {}
        }
    }
    true
}

/// A container being walked: its location, what is left of it, and the length of the pointer
/// to it.
enum Frame<'v, 's> {
    Members {
        location: Location<'s>,
        members: serde_json::map::IterMut<'v>,
        base: usize,
    },
    Items {
        location: Location<'s>,
        items: std::iter::Enumerate<std::slice::IterMut<'v, Value>>,
        base: usize,
    },
}

impl<'v, 's> Frame<'v, 's> {
    fn of(value: &'v mut Value, location: Location<'s>, base: usize) -> Option<Self> {
        match value {
            Value::Object(members) => Some(Frame::Members {
                location,
                members: members.iter_mut(),
                base,
            }),
            Value::Array(items) => Some(Frame::Items {
                location,
                items: items.iter_mut().enumerate(),
                base,
            }),
            _ => None,
        }
    }
}

/// Walks `payload` against `schema`, changing it in place; `None` when it nests too deep.
fn walk(payload: &mut Value, schema: &Value, top: Top<'_>) -> Option<Changes> {
    let mut schema = Schema::new(schema);
    let mut changes = Changes::default();
    let mut pointer = String::new();
    let mut frames: Vec<Frame<'_, '_>> = Frame::of(payload, schema.root(), 0).into_iter().collect();
    loop {
        let at_top = frames.len() == 1;
        let Some(frame) = frames.last_mut() else {
            break;
        };
        let (value, location, name) = match frame {
            Frame::Members {
                location,
                members,
                base,
            } => {
                let Some((name, value)) = members.next() else {
                    frames.pop();
                    continue;
                };
                pointer.truncate(*base);
                pointer.push('/');
                push_escaped(&mut pointer, name);
                (value, schema.member(location, name), Some(name.as_str()))
            }
            Frame::Items {
                location,
                items,
                base,
            } => {
                let Some((index, value)) = items.next() else {
                    frames.pop();
                    continue;
                };
                pointer.truncate(*base);
                pointer.push('/');
                pointer.push_str(&index.to_string());
                (value, schema.item(location, index), None)
            }
        };
        let top_property = at_top && top.flat;
        if let Value::String(text) = value {
            let admitted = schema.admitted(&location);
            if !admitted.types.has(Types::STRING) {
                if top_property {
                    continue;
                }
                if let Some(read) = destringified(text, admitted.types) {
                    *value = read;
                    changes.stringified.push(pointer.clone());
                }
            } else if let Some(member) = admitted.member_in_case(text) {
                *value = Value::String(member.to_owned());
                changes.folded.push(pointer.clone());
            }
            continue;
        }
        if top_property && name.is_some_and(|name| top.replaced.iter().any(|r| r == name)) {
            continue;
        }
        if let Some(frame) = Frame::of(value, location, pointer.len()) {
            if frames.len() >= DEPTH {
                return None;
            }
            frames.push(frame);
        }
    }
    Some(changes)
}

/// Appends a JSON Pointer segment: `~` as `~0`, `/` as `~1`.
fn push_escaped(pointer: &mut String, segment: &str) {
    for c in segment.chars() {
        match c {
            '~' => pointer.push_str("~0"),
            '/' => pointer.push_str("~1"),
            c => pointer.push(c),
        }
    }
}

/// A JSON value decoded from text, refusing any object that names a member twice.
pub(crate) struct UniqueValue;

impl<'de> DeserializeSeed<'de> for UniqueValue {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for UniqueValue {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_bool<E>(self, value: bool) -> Result<Value, E> {
        Ok(Value::Bool(value))
    }

    fn visit_i64<E>(self, value: i64) -> Result<Value, E> {
        Ok(Value::from(value))
    }

    fn visit_u64<E>(self, value: u64) -> Result<Value, E> {
        Ok(Value::from(value))
    }

    fn visit_f64<E>(self, value: f64) -> Result<Value, E> {
        Ok(Value::from(value))
    }

    fn visit_str<E>(self, value: &str) -> Result<Value, E> {
        Ok(Value::String(value.to_owned()))
    }

    fn visit_string<E>(self, value: String) -> Result<Value, E> {
        Ok(Value::String(value))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
        while let Some(item) = seq.next_element_seed(UniqueValue)? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut members = Map::new();
        while let Some(CowStr(name)) = map.next_key::<CowStr<'de>>()? {
            // The map itself tells a name seen before, before its value is read.
            let Entry::Vacant(member) = members.entry(name) else {
                return Err(serde::de::Error::custom("a member appears twice"));
            };
            member.insert(map.next_value_seed(UniqueValue)?);
        }
        Ok(Value::Object(members))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::borrow::Cow;

    const FLAT: Top<'static> = Top {
        flat: true,
        replaced: &[],
    };
    const NESTED: Top<'static> = Top {
        flat: false,
        replaced: &[],
    };

    fn schema() -> Value {
        json!({"type": "object", "properties": {
            "n": {"type": "integer"},
            "format": {"type": "string", "enum": ["markdown", "html"]},
            "inner": {"type": "object", "properties": {
                "ok": {"type": "boolean"},
                "list": {"type": "array", "items": {"type": "number"}},
                "a/b~c": {"type": "integer"}}}}})
    }

    fn changed(payload: Value, top: Top<'_>) -> Option<(Value, Changes)> {
        let schema = schema();
        let text = payload.to_string();
        let from_value = repaired(&Json::Value(&payload), &schema, top);
        let from_text = repaired(&Json::Text(Cow::Borrowed(&text)), &schema, top);
        assert_eq!(from_value, from_text, "value and text agree");
        from_value
    }

    #[test]
    fn strings_at_depth_and_enum_case_are_mended_in_document_order() {
        let payload = json!({"format": "HTML", "inner": {"list": ["1.5", 2, " 3 "],
                             "a/b~c": "7", "ok": "false"}, "n": "12"});
        let (value, changes) = changed(payload, NESTED).unwrap();
        assert_eq!(
            value,
            json!({"format": "html", "inner": {"list": [1.5, 2, 3], "a/b~c": 7, "ok": false},
                   "n": 12})
        );
        assert_eq!(
            changes.stringified,
            [
                "/inner/list/0",
                "/inner/list/2",
                "/inner/a~1b~0c",
                "/inner/ok",
                "/n"
            ]
        );
        assert_eq!(changes.folded, ["/format"]);
    }

    #[test]
    fn a_flat_top_level_is_left_to_its_own_rule_but_its_case_is_mended() {
        let payload = json!({"n": "12", "format": "Markdown", "inner": {"ok": "true"}});
        let (value, changes) = changed(payload, FLAT).unwrap();
        assert_eq!(
            value,
            json!({"n": "12", "format": "markdown", "inner": {"ok": true}})
        );
        assert_eq!(changes.stringified, ["/inner/ok"]);
        assert_eq!(changes.folded, ["/format"]);
        let replaced = ["inner".to_owned()];
        let top = Top {
            flat: true,
            replaced: &replaced,
        };
        assert_eq!(changed(json!({"inner": {"ok": "true"}}), top), None);
    }

    #[test]
    fn nothing_to_mend_or_nothing_readable_changes_nothing() {
        for payload in [
            json!({"n": 1, "format": "html", "inner": {"ok": true, "list": [1.5]}}),
            json!({"n": "12 apples", "inner": {"ok": "yes", "list": ["1 2", "x"]}}),
            json!({"format": "htm", "inner": {"list": "[1] and more"}}),
            json!({"n": "null", "inner": {"ok": "1"}}),
        ] {
            assert_eq!(changed(payload.clone(), NESTED), None, "{payload}");
        }
    }

    #[test]
    fn a_string_replaced_is_not_walked_into_here() {
        let payload = json!({"inner": "{\"ok\": \"true\", \"list\": [\"1\"]}"});
        let (value, changes) = changed(payload, NESTED).unwrap();
        assert_eq!(value, json!({"inner": {"ok": "true", "list": ["1"]}}));
        assert_eq!(changes.stringified, ["/inner"]);
    }

    #[test]
    fn a_member_twice_in_the_text_or_a_payload_too_deep_is_declined() {
        let schema = schema();
        let text = r#"{"n": "1", "inner": {"ok": true, "ok": "false"}}"#;
        let payload = Json::Text(Cow::Borrowed(text));
        assert_eq!(repaired(&payload, &schema, NESTED), None);
        let mut deep = json!("1");
        for _ in 0..200 {
            deep = json!({ "n": deep });
        }
        assert_eq!(repaired(&Json::Value(&deep), &schema, NESTED), None);
        let mut deep = json!(1);
        for _ in 0..100_000 {
            deep = Value::Array(vec![deep]);
        }
        assert!(!within_depth(&deep));
        let mut wide = json!({"n": "1"});
        wide["more"] = Value::Array(vec![json!([]); 1_000]);
        assert!(within_depth(&wide));
        // A value this deep is freed without recursion.
        let mut deep = deep;
        while let Value::Array(items) = &mut deep {
            let Some(inner) = items.pop() else { break };
            deep = inner;
        }
    }

    #[test]
    fn a_schema_that_is_no_object_changes_nothing() {
        let payload = json!({"n": "1"});
        assert_eq!(repaired(&Json::Value(&payload), &Value::Null, NESTED), None);
    }
}
