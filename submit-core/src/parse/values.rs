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

/// The rule through a built tool, in every provider's call shape.
#[cfg(test)]
mod through_the_tool {
    use std::fmt::Debug;

    use schemars::JsonSchema;
    use serde::de::DeserializeOwned;
    use serde::Deserialize;
    use serde_json::{json, Value};

    use super::super::tests::call;
    use crate::error::{ErrorClass, SubmitError};
    use crate::options::{GeminiSchema, Options};
    use crate::outcome::{Outcome, Recovery, RecoveryKind};
    use crate::provider::Provider;
    use crate::tool::SubmitTool;

    #[derive(Debug, PartialEq, Deserialize, JsonSchema)]
    #[serde(rename_all = "lowercase")]
    enum Format {
        Markdown,
        Html,
    }

    /// A documented enum: schemars writes one `const` branch per variant.
    #[derive(Debug, PartialEq, Deserialize, JsonSchema)]
    enum Tone {
        /// Plain.
        Plain,
        /// Formal.
        Formal,
    }

    #[derive(Debug, PartialEq, Deserialize, JsonSchema)]
    struct Limits {
        max: u32,
        strict: bool,
        ratios: Vec<f64>,
    }

    #[derive(Debug, PartialEq, Deserialize, JsonSchema)]
    struct Report {
        summary: String,
        limits: Limits,
        #[serde(default)]
        format: Option<Format>,
        #[serde(default)]
        tone: Option<Tone>,
    }

    fn limits() -> Limits {
        Limits {
            max: 90,
            strict: true,
            ratios: vec![0.5, 1.0],
        }
    }

    fn report(format: Option<Format>, tone: Option<Tone>) -> Report {
        Report {
            summary: "s".into(),
            limits: limits(),
            format,
            tone,
        }
    }

    fn options() -> Options {
        Options::new().payload_field_name("analysis")
    }

    fn typed<R: DeserializeOwned + JsonSchema>(options: Options) -> SubmitTool<R> {
        SubmitTool::new(options).unwrap()
    }

    /// The JSON Schema document of `Report`, written by hand.
    fn report_schema() -> Value {
        json!({"type": "object", "properties": {
            "summary": {"type": "string"},
            "limits": {"$ref": "#/$defs/Limits"},
            "format": {"type": ["string", "null"], "enum": ["markdown", "html", null]},
            "tone": {"anyOf": [{"oneOf": [{"const": "Plain"}, {"const": "Formal"}]},
                               {"type": "null"}]}},
            "required": ["summary", "limits"],
            "$defs": {"Limits": {"type": "object", "properties": {
                "max": {"type": "integer", "minimum": 0},
                "strict": {"type": "boolean"},
                "ratios": {"type": "array", "items": {"type": "number"}}},
                "required": ["max", "strict", "ratios"]}}})
    }

    fn dynamic(options: Options) -> SubmitTool<Value> {
        SubmitTool::from_json_schema(report_schema(), options).unwrap()
    }

    fn outcomes<R>(tool: &SubmitTool<R>, arguments: &Value) -> Vec<Outcome<R>>
    where
        R: DeserializeOwned,
    {
        Provider::ALL
            .into_iter()
            .map(|provider| tool.handle(provider, &call(provider, arguments)))
            .collect()
    }

    /// The response and the rules recorded, the same in every provider's call shape.
    fn accepted<R>(tool: &SubmitTool<R>, arguments: Value) -> (R, Vec<Recovery>)
    where
        R: DeserializeOwned + Debug + PartialEq,
    {
        let mut all = outcomes(tool, &arguments).into_iter().map(|outcome| {
            let accepted = outcome
                .into_result()
                .unwrap_or_else(|r| panic!("rejected {arguments}: {}", r.error));
            (accepted.response, accepted.recoveries)
        });
        let first = all.next().unwrap();
        for other in all {
            assert_eq!(other, first, "providers disagree on {arguments}");
        }
        first
    }

    /// The rejection, the same in every provider's call shape.
    fn rejected<R: DeserializeOwned>(tool: &SubmitTool<R>, arguments: Value) -> SubmitError {
        let mut all =
            outcomes(tool, &arguments)
                .into_iter()
                .map(|outcome| match outcome.into_result() {
                    Ok(_) => panic!("accepted {arguments}"),
                    Err(rejected) => rejected.error,
                });
        let first = all.next().unwrap();
        for other in all {
            assert_eq!(other, first, "providers disagree on {arguments}");
        }
        first
    }

