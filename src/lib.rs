//! A terminal `submit_result` tool for LLM agents: one derive gives the tool's definition for
//! Anthropic, Gemini, OpenAI Chat and OpenAI Responses, and a parser that recovers the known
//! model mistakes exactly and classifies every rejection.
//!
//! ```
//! use submit_result::{ErrorClass, Outcome, ParameterCause, Provider, SubmitResult, SubmitTool};
//!
//! /// The analysis of a failed build.
//! #[derive(Debug, serde::Deserialize, schemars::JsonSchema, SubmitResult)]
//! #[submit_result(name = "submit_analysis", payload = "analysis")]
//! struct Analysis {
//!     /// What failed and why.
//!     summary: String,
//! }
//!
//! let tool = SubmitTool::<Analysis>::for_response()?;
//! let definition = tool.definition(Provider::Claude);
//! assert_eq!(definition["input_schema"]["required"], serde_json::json!(["reasoning", "analysis"]));
//!
//! // The model wrote the payload inside its reasoning, after a parameter opener.
//! let call = serde_json::json!({
//!     "type": "tool_use", "id": "toolu_1", "name": "submit_analysis",
//!     "input": {"reasoning": "the log shows it</reasoning>\n<parameter name=\"analysis\">{\"summary\":\"flaky test\"}"}
//! });
//! let Outcome::Accepted(accepted) = tool.handle(Provider::Claude, &call) else { unreachable!() };
//! assert_eq!(accepted.response.summary, "flaky test");
//! assert_eq!(accepted.reasoning, "the log shows it");
//!
//! // A placeholder in a string with prose after it is ambiguous: rejected, with the cause.
//! let call = serde_json::json!({
//!     "type": "tool_use", "id": "toolu_2", "name": "submit_analysis",
//!     "input": {"reasoning": "done", "analysis": "{\"summary\":\"x\"} and that is all"}
//! });
//! let Outcome::Rejected(rejected) = tool.handle(Provider::Claude, &call) else { unreachable!() };
//! assert_eq!(rejected.error.class(), ErrorClass::Parameter);
//! assert_eq!(rejected.error.cause(), Some(ParameterCause::StringifiedDeclined));
//! # Ok::<(), submit_result::BuildError>(())
//! ```
//!
//! # Details
//!
//! - [`SubmitTool`] is built once from a response type (or, with
//!   [`SubmitTool::from_json_schema`], from a JSON Schema document); it holds the payload schema
//!   and the four definitions, and parses calls with [`SubmitTool::handle`].
//! - [`Options`] adjusts names, descriptions, `flat`, `omit_reasoning`, omitted fields, strict
//!   mode and the Gemini schema form; [`Options::from_tag`] reads the tag grammar at run time.
//! - [`agent`] is the tool loop whose executor ends a run on an accepted, validated submit.
//!
//! # Crates
//!
//! This crate is the public face of a workspace of crates, one concept each:
//!
//! - `submit-meta`: the tool's metadata and the tag grammar, shared by the derive and
//!   [`Options::from_tag`].
//! - `submit-core`: options, schemas, the four providers' definitions and call shapes, and
//!   the parser ([`SubmitTool`]).
//! - `submit-derive`: `#[derive(SubmitResult)]`, reading `#[submit_result(...)]`.
//! - `submit-agent`: the tool loop, its executor, the provider transports and MCP tools
//!   ([`agent`]).
//! - This crate: the re-exports above, and the submit tool in other crates' types behind
//!   their features (`openai` for async-openai, `rig` for rig).
//! - `submit-cli`: the `submit-result` command-line tool.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub use submit_core::{parallel_entries, ParallelEntry, PARALLEL_WRAPPER};
pub use submit_core::{
    Accepted, Arguments, BuildError, ErrorClass, GeminiSchema, Metadata, MetadataError,
    MetadataErrors, MetadataKey, Options, Outcome, Overrides, ParameterCause, Provider, Recovery,
    RecoveryKind, Rejected, SubmitError, SubmitResult, SubmitTool, TextFormat, UnknownProvider,
};
pub use submit_core::{Call, CallRecord, CallShapeError, Incoming, StopReason, Trace};

