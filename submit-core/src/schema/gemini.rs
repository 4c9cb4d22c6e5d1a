//! Gemini's legacy `parameters` schema: the OpenAPI 3.0 subset of its `Schema` message.
//!
//! `type` is upper-case (`STRING`, `OBJECT`, …); every object with properties gets
//! `propertyOrdering`; `enum` values are strings; only the first of `examples` is kept, as
//! `example`; the min/max Length/Items/Properties bounds are integers; `["T","null"]` and an
//! `anyOf` with a null branch become `nullable: true` (a single remaining branch collapses into
//! the node); `oneOf` is read as `anyOf`; `const` becomes a one-value `enum`. Every other
//! keyword is dropped. The subset has no references, so a recursive schema is refused.

use serde_json::{Map, Number, Value};

use super::escape_pointer;
use crate::options::BuildError;

/// Keywords copied as they are.
const COPIED: [&str; 6] = [
    "description",
    "title",
    "format",
    "pattern",
    "default",
    "example",
];

/// Bounds that the subset reads as integers.
const INTEGER_BOUNDS: [&str; 6] = [
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "minProperties",
    "maxProperties",
];

/// Converts a parameters object (JSON Schema) to the legacy subset.
pub(crate) fn legacy(parameters: &Value) -> Result<Value, BuildError> {
    if let Some(Value::Object(defs)) = parameters.get("$defs") {
        let names: Vec<String> = defs.keys().map(|name| format!("`{name}`")).collect();
        return Err(BuildError::GeminiLegacy(format!(
            "the payload type is recursive ({} refers to itself) and the legacy subset has no \
             references",
            names.join(", ")
        )));
    }
    convert(parameters, &mut String::new())
}

fn is_null_schema(schema: &Value) -> bool {
    match schema {
        Value::Object(map) => {
            map.get("type").and_then(Value::as_str) == Some("null")
                || map.get("const") == Some(&Value::Null)
                || map.get("enum") == Some(&Value::Array(vec![Value::Null]))
        }
        _ => false,
    }
}

fn upper_type(name: &str) -> Value {
    Value::String(name.to_ascii_uppercase())
}