    fn naming(kind: RecoveryKind, pointers: &[&str]) -> Recovery {
        Recovery::naming(kind, pointers.iter().map(|p| (*p).to_owned()).collect())
    }

    fn at_depth_two() -> Value {
        json!({"reasoning": "r", "analysis": {"summary": "s",
               "limits": {"max": "90", "strict": " true", "ratios": "[0.5, 1]"}}})
    }

    #[test]
    fn a_number_a_boolean_and_an_array_as_strings_at_depth_two_are_recovered_with_their_pointers() {
        let (response, applied) = accepted(&typed::<Report>(options()), at_depth_two());
        assert_eq!(response, report(None, None));
        let pointers = ["/limits/max", "/limits/strict", "/limits/ratios"];
        assert_eq!(applied, [naming(RecoveryKind::StringifiedValue, &pointers)]);
    }

    #[test]
    fn values_at_depth_are_recovered_through_a_json_schema_tool() {
        let (response, applied) = accepted(&dynamic(options()), at_depth_two());
        assert_eq!(
            response,
            json!({"summary": "s", "limits": {"max": 90, "strict": true, "ratios": [0.5, 1]}})
        );
        let pointers = ["/limits/max", "/limits/strict", "/limits/ratios"];
        assert_eq!(applied, [naming(RecoveryKind::StringifiedValue, &pointers)]);
    }

    #[test]
    fn an_enum_in_the_wrong_case_is_folded_with_its_pointer() {
        let arguments = json!({"reasoning": "r", "analysis": {"summary": "s",
            "limits": {"max": 90, "strict": true, "ratios": [0.5, 1]}, "format": "HTML"}});
        let (response, applied) = accepted(&typed::<Report>(options()), arguments.clone());
        assert_eq!(response, report(Some(Format::Html), None));
        assert_eq!(applied, [naming(RecoveryKind::EnumCase, &["/format"])]);
        let (response, applied) = accepted(&dynamic(options()), arguments);
        assert_eq!(response["format"], "html");
        assert_eq!(applied, [naming(RecoveryKind::EnumCase, &["/format"])]);
    }

    #[test]
    fn option_enum_as_schemars_writes_it_folds_case() {
        // `Option<Format>` is one node with a `null` member; `Option<Tone>` a union whose
        // branches are a `oneOf` of consts and `null`.
        let arguments = json!({"reasoning": "r", "analysis": {"summary": "s",
            "limits": {"max": 90, "strict": true, "ratios": [0.5, 1]},
            "format": "Markdown", "tone": "formal"}});
        let (response, applied) = accepted(&typed::<Report>(options()), arguments.clone());
        assert_eq!(response, report(Some(Format::Markdown), Some(Tone::Formal)));
        let folded = naming(RecoveryKind::EnumCase, &["/format", "/tone"]);
        assert_eq!(applied, std::slice::from_ref(&folded));
        let (response, applied) = accepted(&dynamic(options()), arguments);
        assert_eq!(response["tone"], "Formal");
        assert_eq!(applied, [folded]);
        // `null` is still `None`, and a member in its own case needs nothing.
        let arguments = json!({"reasoning": "r", "analysis": {"summary": "s",
            "limits": {"max": "90", "strict": true, "ratios": []}, "format": null,
            "tone": "Plain"}});
        let (response, applied) = accepted(&typed::<Report>(options()), arguments);
        assert_eq!((response.format, response.tone), (None, Some(Tone::Plain)));
        assert_eq!(
            applied,
            [naming(RecoveryKind::StringifiedValue, &["/limits/max"])]
        );
    }

    #[test]
    fn stringified_values_are_recorded_before_enum_case_and_after_the_payload_s_own_recovery() {
        let payload = json!({"format": "HTML", "summary": "s",
            "limits": {"ratios": ["0.5", 1], "max": 90, "strict": "true"}});
        let arguments = json!({"reasoning": "r", "analysis": payload.to_string()});
        let (response, applied) = accepted(&typed::<Report>(options()), arguments);
        assert_eq!(response, report(Some(Format::Html), None));
        assert_eq!(
            applied,
            [
                Recovery::naming(RecoveryKind::Stringified, vec!["analysis".into()]),
                naming(
                    RecoveryKind::StringifiedValue,
                    &["/limits/ratios/0", "/limits/strict"]
                ),
                naming(RecoveryKind::EnumCase, &["/format"]),
            ]
        );
        // A payload recovered from reasoning is decoded where its end is found; mended too.
        let reasoning = format!("done</reasoning><parameter name=\"analysis\">{payload}");
        let tool = typed::<Report>(options());
        for outcome in outcomes(&tool, &json!({"reasoning": reasoning})) {
            let accepted = outcome.into_result().unwrap();
            assert_eq!(accepted.recovery(), Some(RecoveryKind::ReasoningOpener));
            assert_eq!(accepted.reasoning, "done");
            let kinds: Vec<_> = accepted.recoveries.iter().map(|r| r.kind).collect();
            assert_eq!(
                kinds,
                [
                    RecoveryKind::ReasoningOpener,
                    RecoveryKind::StringifiedValue,
                    RecoveryKind::EnumCase
                ]
            );
        }
    }

