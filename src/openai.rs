//! The submit tool with async-openai's own types (feature `async-openai`): its definition as a
//! Chat Completions or Responses tool, a tool call handled without touching JSON, and the
//! answer to send back.
//!
//! ```
//! use async_openai::types::chat::{ChatCompletionMessageToolCall, FunctionCall};
//! use submit_result::openai::OpenAiTool;
//! use submit_result::{Options, Outcome, SubmitTool};
//!
//! let schema = serde_json::json!({"type": "object", "properties": {"summary": {"type": "string"}}});
//! let tool = SubmitTool::<serde_json::Value>::from_json_schema(schema, Options::new())?;
//! let definition = tool.openai_chat_tool(); // into the request's `tools`
//!
//! // The model JSON-encoded its payload into a string: recovered.
//! let call = ChatCompletionMessageToolCall {
//!     id: "call_1".into(),
//!     function: FunctionCall {
//!         name: "submit_result".into(),
//!         arguments: r#"{"reasoning": "done", "result": "{\"summary\": \"disk full\"}"}"#.into(),
//!     },
//! };
//! let outcome = tool.handle_openai_chat(&call);
//! let Outcome::Accepted(accepted) = &outcome else { unreachable!() };
//! assert_eq!(accepted.response["summary"], "disk full");
//! let reply = tool.openai_chat_reply(&call, &outcome); // the tool message for the next turn
//! assert_eq!(reply.tool_call_id, "call_1");
//! # Ok::<(), submit_result::BuildError>(())
//! ```
//!
//! A call is routed by name by the caller (`call.function.name == tool.name()`); the handling
//! reads its argument text exactly as [`SubmitTool::handle`] reads an OpenAI call, every
//! recovery and rejection included.

use async_openai::types::chat::{
    ChatCompletionMessageToolCall, ChatCompletionRequestToolMessage, ChatCompletionTool,
    ChatCompletionTools, FunctionObject,
};
use async_openai::types::responses::{
    FunctionCallOutput, FunctionCallOutputItemParam, FunctionTool, FunctionToolCall, Tool,
};
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::{Arguments, Outcome, Provider, SubmitTool};

/// The submit tool in async-openai's types.
pub trait OpenAiTool<R> {
    /// The tool for a Chat Completions request's `tools`.
    fn openai_chat_tool(&self) -> ChatCompletionTools;

    /// The tool for a Responses request's `tools`.
    fn openai_responses_tool(&self) -> Tool;

    /// Handles a Chat Completions tool call of this tool: its `function.arguments` text.
    fn handle_openai_chat(&self, call: &ChatCompletionMessageToolCall) -> Outcome<R>;

    /// Handles a Responses function call of this tool: its `arguments` text.
    fn handle_openai_response(&self, call: &FunctionToolCall) -> Outcome<R>;

    /// The tool message answering `call` with the outcome's tool result (the success message,
    /// or the error the model must act on).
    fn openai_chat_reply(
        &self,
        call: &ChatCompletionMessageToolCall,
        outcome: &Outcome<R>,
    ) -> ChatCompletionRequestToolMessage;

    /// The `function_call_output` item answering `call` with the outcome's tool result.
    fn openai_response_reply(
        &self,
        call: &FunctionToolCall,
        outcome: &Outcome<R>,
    ) -> FunctionCallOutputItemParam;
}

/// The text member `key` of a definition, if present.
fn text(definition: &Value, key: &str) -> Option<String> {
    definition
        .get(key)
        .and_then(Value::as_str)
        .map(str::to_owned)
}

impl<R: DeserializeOwned> OpenAiTool<R> for SubmitTool<R> {
    fn openai_chat_tool(&self) -> ChatCompletionTools {
        let definition = self.definition(Provider::OpenAiChat);
        let function = &definition["function"];
        ChatCompletionTools::Function(ChatCompletionTool {
            function: FunctionObject {
                name: self.name().to_owned(),
                description: text(function, "description"),
                parameters: function.get("parameters").cloned(),
                strict: function.get("strict").and_then(Value::as_bool),
            },
        })
    }

    fn openai_responses_tool(&self) -> Tool {
        let definition = self.definition(Provider::OpenAiResponses);
        Tool::Function(FunctionTool {
            name: self.name().to_owned(),
            description: text(&definition, "description"),
            parameters: definition.get("parameters").cloned(),
            strict: definition.get("strict").and_then(Value::as_bool),
            ..FunctionTool::default()
        })
    }

    fn handle_openai_chat(&self, call: &ChatCompletionMessageToolCall) -> Outcome<R> {
        self.handle_arguments(Arguments::Text(&call.function.arguments))
    }

    fn handle_openai_response(&self, call: &FunctionToolCall) -> Outcome<R> {
        self.handle_arguments(Arguments::Text(&call.arguments))
    }

    fn openai_chat_reply(
        &self,
        call: &ChatCompletionMessageToolCall,
        outcome: &Outcome<R>,
    ) -> ChatCompletionRequestToolMessage {
        ChatCompletionRequestToolMessage {
            content: outcome.tool_result().to_string().into(),
            tool_call_id: call.id.clone(),
        }
    }

    fn openai_response_reply(
        &self,
        call: &FunctionToolCall,
        outcome: &Outcome<R>,
    ) -> FunctionCallOutputItemParam {
        FunctionCallOutputItemParam {
            call_id: Some(call.call_id.clone()),
            output: FunctionCallOutput::Text(outcome.tool_result().to_string()),
            id: None,
            status: None,
            name: None,
            namespace: None,
            caller: None,
        }
    }
}
