//! Gemini: the function declaration and the `functionCall` part.

use serde_json::Value;

use super::{Call, CallShapeError};

// ---------------------------------------------------------------------------------------------
// Definition
// ---------------------------------------------------------------------------------------------

use serde_json::Map;

use crate::options::{BuildError, GeminiSchema};
use crate::schema::{gemini, DefinitionInput};

/// `{"name","description","parameters":G}` with `G` in the legacy OpenAPI 3.0 subset, or
/// `{"name","description","parametersJsonSchema":P}`. Gemini has no strict mode: a strict
/// tool's declaration is the ordinary one.
pub(crate) fn definition(input: &DefinitionInput<'_>) -> Result<Value, BuildError> {
    let mut definition = Map::new();
    definition.insert("name".into(), input.name.into());
    definition.insert("description".into(), input.description.into());
    match input.gemini_schema {
        GeminiSchema::Legacy => {
            definition.insert("parameters".into(), gemini::legacy(input.parameters)?);
        }
        GeminiSchema::JsonSchema => {
            definition.insert("parametersJsonSchema".into(), input.parameters.clone());
        }
    }
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
