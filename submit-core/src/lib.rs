//! Implementation detail of the `submit-result` crate: options, schemas, provider definitions
//! and the submit parser. Use the `submit-result` crate instead.
//!
//! # Modules
//!
//! - `metadata`: a tool's metadata (from `#[derive(SubmitResult)]` or a tag string) and its
//!   defaults.
//! - `options`: how a submit tool is named, described and laid out, and why building one fails.
//! - `schema/`: the payload schema and its dialects: reflection, inlining of references, the
//!   parameters object, Gemini's legacy subset, the two strict modes, the payload's property
//!   table, and what the schema admits at each location of a payload.
//! - `provider/`: the four wire formats, each with its tool definition and the reading of its
//!   call.
//! - `parse/`: the parsing rules, one algorithm for a call from its arguments to the accepted
//!   payload or the rejection; calls written as text (`parse/text/`) and the invented
//!   `multi_tool_use.parallel` wrapper.
//! - `error`, `outcome`: why a call was rejected (class and cause), and what an accepted call
//!   yields (the response, the reasoning, every recovery that applied).
//! - `stop`: how the turn that carried a call ended, and the rejection of a call cut off at
//!   the output-token limit.
//! - `tool`: [`SubmitTool`], built once, handling calls; `calls_in_text`: its handling of calls
//!   the model wrote as text or inside a `multi_tool_use.parallel` call.
//! - `trace`: the record of submit calls an engineer reads.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod calls_in_text;
mod error;
mod metadata;
mod options;
mod outcome;
mod parse;
mod provider;
mod receive;
pub mod rules;
mod schema;
mod stop;
mod tool;
mod trace;

pub use error::{ErrorClass, ParameterCause, SubmitError};
pub use metadata::{
    Metadata, MetadataError, MetadataErrors, MetadataKey, SubmitResult, DEFAULT_DESCRIPTION,
    DEFAULT_PAYLOAD_DESCRIPTION, DEFAULT_PAYLOAD_FIELD, DEFAULT_SUCCESS_MESSAGE, DEFAULT_TOOL_NAME,
    REASONING_DESCRIPTION,
};
pub use options::{BuildError, GeminiSchema, Options, Overrides};
pub use outcome::{Accepted, Outcome, Recovery, RecoveryKind, Rejected, TextFormat};
pub use parse::parallel::{parallel_entries, ParallelEntry, PARALLEL_WRAPPER};
pub use parse::{Arguments, JsonType};
pub use provider::{Call, CallShapeError, Provider, UnknownProvider};
pub use receive::Incoming;
pub use stop::StopReason;
pub use tool::SubmitTool;
pub use trace::{CallRecord, Trace};
