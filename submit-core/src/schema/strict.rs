//! The two strict dialects.
//!
//! - OpenAI strict: every object closed (`additionalProperties: false`), every property listed
//!   in `required`, the ones the schema did not require made nullable, `oneOf` read as `anyOf`.
//! - Anthropic strict: every object closed, `required` kept as it is, `oneOf` read as `anyOf`,
//!   keywords outside Anthropic's supported set moved into the `description` as text.
//!
//! Both first merge `allOf` into its node. A schema that cannot be made strict is refused with
//! the reason and the JSON pointer of the node: an `allOf` whose branches conflict, `not`,
//! `if`/`then`/`else`, an open `additionalProperties` (`true` or a schema) or
//! `patternProperties`, and for Anthropic a recursive schema.

use serde_json::{Map, Value};

use super::{escape_pointer, walk_mut};

/// String formats Anthropic's strict mode keeps.
const ANTHROPIC_FORMATS: [&str; 10] = [
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "uri",
    "ipv4",
    "ipv6",
    "uuid",
];

/// Keywords Anthropic's strict mode keeps (`format` and `minItems` are checked by value).
const ANTHROPIC_KEPT: [&str; 14] = [
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "anyOf",
    "enum",
    "const",
    "description",
    "title",
    "default",
    "$ref",
    "$defs",
    "propertyOrdering",
];

/// Rewrites `parameters` for OpenAI's strict mode; the error is the reason with its pointer.
pub(crate) fn openai(parameters: &Value) -> Result<Value, String> {
    let mut schema = parameters.clone();
    walk_mut(&mut schema, &mut String::new(), &mut |node, pointer| {
        common(node, pointer)?;
        if is_object(node) {
            let original = node
                .get("required")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            if let Some(Value::Object(properties)) = node.get_mut("properties") {
                for (name, property) in properties.iter_mut() {
                    if !original.iter().any(|r| r.as_str() == Some(name.as_str())) {
                        make_nullable(property);
                    }
                }
                let all = properties.keys().cloned().map(Value::String).collect();
                node.insert("required".into(), Value::Array(all));
            }
        }
        if node.contains_key("$ref") && node.len() > 1 {
            node.retain(|key, _| key == "$ref");
        }
        Ok::<(), String>(())
    })?;
    Ok(schema)
}

/// Rewrites `parameters` for Anthropic's strict mode; the error is the reason with its pointer.
pub(crate) fn anthropic(parameters: &Value) -> Result<Value, String> {
    if let Some(Value::Object(defs)) = parameters.get("$defs") {
        let names: Vec<String> = defs.keys().map(|name| format!("`{name}`")).collect();
        return Err(format!(
            "the payload type is recursive ({} refers to itself at `/$defs`), which Anthropic's \
             strict mode does not support",
            names.join(", ")
        ));
    }
    let mut schema = parameters.clone();
    walk_mut(&mut schema, &mut String::new(), &mut |node, pointer| {
        common(node, pointer)?;
        let is_string = node.get("type").and_then(Value::as_str) == Some("string");
        let mut moved = Vec::new();
        let keys: Vec<String> = node.keys().cloned().collect();
        for key in keys {
            let keep = match key.as_str() {
                "format" => {
                    is_string
                        && node
                            .get("format")
                            .and_then(Value::as_str)
                            .is_some_and(|f| ANTHROPIC_FORMATS.contains(&f))
                }
                "minItems" => node
                    .get("minItems")
                    .and_then(Value::as_u64)
                    .is_some_and(|n| n <= 1),
                other => ANTHROPIC_KEPT.contains(&other),
            };
            if !keep {
                if let Some(value) = node.shift_remove(&key) {
                    moved.push(format!("{key}: {value}"));
                }
            }
        }
        if !moved.is_empty() {
            let text = format!("{{{}}}", moved.join(", "));
            let description = match node.get("description").and_then(Value::as_str) {
                Some(existing) => format!("{existing}\n\n{text}"),
                None => text,
            };
            node.insert("description".into(), Value::String(description));
        }
        Ok::<(), String>(())
    })?;
    Ok(schema)
}

/// Renames a key in place, keeping the map's order.
fn rename_key(map: &mut Map<String, Value>, from: &str, to: &str) {
    if !map.contains_key(from) {
        return;
    }
    let entries = std::mem::take(map);
    for (key, value) in entries {
        let key = if key == from { to.to_owned() } else { key };
        map.insert(key, value);
    }
}

fn is_object(node: &Map<String, Value>) -> bool {
    match node.get("type") {
        Some(Value::String(t)) => t == "object",
        Some(Value::Array(types)) => types.iter().any(|t| t.as_str() == Some("object")),
        _ => node.contains_key("properties"),
    }
}

