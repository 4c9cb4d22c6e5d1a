//! Implementation detail of the `submit-result` crate: options, schemas, provider definitions
//! and the submit parser. Use the `submit-result` crate instead.
//!
//! # Layers
//!
//! Read bottom to top: each file uses only the ones listed before it.
//!
//! 1. `metadata.rs`: the tool's metadata and defaults (from `submit-meta`).
//! 2. `error.rs`, `outcome.rs`: the error classes and causes; accepted and rejected outcomes.
//! 3. `parse/cow_str.rs`, `parse/duplicates.rs`, `parse/arguments.rs`: the arguments as a
//!    provider hands them over, read once, duplicate names noted on the way.
//! 4. `provider/shape.rs`: the providers' names, a call as read out of a provider's shape,
//!    and the error of an object not in it.
//! 5. `options.rs`: the options and their validation (`BuildError`).
//! 6. `schema/`: reflection and the dialects (`keywords.rs` under `inline.rs`, `gemini.rs`,
//!    `strict.rs` and `mod.rs`), and `property.rs`, the payload's property table the steps
//!    read.
//! 7. `parse/call.rs`, then `provider/`: the envelope readers the formats share, and one file
//!    per wire format (its definition and the reading of its call).
//! 8. The parse steps: `reasoning.rs`, `closing.rs`, `echo.rs`, `located.rs`, `recover.rs`,
//!    `payload.rs`, `flat.rs`, `decode.rs`, `whole.rs`, the one pass `clean.rs`, and
//!    `parse/mod.rs` calling them in the order of SUBMIT.md §5 and §10 on a `Parser`: what
//!    they read of the tool (options, property table, validator), handed over by `tool.rs`.
//!    The one pass is a shortcut the steps alone are tested against, call for call.
//! 9. `parse/text/`: calls a model wrote as text instead of making them, found and read per
//!    form; `parse/wrapper.rs`: the entries of an invented `multi_tool_use.parallel` call. Both
//!    hand what they read to the `Parser`, recording where the call was found first.
//! 10. `trace.rs`, `tool.rs`, `found.rs`: the trace; [`SubmitTool`], built once, handling
//!     calls; and its handling of calls found where the model did not make them as calls
//!     (written as text, or inside a `multi_tool_use.parallel` call).

#![forbid(unsafe_code)]

mod error;
mod found;
mod metadata;
mod options;
mod outcome;
mod parse;
mod provider;
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
pub use options::{BuildError, GeminiSchema, Options};
pub use outcome::{
    Accepted, AppliedRecovery, Outcome, Recovery, RecoveryKind, Rejected, TextFormat,
};
pub use parse::wrapper::{parallel_entries, ParallelEntry, PARALLEL_WRAPPER};
pub use parse::Arguments;
pub use provider::{Call, CallShapeError, Provider, UnknownProvider};
pub use stop::StopReason;
pub use tool::SubmitTool;
pub use trace::{CallRecord, Trace};
