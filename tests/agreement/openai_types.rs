//! The async-openai conversions: the native call read into async-openai's own call types
//! (`ChatCompletionMessageToolCall`, `FunctionToolCall`, as a client deserializes them from the
//! API's answer), handled, and the reply built for the next turn.

use async_openai::types::chat::ChatCompletionMessageToolCall;
use async_openai::types::responses::{FunctionCallOutput, FunctionToolCall};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;
use submit_result::openai::OpenAiTool;
use submit_result::{Provider, SubmitTool};

use super::corpus::outcome_json;

/// The outcome of `call` read into async-openai's type for `provider` and handled; the reply
/// for the next turn must carry the outcome's tool result as its text.
pub fn handle<R>(tool: &SubmitTool<R>, provider: Provider, call: &Value) -> Result<Value, String>
where
    R: DeserializeOwned + Serialize,
{
    let (outcome, reply) = match provider {
        Provider::OpenAiChat => {
            let typed: ChatCompletionMessageToolCall = serde_json::from_value(call.clone())
                .map_err(|e| format!("async-openai does not read the Chat tool call: {e}"))?;
            let outcome = tool.handle_openai_chat(&typed);
            let reply = tool.openai_chat_reply(&typed, &outcome);
            let text = match serde_json::to_value(&reply.content) {
                Ok(Value::String(text)) => text,
                other => return Err(format!("the Chat reply's content is not text: {other:?}")),
            };
            (outcome_json(&outcome), text)
        }
        Provider::OpenAiResponses => {
            let typed: FunctionToolCall = serde_json::from_value(call.clone())
                .map_err(|e| format!("async-openai does not read the function_call item: {e}"))?;
            let outcome = tool.handle_openai_response(&typed);
            let reply = tool.openai_response_reply(&typed, &outcome);
            let FunctionCallOutput::Text(text) = reply.output else {
                return Err("the Responses reply's output is not text".to_owned());
            };
            (outcome_json(&outcome), text)
        }
        other => return Err(format!("async-openai has no {other} call type")),
    };
    let replied: Value = serde_json::from_str(&reply)
        .map_err(|e| format!("the reply's text is not JSON ({e}): {reply}"))?;
    if replied != outcome["tool_result"] {
        return Err(format!(
            "the reply carries {replied}, the outcome's tool result is {}",
            outcome["tool_result"]
        ));
    }
    Ok(outcome)
}
