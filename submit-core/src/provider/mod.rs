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
    use super::Provider;

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
