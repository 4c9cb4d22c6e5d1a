//! A terminal `submit_result` tool for LLM agents: one derive gives the tool's definition for
//! Anthropic, Gemini, OpenAI Chat and OpenAI Responses, and a parser that recovers the known
//! model mistakes exactly and classifies every rejection.

#![forbid(unsafe_code)]

pub use submit_core::{
    Accepted, Arguments, BuildError, ErrorClass, GeminiSchema, Metadata, MetadataError,
    MetadataErrors, MetadataKey, Options, Outcome, ParameterCause, Provider, Recovery, Rejected,
    SubmitError, SubmitResult, SubmitTool, UnknownProvider,
};
pub use submit_core::{Call, CallRecord, CallShapeError, Trace};

/// Derives [`SubmitResult`] from `#[submit_result(...)]` on a response type.
#[cfg(feature = "derive")]
pub use submit_derive::SubmitResult;

/// The tool loop and the executor.
pub use submit_agent as agent;

// Not public API. Referenced by macro-generated code.
#[doc(hidden)]
pub mod __private {
    #[doc(hidden)]
    pub use serde::de::DeserializeOwned;
    #[doc(hidden)]
    pub use schemars::JsonSchema;
    #[doc(hidden)]
    pub use submit_core::{Metadata, SubmitResult};
    #[doc(hidden)]
    pub use std::borrow::Cow;
}
