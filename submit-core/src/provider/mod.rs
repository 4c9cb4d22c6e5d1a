//! The four wire formats: one file each, holding the definition and the reading of a call.

pub(crate) mod shape;

pub use shape::{Call, CallShapeError, Provider, UnknownProvider};

impl Provider {
    /// Builds this provider's definition of a tool.
    pub(crate) fn build_definition(
        self,
        input: &crate::schema::DefinitionInput<'_>,
    ) -> Result<serde_json::Value, crate::options::BuildError> {
        match self {
            Provider::Claude => claude::definition(input),
            Provider::Gemini => gemini::definition(input),
            Provider::OpenAiChat => openai_chat::definition(input),
            Provider::OpenAiResponses => openai_responses::definition(input),
        }
    }
}

mod claude;
mod gemini;
mod openai_chat;
mod openai_responses;

impl Provider {
    /// Reads a call in this provider's native shape (CLI.md's table).
    pub fn read_call(self, call: &serde_json::Value) -> Result<Call<'_>, CallShapeError> {
        match self {
            Provider::Claude => claude::read_call(call),
            Provider::Gemini => gemini::read_call(call),
            Provider::OpenAiChat => openai_chat::read_call(call),
            Provider::OpenAiResponses => openai_responses::read_call(call),
        }
    }
}