/// Derives [`SubmitResult`](trait@SubmitResult) from `#[submit_result(...)]` on a response type.
///
/// ```
/// use submit_result::{SubmitResult, SubmitTool};
///
/// #[derive(serde::Deserialize, schemars::JsonSchema, SubmitResult)]
/// #[submit_result(name = "submit_analysis", payload = "analysis")]
/// struct Analysis {
///     summary: String,
/// }
///
/// let tool = SubmitTool::<Analysis>::for_response()?;
/// assert_eq!(tool.name(), "submit_analysis");
/// assert_eq!(tool.payload_field(), "analysis");
/// # Ok::<(), submit_result::BuildError>(())
/// ```
///
/// The type must also implement `serde::Deserialize` (it is what the payload decodes into)
/// and `schemars::JsonSchema` (it is what the tool advertises). Without `#[submit_result]`,
/// every default applies.
///
/// # Keys
///
/// | attribute spelling | tag spelling | sets | default |
/// |---|---|---|---|
/// | `name = "..."` | `name=...` | the tool name, matching `^[A-Za-z0-9_-]{1,64}$` | `submit_result` |
/// | `description = "..."` | `description=...` | the tool description | a text saying the call is terminal and final |
/// | `success = "..."` | `success=...` | the `message` of the success tool result | `Result submitted successfully.` |
/// | `payload = "..."` | `payload=...` | the payload parameter's name, matching `^[A-Za-z0-9_-]{1,64}$` | `result` |
/// | `payload_description = "..."` | `payloadDescription=...` | the payload parameter's description | `Structured result payload.` |
/// | `flat`, `flat = true`, `flat = false` | `flat`, `flat=true`, `flat=false` | advertise each payload field as its own parameter | off |
/// | `omit_reasoning`, `omit_reasoning = true`, `omit_reasoning = false` | `omitReasoning`, `omitReasoning=true`, `omitReasoning=false` | drop the `reasoning` parameter | off |
/// | `crate = "..."` | — | the path generated code reaches this crate through | `::submit_result` |
///
/// # Attribute spelling
///
/// `key = "value"` pairs, with `flat` and `omit_reasoning` alone or set to `true`/`false`:
///
/// ```
/// use submit_result::SubmitResult;
///
/// #[derive(serde::Deserialize, schemars::JsonSchema, SubmitResult)]
/// #[submit_result(
///     name = "submit_analysis",
///     description = "Submit the analysis.",
///     payload = "analysis",
///     payload_description = "The analysis.",
///     success = "Analysis recorded.",
///     flat,
///     omit_reasoning = false,
/// )]
/// struct Analysis {
///     summary: String,
/// }
///
/// let metadata = Analysis::metadata();
/// assert_eq!(metadata.name.as_deref(), Some("submit_analysis"));
/// assert_eq!(metadata.description.as_deref(), Some("Submit the analysis."));
/// assert_eq!(metadata.payload.as_deref(), Some("analysis"));
/// assert_eq!(metadata.payload_description.as_deref(), Some("The analysis."));
/// assert_eq!(metadata.success.as_deref(), Some("Analysis recorded."));
/// assert!(metadata.flat);
/// assert!(!metadata.omit_reasoning);
/// ```
///
/// # Tag spelling
///
/// One string literal in the grammar [`Options::from_tag`] reads at run time, with the same
/// keys and the same mistakes: commas split `key=value` parts, `\,` is a literal comma, parts
/// and values are trimmed, keys match without regard to case, and `payloadDescription` and
/// `omitReasoning` may also be written `payload_description` and `omit_reasoning`.
///
/// ```
/// use submit_result::{Metadata, SubmitResult};
///
/// #[derive(serde::Deserialize, schemars::JsonSchema, SubmitResult)]
/// #[submit_result("name=submit_decision,payloadDescription=Escalate\\, block\\, or approve.,flat")]
/// struct Decision {
///     verdict: String,
/// }
///
/// let metadata = Decision::metadata();
/// assert_eq!(metadata.payload_description.as_deref(), Some("Escalate, block, or approve."));
/// assert_eq!(
///     metadata,
///     Metadata::from_tag("name=submit_decision,payloadDescription=Escalate\\, block\\, or approve.,flat")?,
/// );
/// # Ok::<(), submit_result::MetadataErrors>(())
/// ```
///
/// # Mixing spellings
///
/// The attribute may be repeated, each in either spelling. A key may still be given only once
/// over all of them.
///
/// ```
/// use submit_result::SubmitResult;
///
/// #[derive(serde::Deserialize, schemars::JsonSchema, SubmitResult)]
/// #[submit_result(name = "submit_review", success = "Review recorded.")]
/// #[submit_result("payload=review,omitReasoning")]
/// struct Review {
///     score: u8,
/// }
///
/// let metadata = Review::metadata();
/// assert_eq!(metadata.name.as_deref(), Some("submit_review"));
/// assert_eq!(metadata.payload.as_deref(), Some("review"));
/// assert!(metadata.omit_reasoning);
/// ```
///
/// # `flat` and `omit_reasoning`
///
/// `flat` advertises each field of the payload as a parameter beside `reasoning`, instead of
/// one nested `result` object, so it needs a struct with named fields. No field may then be
/// advertised as `reasoning` (by its name, a serde `rename`, or the container's `rename_all`)
/// unless `omit_reasoning` drops that parameter:
///
/// ```
/// use submit_result::SubmitResult;
///
/// #[derive(serde::Deserialize, schemars::JsonSchema, SubmitResult)]
/// #[submit_result(flat, omit_reasoning)]
/// struct Verdict {
///     reasoning: String,
///     approve: bool,
/// }
///
/// assert!(Verdict::metadata().flat && Verdict::metadata().omit_reasoning);
/// ```
///
/// # Generic types
///
/// A generic type implements the trait whenever it is `Deserialize` and `JsonSchema`:
///
/// ```
/// use submit_result::SubmitResult;
///
/// #[derive(serde::Deserialize, schemars::JsonSchema, SubmitResult)]
/// #[submit_result(name = "submit_page")]
/// struct Page<T> {
///     items: Vec<T>,
/// }
///
/// assert_eq!(Page::<String>::metadata().name.as_deref(), Some("submit_page"));
/// ```
///
/// # `crate = "..."`
///
/// Generated code reaches this crate as `::submit_result`. A crate that re-exports it under
/// another path says so:
///
/// ```
/// mod wrapper {
///     pub use submit_result::*;
/// }
///
/// #[derive(serde::Deserialize, schemars::JsonSchema, wrapper::SubmitResult)]
/// #[submit_result(crate = "wrapper", name = "submit_wrapped")]
/// struct Wrapped {
///     summary: String,
/// }
///
/// use wrapper::SubmitResult as _;
/// assert_eq!(Wrapped::metadata().name.as_deref(), Some("submit_wrapped"));
/// ```
///
/// # Mistakes are compile errors
///
/// Each is reported on the token at fault, all of one derive together: an unknown key (with
/// the nearest known key suggested), a duplicate key (across attributes and spellings too), an
/// empty value, a `flat` or `omit_reasoning` that is not `true` or `false`, a value that is not
/// a string where one is expected, a tool or payload name outside `^[A-Za-z0-9_-]{1,64}$`, a
/// payload named `reasoning` without `omit_reasoning`, `flat` on anything but a struct with
/// named fields, and under `flat` a field advertised as `reasoning` without `omit_reasoning`.
///
/// ```compile_fail
/// use submit_result::SubmitResult;
///
/// #[derive(serde::Deserialize, schemars::JsonSchema, SubmitResult)]
/// #[submit_result(nmae = "submit_analysis")] // did you mean `name`?
/// struct Analysis {
///     summary: String,
/// }
/// ```
#[cfg(feature = "derive")]
pub use submit_derive::SubmitResult;

/// The tool loop and the executor.
pub use submit_agent as agent;

#[cfg(feature = "async-openai")]
pub mod openai;

#[cfg(feature = "rig")]
pub mod rig;

#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

// Not public API. Referenced by macro-generated code.
#[doc(hidden)]
pub mod __private {
    #[doc(hidden)]
    pub use schemars::JsonSchema;
    #[doc(hidden)]
    pub use serde::de::DeserializeOwned;
    #[doc(hidden)]
    pub use std::borrow::Cow;
    #[doc(hidden)]
    pub use submit_core::{Metadata, SubmitResult};
}
