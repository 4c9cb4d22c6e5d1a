//! OpenAI Responses: the function tool and the `function_call` item.

use serde_json::Value;

use super::{Call, CallShapeError};

// ---------------------------------------------------------------------------------------------
// Definition
// ---------------------------------------------------------------------------------------------

/// `{"type":"function","name","description","parameters":P,"strict":false}`: `strict` is always
/// explicit, because the Responses API reads an omitted `strict` as strict. Strict mode sets it
/// to `true` and rewrites `P` for OpenAI's strict mode.
pub(crate) fn definition(
    input: &crate::schema::DefinitionInput<'_>,
) -> Result<Value, crate::options::BuildError> {
    let parameters = if input.strict {
        crate::schema::strict::openai(input.parameters).map_err(|reason| {
            crate::options::BuildError::NotStrict {
                provider: super::Provider::OpenAiResponses,
                reason,
            }
        })?
    } else {
        input.parameters.clone()
    };
    let mut definition = serde_json::Map::new();
    definition.insert("type".into(), "function".into());
    definition.insert("name".into(), input.name.into());
    definition.insert("description".into(), input.description.into());
    definition.insert("parameters".into(), parameters);
    definition.insert("strict".into(), Value::Bool(input.strict));
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