/// What both dialects do to a node: merge `allOf`, refuse what cannot be strict, read `oneOf`
/// as `anyOf`, close objects.
fn common(node: &mut Map<String, Value>, pointer: &str) -> Result<(), String> {
    merge_all_of(node, pointer)?;
    for keyword in [
        "not",
        "if",
        "then",
        "else",
        "patternProperties",
        "dependentSchemas",
    ] {
        if node.contains_key(keyword) {
            return Err(format!(
                "`{keyword}` at `{pointer}/{keyword}` has no strict equivalent"
            ));
        }
    }
    if node.contains_key("oneOf") {
        if node.contains_key("anyOf") {
            if let Some(Value::Array(more)) = node.shift_remove("oneOf") {
                if let Some(Value::Array(existing)) = node.get_mut("anyOf") {
                    existing.extend(more);
                }
            }
        } else {
            rename_key(node, "oneOf", "anyOf");
        }
    }
    if is_object(node) {
        match node.get("additionalProperties") {
            None | Some(Value::Bool(false)) => {
                node.insert("additionalProperties".into(), Value::Bool(false));
            }
            Some(open) => {
                let what = if open.is_boolean() {
                    "`true`"
                } else {
                    "a schema"
                };
                return Err(format!(
                    "`additionalProperties` at `{pointer}/additionalProperties` is {what}: strict \
                     objects are closed, so a map with open keys cannot be strict"
                ));
            }
        }
    }
    Ok(())
}

/// Merges the branches of `allOf` into `node`; a conflicting keyword is an error.
fn merge_all_of(node: &mut Map<String, Value>, pointer: &str) -> Result<(), String> {
    while let Some(all_of) = node.shift_remove("allOf") {
        let Value::Array(branches) = all_of else {
            return Err(format!("`allOf` at `{pointer}/allOf` is not a list"));
        };
        for (i, branch) in branches.into_iter().enumerate() {
            let at = format!("{pointer}/allOf/{i}");
            let branch = match branch {
                Value::Object(branch) => branch,
                Value::Bool(true) => continue,
                _ => return Err(format!("`allOf` branch at `{at}` accepts nothing")),
            };
            if branch.contains_key("$ref") {
                return Err(format!(
                    "`allOf` branch at `{at}` is a reference, which cannot be merged"
                ));
            }
            for (key, value) in branch {
                merge_keyword(node, key, value, &at)?;
            }
        }
    }
    Ok(())
}

fn merge_keyword(
    node: &mut Map<String, Value>,
    key: String,
    value: Value,
    at: &str,
) -> Result<(), String> {
    match (key.as_str(), node.get_mut(&key), value) {
        (_, None, value) => {
            node.insert(key, value);
        }
        ("properties", Some(Value::Object(existing)), Value::Object(more)) => {
            for (name, schema) in more {
                match existing.get(&name) {
                    Some(present) if *present != schema => {
                        return Err(format!(
                            "`allOf` branch at `{at}` gives property `{name}` a second, \
                             different schema (at `{at}/properties/{}`)",
                            escape_pointer(&name)
                        ))
                    }
                    Some(_) => {}
                    None => {
                        existing.insert(name, schema);
                    }
                }
            }
        }
        ("required", Some(Value::Array(existing)), Value::Array(more)) => {
            for name in more {
                if !existing.contains(&name) {
                    existing.push(name);
                }
            }
        }
        (_, Some(present), value) if *present == value => {}
        (_, Some(_), _) => {
            return Err(format!(
                "`allOf` branch at `{at}` sets `{key}` differently from its node, so the \
                 branches cannot be merged"
            ))
        }
    }
    Ok(())
}

fn admits_null(schema: &Map<String, Value>) -> bool {
    if schema.get("const") == Some(&Value::Null) {
        return true;
    }
    let typed = match schema.get("type") {
        Some(Value::String(t)) => Some(t == "null"),
        Some(Value::Array(types)) => Some(types.iter().any(|t| t.as_str() == Some("null"))),
        _ => None,
    };
    let union = ["anyOf", "oneOf"].iter().find_map(|k| {
        schema.get(*k).and_then(Value::as_array).map(|branches| {
            branches
                .iter()
                .any(|b| b.as_object().is_some_and(admits_null))
        })
    });
    match (typed, union) {
        (Some(t), _) => t,
        (None, Some(u)) => u,
        (None, None) => match schema.get("enum").and_then(Value::as_array) {
            Some(values) => values.contains(&Value::Null),
            None => !schema.contains_key("const") && !schema.contains_key("$ref"),
        },
    }
}

