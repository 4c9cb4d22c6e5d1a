//! The payload schema and its dialects: reflection, inlining, clean-up, omission, the
//! parameters object, Gemini's legacy subset and the two strict modes.
//!
//! Everything here runs once, when a tool is built. Inputs are JSON Schema documents (reflected
//! from a type, or given by a user), so every function returns an error instead of panicking
//! on a schema it does not expect.

pub(crate) mod gemini;
pub(crate) mod inline;
mod keywords;
pub(crate) mod locations;
pub(crate) mod property;
pub(crate) mod strict;

use serde_json::{Map, Value};

use crate::metadata::{REASONING, REASONING_DESCRIPTION};
use crate::options::BuildError;
use crate::parse::JsonType;
use keywords::{LIST_KEYWORDS, MAP_KEYWORDS, SINGLE_KEYWORDS};

/// Escapes one JSON pointer segment (`~` → `~0`, `/` → `~1`).
pub(crate) fn escape_pointer(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

/// Calls `f` on every subschema of `node` that is a JSON object (`node` included), pre-order,
/// with its JSON pointer relative to `node`.
pub(crate) fn walk_mut<E>(
    node: &mut Value,
    pointer: &mut String,
    f: &mut impl FnMut(&mut Map<String, Value>, &str) -> Result<(), E>,
) -> Result<(), E> {
    let Value::Object(map) = node else {
        return Ok(());
    };
    f(map, pointer)?;
    let base = pointer.len();
    for (key, value) in map.iter_mut() {
        let key = key.as_str();
        if MAP_KEYWORDS.contains(&key) {
            if let Value::Object(children) = value {
                for (name, child) in children.iter_mut() {
                    pointer.push('/');
                    pointer.push_str(key);
                    pointer.push('/');
                    pointer.push_str(&escape_pointer(name));
                    walk_mut(child, pointer, f)?;
                    pointer.truncate(base);
                }
            }
        } else if LIST_KEYWORDS.contains(&key) && value.is_array() {
            if let Value::Array(children) = value {
                for (i, child) in children.iter_mut().enumerate() {
                    pointer.push_str(&format!("/{key}/{i}"));
                    walk_mut(child, pointer, f)?;
                    pointer.truncate(base);
                }
            }
        } else if SINGLE_KEYWORDS.contains(&key) {
            pointer.push('/');
            pointer.push_str(key);
            walk_mut(value, pointer, f)?;
            pointer.truncate(base);
        }
    }
    Ok(())
}

/// Whether `format` is an integer format other than `int32`/`int64` (`uint8`, `uint`, `int16`,
/// …): schemars emits those for Rust's integer types, and no provider accepts them.
fn is_foreign_integer_format(format: &str) -> bool {
    let digits = format
        .strip_prefix("uint")
        .or_else(|| format.strip_prefix("int"));
    match digits {
        Some(digits) => {
            digits.bytes().all(|b| b.is_ascii_digit()) && format != "int32" && format != "int64"
        }
        None => false,
    }
}

/// Turns a reflected or given document into the payload schema: subschemas inlined (recursive
/// ones kept under `$defs`), no `$schema`/`$id`/`title` at the root, foreign integer formats
/// removed, and the root `description` set to `description` (placed first).
pub(crate) fn payload_schema(
    document: &Value,
    root_name: &str,
    description: &str,
) -> Result<Value, BuildError> {
    let mut schema = inline::inline(document, root_name)?;
    if schema == Value::Bool(true) {
        // Any value (`serde_json::Value`): the empty schema, which can carry a description.
        schema = Value::Object(Map::new());
    }
    let Value::Object(root) = &mut schema else {
        return Err(BuildError::InvalidSchema(format!(
            "the payload schema must be a JSON object, got {}",
            JsonType::of(&schema)
        )));
    };
    root.remove("$schema");
    root.remove("$id");
    root.remove("title");
    // Definitions under an OpenAPI-style path (`/components/schemas`) are inlined by now.
    let only_schemas = root
        .get("components")
        .and_then(Value::as_object)
        .is_some_and(|c| c.keys().all(|k| k == "schemas"));
    if only_schemas {
        root.remove("components");
    }
    root.remove("description");
    let mut with_description = Map::with_capacity(root.len() + 1);
    with_description.insert("description".into(), Value::String(description.to_owned()));
    with_description.extend(std::mem::take(root));
    let mut schema = Value::Object(with_description);
    let _ = walk_mut(&mut schema, &mut String::new(), &mut |node, _| {
        let foreign = node
            .get("format")
            .and_then(Value::as_str)
            .is_some_and(is_foreign_integer_format);
        if foreign {
            node.remove("format");
        }
        Ok::<(), ()>(())
    });
    Ok(schema)
}

/// A top-level property of the payload schema.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct TopProperty {
    pub(crate) name: String,
    pub(crate) required: bool,
}

