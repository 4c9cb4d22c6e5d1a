//! The answer of the last export: the bytes the package reads (JSON, or an error's text) and
//! what they hold.
//!
//! The module is single-threaded (WebAssembly without threads), so one answer is kept at a
//! time; each export replaces it.

use std::cell::RefCell;

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, SerializeStruct, Serializer};
use serde_json::value::RawValue;
use serde_json::Value;
use submit_core::{CallShapeError, Outcome, Recovery, SubmitTool};

/// What an export's answer holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum Status {
    /// JSON: an outcome, a definition or a tool's description.
    Answer = 0,
    /// Nothing: no call of the tool (a wrapper without an entry of it, a text without a call).
    NoCall = 1,
    /// The text of a [`CallShapeError`]: the call is not a call in the provider's shape.
    NotACall = 2,
    /// The text of a build error: the schema or the options do not make a tool.
    BuildError = 3,
    /// The text of an unknown provider's error.
    UnknownProvider = 4,
    /// The text of what is wrong with what the package passed (not UTF-8, not JSON).
    Invalid = 5,
}

thread_local! {
    static ANSWER: RefCell<(Status, Vec<u8>)> = const { RefCell::new((Status::Answer, Vec::new())) };
}

pub(crate) fn ptr() -> *const u8 {
    ANSWER.with(|answer| answer.borrow().1.as_ptr())
}

pub(crate) fn len() -> usize {
    ANSWER.with(|answer| answer.borrow().1.len())
}

pub(crate) fn status() -> Status {
    ANSWER.with(|answer| answer.borrow().0)
}

pub(crate) fn set_status(status: Status) {
    ANSWER.with(|answer| answer.borrow_mut().0 = status);
}

/// The answer is `text`.
pub(crate) fn set_text(text: &str) {
    ANSWER.with(|answer| {
        let bytes = &mut answer.borrow_mut().1;
        bytes.clear();
        bytes.extend_from_slice(text.as_bytes());
    });
}

/// The answer is the JSON of `value`.
pub(crate) fn set_json(value: &impl Serialize) {
    ANSWER.with(|answer| {
        let bytes = &mut answer.borrow_mut().1;
        bytes.clear();
        if let Err(error) = serde_json::to_writer(&mut *bytes, value) {
            // Only a map with keys that are no strings fails; none is written here.
            bytes.clear();
            bytes.extend_from_slice(format!("{{\"error\": {:?}}}", error.to_string()).as_bytes());
        }
    });
}

/// An export's status: the answer's, or the error's whose text was set.
pub(crate) fn finish(result: Result<Status, Status>) -> u32 {
    let status = result.unwrap_or_else(|status| status);
    set_status(status);
    status as u32
}

/// The answer of the door: the outcome, nothing, or the shape error's text.
pub(crate) fn received(received: Result<Option<Outcome<Value>>, CallShapeError>) -> Status {
    received_from(received, None)
}

/// The answer of the door on argument text at hand: as [`received`], with a clean accepted
/// payload written as the model's own text (see [`Source`]).
pub(crate) fn received_from(
    received: Result<Option<Outcome<Value>>, CallShapeError>,
    source: Option<Source<'_>>,
) -> Status {
    match received {
        Ok(found) => outcome_from(found, source),
        Err(shape) => {
            set_text(&shape.to_string());
            Status::NotACall
        }
    }
}

/// The answer of an outcome, or nothing.
pub(crate) fn outcome(found: Option<Outcome<Value>>) -> Status {
    outcome_from(found, None)
}

fn outcome_from(found: Option<Outcome<Value>>, source: Option<Source<'_>>) -> Status {
    match found {
        Some(outcome) => {
            let raw = match (&outcome, source) {
                (Outcome::Accepted(accepted), Some(source)) if accepted.recoveries.is_empty() => {
                    source.payload_text()
                }
                _ => None,
            };
            set_json(&JsOutcome(&outcome, raw));
            Status::Answer
        }
        None => Status::NoCall,
    }
}

/// The argument text a call was judged on, and the payload parameter's name, where the
/// tool's response is the payload member's value unchanged: a nested payload without strict
/// mode's `null` removal. For a call accepted with no recovery the response is then the value
/// of that member's text, so the answer carries the text as the model wrote it instead of the
/// value written again (the package's `JSON.parse` reads the same value from either; writing
/// the value is a fifth of the module's time on a large call).
#[derive(Clone, Copy)]
pub(crate) struct Source<'a> {
    pub(crate) arguments: &'a str,
    pub(crate) payload: &'a str,
}

