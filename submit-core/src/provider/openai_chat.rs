//! OpenAI Chat Completions: the function tool and the tool call.

use std::borrow::Cow;

use serde_json::Value;

use super::{Call, CallShapeError};
use crate::parse::Arguments;

// ---------------------------------------------------------------------------------------------
// Definition
// ---------------------------------------------------------------------------------------------

/// Chat Completions' function tool: `{"type":"function","function":{"name","description",
/// "parameters":P}}`; strict mode adds `"strict": true` inside `function` and rewrites `P` for
/// OpenAI's strict mode. Without strict mode the key is left out (Chat Completions reads that
/// as non-strict).
#[derive(serde::Serialize)]
struct Definition<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    function: Function<'a>,
}

/// The function a Chat Completions tool declares.
#[derive(serde::Serialize)]
struct Function<'a> {
    name: &'a str,
    description: &'a str,
    parameters: Cow<'a, Value>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    strict: bool,
}

/// The definition's JSON.
pub(crate) fn definition(
    input: &crate::schema::DefinitionInput<'_>,
) -> Result<Value, crate::options::BuildError> {
    crate::schema::definition_json(&Definition {
        kind: "function",
        function: Function {
            name: input.name,
            description: input.description,
            parameters: input
                .parameters_for(super::Provider::OpenAiChat, crate::schema::strict::openai)?,
            strict: input.strict,
        },
    })
}

// ---------------------------------------------------------------------------------------------
// Reading a call
// ---------------------------------------------------------------------------------------------

use super::envelope;

const PROVIDER: super::Provider = super::Provider::OpenAiChat;

/// Reads a tool call `{"id":…,"type":"function","function":{"name":…,"arguments":"<json
/// string>"}}`.
///
/// `type`, when present, must be `"function"`; `function` and its `name` are required; a
/// missing or `null` `arguments` reads as `{}`; `arguments` that are not a string are read as a
/// value, which step *The arguments as a whole* then judges.
pub(crate) fn read_call(call: &Value) -> Result<Call<'_>, CallShapeError> {
    let object = envelope::object(PROVIDER, call)?;
    envelope::check_type(PROVIDER, object, "function")?;
    let function = envelope::required_object(PROVIDER, object, "function")?;
    Ok(Call {
        id: envelope::optional_str(PROVIDER, object, "id")?,
        name: Some(envelope::required_str(PROVIDER, function, "name")?),
        arguments: envelope::text_arguments(function, "arguments"),
    })
}

// ---------------------------------------------------------------------------------------------
// Writing a call
// ---------------------------------------------------------------------------------------------

/// A Chat Completions tool call calling `name` with `arguments`: `function.arguments` holds
/// argument text as it is and a value as its JSON text; missing arguments leave it out, no id
/// leaves `id` out.
pub(crate) fn call(name: &str, id: Option<&str>, arguments: Arguments<'_>) -> Value {
    let function = super::present([
        ("name", Some(Value::from(name))),
        ("arguments", super::text_of(arguments)),
    ]);
    super::present([
        ("id", id.map(Value::from)),
        ("type", Some(Value::from("function"))),
        ("function", Some(function)),
    ])
}

#[cfg(test)]
mod reading_tests {
    use super::*;
    use crate::parse::Arguments;
    use serde_json::json;

    #[test]
    fn reads_a_chat_tool_call() {
        let tool_call = json!({"id": "call_1", "type": "function",
                               "function": {"name": "submit_result", "arguments": "{\"a\":1}"}});
        let call = read_call(&tool_call).unwrap();
        assert_eq!(call.id, Some("call_1"));
        assert_eq!(call.name, Some("submit_result"));
        assert!(matches!(call.arguments, Arguments::Text("{\"a\":1}")));
        let value = json!({"function": {"name": "s"}});
        let call = read_call(&value).unwrap();
        assert!(matches!(call.arguments, Arguments::Missing));
    }

    #[test]
    fn other_shapes_are_shape_errors() {
        for (tool_call, reason) in [
            (json!(null), "expected a JSON object, got null"),
            (
                json!({"type": "function_call", "function": {"name": "s"}}),
                "`type` is \"function_call\", expected \"function\"",
            ),
            (json!({"type": "function"}), "no `function` object"),
            (json!({"function": {"arguments": "{}"}}), "no `name` string"),
        ] {
            let error = read_call(&tool_call).unwrap_err();
            assert_eq!(error.reason, reason);
        }
    }
}
