//! OpenAI Responses: the function tool and the `function_call` item.

use serde_json::Value;

use super::{Call, CallShapeError};

// ---------------------------------------------------------------------------------------------
// Definition
// ---------------------------------------------------------------------------------------------

use serde_json::Map;

use super::Provider;
use crate::options::BuildError;
use crate::schema::{strict, DefinitionInput};

/// `{"type":"function","name","description","parameters":P,"strict":false}`: `strict` is always
/// explicit, because the Responses API reads an omitted `strict` as strict. Strict mode sets it
/// to `true` and rewrites `P` for OpenAI's strict mode.
pub(crate) fn definition(input: &DefinitionInput<'_>) -> Result<Value, BuildError> {
    let parameters = if input.strict {
        strict::openai(input.parameters).map_err(|reason| BuildError::NotStrict {
            provider: Provider::OpenAiResponses,
            reason,
        })?
    } else {
        input.parameters.clone()
    };
    let mut definition = Map::new();
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