impl<'a> Source<'a> {
    /// The payload member's JSON text; `None` when the text is not one object holding it, or
    /// when it escapes half of a surrogate pair (which a value can never hold, so the value's
    /// own text is written then).
    fn payload_text(self) -> Option<&'a RawValue> {
        let mut deserializer = serde_json::Deserializer::from_str(self.arguments);
        let found = MemberText(self.payload)
            .deserialize(&mut deserializer)
            .ok()??;
        deserializer.end().ok()?;
        let escapes_surrogate = found
            .get()
            .as_bytes()
            .windows(3)
            .any(|w| w[0] == b'\\' && w[1] == b'u' && w[2].eq_ignore_ascii_case(&b'd'));
        (!escapes_surrogate).then_some(found)
    }
}

/// Reads one object's members, keeping the text of the member named `.0` (the last one, as a
/// value keeps it; an accepted call names each member once).
struct MemberText<'n>(&'n str);

impl<'de> DeserializeSeed<'de> for MemberText<'_> {
    type Value = Option<&'de RawValue>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for MemberText<'_> {
    type Value = Option<&'de RawValue>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the arguments object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut found = None;
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            if key == self.0 {
                found = Some(map.next_value::<&'de RawValue>()?);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(found)
    }
}

/// The answer describing a built tool.
pub(crate) fn describe(tool: &SubmitTool<Value>) {
    set_json(&Description(tool));
}

/// An outcome as the package's discriminated union: `{"accepted": true, "response",
/// "reasoning", "recovery", "recoveries", "toolResult"}` or `{"accepted": false, "errorClass",
/// "cause", "message", "trace", "toolResult"}`. The response is written from `.1`, its own
/// text, when that is given.
struct JsOutcome<'a>(&'a Outcome<Value>, Option<&'a RawValue>);

impl Serialize for JsOutcome<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(6))?;
        match self.0 {
            Outcome::Accepted(accepted) => {
                map.serialize_entry("accepted", &true)?;
                match self.1 {
                    Some(text) => map.serialize_entry("response", text)?,
                    None => map.serialize_entry("response", &accepted.response)?,
                }
                map.serialize_entry("reasoning", &accepted.reasoning)?;
                map.serialize_entry("recovery", &accepted.recovery())?;
                let recoveries: Vec<JsRecovery<'_>> =
                    accepted.recoveries.iter().map(JsRecovery).collect();
                map.serialize_entry("recoveries", &recoveries)?;
                map.serialize_entry("toolResult", &accepted.tool_result)?;
            }
            Outcome::Rejected(rejected) => {
                map.serialize_entry("accepted", &false)?;
                map.serialize_entry("errorClass", &rejected.error.class())?;
                map.serialize_entry("cause", &rejected.error.cause())?;
                map.serialize_entry("message", rejected.error.message())?;
                map.serialize_entry("trace", &rejected.error.trace_text())?;
                map.serialize_entry("toolResult", &rejected.tool_result)?;
            }
        }
        map.end()
    }
}

/// A recovery: `{"kind", "parameters", "format"?}`.
struct JsRecovery<'a>(&'a Recovery);

impl Serialize for JsRecovery<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let recovery = self.0;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("kind", recovery.kind.as_str())?;
        map.serialize_entry("parameters", &recovery.parameters)?;
        if let Some(format) = recovery.format {
            map.serialize_entry("format", format.as_str())?;
        }
        map.end()
    }
}

/// What a built tool is: its names, texts and flags, and the full payload schema.
struct Description<'a>(&'a SubmitTool<Value>);

impl Serialize for Description<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let tool = self.0;
        let mut state = serializer.serialize_struct("Description", 9)?;
        state.serialize_field("name", tool.name())?;
        state.serialize_field("payload", tool.payload_field())?;
        state.serialize_field("description", tool.description())?;
        state.serialize_field("payloadDescription", tool.payload_description())?;
        state.serialize_field("success", tool.success_message())?;
        state.serialize_field("flat", &tool.is_flat())?;
        state.serialize_field("omitReasoning", &tool.omits_reasoning())?;
        state.serialize_field("omitFields", tool.omitted_payload_fields())?;
        state.serialize_field("payloadSchema", tool.payload_schema())?;
        state.end()
    }
}