    #[test]
    fn a_string_that_is_not_exactly_one_value_of_an_admitted_type_keeps_the_original_payload_error()
    {
        let tool = typed::<Report>(options());
        for (max, strict, ratios) in [
            (json!("90 units"), json!(true), json!([0.5])),
            (json!("9.5"), json!(true), json!([0.5])),
            (json!(90), json!("yes"), json!([0.5])),
            (json!(90), json!(true), json!("[0.5] and 1")),
            (json!(90), json!(true), json!("[0.5], [1]")),
            (json!("\"90\""), json!(true), json!([0.5])),
        ] {
            let limits = json!({"max": max, "strict": strict, "ratios": ratios});
            let payload = json!({"summary": "s", "limits": limits});
            let error = rejected(&tool, json!({"reasoning": "r", "analysis": payload}));
            assert_eq!(error.class(), ErrorClass::Payload, "{payload}");
            assert!(
                error
                    .message()
                    .starts_with("failed to decode payload: invalid "),
                "{error}"
            );
        }
        // One value mended and another still wrong: the first decode's error, nothing else.
        let payload = json!({"summary": "s", "limits": {"max": "90", "strict": "yes",
                            "ratios": []}});
        let error = rejected(&tool, json!({"reasoning": "r", "analysis": payload}));
        assert_eq!(
            error.message(),
            "failed to decode payload: invalid type: string \"90\", expected u32"
        );
        // An enum value that matches no member, or two in another case, is not folded.
        let payload = json!({"summary": "s", "limits": limits_value(), "format": "htm"});
        let error = rejected(&tool, json!({"reasoning": "r", "analysis": payload}));
        assert!(error.message().contains("unknown variant `htm`"), "{error}");
    }

    fn limits_value() -> Value {
        json!({"max": 90, "strict": true, "ratios": [0.5, 1]})
    }

    #[test]
    fn a_string_that_is_not_exactly_one_value_of_an_admitted_type_keeps_the_original_payload_error_through_a_json_schema_tool(
    ) {
        let tool = dynamic(options());
        let payload = json!({"summary": "s", "limits": {"max": "90", "strict": "yes",
                            "ratios": []}});
        let error = rejected(&tool, json!({"reasoning": "r", "analysis": payload}));
        assert_eq!(
            error.message(),
            "failed to decode payload: at \"/limits/max\": \"90\" is not of type \"integer\""
        );
        let payload = json!({"summary": "s", "limits": {"max": "-1", "strict": true,
                            "ratios": []}});
        let error = rejected(&tool, json!({"reasoning": "r", "analysis": payload}));
        assert_eq!(
            error.message(),
            "failed to decode payload: at \"/limits/max\": \"-1\" is not of type \"integer\""
        );
    }

    #[test]
    fn a_string_replaced_is_not_walked_into() {
        // `limits` arrives as its JSON text, and inside it `max` as a string: one level only.
        let inner = json!({"max": "90", "strict": true, "ratios": [0.5, 1]}).to_string();
        let payload = json!({"summary": "s", "limits": inner});
        let tool = typed::<Report>(options());
        let error = rejected(&tool, json!({"reasoning": "r", "analysis": payload}));
        assert_eq!(
            error.message(),
            "failed to decode payload: invalid type: string \"{\\\"max\\\":\\\"90\\\",\\\"strict\\\":true,\\\"ratios\\\":[0.5,1]}\", expected struct Limits"
        );
        let inner = limits_value().to_string();
        let payload = json!({"summary": "s", "limits": inner});
        let (response, applied) = accepted(&tool, json!({"reasoning": "r", "analysis": payload}));
        assert_eq!(response, report(None, None));
        assert_eq!(
            applied,
            [naming(RecoveryKind::StringifiedValue, &["/limits"])]
        );
    }

