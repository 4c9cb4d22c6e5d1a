//! Step *Flat payload* of the parsing rules: a flat payload, built from the arguments by exact
//! property name, refined by the step's rules in their order: `stringified_property`,
//! `swallowed_parameter`, a member that is no parameter, the required check, then
//! `closing_markup`.

use std::borrow::Cow;

use memchr::{memchr, memmem};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::arguments::{JsonType, Member, Object};
use super::closing::only_closing_tokens;
use super::payload::{Json, Located, Payload};
use super::reasoning::{trim_end_space, trim_space, REASONING};
use crate::error::{ParameterCause, SubmitError};
use crate::outcome::{Recovery, RecoveryKind};
use crate::schema::property::{Property, Types};

/// What step *Flat payload* needs of the tool.
pub(crate) struct Flat<'t> {
    /// The properties of the full schema, in schema order.
    pub(crate) properties: &'t [Property],
    pub(crate) omit_reasoning: bool,
    /// Properties withheld from the advertised schema.
    pub(crate) omitted: &'t [String],
    /// The payload schema is closed (`additionalProperties: false`).
    pub(crate) closed: bool,
}

/// A property's value: as it arrived, or replaced by a rule.
enum Picked<'a> {
    AsSent(Member<'a>),
    Replaced(Value),
}

const ANY_OPENER: &[u8] = b"<parameter name=\"";

/// Step *Flat payload*. Every property of the full schema is picked from the arguments by exact
/// name, with the step's rules applied; the first required property (schema order) that is
/// absent or `null` rejects. The recoveries that applied are appended to `applied`.
pub(crate) fn build<'a, R>(
    object: &Object<'a>,
    reasoning: &str,
    flat: &Flat<'a>,
    applied: &mut Vec<Recovery>,
) -> Result<Located<'a, R>, SubmitError> {
    let mut picked = pick(object, flat, applied);
    let absent = |name: &str| is_absent(&picked, name);
    if let Some(error) = swallowed_parameter(reasoning, &picked, flat, &absent) {
        return Err(error);
    }
    let unknown = unknown_members(object, flat)?;
    // The required check.
    for property in flat.properties.iter().filter(|property| property.required) {
        if absent(&property.name) {
            return Err(SubmitError::parameter(
                ParameterCause::AbsentOrMistyped,
                format!("{} parameter is required", property.name),
            ));
        }
    }
    closing_markup(&mut picked, applied);
    let members = picked
        .into_iter()
        .map(|(property, member)| (Cow::Borrowed(property.name.as_str()), member))
        .chain(unknown);
    Ok(Located::direct(Payload::Json(assemble(members))))
}

/// Each property of the full schema the arguments hold, in schema order, with
/// `stringified_property` applied: a string sent for a property whose type admits no string.
fn pick<'a>(
    object: &Object<'a>,
    flat: &Flat<'a>,
    applied: &mut Vec<Recovery>,
) -> Vec<(&'a Property, Picked<'a>)> {
    let mut picked = Vec::with_capacity(flat.properties.len());
    let mut stringified = Vec::new();
    for property in flat.properties {
        let Some(param) = object.get(&property.name) else {
            continue;
        };
        let member = match property.types {
            Some(types) if !types.has(Types::STRING) && param.json_type() == JsonType::String => {
                match param.as_str().and_then(|text| destringified(&text, types)) {
                    Some(value) => {
                        stringified.push(property.name.clone());
                        Picked::Replaced(value)
                    }
                    None => Picked::AsSent(param),
                }
            }
            _ => Picked::AsSent(param),
        };
        picked.push((property, member));
    }
    if !stringified.is_empty() {
        applied.push(Recovery::naming(
            RecoveryKind::StringifiedProperty,
            stringified,
        ));
    }
    picked
}

