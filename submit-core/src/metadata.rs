//! Metadata of a submit tool and the trait the derive implements.

use serde::de::DeserializeOwned;

pub use submit_meta::{
    Error as MetadataError, Errors as MetadataErrors, Key as MetadataKey, Metadata,
    DEFAULT_DESCRIPTION, DEFAULT_PAYLOAD_DESCRIPTION, DEFAULT_PAYLOAD_FIELD,
    DEFAULT_SUCCESS_MESSAGE, DEFAULT_TOOL_NAME, REASONING, REASONING_DESCRIPTION,
};

/// A response type that an agent returns through a terminal submit tool.
///
/// Implemented by `#[derive(SubmitResult)]`, which reads `#[submit_result(...)]` on the type.
pub trait SubmitResult: DeserializeOwned + schemars::JsonSchema {
    /// The tool metadata the type's attributes declare.
    fn metadata() -> Metadata;
}
