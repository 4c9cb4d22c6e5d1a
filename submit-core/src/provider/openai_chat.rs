//! OpenAI Chat Completions: the function tool and the tool call.

use serde_json::Value;

use super::{Call, CallShapeError};

// ---------------------------------------------------------------------------------------------
// Definition
// ---------------------------------------------------------------------------------------------

// ---------------------------------------------------------------------------------------------
// Reading a call
// ---------------------------------------------------------------------------------------------

/// Reads a call in this provider's native shape.
pub(crate) fn read_call(call: &Value) -> Result<Call<'_>, CallShapeError> {
    let _ = call;
    todo!("read a call")
}
