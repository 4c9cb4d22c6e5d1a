//! What a tool call produced: its output, extra content parts and response metadata. Defined
//! beside the parts it holds, so a tool request keeps a completed call's outcome in this type
//! while its siblings wait for a resume; public as [`crate::tool::ToolOutput`].

use serde_json::Value;

use super::{JsonObject, Part};

/// What a call produced: the output, extra content parts and response metadata.
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct ToolOutput {
    /// The output the model reads.
    pub output: Option<Value>,
    /// Content parts (media …); attached parts land after these.
    pub content: Vec<Part>,
    /// The response part's metadata.
    pub metadata: Option<JsonObject>,
}

impl ToolOutput {
    /// An output value and nothing else.
    pub fn value(output: Value) -> Self {
        ToolOutput {
            output: Some(output),
            ..ToolOutput::default()
        }
    }

    /// This output with extra content parts.
    pub fn with_content(mut self, content: Vec<Part>) -> Self {
        self.content = content;
        self
    }

    /// This output with metadata on the response part.
    pub fn with_metadata(mut self, metadata: JsonObject) -> Self {
        self.metadata = Some(metadata);
        self
    }
}