/// Makes a property schema accept `null` as well.
fn make_nullable(property: &mut Value) {
    let Value::Object(schema) = property else {
        return;
    };
    if !schema.contains_key("anyOf") {
        rename_key(schema, "oneOf", "anyOf");
    }
    let admits = admits_null(schema);
    let null_in_enum = schema
        .get("enum")
        .and_then(Value::as_array)
        .is_none_or(|values| values.contains(&Value::Null));
    if admits && null_in_enum {
        return;
    }
    let simple = !schema.contains_key("const")
        && !schema.contains_key("$ref")
        && !schema.contains_key("anyOf");
    match schema.get_mut("type") {
        Some(Value::String(t)) if simple => {
            let t = std::mem::take(t);
            schema.insert("type".into(), Value::Array(vec![t.into(), "null".into()]));
            if let Some(Value::Array(values)) = schema.get_mut("enum") {
                values.push(Value::Null);
            }
            return;
        }
        Some(Value::Array(types)) if simple => {
            if !types.iter().any(|t| t.as_str() == Some("null")) {
                types.push("null".into());
            }
            if let Some(Value::Array(values)) = schema.get_mut("enum") {
                if !values.contains(&Value::Null) {
                    values.push(Value::Null);
                }
            }
            return;
        }
        _ => {}
    }
    if let Some(Value::Array(branches)) = schema.get_mut("anyOf") {
        if !admits {
            let mut null = Map::new();
            null.insert("type".into(), "null".into());
            branches.push(Value::Object(null));
        }
        return;
    }
    let description = schema.shift_remove("description");
    let inner = std::mem::take(schema);
    let mut null = Map::new();
    null.insert("type".into(), "null".into());
    schema.insert(
        "anyOf".into(),
        Value::Array(vec![Value::Object(inner), Value::Object(null)]),
    );
    if let Some(description) = description {
        schema.insert("description".into(), description);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn openai_requires_everything_and_nulls_the_optional() {
        let p = json!({"type": "object", "properties": {
            "a": {"type": "string"},
            "b": {"type": "integer", "description": "opt"},
            "c": {"type": "string", "enum": ["x", "y"]},
            "d": {"type": ["string", "null"]},
            "e": {"oneOf": [{"const": "p"}, {"const": "q"}]}}, "required": ["a"]});
        let s = openai(&p).unwrap();
        assert_eq!(
            s,
            json!({"type": "object", "properties": {
                "a": {"type": "string"},
                "b": {"type": ["integer", "null"], "description": "opt"},
                "c": {"type": ["string", "null"], "enum": ["x", "y", null]},
                "d": {"type": ["string", "null"]},
                "e": {"anyOf": [{"const": "p"}, {"const": "q"}, {"type": "null"}]}},
                "required": ["a", "b", "c", "d", "e"], "additionalProperties": false})
        );
    }

    #[test]
    fn openai_leaves_schemas_that_already_admit_null() {
        let p = json!({"type": "object", "properties": {
            "a": {"oneOf": [{"const": "x"}, {"const": null}]},
            "b": {"enum": ["x", null]},
            "c": {"description": "anything"}}});
        let s = openai(&p).unwrap();
        assert_eq!(
            s["properties"]["a"],
            json!({"anyOf": [{"const": "x"}, {"const": null}]})
        );
        assert_eq!(s["properties"]["b"], json!({"enum": ["x", null]}));
        assert_eq!(s["properties"]["c"], json!({"description": "anything"}));
    }

    #[test]
    fn openai_wraps_references_and_consts_in_a_nullable_union() {
        let p = json!({"type": "object", "properties": {
            "r": {"$ref": "#/$defs/T", "description": "d"},
            "k": {"const": 3}}, "$defs": {"T": {"type": "string"}}});
        let s = openai(&p).unwrap();
        assert_eq!(
            s["properties"]["r"],
            json!({"anyOf": [{"$ref": "#/$defs/T"}, {"type": "null"}], "description": "d"})
        );
        assert_eq!(
            s["properties"]["k"],
            json!({"anyOf": [{"const": 3}, {"type": "null"}]})
        );
    }

    #[test]
    fn anthropic_keeps_required_and_moves_constraints_to_description() {
        let p = json!({"type": "object", "properties": {
            "n": {"type": "integer", "minimum": 0, "maximum": 9, "description": "N."},
            "s": {"type": "string", "format": "email", "maxLength": 3}}, "required": ["n"]});
        let s = anthropic(&p).unwrap();
        assert_eq!(
            s,
            json!({"type": "object", "properties": {
                "n": {"type": "integer", "description": "N.\n\n{minimum: 0, maximum: 9}"},
                "s": {"type": "string", "format": "email", "description": "{maxLength: 3}"}},
                "required": ["n"], "additionalProperties": false})
        );
    }

    #[test]
    fn all_of_merges_or_fails_with_pointer() {
        let p = json!({"type": "object", "allOf": [
            {"properties": {"a": {"type": "string"}}, "required": ["a"]},
            {"properties": {"b": {"type": "string"}}}]});
        let s = openai(&p).unwrap();
        assert_eq!(s["required"], json!(["a", "b"]));
        let p = json!({"type": "object", "properties": {"x": {"allOf": [
            {"type": "string"}, {"type": "integer"}]}}});
        let error = openai(&p).unwrap_err();
        assert!(error.contains("/properties/x/allOf/1"), "{error}");
    }

    #[test]
    fn open_maps_and_not_fail() {
        let p = json!({"type": "object", "properties": {"m": {"type": "object",
            "additionalProperties": {"type": "string"}}}});
        assert!(anthropic(&p)
            .unwrap_err()
            .contains("/properties/m/additionalProperties"));
        let p = json!({"type": "object", "properties": {"m": {"not": {"type": "string"}}}});
        assert!(openai(&p).unwrap_err().contains("/properties/m/not"));
    }
}
