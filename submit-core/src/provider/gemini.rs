//! Gemini: the function declaration and the `functionCall` part.

use serde_json::Value;

use super::{Call, CallShapeError};
use crate::parse::Arguments;

// ---------------------------------------------------------------------------------------------
// Definition
// ---------------------------------------------------------------------------------------------

/// Gemini's function declaration: `{"name","description","parameters":G}` with `G` in the
/// legacy OpenAPI 3.0 subset, or `{"name","description","parametersJsonSchema":P}`. Gemini has
/// no strict mode: a strict tool's declaration is the ordinary one.
#[derive(serde::Serialize)]
struct Declaration<'a> {
    name: &'a str,
    description: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    parameters: Option<Value>,
    #[serde(
        rename = "parametersJsonSchema",
        skip_serializing_if = "Option::is_none"
    )]
    parameters_json_schema: Option<&'a Value>,
}

/// The declaration's JSON.
pub(crate) fn definition(
    input: &crate::schema::DefinitionInput<'_>,
) -> Result<Value, crate::options::BuildError> {
    let (parameters, parameters_json_schema) = match input.gemini_schema {
        crate::options::GeminiSchema::Legacy => {
            (Some(crate::schema::gemini::legacy(input.parameters)?), None)
        }
        crate::options::GeminiSchema::JsonSchema => (None, Some(input.parameters)),
    };
    crate::schema::definition_json(&Declaration {
        name: input.name,
        description: input.description,
        parameters,
        parameters_json_schema,
    })
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

// ---------------------------------------------------------------------------------------------
// Writing a call
// ---------------------------------------------------------------------------------------------

/// A `functionCall` part calling `name` with `arguments`: `args` holds a value as it is and
/// argument text as a JSON string; missing arguments leave `args` out, no id leaves `id` out.
pub(crate) fn call(name: &str, id: Option<&str>, arguments: Arguments<'_>) -> Value {
    let function_call = super::present([
        ("id", id.map(Value::from)),
        ("name", Some(Value::from(name))),
        ("args", super::value_of(arguments)),
    ]);
    serde_json::json!({ "functionCall": function_call })
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
