//! Gemini: the function declaration and the `functionCall` part.

use serde_json::Value;

use super::{Call, CallShapeError};

// ---------------------------------------------------------------------------------------------
// Definition
// ---------------------------------------------------------------------------------------------

/// `{"name","description","parameters":G}` with `G` in the legacy OpenAPI 3.0 subset, or
/// `{"name","description","parametersJsonSchema":P}`. Gemini has no strict mode: a strict
/// tool's declaration is the ordinary one.
pub(crate) fn definition(
    input: &crate::schema::DefinitionInput<'_>,
) -> Result<Value, crate::options::BuildError> {
    let mut definition = serde_json::Map::new();
    definition.insert("name".into(), input.name.into());
    definition.insert("description".into(), input.description.into());
    match input.gemini_schema {
        crate::options::GeminiSchema::Legacy => {
            definition.insert(
                "parameters".into(),
                crate::schema::gemini::legacy(input.parameters)?,
            );
        }
        crate::options::GeminiSchema::JsonSchema => {
            definition.insert("parametersJsonSchema".into(), input.parameters.clone());
        }
    }
    Ok(Value::Object(definition))
}

// ---------------------------------------------------------------------------------------------
// Reading a call
// ---------------------------------------------------------------------------------------------

use super::envelope;

const PROVIDER: super::Provider = super::Provider::Gemini;

/// Reads a part `{"functionCall":{"name":…,"args":<object>}}` or the bare
/// `{"name":…,"args":…}` (an optional `id` is read as the call id).
///
/// `name` is required; missing `args` read as `{}`. Whatever `args` holds is for step *The
/// arguments as a whole* to judge.
pub(crate) fn read_call(call: &Value) -> Result<Call<'_>, CallShapeError> {
    let object = envelope::object(PROVIDER, call)?;
    let function_call = match object.get("functionCall") {
        Some(_) => envelope::required_object(PROVIDER, object, "functionCall")?,
        None => object,
    };
    Ok(Call {
        id: envelope::optional_str(PROVIDER, function_call, "id")?,
        name: Some(envelope::required_str(PROVIDER, function_call, "name")?),
        arguments: envelope::value_arguments(function_call, "args"),
    })
}

#[cfg(test)]
mod reading_tests {
    use super::*;
    use crate::parse::Arguments;
    use serde_json::json;

    #[test]
    fn reads_a_function_call_part_and_the_bare_call() {
        for part in [
            json!({"functionCall": {"name": "submit_result", "args": {"a": 1}}}),
            json!({"name": "submit_result", "args": {"a": 1}}),
        ] {
            let call = read_call(&part).unwrap();
            assert_eq!(call.name, Some("submit_result"));
            assert!(matches!(call.arguments, Arguments::Value(v) if v == &json!({"a": 1})));
        }
        let part = json!({"functionCall": {"name": "s", "id": "c1"}});
        let call = read_call(&part).unwrap();
        assert_eq!(call.id, Some("c1"));
        assert!(matches!(call.arguments, Arguments::Missing));
    }

    #[test]
    fn other_shapes_are_shape_errors() {
        for (part, reason) in [
            (json!("x"), "expected a JSON object, got string"),
            (
                json!({"functionCall": []}),
                "`functionCall` must be an object, got array",
            ),
            (json!({"functionCall": {"args": {}}}), "no `name` string"),
            (json!({"text": "hello"}), "no `name` string"),
        ] {
            let error = read_call(&part).unwrap_err();
            assert_eq!(error.reason, reason);
        }
    }
}
