//! Anthropic Messages: the tool definition and the `tool_use` block.

use serde_json::Value;

use super::{Call, CallShapeError};

// ---------------------------------------------------------------------------------------------
// Definition
// ---------------------------------------------------------------------------------------------

/// `{"name","description","input_schema":P}`, plus `"strict": true` (and `P` rewritten for
/// Anthropic's strict mode) when strict mode is asked for.
pub(crate) fn definition(
    input: &crate::schema::DefinitionInput<'_>,
) -> Result<Value, crate::options::BuildError> {
    let input_schema = if input.strict {
        crate::schema::strict::anthropic(input.parameters).map_err(|reason| {
            crate::options::BuildError::NotStrict {
                provider: super::Provider::Claude,
                reason,
            }
        })?
    } else {
        input.parameters.clone()
    };
    let mut definition = serde_json::Map::new();
    definition.insert("name".into(), input.name.into());
    definition.insert("description".into(), input.description.into());
    definition.insert("input_schema".into(), input_schema);
    if input.strict {
        definition.insert("strict".into(), Value::Bool(true));
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
