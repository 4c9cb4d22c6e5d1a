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

/// Reads a call in this provider's native shape.
pub(crate) fn read_call(call: &Value) -> Result<Call<'_>, CallShapeError> {
    let _ = call;
    todo!("read a call")
}