fn enum_string(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

fn convert(schema: &Value, pointer: &mut String) -> Result<Value, BuildError> {
    let map = match schema {
        Value::Object(map) => map,
        Value::Bool(true) => return Ok(Value::Object(Map::new())),
        other => {
            return Err(BuildError::GeminiLegacy(format!(
                "the schema at `{pointer}` is `{other}`, which the legacy subset cannot express"
            )))
        }
    };
    if let Some(reference) = map.get("$ref") {
        return Err(BuildError::GeminiLegacy(format!(
            "the reference {reference} at `{pointer}` cannot be expressed without references"
        )));
    }
    let mut node = Node::default();
    for (key, value) in map {
        node.keyword(key, value, pointer)?;
    }
    Ok(node.finish())
}

/// One schema node of the legacy subset, as its keywords are converted.
#[derive(Default)]
struct Node {
    out: Map<String, Value>,
    /// `null` is among the node's types or branches.
    nullable: bool,
    /// The one branch of a union left once its `null` branch is dropped: its keywords join the
    /// node's.
    collapse: Option<Value>,
    /// A `value: description` line per documented branch of an enum written as a union.
    variant_notes: Vec<String>,
}

impl Node {
    /// Converts one keyword of the node at `pointer`.
    fn keyword(
        &mut self,
        key: &str,
        value: &Value,
        pointer: &mut String,
    ) -> Result<(), BuildError> {
        match key {
            "type" => self.types(value),
            "anyOf" | "oneOf" | "allOf" => self.union(key, value, pointer)?,
            "const" => {
                if value.is_null() {
                    self.nullable = true;
                } else {
                    let only = vec![enum_string(value).into()];
                    self.out.insert("enum".into(), Value::Array(only));
                }
            }
            "enum" => {
                if let Value::Array(values) = value {
                    self.nullable |= values.iter().any(Value::is_null);
                    let strings = values
                        .iter()
                        .filter(|v| !v.is_null())
                        .map(|v| Value::String(enum_string(v)))
                        .collect();
                    self.out.insert("enum".into(), Value::Array(strings));
                }
            }
            "examples" => {
                if let Some(first) = value.as_array().and_then(|list| list.first()) {
                    self.out.insert("example".into(), first.clone());
                }
            }
            "nullable" => self.nullable |= value.as_bool() == Some(true),
            "minimum" | "maximum" if value.is_number() => {
                self.out.insert(key.to_owned(), value.clone());
            }
            "required" => {
                if let Value::Array(names) = value {
                    let names = names.iter().filter(|n| n.is_string()).cloned().collect();
                    self.out.insert("required".into(), Value::Array(names));
                }
            }
            "items" if value.is_object() || value.is_boolean() => {
                let base = pointer.len();
                pointer.push_str("/items");
                let items = convert(value, pointer)?;
                pointer.truncate(base);
                self.out.insert("items".into(), items);
            }
            "properties" => self.properties(value, pointer)?,
            _ if INTEGER_BOUNDS.contains(&key) => {
                let bound = value.as_u64().or_else(|| {
                    value
                        .as_f64()
                        .filter(|f| f.fract() == 0.0 && *f >= 0.0)
                        .map(|f| f as u64)
                });
                if let Some(bound) = bound {
                    self.out
                        .insert(key.to_owned(), Value::Number(Number::from(bound)));
                }
            }
            _ if COPIED.contains(&key) => {
                self.out.insert(key.to_owned(), value.clone());
            }
            _ => {}
        }
        Ok(())
    }

    /// `type`: one name, upper-cased; a list without its `null` (which makes the node
    /// nullable), one name as that name, several as a union of one branch each.
    fn types(&mut self, value: &Value) {
        match value {
            Value::String(name) => {
                self.out.insert("type".into(), upper_type(name));
            }
            Value::Array(names) => {
                let names: Vec<&str> = names.iter().filter_map(Value::as_str).collect();
                let kept: Vec<&str> = names.iter().copied().filter(|n| *n != "null").collect();
                self.nullable |= kept.len() < names.len();
                match kept.as_slice() {
                    [] => {
                        self.out.insert("type".into(), upper_type("null"));
                    }
                    [one] => {
                        self.out.insert("type".into(), upper_type(one));
                    }
                    several => {
                        let branches = several
                            .iter()
                            .map(|name| {
                                let mut branch = Map::new();
                                branch.insert("type".into(), upper_type(name));
                                Value::Object(branch)
                            })
                            .collect();
                        self.out.insert("anyOf".into(), Value::Array(branches));
                    }
                }
            }
            _ => {}
        }
    }

    /// `anyOf`, `oneOf`, or an `allOf` of one branch: the `null` branches make the node
    /// nullable; enums of one type become one enum; one branch left joins the node; several
    /// are a union.
    fn union(&mut self, key: &str, value: &Value, pointer: &mut String) -> Result<(), BuildError> {
        let Value::Array(branches) = value else {
            return Ok(());
        };
        if key == "allOf" && branches.len() != 1 {
            return Ok(());
        }
        let base = pointer.len();
        let mut kept = Vec::new();
        for (i, branch) in branches.iter().enumerate() {
            if is_null_schema(branch) {
                self.nullable = true;
                continue;
            }
            pointer.push_str(&format!("/{key}/{i}"));
            kept.push(convert(branch, pointer)?);
            pointer.truncate(base);
        }
        if let Some((kind, values, notes)) = enum_union(&kept) {
            if let Some(kind) = kind {
                self.out.entry("type").or_insert(kind);
            }
            self.out.insert("enum".into(), Value::Array(values));
            self.variant_notes.extend(notes);
        } else if kept.len() == 1 && self.collapse.is_none() && !self.out.contains_key("anyOf") {
            self.collapse = kept.pop();
        } else if !kept.is_empty() {
            match self.out.get_mut("anyOf") {
                Some(Value::Array(existing)) => existing.extend(kept),
                _ => {
                    self.out.insert("anyOf".into(), Value::Array(kept));
                }
            }
        }
        Ok(())
    }

    /// `properties`, each converted, and their order as `propertyOrdering`.
    fn properties(&mut self, value: &Value, pointer: &mut String) -> Result<(), BuildError> {
        let Value::Object(properties) = value else {
            return Ok(());
        };
        let base = pointer.len();
        let mut converted = Map::with_capacity(properties.len());
        for (name, property) in properties {
            pointer.push_str("/properties/");
            pointer.push_str(&escape_pointer(name));
            converted.insert(name.clone(), convert(property, pointer)?);
            pointer.truncate(base);
        }
        let ordering = properties.keys().cloned().map(Value::String).collect();
        let non_empty = !converted.is_empty();
        self.out
            .insert("properties".into(), Value::Object(converted));
        if non_empty {
            self.out
                .insert("propertyOrdering".into(), Value::Array(ordering));
        }
        Ok(())
    }

    /// The node: a collapsed branch's keywords joined, the enum notes in the description,
    /// `nullable` set.
    fn finish(mut self) -> Value {
        if let Some(Value::Object(branch)) = self.collapse {
            for (key, value) in branch {
                if key == "nullable" {
                    self.nullable |= value.as_bool() == Some(true);
                } else if !self.out.contains_key(&key) {
                    self.out.insert(key, value);
                }
            }
        }
        if !self.variant_notes.is_empty() {
            let notes = self.variant_notes.join("\n");
            let description = match self.out.get("description").and_then(Value::as_str) {
                Some(existing) => format!("{existing}\n{notes}"),
                None => notes,
            };
            self.out
                .insert("description".into(), Value::String(description));
        }
        if self.nullable {
            self.out.insert("nullable".into(), Value::Bool(true));
        }
        Value::Object(self.out)
    }
}

/// A union whose branches are all enums of one type (schemars' form of an enum with
/// documented variants) as one `enum`: its type, its values, and a `value: description` note
/// per documented branch. The subset allows no keyword beside `anyOf`, so this keeps the
/// node valid.
fn enum_union(branches: &[Value]) -> Option<(Option<Value>, Vec<Value>, Vec<String>)> {
    if branches.len() < 2 {
        return None;
    }
    let mut kind: Option<&Value> = None;
    let mut values = Vec::new();
    let mut notes = Vec::new();
    for branch in branches {
        let branch = branch.as_object()?;
        if branch
            .keys()
            .any(|k| !matches!(k.as_str(), "type" | "enum" | "description" | "title"))
        {
            return None;
        }
        let branch_values = branch.get("enum")?.as_array()?;
        if let Some(t) = branch.get("type") {
            match kind {
                Some(seen) if seen != t => return None,
                _ => kind = Some(t),
            }
        }
        if let Some(description) = branch.get("description").and_then(Value::as_str) {
            let names: Vec<&str> = branch_values.iter().filter_map(Value::as_str).collect();
            notes.push(format!("{}: {description}", names.join(", ")));
        }
        values.extend(branch_values.iter().cloned());
    }
    Some((kind.cloned(), values, notes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn nullable_type_array_becomes_nullable() {
        let g = legacy(&json!({"type": ["string", "null"], "description": "d"})).unwrap();
        assert_eq!(
            g,
            json!({"type": "STRING", "description": "d", "nullable": true})
        );
    }

    #[test]
    fn any_of_with_null_collapses_single_branch() {
        let schema = json!({"description": "outer", "anyOf": [
            {"type": "object", "description": "inner", "properties": {"a": {"type": "integer"}}},
            {"type": "null"}]});
        let g = legacy(&schema).unwrap();
        assert_eq!(
            g,
            json!({"description": "outer", "type": "OBJECT",
                "properties": {"a": {"type": "INTEGER"}}, "propertyOrdering": ["a"],
                "nullable": true})
        );
    }

    #[test]
    fn one_of_becomes_any_of_and_const_an_enum() {
        let schema = json!({"oneOf": [{"type": "string", "minLength": 1}, {"type": "integer"}]});
        let g = legacy(&schema).unwrap();
        assert_eq!(
            g,
            json!({"anyOf": [{"type": "STRING", "minLength": 1}, {"type": "INTEGER"}]})
        );
        let g = legacy(&json!({"type": "integer", "const": 2})).unwrap();
        assert_eq!(g, json!({"type": "INTEGER", "enum": ["2"]}));
    }

    #[test]
    fn union_of_documented_enum_values_becomes_one_enum() {
        let schema = json!({"description": "Risk.", "oneOf": [
            {"type": "string", "const": "low", "description": "Fine."},
            {"type": "string", "const": "high"}]});
        let g = legacy(&schema).unwrap();
        assert_eq!(
            g,
            json!({"type": "STRING", "enum": ["low", "high"], "description": "Risk.\nlow: Fine."})
        );
    }

    #[test]
    fn enum_values_are_strings_and_null_is_nullable() {
        let g = legacy(&json!({"type": ["string", "null"], "enum": ["x", 1, null]})).unwrap();
        assert_eq!(
            g,
            json!({"type": "STRING", "enum": ["x", "1"], "nullable": true})
        );
    }

    #[test]
    fn bounds_are_integers_and_examples_first_only() {
        let schema = json!({"type": "array", "minItems": 1.0, "maxItems": 3,
            "examples": [["a"], ["b"]], "uniqueItems": true, "items": {"type": "string",
            "maxLength": 5, "exclusiveMinimum": 1}});
        let g = legacy(&schema).unwrap();
        assert_eq!(
            g,
            json!({"type": "ARRAY", "minItems": 1, "maxItems": 3, "example": ["a"],
                "items": {"type": "STRING", "maxLength": 5}})
        );
    }

    #[test]
    fn references_are_refused_with_their_pointer() {
        let error = legacy(&json!({"properties": {"a": {"$ref": "#/x"}}})).unwrap_err();
        assert!(error.to_string().contains("/properties/a"), "{error}");
        let error = legacy(&json!({"$defs": {"Node": {}}})).unwrap_err();
        assert!(error.to_string().contains("`Node`"), "{error}");
    }
}
