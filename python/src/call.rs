//! What `handle` takes as a call: JSON data in the provider's wire shape, judged whatever it
//! holds, or a provider SDK's call object, which must be a call.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::Value;
use submit_core::Provider;

use crate::convert::{to_json, type_name};

/// What `handle` takes as a call of `provider`, named in the error of an object that is none.
fn calls_taken(provider: Provider) -> &'static str {
    match provider {
        Provider::Claude => {
            "a `tool_use` content block, as a dict or the anthropic SDK's ToolUseBlock (an item \
             of a Message's content)"
        }
        Provider::Gemini => {
            "a `functionCall` part or the function call itself, as a dict or google-genai's Part \
             or FunctionCall (an item of a response's function_calls)"
        }
        Provider::OpenAiChat => {
            "a tool call, as a dict or the openai SDK's ChatCompletionMessageToolCall (an item \
             of a message's tool_calls)"
        }
        Provider::OpenAiResponses => {
            "a `function_call` output item, as a dict or the openai SDK's \
             ResponseFunctionToolCall (an item of a Response's output)"
        }
    }
}

/// A call given to `handle`, as the JSON of its wire shape. JSON data (a dict, as a rule) is
/// taken as it is: whatever it holds, the parser judges it, as it judges a call read from a
/// log. A provider SDK's object (a Pydantic model: Anthropic's `ToolUseBlock`, OpenAI's Chat
/// tool call and Responses `ResponseFunctionToolCall`, google-genai's `FunctionCall` or
/// `Part`) is dumped as the SDK would send it (`model_dump(mode="json", by_alias=True)`), and
/// must be a call in the provider's shape, which the door checks: a whole message or response,
/// a text block, or any other object is the caller's mistake, a `TypeError` saying what is
/// taken.
pub(crate) fn call_value(provider: Provider, call: &Bound<'_, PyAny>) -> PyResult<Given> {
    let is_json = call.is_none()
        || call.is_instance_of::<PyDict>()
        || call.is_instance_of::<PyList>()
        || call.is_instance_of::<PyTuple>()
        || call.is_instance_of::<PyString>()
        || call.is_instance_of::<PyBool>()
        || call.is_instance_of::<PyInt>()
        || call.is_instance_of::<PyFloat>();
    if is_json {
        return Ok(Given::Json(to_json(call, "call")?));
    }
    if !call.hasattr("model_dump")? {
        return Err(not_a_call(provider, call, ""));
    }
    let py = call.py();
    let options = PyDict::new(py);
    options.set_item("mode", "json")?;
    options.set_item("by_alias", true)?;
    let dumped = call.call_method("model_dump", (), Some(&options))?;
    Ok(Given::Sdk(to_json(&dumped, "call")?))
}

/// A call as `handle` was given it, as JSON.
pub(crate) enum Given {
    /// JSON data: the parser judges whatever it holds.
    Json(Value),
    /// A provider SDK's object: it must be a call in the provider's shape.
    Sdk(Value),
}

/// The `TypeError` of an object given as a call of `provider` that is none (`why` says what
/// is wrong with its shape, when it has one).
pub(crate) fn not_a_call(provider: Provider, call: &Bound<'_, PyAny>, why: &str) -> PyErr {
    PyTypeError::new_err(format!(
        "handle takes a call in the {provider} shape: {}; got {}{why}",
        calls_taken(provider),
        type_name(call)
    ))
}
