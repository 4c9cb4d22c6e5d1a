//! OpenAI Chat Completions: the function tool and the tool call.

use serde_json::Value;

use super::{Call, CallShapeError};

// ---------------------------------------------------------------------------------------------
// Definition
// ---------------------------------------------------------------------------------------------

/// `{"type":"function","function":{"name","description","parameters":P}}`; strict mode adds
/// `"strict": true` inside `function` and rewrites `P` for OpenAI's strict mode. Without strict
/// mode the key is left out (Chat Completions reads that as non-strict).
pub(crate) fn definition(
    input: &crate::schema::DefinitionInput<'_>,
) -> Result<Value, crate::options::BuildError> {
    let parameters = if input.strict {
        crate::schema::strict::openai(input.parameters).map_err(|reason| {
            crate::options::BuildError::NotStrict {
                provider: super::Provider::OpenAiChat,
                reason,
            }
        })?
    } else {
        input.parameters.clone()
    };
    let mut function = serde_json::Map::new();
    function.insert("name".into(), input.name.into());
    function.insert("description".into(), input.description.into());
    function.insert("parameters".into(), parameters);
    if input.strict {
        function.insert("strict".into(), Value::Bool(true));
    }
    let mut definition = serde_json::Map::new();
    definition.insert("type".into(), "function".into());
    definition.insert("function".into(), Value::Object(function));
    Ok(Value::Object(definition))
}

// ---------------------------------------------------------------------------------------------
// Reading a call
// ---------------------------------------------------------------------------------------------

/// Reads a call in this provider's native shape.
pub(crate) fn read_call(call: &Value) -> Result<Call<'_>, CallShapeError> {
    let _ = call;
    todo!("read a call")
}
