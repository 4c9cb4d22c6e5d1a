//! The providers: which wire format a definition or a call is in, a call as read out of a
//! provider's shape, and the error of an object not in it. One file per wire format holds its
//! definition and the reading of its call; `envelope.rs` holds the readers they share, and
//! `json.rs` reads a call from its bytes.

mod claude;
mod envelope;
mod gemini;
pub(crate) mod json;
mod openai_chat;
mod openai_responses;

use std::fmt;
use std::str::FromStr;

use crate::options::BuildError;
use crate::parse::Arguments;
use crate::schema::DefinitionInput;

/// A provider's wire format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Provider {
    /// Anthropic Messages: `tool_use` blocks, `input` is a JSON object.
    #[serde(rename = "claude")]
    Claude,
    /// Gemini function declarations: `functionCall` parts, `args` is a JSON object.
    #[serde(rename = "gemini")]
    Gemini,
    /// OpenAI Chat Completions: tool calls whose `arguments` is a JSON string.
    #[serde(rename = "openai-chat")]
    OpenAiChat,
    /// OpenAI Responses: `function_call` items whose `arguments` is a JSON string.
    #[serde(rename = "openai-responses")]
    OpenAiResponses,
}

impl Provider {
    /// Every provider, in a fixed order.
    pub const ALL: [Provider; 4] = [
        Provider::Claude,
        Provider::Gemini,
        Provider::OpenAiChat,
        Provider::OpenAiResponses,
    ];

    /// The provider's command-line name (`claude`, `gemini`, `openai-chat`, `openai-responses`).
    pub fn as_str(self) -> &'static str {
        match self {
            Provider::Claude => "claude",
            Provider::Gemini => "gemini",
            Provider::OpenAiChat => "openai-chat",
            Provider::OpenAiResponses => "openai-responses",
        }
    }

    /// Whether the provider has a strict schema mode: Anthropic and both OpenAI APIs do,
    /// Gemini does not (its definition of a strict tool is the ordinary one).
    ///
    /// ```
    /// # extern crate submit_core as submit_result;
    /// use submit_result::Provider;
    ///
    /// assert!(Provider::Claude.supports_strict());
    /// assert!(!Provider::Gemini.supports_strict());
    /// ```
    pub fn supports_strict(self) -> bool {
        !matches!(self, Provider::Gemini)
    }

    pub(crate) fn index(self) -> usize {
        match self {
            Provider::Claude => 0,
            Provider::Gemini => 1,
            Provider::OpenAiChat => 2,
            Provider::OpenAiResponses => 3,
        }
    }
}

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A provider name that is not one of `claude`, `gemini`, `openai-chat`, `openai-responses`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown provider `{0}`, expected one of `claude`, `gemini`, `openai-chat`, `openai-responses`"
)]
pub struct UnknownProvider(pub String);

/// A call object that is not in the provider's shape.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("not a tool call in the {provider} shape: {reason}")]
#[non_exhaustive]
pub struct CallShapeError {
    /// The provider whose shape was expected.
    pub provider: Provider,
    /// What is wrong with the object.
    pub reason: String,
}

/// A call read out of a provider's native call object.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct Call<'a> {
    /// The call id (`id`, `call_id`), when the shape carries one.
    pub id: Option<&'a str>,
    /// The called tool's name, when present.
    pub name: Option<&'a str>,
    /// The arguments.
    pub arguments: Arguments<'a>,
}

impl Provider {
    /// Builds this provider's definition of a tool.
    pub(crate) fn build_definition(
        self,
        input: &DefinitionInput<'_>,
    ) -> Result<serde_json::Value, BuildError> {
        match self {
            Provider::Claude => claude::definition(input),
            Provider::Gemini => gemini::definition(input),
            Provider::OpenAiChat => openai_chat::definition(input),
            Provider::OpenAiResponses => openai_responses::definition(input),
        }
    }

