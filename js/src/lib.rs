//! The submit parser as a WebAssembly module for the npm package `submit-result`: a tool built
//! from a JSON Schema document, its four provider definitions, and the handling of a call as
//! each provider's SDK gives it, through the one door of submit-core.
//!
//! The module speaks a small C ABI, JSON in and out: the JavaScript side writes UTF-8 into
//! memory it took with [`sr_alloc`], calls an export, and reads the answer (JSON, or the text of
//! an error) from [`sr_answer_ptr`] and [`sr_answer_len`]. Each export returns a [`Status`]
//! saying what the answer holds. A tool lives behind the pointer [`sr_tool_new`] gives until
//! [`sr_tool_free`].

mod answer;
mod random;

use std::alloc::Layout;

use serde::Deserialize;
use serde_json::Value;
use submit_core::{Arguments, Incoming, Options, Overrides, Provider, StopReason, SubmitTool};

use answer::Source;
pub use answer::Status;

/// The options of a tool as the package passes them (the constructor's options, checked for
/// their types by the package).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ToolOptions {
    name: Option<String>,
    description: Option<String>,
    payload: Option<String>,
    payload_description: Option<String>,
    success: Option<String>,
    #[serde(default)]
    flat: bool,
    #[serde(default)]
    omit_reasoning: bool,
    #[serde(default)]
    omit_fields: Vec<String>,
    #[serde(default)]
    strict: bool,
}

impl ToolOptions {
    fn into_options(self) -> Options {
        Options::new().with_overrides(Overrides {
            name: self.name,
            description: self.description,
            payload: self.payload,
            payload_description: self.payload_description,
            success: self.success,
            flat: Some(self.flat),
            omit_reasoning: Some(self.omit_reasoning),
            omit_fields: Some(self.omit_fields),
            strict: Some(self.strict),
        })
    }
}

/// A built tool, as the package holds it.
pub struct Tool {
    tool: SubmitTool<Value>,
    /// Whether a clean call's response is its payload member's value unchanged: a nested
    /// payload, without strict mode (which removes optional `null`s).
    payload_as_written: bool,
}

impl Tool {
    /// Where the answer may take a clean call's payload from its argument text.
    fn source<'a>(&'a self, arguments: &'a str) -> Option<Source<'a>> {
        self.payload_as_written.then(|| Source {
            arguments,
            payload: self.tool.payload_field(),
        })
    }
}

/// The bytes `len` bytes from `ptr`, written by the package.
///
/// # Safety
///
/// `ptr` is null with `len` 0, or points to `len` initialized bytes this module allocated.
unsafe fn bytes<'a>(ptr: *const u8, len: usize) -> &'a [u8] {
    if ptr.is_null() || len == 0 {
        return &[];
    }
    // SAFETY: the caller's contract above.
    unsafe { std::slice::from_raw_parts(ptr, len) }
}

/// The text `len` bytes from `ptr`; the package writes only UTF-8 (`TextEncoder`), and
/// anything else is refused as [`Status::Invalid`].
///
/// # Safety
///
/// As for [`bytes`].
unsafe fn text<'a>(ptr: *const u8, len: usize) -> Result<&'a str, Status> {
    // SAFETY: the caller's contract.
    std::str::from_utf8(unsafe { bytes(ptr, len) }).map_err(|error| {
        answer::set_text(&format!("not UTF-8 text: {error}"));
        Status::Invalid
    })
}

/// The provider of a name, or [`Status::UnknownProvider`] with the core's message.
fn provider(name: &str) -> Result<Provider, Status> {
    name.parse::<Provider>().map_err(|error| {
        answer::set_text(&error.to_string());
        Status::UnknownProvider
    })
}

