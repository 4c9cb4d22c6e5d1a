//! Anthropic Messages: the tool definition and the `tool_use` block.

use std::borrow::Cow;

use serde_json::Value;

use super::{Call, CallShapeError};
use crate::parse::Arguments;

// ---------------------------------------------------------------------------------------------
// Definition
// ---------------------------------------------------------------------------------------------

/// Anthropic's tool definition: `{"name","description","input_schema":P}`, plus
/// `"strict": true` (and `P` rewritten for Anthropic's strict mode) when strict mode is asked
/// for.
#[derive(serde::Serialize)]
struct Definition<'a> {
    name: &'a str,
    description: &'a str,
    input_schema: Cow<'a, Value>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    strict: bool,
}

/// The definition's JSON.
pub(crate) fn definition(
    input: &crate::schema::DefinitionInput<'_>,
) -> Result<Value, crate::options::BuildError> {
    crate::schema::definition_json(&Definition {
        name: input.name,
        description: input.description,
        input_schema: input
            .parameters_for(super::Provider::Claude, crate::schema::strict::anthropic)?,
        strict: input.strict,
    })
}

// ---------------------------------------------------------------------------------------------
// Reading a call
// ---------------------------------------------------------------------------------------------

use super::envelope;

const PROVIDER: super::Provider = super::Provider::Claude;

/// Reads a `tool_use` block: `{"type":"tool_use","id":…,"name":…,"input":<object>}`.
///
/// `type`, when present, must be `"tool_use"`; `name` is required; a missing `input` reads as
/// `{}`. Whatever `input` holds is for step *The arguments as a whole* to judge.
pub(crate) fn read_call(call: &Value) -> Result<Call<'_>, CallShapeError> {
    let object = envelope::object(PROVIDER, call)?;
    envelope::check_type(PROVIDER, object, "tool_use")?;
    Ok(Call {
        id: envelope::optional_str(PROVIDER, object, "id")?,
        name: Some(envelope::required_str(PROVIDER, object, "name")?),
        arguments: envelope::value_arguments(object, "input"),
    })
}

// ---------------------------------------------------------------------------------------------
// Writing a call
// ---------------------------------------------------------------------------------------------

/// A `tool_use` block calling `name` with `arguments`: `input` holds a value as it is and
/// argument text as a JSON string; missing arguments leave `input` out, no id leaves `id` out.
pub(crate) fn call(name: &str, id: Option<&str>, arguments: Arguments<'_>) -> Value {
    super::present([
        ("type", Some(Value::from("tool_use"))),
        ("id", id.map(Value::from)),
        ("name", Some(Value::from(name))),
        ("input", super::value_of(arguments)),
    ])
}

#[cfg(test)]
mod reading_tests {
    use super::*;
    use crate::parse::Arguments;
    use serde_json::json;

    #[test]
    fn reads_a_tool_use_block() {
        let block = json!({"type": "tool_use", "id": "toolu_1", "name": "submit_result", "input": {"a": 1}});
        let call = read_call(&block).unwrap();
        assert_eq!(call.id, Some("toolu_1"));
        assert_eq!(call.name, Some("submit_result"));
        assert!(matches!(call.arguments, Arguments::Value(v) if v == &json!({"a": 1})));
        let value = json!({"type": "tool_use", "name": "s"});
        let call = read_call(&value).unwrap();
        assert!(matches!(call.arguments, Arguments::Missing));
    }

    #[test]
    fn other_shapes_are_shape_errors() {
        for (block, reason) in [
            (json!([]), "expected a JSON object, got array"),
            (
                json!({"type": "text", "name": "s"}),
                "`type` is \"text\", expected \"tool_use\"",
            ),
            (json!({"type": "tool_use", "input": {}}), "no `name` string"),
            (json!({"name": 1}), "`name` must be a string, got number"),
        ] {
            let error = read_call(&block).unwrap_err();
            assert_eq!(error.reason, reason);
            assert_eq!(
                error.to_string(),
                format!("not a tool call in the claude shape: {reason}")
            );
        }
    }
}