/// The payload's top-level properties in schema order, with `required` as the schema says.
pub(crate) fn top_properties(schema: &Value) -> Vec<TopProperty> {
    let required = required_names(schema);
    schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|properties| {
            properties
                .keys()
                .map(|name| TopProperty {
                    name: name.clone(),
                    required: required.contains(&name.as_str()),
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The names in a schema's `required` list.
pub(crate) fn required_names(schema: &Value) -> Vec<&str> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// Removes `names` from the payload's top-level `properties` and `required`.
///
/// Each name must be a top-level property, listed once, and not required.
pub(crate) fn omit_fields(schema: &mut Value, names: &[String]) -> Result<(), BuildError> {
    for (i, name) in names.iter().enumerate() {
        if names.iter().take(i).any(|earlier| earlier == name) {
            return Err(BuildError::OmitDuplicateField(name.clone()));
        }
    }
    let properties = top_properties(schema);
    for name in names {
        match properties.iter().find(|p| &p.name == name) {
            None => return Err(BuildError::OmitUnknownField(name.clone())),
            Some(p) if p.required => return Err(BuildError::OmitRequiredField(name.clone())),
            Some(_) => {}
        }
    }
    if let Some(Value::Object(props)) = schema.get_mut("properties") {
        props.retain(|key, _| !names.contains(key));
    }
    Ok(())
}

/// What a schema that is not an object with properties is, for [`BuildError::FlatNotAnObject`].
pub(crate) fn flat_schema_problem(schema: &Value) -> Option<String> {
    let has_properties = schema
        .get("properties")
        .and_then(Value::as_object)
        .is_some_and(|p| !p.is_empty());
    if has_properties {
        return None;
    }
    let what = match schema.get("type") {
        Some(Value::String(t)) if t == "object" => "an object without properties".to_owned(),
        Some(Value::String(t)) => format!("of type `{t}`"),
        Some(other) => format!("of type {other}"),
        None if schema.get("oneOf").is_some() || schema.get("anyOf").is_some() => {
            "a union (`oneOf`/`anyOf`), such as an enum".to_owned()
        }
        None => "a schema without properties".to_owned(),
    };
    Some(what)
}

/// What a provider's definition is built from.
#[derive(Clone, Copy, Debug)]
pub(crate) struct DefinitionInput<'a> {
    /// The tool name.
    pub(crate) name: &'a str,
    /// The tool description.
    pub(crate) description: &'a str,
    /// The parameters object `P` (plain JSON Schema).
    pub(crate) parameters: &'a Value,
    /// Whether strict mode is asked for.
    pub(crate) strict: bool,
    /// The form of Gemini's parameter schema.
    pub(crate) gemini_schema: crate::options::GeminiSchema,
}

/// How the parameters are laid out: the payload parameter's name, whether the reasoning
/// parameter is left out, and whether the payload's properties are parameters of their own.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Layout<'a> {
    pub(crate) payload_field: &'a str,
    pub(crate) omit_reasoning: bool,
    pub(crate) flat: bool,
}

/// The parameters object `P` from the advertised payload schema (omitted fields withheld):
/// `reasoning` (unless omitted) and the payload, or under `flat` the payload's properties.
/// References kept for recursive types move to `P`'s root `$defs`.
pub(crate) fn parameters(advertised: &Value, layout: Layout<'_>) -> Value {
    let mut payload = advertised.clone();
    let defs = payload.as_object_mut().and_then(|p| p.remove("$defs"));
    let mut properties = Map::new();
    let mut required = Vec::new();
    if !layout.omit_reasoning {
        let mut reasoning = Map::new();
        reasoning.insert("type".into(), "string".into());
        reasoning.insert("description".into(), REASONING_DESCRIPTION.into());
        properties.insert(REASONING.into(), Value::Object(reasoning));
        required.push(Value::from(REASONING));
    }
    let mut closed = false;
    if layout.flat {
        if let Some(Value::Object(props)) = payload.get("properties") {
            properties.extend(props.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
        required.extend(required_names(&payload).into_iter().map(Value::from));
        closed = payload.get("additionalProperties") == Some(&Value::Bool(false));
    } else {
        properties.insert(layout.payload_field.to_owned(), payload);
        required.push(Value::from(layout.payload_field));
    }
    let mut p = Map::new();
    p.insert("type".into(), "object".into());
    p.insert("properties".into(), Value::Object(properties));
    p.insert("required".into(), Value::Array(required));
    if closed {
        p.insert("additionalProperties".into(), Value::Bool(false));
    }
    if let Some(defs) = defs {
        p.insert("$defs".into(), defs);
    }
    Value::Object(p)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn foreign_integer_formats_are_recognised() {
        for f in [
            "uint8", "uint", "uint16", "uint32", "uint64", "uint128", "int", "int8",
        ] {
            assert!(is_foreign_integer_format(f), "{f}");
        }
        for f in ["int32", "int64", "double", "date-time", "uintx", "interval"] {
            assert!(!is_foreign_integer_format(f), "{f}");
        }
    }

    #[test]
    fn payload_schema_strips_root_keys_and_sets_description_first() {
        let document = json!({"$schema": "x", "title": "T", "type": "object",
            "description": "doc", "properties": {"n": {"type": "integer", "format": "uint8"}}});
        let schema = payload_schema(&document, "T", "Payload.").unwrap();
        assert_eq!(
            schema,
            json!({"description": "Payload.", "type": "object",
                "properties": {"n": {"type": "integer"}}})
        );
        assert_eq!(
            schema.as_object().unwrap().keys().next().unwrap(),
            "description"
        );
    }

    #[test]
    fn flat_parameters_take_the_payload_properties_defs_and_closure() {
        let payload = json!({"description": "unused", "type": "object",
            "properties": {"a": {"$ref": "#/$defs/A"}, "b": {"type": "string"}},
            "required": ["a"], "additionalProperties": false,
            "$defs": {"A": {"type": "array", "items": {"$ref": "#/$defs/A"}}}});
        let layout = Layout {
            payload_field: "result",
            omit_reasoning: false,
            flat: true,
        };
        let p = parameters(&payload, layout);
        assert_eq!(
            p,
            json!({"type": "object", "properties": {
                "reasoning": {"type": "string", "description": REASONING_DESCRIPTION},
                "a": {"$ref": "#/$defs/A"}, "b": {"type": "string"}},
                "required": ["reasoning", "a"], "additionalProperties": false,
                "$defs": {"A": {"type": "array", "items": {"$ref": "#/$defs/A"}}}})
        );
    }

    #[test]
    fn nested_parameters_without_reasoning() {
        let payload = json!({"type": "object", "properties": {"a": {"type": "string"}}});
        let layout = Layout {
            payload_field: "out",
            omit_reasoning: true,
            flat: false,
        };
        assert_eq!(
            parameters(&payload, layout),
            json!({"type": "object", "properties": {"out": payload}, "required": ["out"]})
        );
    }

    #[test]
    fn omit_fields_checks_in_order() {
        let mut schema = json!({"type": "object", "properties": {"a": {}, "b": {}},
            "required": ["a"]});
        assert_eq!(
            omit_fields(&mut schema, &["b".into(), "b".into()]),
            Err(BuildError::OmitDuplicateField("b".into()))
        );
        assert_eq!(
            omit_fields(&mut schema, &["a".into()]),
            Err(BuildError::OmitRequiredField("a".into()))
        );
        omit_fields(&mut schema, &["b".into()]).unwrap();
        assert_eq!(schema["properties"], json!({"a": {}}));
    }
}
