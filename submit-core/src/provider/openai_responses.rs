//! OpenAI Responses: the function tool and the `function_call` item.

use std::borrow::Cow;

use serde_json::Value;

use super::{Call, CallShapeError};
use crate::parse::Arguments;

// ---------------------------------------------------------------------------------------------
// Definition
// ---------------------------------------------------------------------------------------------

/// The Responses API's function tool:
/// `{"type":"function","name","description","parameters":P,"strict":false}`. `strict` is
/// always explicit, because the Responses API reads an omitted `strict` as strict. Strict mode
/// sets it to `true` and rewrites `P` for OpenAI's strict mode.
#[derive(serde::Serialize)]
struct Definition<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    name: &'a str,
    description: &'a str,
    parameters: Cow<'a, Value>,
    strict: bool,
}

/// The definition's JSON.
pub(crate) fn definition(
    input: &crate::schema::DefinitionInput<'_>,
) -> Result<Value, crate::options::BuildError> {
    crate::schema::definition_json(&Definition {
        kind: "function",
        name: input.name,
        description: input.description,
        parameters: input.parameters_for(
            super::Provider::OpenAiResponses,
            crate::schema::strict::openai,
        )?,
        strict: input.strict,
    })
}

// ---------------------------------------------------------------------------------------------
// Reading a call
// ---------------------------------------------------------------------------------------------

use super::envelope;

const PROVIDER: super::Provider = super::Provider::OpenAiResponses;

/// Reads an output item `{"type":"function_call","call_id":…,"name":…,"arguments":"<json
/// string>"}`.
///
/// `type`, when present, must be `"function_call"`; `name` is required; the call id is
/// `call_id`; a missing or `null` `arguments` reads as `{}`; `arguments` that are not a string
/// are read as a value, which step *The arguments as a whole* then judges.
pub(crate) fn read_call(call: &Value) -> Result<Call<'_>, CallShapeError> {
    let object = envelope::object(PROVIDER, call)?;
    envelope::check_type(PROVIDER, object, "function_call")?;
    Ok(Call {
        id: envelope::optional_str(PROVIDER, object, "call_id")?,
        name: Some(envelope::required_str(PROVIDER, object, "name")?),
        arguments: envelope::text_arguments(object, "arguments"),
    })
}

// ---------------------------------------------------------------------------------------------
// Writing a call
// ---------------------------------------------------------------------------------------------

/// A Responses `function_call` item calling `name` with `arguments`: `arguments` holds argument
/// text as it is and a value as its JSON text; missing arguments leave it out, no id leaves
/// `call_id` out.
pub(crate) fn call(name: &str, id: Option<&str>, arguments: Arguments<'_>) -> Value {
    super::present([
        ("type", Some(Value::from("function_call"))),
        ("call_id", id.map(Value::from)),
        ("name", Some(Value::from(name))),
        ("arguments", super::text_of(arguments)),
    ])
}

#[cfg(test)]
mod reading_tests {
    use super::*;
    use crate::parse::Arguments;
    use serde_json::json;

    #[test]
    fn reads_a_function_call_item() {
        let item = json!({"type": "function_call", "id": "fc_1", "call_id": "call_1",
                          "name": "submit_result", "arguments": "{}"});
        let call = read_call(&item).unwrap();
        assert_eq!(call.id, Some("call_1"));
        assert_eq!(call.name, Some("submit_result"));
        assert!(matches!(call.arguments, Arguments::Text("{}")));
        let value = json!({"type": "function_call", "name": "s", "arguments": null});
        let call = read_call(&value).unwrap();
        assert!(matches!(call.arguments, Arguments::Value(Value::Null)));
    }

    #[test]
    fn other_shapes_are_shape_errors() {
        for (item, reason) in [
            (json!(1), "expected a JSON object, got number"),
            (
                json!({"type": "message", "name": "s"}),
                "`type` is \"message\", expected \"function_call\"",
            ),
            (
                json!({"type": "function_call", "arguments": "{}"}),
                "no `name` string",
            ),
            (
                json!({"name": "s", "call_id": 7}),
                "`call_id` must be a string, got number",
            ),
        ] {
            let error = read_call(&item).unwrap_err();
            assert_eq!(error.reason, reason);
        }
    }
}