/// How a turn ended, from its finish reason in `providers`' spelling (any of them that reads it
/// as the output-token limit); an empty reason is a turn that ended as usual.
fn stop_of(reason: &str, providers: &[Provider]) -> StopReason {
    if reason.is_empty() {
        return StopReason::Complete;
    }
    if providers
        .iter()
        .any(|provider| provider.stop_reason(reason) == StopReason::OutputLimit)
    {
        StopReason::OutputLimit
    } else {
        StopReason::Complete
    }
}

/// `len` bytes of this module's memory for the package to write into; null when `len` is
/// beyond what one allocation can hold. Free it with [`sr_free`] and the same `len`.
#[no_mangle]
pub extern "C" fn sr_alloc(len: usize) -> *mut u8 {
    if len == 0 {
        return std::ptr::NonNull::<u8>::dangling().as_ptr();
    }
    match Layout::array::<u8>(len) {
        // SAFETY: the layout's size is not zero.
        Ok(layout) => unsafe { std::alloc::alloc(layout) },
        Err(_) => std::ptr::null_mut(),
    }
}

/// Frees memory [`sr_alloc`] gave for `len` bytes.
///
/// # Safety
///
/// `ptr` came from `sr_alloc(len)` and is not used again.
#[no_mangle]
pub unsafe extern "C" fn sr_free(ptr: *mut u8, len: usize) {
    if ptr.is_null() || len == 0 {
        return;
    }
    if let Ok(layout) = Layout::array::<u8>(len) {
        // SAFETY: the caller's contract: allocated with this layout.
        unsafe { std::alloc::dealloc(ptr, layout) }
    }
}

/// Where the last answer starts.
#[no_mangle]
pub extern "C" fn sr_answer_ptr() -> *const u8 {
    answer::ptr()
}

/// How many bytes the last answer holds.
#[no_mangle]
pub extern "C" fn sr_answer_len() -> usize {
    answer::len()
}

/// Builds a tool from the JSON text of a schema document and of its options. On success the
/// answer is the tool's description (`{"name", "payload", …}`, see [`answer::describe`]) and the
/// tool's pointer is returned; on failure null, with the error's text as the answer and
/// [`sr_status`] saying which error.
///
/// # Safety
///
/// Each pointer and length is a region [`sr_alloc`] gave, written by the package.
#[no_mangle]
pub unsafe extern "C" fn sr_tool_new(
    schema: *const u8,
    schema_len: usize,
    options: *const u8,
    options_len: usize,
) -> *mut Tool {
    // SAFETY: the caller's contract.
    let built = unsafe { build(bytes(schema, schema_len), bytes(options, options_len)) };
    match built {
        Ok((tool, strict)) => {
            answer::describe(&tool);
            answer::set_status(Status::Answer);
            let payload_as_written = !tool.is_flat() && !strict;
            Box::into_raw(Box::new(Tool {
                tool,
                payload_as_written,
            }))
        }
        Err(status) => {
            answer::set_status(status);
            std::ptr::null_mut()
        }
    }
}

/// The tool, and whether it is strict.
fn build(schema: &[u8], options: &[u8]) -> Result<(SubmitTool<Value>, bool), Status> {
    let schema: Value = serde_json::from_slice(schema).map_err(|error| {
        answer::set_text(&format!("the schema is not JSON: {error}"));
        Status::Invalid
    })?;
    let options: ToolOptions = serde_json::from_slice(options).map_err(|error| {
        answer::set_text(&format!("invalid options: {error}"));
        Status::Invalid
    })?;
    let strict = options.strict;
    let tool = SubmitTool::from_json_schema(schema, options.into_options()).map_err(|error| {
        answer::set_text(&error.to_string());
        Status::BuildError
    })?;
    Ok((tool, strict))
}

/// The status of the last [`sr_tool_new`].
#[no_mangle]
pub extern "C" fn sr_status() -> u32 {
    answer::status() as u32
}

/// Frees a tool.
///
/// # Safety
///
/// `tool` came from [`sr_tool_new`] and is not used again.
#[no_mangle]
pub unsafe extern "C" fn sr_tool_free(tool: *mut Tool) {
    if !tool.is_null() {
        // SAFETY: the caller's contract: a box this module made.
        drop(unsafe { Box::from_raw(tool) });
    }
}