/// Whether the property `name` is absent or `null` among the picked.
fn is_absent(picked: &[(&Property, Picked<'_>)], name: &str) -> bool {
    !picked.iter().any(|(property, member)| {
        property.name == name
            && !matches!(member, Picked::AsSent(param) if param.json_type() == JsonType::Null)
    })
}

/// `swallowed_parameter`: the rejection of a string (the reasoning, or a property sent as
/// sent) that swallowed another parameter's block.
fn swallowed_parameter(
    reasoning: &str,
    picked: &[(&Property, Picked<'_>)],
    flat: &Flat<'_>,
    absent: &dyn Fn(&str) -> bool,
) -> Option<SubmitError> {
    if !flat.omit_reasoning {
        if let Some(error) = swallowed(REASONING, reasoning, flat, absent) {
            return Some(error);
        }
    }
    for (property, member) in picked {
        if let Picked::AsSent(param) = member {
            if let Some(text) = string_with_markup(*param) {
                if let Some(error) = swallowed(&property.name, &text, flat, absent) {
                    return Some(error);
                }
            }
        }
    }
    None
}

/// The members that are no parameter: rejected under a closed schema, else passed to the
/// decoder.
fn unknown_members<'a>(
    object: &Object<'a>,
    flat: &Flat<'_>,
) -> Result<Vec<(Cow<'a, str>, Picked<'a>)>, SubmitError> {
    let mut unknown = Vec::new();
    for (name, param) in object.members() {
        let known = name == REASONING || flat.properties.iter().any(|p| p.name == *name);
        if known {
            continue;
        }
        if flat.closed {
            return Err(SubmitError::parameter(
                ParameterCause::AbsentOrMistyped,
                format!(
                    "unknown parameter {name:?}; this tool takes {}",
                    advertised(flat).join(", ")
                ),
            ));
        }
        unknown.push((name, Picked::AsSent(param)));
    }
    Ok(unknown)
}

/// `closing_markup`: tool-call markup at the end of a string property, cut.
fn closing_markup(picked: &mut [(&Property, Picked<'_>)], applied: &mut Vec<Recovery>) {
    let mut tails = Vec::new();
    for (property, member) in picked {
        let Picked::AsSent(param) = member else {
            continue;
        };
        let Some(text) = string_with_markup(*param) else {
            continue;
        };
        if let Some(kept) = without_markup_tail(&text, &property.name) {
            let kept = Value::String(kept.to_owned());
            tails.push(property.name.clone());
            *member = Picked::Replaced(kept);
        }
    }
    if !tails.is_empty() {
        applied.push(Recovery::naming(RecoveryKind::ClosingMarkup, tails));
    }
}

/// The advertised parameter names, in order.
fn advertised<'t>(flat: &Flat<'t>) -> Vec<&'t str> {
    let reasoning = (!flat.omit_reasoning).then_some(REASONING);
    reasoning
        .into_iter()
        .chain(
            flat.properties
                .iter()
                .filter(|property| !flat.omitted.contains(&property.name))
                .map(|property| property.name.as_str()),
        )
        .collect()
}

/// `stringified_property`: the value a string holds for a property whose types exclude string,
/// if it holds exactly one. The same reading applies to a value at any depth of a payload that
/// did not decode (`values.rs`, `stringified_value`).
pub(crate) fn destringified(text: &str, types: Types) -> Option<Value> {
    let trimmed = trim_space(text);
    match trimmed.as_bytes().first() {
        Some(b'{') if types.has(Types::OBJECT) => leading_value(text),
        Some(b'[') if types.has(Types::ARRAY) => leading_value(text),
        _ => {
            let admits_scalar =
                types.has(Types::BOOLEAN) || types.has(Types::NUMBER) || types.has(Types::INTEGER);
            if !admits_scalar {
                return None;
            }
            match serde_json::from_str::<Value>(trimmed).ok()? {
                value @ Value::Bool(_) if types.has(Types::BOOLEAN) => Some(value),
                Value::Number(number)
                    if types.has(Types::NUMBER)
                        || (types.has(Types::INTEGER) && (number.is_i64() || number.is_u64())) =>
                {
                    Some(Value::Number(number))
                }
                _ => None,
            }
        }
    }
}

/// The first JSON value of `text` (an object or an array), when closing tokens only follow it.
fn leading_value(text: &str) -> Option<Value> {
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<&RawValue>();
    let raw = stream.next()?.ok()?;
    let rest = text.get(stream.byte_offset()..)?;
    if !only_closing_tokens(rest) {
        return None;
    }
    serde_json::from_str(raw.get()).ok()
}

/// A string argument, unescaped, when it may hold markup (`<`, or an escape that could be one):
/// strings without either need neither `swallowed_parameter` nor `closing_markup`, and are not
/// copied.
fn string_with_markup(param: Member<'_>) -> Option<Cow<'_, str>> {
    match param {
        Member::Value(Value::String(text)) => {
            memchr(b'<', text.as_bytes()).map(|_| Cow::Borrowed(text.as_str()))
        }
        Member::Value(_) => None,
        Member::Text(raw) => {
            let bytes = raw.get().as_bytes();
            if bytes.first() != Some(&b'"') {
                return None;
            }
            let may_hold = memchr(b'<', bytes).is_some() || memmem::find(bytes, b"\\u").is_some();
            if may_hold {
                param.as_str()
            } else {
                None
            }
        }
    }
}

/// `swallowed_parameter`: the first `<parameter name="X">` block in `text` (the value of
/// `holder`) where X is another advertised parameter that is absent or `null`.
fn swallowed(
    holder: &str,
    text: &str,
    flat: &Flat<'_>,
    absent: &dyn Fn(&str) -> bool,
) -> Option<SubmitError> {
    let bytes = text.as_bytes();
    for at in memmem::find_iter(bytes, ANY_OPENER) {
        let name_start = at + ANY_OPENER.len();
        let Some(rest) = bytes.get(name_start..) else {
            continue;
        };
        // A parameter name has at most 64 bytes: look no further for its closing quote.
        let window = rest.get(..rest.len().min(65)).unwrap_or_default();
        let Some(len) = memchr(b'"', window) else {
            continue;
        };
        if rest.get(len + 1) != Some(&b'>') {
            continue;
        }
        let Some(name) = text.get(name_start..name_start + len) else {
            continue;
        };
        let is_parameter = flat
            .properties
            .iter()
            .any(|property| property.name == name && !flat.omitted.contains(&property.name));
        if name != holder && is_parameter && absent(name) {
            return Some(SubmitError::parameter(
                ParameterCause::SwallowedParameter,
                format!(
                    "{holder} contains a <parameter name=\"{name}\"> block, so {name} was \
                     written inside the {holder} string; end {holder} before that block and \
                     send {name} as its own parameter"
                ),
            ));
        }
    }
    None
}

/// `closing_markup`: `text` without a tail of `</invoke>` (trailing whitespace aside), optionally
/// preceded by `</parameter>` or `</NAME>` and optionally followed by `</function_calls>`,
/// whitespace allowed between them; `None` when it has no such tail.
pub(crate) fn without_markup_tail<'t>(text: &'t str, name: &str) -> Option<&'t str> {
    let end = trim_end_space(text);
    let end = end
        .strip_suffix("</function_calls>")
        .map_or(end, trim_end_space);
    let kept = end.strip_suffix("</invoke>")?;
    let before = trim_end_space(kept);
    let own = format!("</{name}>");
    Some(
        before
            .strip_suffix("</parameter>")
            .or_else(|| before.strip_suffix(own.as_str()))
            .unwrap_or(kept),
    )
}

/// The picked members as a payload: borrowed values in place, raw members joined into the
/// text of one object; with a replaced value among value arguments, an owned object.
fn assemble<'a>(members: impl Iterator<Item = (Cow<'a, str>, Picked<'a>)>) -> Json<'a> {
    let members: Vec<_> = members.collect();
    let any_raw = members.iter().any(|(name, member)| {
        matches!(member, Picked::AsSent(Member::Text(_))) || matches!(name, Cow::Owned(_))
    });
    let any_replaced = members
        .iter()
        .any(|(_, member)| matches!(member, Picked::Replaced(_)));
    if any_raw || members.is_empty() {
        let mut text = String::from("{");
        for (name, member) in members {
            if text.len() > 1 {
                text.push(',');
            }
            text.push_str(&Value::from(name.as_ref()).to_string());
            text.push(':');
            match member {
                Picked::AsSent(Member::Text(raw)) => text.push_str(raw.get()),
                Picked::AsSent(Member::Value(value)) => text.push_str(&value.to_string()),
                Picked::Replaced(value) => text.push_str(&value.to_string()),
            }
        }
        text.push('}');
        return Json::Text(text.into());
    }
    if any_replaced {
        let mut map = Map::new();
        for (name, member) in members {
            let value = match member {
                Picked::AsSent(Member::Value(value)) => value.clone(),
                Picked::AsSent(Member::Text(raw)) => {
                    serde_json::from_str(raw.get()).unwrap_or(Value::Null)
                }
                Picked::Replaced(value) => value,
            };
            map.insert(name.into_owned(), value);
        }
        return Json::Owned(Value::Object(map));
    }
    Json::Members(
        members
            .into_iter()
            .filter_map(|(name, member)| match (name, member) {
                (Cow::Borrowed(name), Picked::AsSent(Member::Value(value))) => Some((name, value)),
                _ => None,
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::super::tests::testing::object_of;
    use super::*;
    use serde_json::json;

    fn properties() -> Vec<Property> {
        let property = |name: &str, required, types| Property {
            name: name.into(),
            required,
            types,
        };
        vec![
            property("summary", true, Some(Types::STRING)),
            property("count", true, Some(Types::INTEGER)),
            property("note", false, None),
            property("tags", false, Some(Types::ARRAY.with(Types::NULL))),
        ]
    }

    fn flat(properties: &[Property], closed: bool) -> Flat<'_> {
        Flat {
            properties,
            omit_reasoning: false,
            omitted: &[],
            closed,
        }
    }

    fn payload_text(payload: Payload<'_, Value>) -> String {
        let Payload::Json(json) = payload else {
            panic!("a flat payload is built as JSON")
        };
        match json {
            Json::Text(text) => text.into_owned(),
            Json::Owned(value) => value.to_string(),
            Json::Value(value) => value.to_string(),
            Json::Members(members) => Value::Object(
                members
                    .into_iter()
                    .map(|(name, value)| (name.to_owned(), value.clone()))
                    .collect(),
            )
            .to_string(),
        }
    }

    /// The payload and the recoveries applied, from value and from text arguments (they
    /// agree).
    fn built(value: &Value, closed: bool) -> Result<(String, Vec<Recovery>), SubmitError> {
        let properties = properties();
        let tool = flat(&properties, closed);
        let reasoning = value["reasoning"].as_str().unwrap_or_default();
        let mut results = Vec::new();
        let text = value.to_string();
        for object in [object_of(value), object_of(text.as_str())] {
            let mut applied = Vec::new();
            let result = build::<Value>(&object, reasoning, &tool, &mut applied)
                .map(|located| (payload_text(located.payload), applied));
            results.push(result);
        }
        let second = results.pop().unwrap();
        let first = results.pop().unwrap();
        assert_eq!(
            format!("{first:?}"),
            format!("{second:?}"),
            "value and text agree"
        );
        first
    }

    #[test]
    fn flat_payload_picks_properties_by_exact_name() {
        let value = json!({"reasoning": "r", "summary": "s", "count": 2, "Note": "x"});
        let (payload, applied) = built(&value, false).unwrap();
        assert_eq!(payload, r#"{"summary":"s","count":2,"Note":"x"}"#);
        assert!(applied.is_empty());
    }

    #[test]
    fn first_missing_or_null_required_property_is_named() {
        for value in [
            json!({"reasoning": "r", "note": "x"}),
            json!({"reasoning": "r", "summary": null, "count": null}),
        ] {
            let error = built(&value, false).unwrap_err();
            assert_eq!(error.cause(), Some(ParameterCause::AbsentOrMistyped));
            assert_eq!(error.message(), "summary parameter is required");
        }
        let error = built(&json!({"reasoning": "r", "summary": "s"}), false).unwrap_err();
        assert_eq!(error.message(), "count parameter is required");
    }

    #[test]
    fn stringified_properties_of_a_non_string_type_are_decoded() {
        let value = json!({"reasoning": "r", "summary": "5", "count": " 890 ",
                           "tags": "[\"a\"]</tags>"});
        let (payload, applied) = built(&value, false).unwrap();
        assert_eq!(payload, r#"{"summary":"5","count":890,"tags":["a"]}"#);
        assert_eq!(
            applied,
            vec![Recovery::naming(
                RecoveryKind::StringifiedProperty,
                vec!["count".into(), "tags".into()]
            )]
        );
        for (count, tags) in [("12 apples", "[1] x"), ("1.5", "{}"), ("true", "\"[1]\"")] {
            let value = json!({"reasoning": "r", "summary": "s", "count": count, "tags": tags});
            let (payload, applied) = built(&value, false).unwrap();
            assert_eq!(
                payload,
                json!({"summary": "s", "count": count, "tags": tags}).to_string(),
                "{count:?} {tags:?}"
            );
            assert!(applied.is_empty());
        }
    }

    #[test]
    fn a_swallowed_parameter_is_rejected_when_absent_and_kept_when_present() {
        let value = json!({"reasoning": "done</reasoning>\n<parameter name=\"summary\">s",
                           "count": 1});
        let error = built(&value, false).unwrap_err();
        assert_eq!(error.cause(), Some(ParameterCause::SwallowedParameter));
        assert_eq!(
            error.message(),
            "reasoning contains a <parameter name=\"summary\"> block, so summary was written \
             inside the reasoning string; end reasoning before that block and send summary as \
             its own parameter"
        );
        let value =
            json!({"reasoning": "r", "summary": "s</parameter>\n<parameter name=\"count\">3"});
        let error = built(&value, false).unwrap_err();
        assert!(error
            .message()
            .starts_with("summary contains a <parameter name=\"count\">"));
        let value = json!({"reasoning": "quote <parameter name=\"summary\">x", "summary": "s",
                           "count": 1, "note": "<parameter name=\"nope\">"});
        assert!(built(&value, false).is_ok());
    }

    #[test]
    fn unknown_members_are_rejected_when_closed_and_passed_when_open() {
        let value = json!({"reasoning": "r", "summary": "s", "count": 1, "extra": [1]});
        let (payload, _) = built(&value, false).unwrap();
        assert_eq!(payload, r#"{"summary":"s","count":1,"extra":[1]}"#);
        let error = built(&value, true).unwrap_err();
        assert_eq!(error.cause(), Some(ParameterCause::AbsentOrMistyped));
        assert_eq!(
            error.message(),
            "unknown parameter \"extra\"; this tool takes reasoning, summary, count, note, tags"
        );
    }

    #[test]
    fn the_invoke_tail_is_removed_from_string_properties() {
        for (text, kept) in [
            ("all good</invoke>", "all good"),
            ("all good</parameter>\n</invoke>\n", "all good"),
            ("all good</summary> </invoke></function_calls>", "all good"),
            ("all good\n</parameter>\n</invoke>", "all good\n"),
        ] {
            assert_eq!(without_markup_tail(text, "summary"), Some(kept), "{text:?}");
        }
        for text in [
            "all good</parameter>",
            "</invoke> x",
            "a</function_calls>",
            "a</other></invoke>x",
        ] {
            assert_eq!(without_markup_tail(text, "summary"), None, "{text:?}");
        }
        assert_eq!(
            without_markup_tail("a</other></invoke>", "summary"),
            Some("a</other>")
        );
        let value = json!({"reasoning": "r", "summary": "s</parameter>\n</invoke>", "count": 1});
        let (payload, applied) = built(&value, false).unwrap();
        assert_eq!(payload, r#"{"summary":"s","count":1}"#);
        assert_eq!(
            applied,
            vec![Recovery::naming(
                RecoveryKind::ClosingMarkup,
                vec!["summary".into()]
            )]
        );
    }

    #[test]
    fn optional_null_is_kept_for_decoding() {
        let value = json!({"reasoning": "r", "summary": "s", "count": 1, "note": null});
        let (payload, _) = built(&value, false).unwrap();
        assert_eq!(payload, r#"{"summary":"s","count":1,"note":null}"#);
    }
}
