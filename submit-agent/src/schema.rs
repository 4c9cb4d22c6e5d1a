//! JSON Schema checks: readable messages and the `required`-free schema of the result gate.

use jsonschema::error::ValidationErrorKind;
use jsonschema::ValidationError;
use serde_json::Value;
use submit_core::JsonType;

/// A violation: where (a dotted path, `""` for the root) and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Problem {
    pub(crate) path: String,
    pub(crate) message: String,
}

/// Every violation of `value`, in the validator's order.
pub(crate) fn problems(validator: &jsonschema::Validator, value: &Value) -> Vec<Problem> {
    validator
        .iter_errors(value)
        .map(|e| Problem {
            path: dotted(e.instance_path().as_str()),
            message: describe(&e),
        })
        .collect()
}

/// The first violation as `<path>: <message>` (or just the message at the root).
pub(crate) fn first_problem(validator: &jsonschema::Validator, value: &Value) -> Option<String> {
    problems(validator, value).into_iter().next().map(|p| {
        if p.path.is_empty() {
            p.message
        } else {
            format!("{}: {}", p.path, p.message)
        }
    })
}

fn dotted(pointer: &str) -> String {
    pointer
        .trim_start_matches('/')
        .split('/')
        .map(|s| s.replace("~1", "/").replace("~0", "~"))
        .collect::<Vec<_>>()
        .join(".")
}

fn describe(e: &ValidationError<'_>) -> String {
    let instance = e.instance();
    match e.kind() {
        ValidationErrorKind::Enum { options } => {
            format!("value {instance} is not one of the allowed values {options}")
        }
        ValidationErrorKind::Constant { expected_value } => {
            format!("value {instance} is not the allowed value {expected_value}")
        }
        ValidationErrorKind::Required { property } => match property.as_str() {
            Some(p) => format!("{p} is required"),
            None => format!("{property} is required"),
        },
        ValidationErrorKind::MinLength { limit } => format!(
            "length {} is less than the minimum length {limit}",
            instance.as_str().map_or(0, |s| s.chars().count())
        ),
        ValidationErrorKind::MaxLength { limit } => format!(
            "length {} is greater than the maximum length {limit}",
            instance.as_str().map_or(0, |s| s.chars().count())
        ),
        ValidationErrorKind::Minimum { limit } => {
            format!("value {instance} is less than the minimum {limit}")
        }
        ValidationErrorKind::Maximum { limit } => {
            format!("value {instance} is greater than the maximum {limit}")
        }
        ValidationErrorKind::ExclusiveMinimum { limit } => {
            format!("value {instance} must be greater than {limit}")
        }
        ValidationErrorKind::ExclusiveMaximum { limit } => {
            format!("value {instance} must be less than {limit}")
        }
        ValidationErrorKind::Pattern { pattern } => {
            format!("value {instance} does not match the pattern {pattern:?}")
        }
        ValidationErrorKind::MinItems { limit } => format!(
            "{} items are fewer than the minimum {limit}",
            instance.as_array().map_or(0, Vec::len)
        ),
        ValidationErrorKind::MaxItems { limit } => format!(
            "{} items are more than the maximum {limit}",
            instance.as_array().map_or(0, Vec::len)
        ),
        ValidationErrorKind::Type { kind } => {
            format!("expected {kind:?}, got {}", JsonType::of(instance)).to_lowercase()
        }
        _ => e.to_string(),
    }
}

/// Removes every `required` keyword from a schema (keeping properties named `required`).
pub(crate) fn strip_required(schema: &mut Value) {
    let Value::Object(node) = schema else { return };
    if node.get("required").is_some_and(Value::is_array) {
        node.remove("required");
    }
    for key in [
        "properties",
        "patternProperties",
        "$defs",
        "definitions",
        "dependentSchemas",
    ] {
        if let Some(Value::Object(map)) = node.get_mut(key) {
            map.values_mut().for_each(strip_required);
        }
    }
    for key in ["anyOf", "oneOf", "allOf", "prefixItems"] {
        if let Some(Value::Array(items)) = node.get_mut(key) {
            items.iter_mut().for_each(strip_required);
        }
    }
    for key in [
        "items",
        "additionalProperties",
        "not",
        "if",
        "then",
        "else",
        "contains",
        "unevaluatedProperties",
        "unevaluatedItems",
        "propertyNames",
    ] {
        if let Some(sub) = node.get_mut(key) {
            strip_required(sub);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn strip_required_keeps_a_property_named_required() {
        let mut schema = json!({
            "type": "object",
            "required": ["required"],
            "properties": {"required": {"type": "object", "required": ["x"]}}
        });
        strip_required(&mut schema);
        assert_eq!(
            schema,
            json!({"type": "object", "properties": {"required": {"type": "object"}}})
        );
    }

    #[test]
    fn enum_violation_names_allowed_values_and_path() {
        let v = jsonschema::validator_for(&json!({
            "type": "object",
            "properties": {"answer": {"enum": ["yes", "no"]}}
        }))
        .unwrap();
        let p = problems(&v, &json!({"answer": "maybe"}));
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].path, "answer");
        assert_eq!(
            p[0].message,
            r#"value "maybe" is not one of the allowed values ["yes","no"]"#
        );
    }
}
