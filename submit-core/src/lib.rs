//! Implementation detail of the `submit-result` crate: options, schemas, provider definitions
//! and the submit parser. Use the `submit-result` crate instead.

#![forbid(unsafe_code)]

mod error;
mod metadata;
mod options;
mod outcome;
mod parse;
mod provider;
mod schema;
mod tool;
mod trace;

pub use error::{ErrorClass, ParameterCause, SubmitError};
pub use metadata::{
    Metadata, MetadataError, MetadataErrors, MetadataKey, SubmitResult, DEFAULT_DESCRIPTION,
    DEFAULT_PAYLOAD_DESCRIPTION, DEFAULT_PAYLOAD_FIELD, DEFAULT_SUCCESS_MESSAGE, DEFAULT_TOOL_NAME,
    REASONING_DESCRIPTION,
};
pub use options::{BuildError, GeminiSchema, Options};
pub use outcome::{Accepted, AppliedRecovery, Outcome, Recovery, RecoveryKind, Rejected};
pub use parse::Arguments;
pub use provider::{Call, CallShapeError, Provider, UnknownProvider};
pub use tool::SubmitTool;
pub use trace::{CallRecord, Trace};