    #[test]
    fn a_flat_tool_keeps_its_own_rule_at_the_top_and_folds_case_there() {
        let tool = typed::<Report>(options().flat_payload(true));
        let arguments = json!({"reasoning": "r", "summary": "s", "format": "HTML",
            "limits": {"max": "90", "strict": true, "ratios": [0.5, 1]}});
        let (response, applied) = accepted(&tool, arguments);
        assert_eq!(response, report(Some(Format::Html), None));
        assert_eq!(
            applied,
            [
                naming(RecoveryKind::StringifiedValue, &["/limits/max"]),
                naming(RecoveryKind::EnumCase, &["/format"]),
            ]
        );
        // A property the flat rule read from its string is not walked into.
        let limits = json!({"max": "90", "strict": true, "ratios": []}).to_string();
        let arguments = json!({"reasoning": "r", "summary": "s", "limits": limits});
        let error = rejected(&tool, arguments);
        assert_eq!(
            error.message(),
            "failed to decode payload: invalid type: string \"90\", expected u32"
        );
        // The flat rule alone, at the top.
        let limits = limits_value().to_string();
        let arguments = json!({"reasoning": "r", "summary": "s", "limits": limits,
                               "tone": "PLAIN"});
        let (response, applied) = accepted(&tool, arguments);
        assert_eq!(response, report(None, Some(Tone::Plain)));
        assert_eq!(
            applied,
            [
                Recovery::naming(RecoveryKind::StringifiedProperty, vec!["limits".into()]),
                naming(RecoveryKind::EnumCase, &["/tone"]),
            ]
        );
    }

    #[test]
    fn a_recursive_type_is_walked_through_its_definitions() {
        #[derive(Debug, PartialEq, Deserialize, JsonSchema)]
        struct Node {
            value: i32,
            next: Option<Box<Node>>,
        }
        let tool = typed::<Node>(options().gemini_schema(GeminiSchema::JsonSchema));
        let arguments = json!({"reasoning": "r", "analysis": {"value": 1,
            "next": {"value": "2", "next": {"value": "3", "next": null}}}});
        let (response, applied) = accepted(&tool, arguments);
        assert_eq!(response.next.and_then(|n| n.next).map(|n| n.value), Some(3));
        assert_eq!(
            applied,
            [naming(
                RecoveryKind::StringifiedValue,
                &["/next/value", "/next/next/value"]
            )]
        );
    }

    #[test]
    fn an_internally_tagged_variant_in_the_wrong_case_is_folded() {
        #[derive(Debug, PartialEq, Deserialize, JsonSchema)]
        #[serde(tag = "kind", rename_all = "snake_case")]
        enum Verdict {
            Approve,
            Block { reason: String },
        }
        let tool = typed::<Verdict>(options());
        let arguments = json!({"reasoning": "r", "analysis": {"kind": "Block", "reason": "x"}});
        let (response, applied) = accepted(&tool, arguments);
        assert_eq!(response, Verdict::Block { reason: "x".into() });
        assert_eq!(applied, [naming(RecoveryKind::EnumCase, &["/kind"])]);
    }

    #[test]
    fn strict_mode_mends_values_after_removing_its_nulls() {
        let tool = typed::<Report>(options().strict(true));
        let arguments = json!({"reasoning": "r", "analysis": {"summary": "s",
            "limits": {"max": "90", "strict": true, "ratios": [0.5, 1]},
            "format": null, "tone": "formal"}});
        let (response, applied) = accepted(&tool, arguments);
        assert_eq!(response, report(None, Some(Tone::Formal)));
        assert_eq!(
            applied,
            [
                naming(RecoveryKind::StringifiedValue, &["/limits/max"]),
                naming(RecoveryKind::EnumCase, &["/tone"]),
            ]
        );
    }

    #[test]
    fn a_member_twice_below_the_payload_s_top_is_not_mended() {
        let tool = typed::<Report>(options());
        let text = r#"{"reasoning":"r","analysis":{"summary":"s","limits":{"max":"90","max":"91","strict":true,"ratios":[]}}}"#;
        let outcome = tool.handle_arguments(crate::parse::Arguments::Text(text));
        let error = outcome.error().unwrap();
        assert_eq!(error.class(), ErrorClass::Payload);
        assert_eq!(
            error.message(),
            "failed to decode payload: invalid type: string \"90\", expected u32"
        );
    }

    #[test]
    fn a_clean_call_records_nothing() {
        let arguments = json!({"reasoning": "r", "analysis": {"summary": "s",
            "limits": limits_value(), "format": "html"}});
        let (response, applied) = accepted(&typed::<Report>(options()), arguments);
        assert_eq!(response, report(Some(Format::Html), None));
        assert!(applied.is_empty());
    }
}