/// The tool's definition for the provider named by the text at `provider`: the answer is its
/// JSON.
///
/// # Safety
///
/// `tool` came from [`sr_tool_new`]; the region is one [`sr_alloc`] gave.
#[no_mangle]
pub unsafe extern "C" fn sr_definition(
    tool: *const Tool,
    provider: *const u8,
    provider_len: usize,
) -> u32 {
    // SAFETY: the caller's contract.
    let (tool, name) = unsafe { (&(*tool).tool, text(provider, provider_len)) };
    let found = name.and_then(self::provider);
    answer::finish(found.map(|provider| {
        answer::set_json(&tool.definition(provider));
        Status::Answer
    }))
}

/// Handles a call in `provider`'s shape, given as its JSON bytes, through the door; `reason`
/// is how the turn ended in the provider's spelling (empty: as usual). The answer is the
/// outcome ([`Status::Answer`]), nothing ([`Status::NoCall`]: a wrapper with no entry of the
/// tool), or the text of a shape error ([`Status::NotACall`]).
///
/// # Safety
///
/// `tool` came from [`sr_tool_new`]; each region is one [`sr_alloc`] gave.
#[no_mangle]
pub unsafe extern "C" fn sr_handle(
    tool: *const Tool,
    provider: *const u8,
    provider_len: usize,
    call: *const u8,
    call_len: usize,
    reason: *const u8,
    reason_len: usize,
) -> u32 {
    // SAFETY: the caller's contract.
    let (tool, name, call, reason) = unsafe {
        (
            &(*tool).tool,
            text(provider, provider_len),
            bytes(call, call_len),
            text(reason, reason_len),
        )
    };
    answer::finish(name.and_then(self::provider).and_then(|provider| {
        let stop = stop_of(reason?, &[provider]);
        Ok(answer::received(
            tool.receive(Incoming::call_json(provider, call).stop(stop)),
        ))
    }))
}

/// Handles a call's arguments alone, as the JSON text of the arguments value (the AI SDK's
/// tool-call `input`: an OpenAI `arguments` string as sent, an Anthropic `input` or Gemini
/// `args` value as its JSON), called under the name at `name` (empty: the tool's own); `limit` is 1 when the call is the last of a turn cut at the
/// output-token limit. The answer is as [`sr_handle`]'s.
///
/// # Safety
///
/// `tool` came from [`sr_tool_new`]; each region is one [`sr_alloc`] gave.
#[no_mangle]
pub unsafe extern "C" fn sr_handle_arguments(
    tool: *const Tool,
    name: *const u8,
    name_len: usize,
    arguments: *const u8,
    arguments_len: usize,
    limit: u32,
) -> u32 {
    // SAFETY: the caller's contract.
    let (tool, name, arguments) =
        unsafe { (&*tool, text(name, name_len), text(arguments, arguments_len)) };
    answer::finish(name.and_then(|name| {
        let stop = if limit == 1 {
            StopReason::OutputLimit
        } else {
            StopReason::Complete
        };
        let name = (!name.is_empty()).then_some(name);
        let arguments = arguments?;
        let incoming = Incoming::arguments_json(name, arguments).stop(stop);
        // An object is read as argument text (a string is argument text encoded once, which a
        // clean call never is).
        let source = tool.source(arguments);
        Ok(answer::received_from(tool.tool.receive(incoming), source))
    }))
}