    /// Reads a call in this provider's native shape: an Anthropic `tool_use` block, a Gemini
    /// `functionCall` part, an OpenAI Chat tool call or a Responses `function_call` item.
    pub fn read_call(self, call: &serde_json::Value) -> Result<Call<'_>, CallShapeError> {
        match self {
            Provider::Claude => claude::read_call(call),
            Provider::Gemini => gemini::read_call(call),
            Provider::OpenAiChat => openai_chat::read_call(call),
            Provider::OpenAiResponses => openai_responses::read_call(call),
        }
    }

    /// A call of the tool `name` in this provider's native shape, for fixtures and tests.
    ///
    /// ```
    /// # extern crate submit_core as submit_result;
    /// use serde_json::json;
    /// use submit_result::{Arguments, Provider};
    ///
    /// let arguments = json!({"reasoning": "checked", "analysis": {"summary": "ok"}});
    /// let call = Provider::Claude.call("submit_result", Some("toolu_01"), &arguments);
    /// assert_eq!(
    ///     call,
    ///     json!({"type": "tool_use", "id": "toolu_01", "name": "submit_result", "input": arguments})
    /// );
    ///
    /// // Argument text stays as written: here, a member given twice.
    /// let text = r#"{"reasoning": "r", "reasoning": "again"}"#;
    /// let call = Provider::OpenAiChat.call("submit_result", Some("call_01"), text);
    /// assert_eq!(call["function"]["arguments"], text);
    /// assert!(matches!(
    ///     Provider::OpenAiChat.read_call(&call).unwrap().arguments,
    ///     Arguments::Text(read) if read == text
    /// ));
    /// ```
    ///
    /// The shapes are those [`read_call`](Provider::read_call) reads: an Anthropic `tool_use`
    /// block (`{"type": "tool_use", "id", "name", "input"}`), a Gemini `functionCall` part
    /// (`{"functionCall": {"id", "name", "args"}}`), an OpenAI Chat tool call (`{"id", "type":
    /// "function", "function": {"name", "arguments"}}`) and a Responses `function_call` item
    /// (`{"type": "function_call", "call_id", "name", "arguments"}`).
    ///
    /// `id` is the call's id (`id`, or `call_id` in a Responses item); `None` leaves it out, as
    /// Gemini's answers do.
    ///
    /// `arguments` is a JSON value (`&Value`), argument text (`&str`, `&String`) or any
    /// [`Arguments`]. The two OpenAI shapes carry text: argument text goes in exactly as given
    /// (a repeated member, a stray tag or a truncation included), and a value as its compact
    /// JSON text. Anthropic and Gemini carry a value: a value goes in as it is, and argument
    /// text as a JSON string, the way a model that encoded its arguments into a string sends
    /// them. [`Arguments::Missing`] leaves the arguments member out.
    pub fn call<'a>(
        self,
        name: &str,
        id: Option<&str>,
        arguments: impl Into<Arguments<'a>>,
    ) -> serde_json::Value {
        let arguments = arguments.into();
        match self {
            Provider::Claude => claude::call(name, id, arguments),
            Provider::Gemini => gemini::call(name, id, arguments),
            Provider::OpenAiChat => openai_chat::call(name, id, arguments),
            Provider::OpenAiResponses => openai_responses::call(name, id, arguments),
        }
    }
}

/// A JSON object of the members that are present, in the order given.
fn present<const N: usize>(members: [(&str, Option<serde_json::Value>); N]) -> serde_json::Value {
    serde_json::Value::Object(
        members
            .into_iter()
            .filter_map(|(key, value)| Some((key.to_owned(), value?)))
            .collect(),
    )
}

/// The arguments as a shape that carries a value holds them: a value as it is, argument text as
/// a JSON string; `None` when they are missing.
fn value_of(arguments: Arguments<'_>) -> Option<serde_json::Value> {
    match arguments {
        Arguments::Value(value) => Some(value.clone()),
        Arguments::Text(text) => Some(serde_json::Value::from(text)),
        Arguments::Missing => None,
    }
}

/// The arguments as a shape that carries text holds them: argument text as it is, a value as its
/// JSON text; `None` when they are missing.
fn text_of(arguments: Arguments<'_>) -> Option<serde_json::Value> {
    match arguments {
        Arguments::Value(value) => Some(serde_json::Value::from(value.to_string())),
        Arguments::Text(text) => Some(serde_json::Value::from(text)),
        Arguments::Missing => None,
    }
}

impl FromStr for Provider {
    type Err = UnknownProvider;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Provider::ALL
            .into_iter()
            .find(|p| p.as_str() == s)
            .ok_or_else(|| UnknownProvider(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::Provider;
    use crate::parse::Arguments;

    #[test]
    fn a_call_in_each_shape_reads_back_with_its_name_id_and_arguments() {
        let value = json!({"reasoning": "r", "analysis": {"summary": "s"}});
        let text = r#"{"reasoning": "r", "reasoning": "twice"}"#;
        for provider in Provider::ALL {
            let call = provider.call("submit_result", Some("call_7"), &value);
            let read = provider.read_call(&call).unwrap();
            assert_eq!(
                (read.name, read.id),
                (Some("submit_result"), Some("call_7"))
            );
            match read.arguments {
                Arguments::Value(read) => assert_eq!(read, &value, "{provider}"),
                Arguments::Text(read) => assert_eq!(read, value.to_string(), "{provider}"),
                Arguments::Missing => panic!("{provider}: arguments missing"),
            }

            let call = provider.call("submit_result", None, text);
            match provider.read_call(&call).unwrap().arguments {
                Arguments::Value(read) => assert_eq!(read, &json!(text), "{provider}"),
                Arguments::Text(read) => assert_eq!(read, text, "{provider}"),
                Arguments::Missing => panic!("{provider}: arguments missing"),
            }

            let call = provider.call("submit_result", None, Arguments::Missing);
            let read = provider.read_call(&call).unwrap();
            assert_eq!((read.name, read.id), (Some("submit_result"), None));
            assert!(
                matches!(read.arguments, Arguments::Missing),
                "{provider}: {call}"
            );
        }
    }

    #[test]
    fn serde_names_are_the_command_line_names() {
        for provider in Provider::ALL {
            let json = serde_json::to_value(provider).unwrap();
            assert_eq!(json, provider.as_str());
            assert_eq!(serde_json::from_value::<Provider>(json).unwrap(), provider);
            assert_eq!(provider.as_str().parse::<Provider>().unwrap(), provider);
        }
    }
}