/// Handles an OpenAI call (Chat tool call or Responses function call) whose `arguments` string
/// is given apart as its text, unescaped: `envelope` is the call's JSON with `arguments`
/// written as `""`, and `name` the call's `name` as the envelope holds it. The envelope is
/// read through the door for its shape alone (which never depends on the content of the
/// `arguments` string); the arguments are then judged as the door judges the whole call's,
/// without the module reading them out of an escaped JSON string first. The answer is as
/// [`sr_handle`]'s.
///
/// # Safety
///
/// `tool` came from [`sr_tool_new`]; each region is one [`sr_alloc`] gave.
#[no_mangle]
pub unsafe extern "C" fn sr_handle_openai(
    tool: *const Tool,
    provider: *const u8,
    provider_len: usize,
    envelope: *const u8,
    envelope_len: usize,
    name: *const u8,
    name_len: usize,
    arguments: *const u8,
    arguments_len: usize,
    reason: *const u8,
    reason_len: usize,
) -> u32 {
    // SAFETY: the caller's contract.
    let (tool, provider, envelope, name, arguments, reason) = unsafe {
        (
            &*tool,
            text(provider, provider_len),
            bytes(envelope, envelope_len),
            text(name, name_len),
            text(arguments, arguments_len),
            text(reason, reason_len),
        )
    };
    let handled = provider.and_then(self::provider).and_then(|provider| {
        if !matches!(provider, Provider::OpenAiChat | Provider::OpenAiResponses) {
            answer::set_text("the arguments are given apart only for an OpenAI call");
            return Err(Status::Invalid);
        }
        let stop = stop_of(reason?, &[provider]);
        if let Err(shape) = tool.tool.receive(Incoming::call_json(provider, envelope)) {
            return Ok(answer::received(Err(shape)));
        }
        let arguments = arguments?;
        let incoming = Incoming::arguments(Some(name?), Arguments::Text(arguments)).stop(stop);
        let source = tool.source(arguments);
        Ok(answer::received_from(tool.tool.receive(incoming), source))
    });
    answer::finish(handled)
}

/// Reads a model's visible text turn for a call of the tool written as text and handles it;
/// `reason` is how the turn ended, in the spelling of the provider named at `provider` (empty:
/// any provider's). The answer is the outcome, or nothing ([`Status::NoCall`]) when the text
/// holds no call of the tool.
///
/// # Safety
///
/// `tool` came from [`sr_tool_new`]; each region is one [`sr_alloc`] gave.
#[no_mangle]
pub unsafe extern "C" fn sr_handle_text(
    tool: *const Tool,
    turn: *const u8,
    turn_len: usize,
    reason: *const u8,
    reason_len: usize,
    provider: *const u8,
    provider_len: usize,
) -> u32 {
    // SAFETY: the caller's contract.
    let (tool, turn, reason, name) = unsafe {
        (
            &(*tool).tool,
            text(turn, turn_len),
            text(reason, reason_len),
            text(provider, provider_len),
        )
    };
    let handled = name.and_then(|name| {
        let providers = if name.is_empty() {
            Provider::ALL.to_vec()
        } else {
            vec![self::provider(name)?]
        };
        let stop = stop_of(reason?, &providers);
        Ok(answer::outcome(tool.handle_text(turn?, stop)))
    });
    answer::finish(handled)
}

/// Where a call of the tool written as text may begin in a visible turn still arriving (see
/// `SubmitTool::text_call_start`), in UTF-16 code units from the start of the text, as
/// JavaScript indexes a string; `u32::MAX` when no part of the text can belong to a call.
///
/// # Safety
///
/// `tool` came from [`sr_tool_new`]; the region is one [`sr_alloc`] gave.
#[no_mangle]
pub unsafe extern "C" fn sr_text_call_start(
    tool: *const Tool,
    turn: *const u8,
    turn_len: usize,
) -> u32 {
    // SAFETY: the caller's contract.
    let (tool, turn) = unsafe { (&(*tool).tool, text(turn, turn_len)) };
    let Ok(turn) = turn else {
        return u32::MAX;
    };
    tool.text_call_start(turn)
        .and_then(|at| turn.get(..at))
        .and_then(|before| u32::try_from(before.encode_utf16().count()).ok())
        .unwrap_or(u32::MAX)
}
