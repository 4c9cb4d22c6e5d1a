//! What parsing a submit call yields.

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{json, Value};

use crate::error::SubmitError;

/// The result of handling one submit call.
///
/// Serializes as the command-line tool prints it: `{"accepted": true, "response", "reasoning",
/// "recovery", "recoveries", "tool_result"}` or `{"accepted": false, "class", "cause", "trace_error",
/// "tool_result"}`.
#[derive(Clone, Debug)]
pub enum Outcome<R> {
    /// The payload decoded; the executor may commit it after its validators pass.
    Accepted(Accepted<R>),
    /// The call was rejected; send `tool_result` back to the model.
    Rejected(Rejected),
}

/// Which rule of a recovery applied to an accepted submit: each kind, with an example, is on
/// the [recoveries](crate::rules::recoveries) page.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum RecoveryKind {
    /// The payload arrived JSON-encoded into a string.
    Stringified,
    /// The payload was written in reasoning after a `<parameter name="…">` opener.
    ReasoningOpener,
    /// The payload was written in reasoning as a `"<payload>": {…}` JSON member.
    ReasoningMember,
    /// Closing tokens (`}`, `]`, closing tags) followed the arguments object.
    TrailingClosers,
    /// The arguments were JSON-encoded twice (or `input`/`args` was a string).
    StringifiedArguments,
    /// The arguments (or a stringified payload) sat in a Markdown fence.
    FencedArguments,
    /// The arguments were wrapped in one extra member.
    WrappedArguments,
    /// Flat properties of a type that admits no string arrived as strings.
    StringifiedProperty,
    /// Tool-call markup (`</invoke>`, …) was left at the end of flat string properties.
    ClosingMarkup,
    /// The call arrived as text in the model's visible turn, in one of the
    /// [`TextFormat`]s a model template writes (named by [`Recovery::format`]).
    CallInText,
    /// The call arrived as an entry of an invented `multi_tool_use.parallel` wrapper call.
    ParallelWrapper,
    /// The arguments were the whole call: `{"name": <the tool>, "arguments": {…}}` (or
    /// `parameters`, `input`, `args`).
    WrappedCall,
    /// Values of the payload below its top level arrived as strings holding the value of the
    /// type the schema admits (`"90"`, `"true"`, `"[…]"`); `parameters` names each location
    /// as a JSON Pointer from the payload root.
    StringifiedValue,
    /// Enum values arrived in another letter case; `parameters` names each location as a JSON
    /// Pointer from the payload root.
    EnumCase,
}

impl RecoveryKind {
    /// The kind's name as it is serialized (`trailing_closers`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            RecoveryKind::Stringified => "stringified",
            RecoveryKind::ReasoningOpener => "reasoning_opener",
            RecoveryKind::ReasoningMember => "reasoning_member",
            RecoveryKind::TrailingClosers => "trailing_closers",
            RecoveryKind::StringifiedArguments => "stringified_arguments",
            RecoveryKind::FencedArguments => "fenced_arguments",
            RecoveryKind::WrappedArguments => "wrapped_arguments",
            RecoveryKind::StringifiedProperty => "stringified_property",
            RecoveryKind::ClosingMarkup => "closing_markup",
            RecoveryKind::CallInText => "call_in_text",
            RecoveryKind::ParallelWrapper => "parallel_wrapper",
            RecoveryKind::WrappedCall => "wrapped_call",
            RecoveryKind::StringifiedValue => "stringified_value",
            RecoveryKind::EnumCase => "enum_case",
        }
    }

    /// Whether the kind found the payload somewhere other than the payload parameter's object:
    /// [`Stringified`](RecoveryKind::Stringified),
    /// [`ReasoningOpener`](RecoveryKind::ReasoningOpener) or
    /// [`ReasoningMember`](RecoveryKind::ReasoningMember). The first such recovery is an
    /// accepted submit's [`recovery`](Accepted::recovery).
    pub fn locates_payload(self) -> bool {
        matches!(
            self,
            RecoveryKind::Stringified
                | RecoveryKind::ReasoningOpener
                | RecoveryKind::ReasoningMember
        )
    }

    /// Every kind, in the order they are listed here.
    pub const ALL: [RecoveryKind; 14] = [
        RecoveryKind::Stringified,
        RecoveryKind::ReasoningOpener,
        RecoveryKind::ReasoningMember,
        RecoveryKind::TrailingClosers,
        RecoveryKind::StringifiedArguments,
        RecoveryKind::FencedArguments,
        RecoveryKind::WrappedArguments,
        RecoveryKind::StringifiedProperty,
        RecoveryKind::ClosingMarkup,
        RecoveryKind::CallInText,
        RecoveryKind::ParallelWrapper,
        RecoveryKind::WrappedCall,
        RecoveryKind::StringifiedValue,
        RecoveryKind::EnumCase,
    ];
}

/// The format of a call a model wrote as text instead of making it: the chat template's own
/// tool-call syntax, which the inference server's tool parser missed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum TextFormat {
    /// `<tool_call>{"name": …, "arguments": {…}}</tool_call>` (Hermes, Qwen 2.5 and 3).
    Hermes,
    /// `<function=NAME><parameter=KEY>VALUE</parameter></function>` (Qwen3-Coder).
    XmlFunction,
    /// `<tool_call>NAME<arg_key>KEY</arg_key><arg_value>VALUE</arg_value></tool_call>` (GLM).
    Glm,
    /// `[TOOL_CALLS]…` (Mistral).
    Mistral,
    /// A whole turn that is one `{"name": …, "parameters": {…}}` object (Llama 3 and 4).
    LlamaJson,
    /// `<｜tool▁calls▁begin｜>…` (DeepSeek).
    Deepseek,
    /// `<|tool_calls_section_begin|>…` (Kimi).
    Kimi,
    /// `to=functions.NAME … <|message|>{…}` (gpt-oss).
    Harmony,
    /// `[NAME(k=v, …)]`, or Gemini's `MALFORMED_FUNCTION_CALL` message (Python call syntax).
    Pythonic,
}

impl TextFormat {
    /// The format's name as it is serialized (`hermes`, `xml_function`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            TextFormat::Hermes => "hermes",
            TextFormat::XmlFunction => "xml_function",
            TextFormat::Glm => "glm",
            TextFormat::Mistral => "mistral",
            TextFormat::LlamaJson => "llama_json",
            TextFormat::Deepseek => "deepseek",
            TextFormat::Kimi => "kimi",
            TextFormat::Harmony => "harmony",
            TextFormat::Pythonic => "pythonic",
        }
    }

    /// Every format, in the order they are listed here.
    pub const ALL: [TextFormat; 9] = [
        TextFormat::Hermes,
        TextFormat::XmlFunction,
        TextFormat::Glm,
        TextFormat::Mistral,
        TextFormat::LlamaJson,
        TextFormat::Deepseek,
        TextFormat::Kimi,
        TextFormat::Harmony,
        TextFormat::Pythonic,
    ];
}

/// A recovery that applied to an accepted submit: its [kind](RecoveryKind), the parameters it
/// touched (none for the arguments-level kinds; JSON Pointers from the payload root for the
/// kinds that name values inside it), and for a call written as text, its format.
///
/// ```
/// # extern crate submit_core as submit_result;
/// use submit_result::{Recovery, RecoveryKind};
///
/// let recovery = Recovery::naming(RecoveryKind::Stringified, vec!["result".to_owned()]);
/// assert_eq!(recovery.kind, RecoveryKind::Stringified);
/// assert_eq!(recovery.parameters, ["result"]);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct Recovery {
    /// Which rule.
    pub kind: RecoveryKind,
    /// The parameter names it touched, in schema order, or the JSON Pointers of the values it
    /// touched, in document order.
    pub parameters: Vec<String>,
    /// For [`RecoveryKind::CallInText`]: the format the call was written in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<TextFormat>,
}

impl Recovery {
    /// A rule that touched no parameter.
    pub fn new(kind: RecoveryKind) -> Self {
        Recovery {
            kind,
            parameters: Vec::new(),
            format: None,
        }
    }

    /// A rule that touched `parameters`.
    pub fn naming(kind: RecoveryKind, parameters: Vec<String>) -> Self {
        Recovery {
            kind,
            parameters,
            format: None,
        }
    }

    /// A call read out of the model's text in `format`.
    pub fn call_in_text(format: TextFormat) -> Self {
        Recovery {
            format: Some(format),
            ..Recovery::new(RecoveryKind::CallInText)
        }
    }
}

/// An accepted submit.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Accepted<R> {
    /// The decoded response.
    pub response: R,
    /// The final reasoning (`""` under `omit_reasoning`).
    pub reasoning: String,
    /// Every [recovery](crate::rules::recoveries) that applied, in the order applied (empty for a
    /// clean call).
    pub recoveries: Vec<Recovery>,
    /// `{"success": true, "message": <success message>}`.
    pub tool_result: Value,
}

impl<R> Accepted<R> {
    /// An accepted submit to which no recovery applied.
    ///
    /// ```
    /// # extern crate submit_core as submit_result;
    /// use serde_json::json;
    /// use submit_result::{Accepted, Recovery, RecoveryKind};
    ///
    /// let accepted = Accepted::new(json!({"answer": 42}), "checked".to_owned(), json!({"success": true}))
    ///     .with_recoveries(vec![Recovery::new(RecoveryKind::Stringified)]);
    /// assert_eq!(accepted.recovery(), Some(RecoveryKind::Stringified));
    /// ```
    pub fn new(response: R, reasoning: String, tool_result: Value) -> Self {
        Accepted {
            response,
            reasoning,
            recoveries: Vec::new(),
            tool_result,
        }
    }

    /// The same submit, with `recoveries` as the recoveries that applied.
    #[must_use]
    pub fn with_recoveries(mut self, recoveries: Vec<Recovery>) -> Self {
        self.recoveries = recoveries;
        self
    }

    /// Where the payload came from when it was not the payload parameter's object: the kind of
    /// the first recovery that found it ([`RecoveryKind::Stringified`],
    /// [`RecoveryKind::ReasoningOpener`] or [`RecoveryKind::ReasoningMember`]), `None` when the
    /// payload arrived as an object (even if other rules applied). This is the `"recovery"`
    /// field of the serialized outcome.
    pub fn recovery(&self) -> Option<RecoveryKind> {
        payload_recovery(&self.recoveries)
    }
}

/// The kind of the first of `recoveries` that found the payload somewhere other than the payload
/// parameter's object.
fn payload_recovery(recoveries: &[Recovery]) -> Option<RecoveryKind> {
    recoveries
        .iter()
        .map(|rule| rule.kind)
        .find(|kind| kind.locates_payload())
}

/// A rejected submit.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Rejected {
    /// The classified error.
    pub error: SubmitError,
    /// `{"error": <message>}`, what the model reads.
    pub tool_result: Value,
}

impl Rejected {
    /// A rejection whose tool result is `{"error": <the error's message>}`.
    pub fn new(error: SubmitError) -> Self {
        let tool_result = json!({ "error": error.message() });
        Rejected { error, tool_result }
    }
}

impl<R> Outcome<R> {
    /// Whether the submit was accepted.
    pub fn is_accepted(&self) -> bool {
        matches!(self, Outcome::Accepted(_))
    }

    /// The tool result to send back to the model.
    pub fn tool_result(&self) -> &Value {
        match self {
            Outcome::Accepted(accepted) => &accepted.tool_result,
            Outcome::Rejected(rejected) => &rejected.tool_result,
        }
    }

    /// The accepted submit, if it was accepted.
    pub fn accepted(&self) -> Option<&Accepted<R>> {
        match self {
            Outcome::Accepted(accepted) => Some(accepted),
            Outcome::Rejected(_) => None,
        }
    }

    /// The error, if the submit was rejected.
    pub fn error(&self) -> Option<&SubmitError> {
        match self {
            Outcome::Accepted(_) => None,
            Outcome::Rejected(rejected) => Some(&rejected.error),
        }
    }

    /// The accepted submit as a `Result`, the rejection as its error.
    #[allow(
        clippy::result_large_err,
        reason = "the same two values the enum holds, unboxed as the enum holds them"
    )]
    pub fn into_result(self) -> Result<Accepted<R>, Rejected> {
        match self {
            Outcome::Accepted(accepted) => Ok(accepted),
            Outcome::Rejected(rejected) => Err(rejected),
        }
    }
}

impl<R: Serialize> Serialize for Outcome<R> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        match self {
            Outcome::Accepted(accepted) => {
                map.serialize_entry("accepted", &true)?;
                map.serialize_entry("response", &accepted.response)?;
                map.serialize_entry("reasoning", &accepted.reasoning)?;
                map.serialize_entry("recovery", &accepted.recovery())?;
                map.serialize_entry("recoveries", &accepted.recoveries)?;
                map.serialize_entry("tool_result", &accepted.tool_result)?;
            }
            Outcome::Rejected(rejected) => {
                map.serialize_entry("accepted", &false)?;
                map.serialize_entry("class", &rejected.error.class())?;
                map.serialize_entry("cause", &rejected.error.cause())?;
                map.serialize_entry("trace_error", &rejected.error.trace_text())?;
                map.serialize_entry("tool_result", &rejected.tool_result)?;
            }
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ParameterCause;

    #[test]
    fn rejected_tool_result_carries_the_message() {
        let rejected = Rejected::new(SubmitError::Parameter {
            cause: ParameterCause::StringifiedDeclined,
            message: "m".into(),
            echo: Some("e".into()),
        });
        assert_eq!(rejected.tool_result, json!({"error": "m"}));
        let outcome = Outcome::<()>::Rejected(rejected);
        assert_eq!(
            serde_json::to_value(&outcome).unwrap(),
            json!({"accepted": false, "class": "parameter", "cause": "stringified_declined",
                   "trace_error": "parameter error: m (e)", "tool_result": {"error": "m"}})
        );
    }

    #[test]
    fn accepted_serializes_with_its_recovery() {
        let outcome = Outcome::Accepted(
            Accepted::new(
                json!({"a": 1}),
                "r".into(),
                json!({"success": true, "message": "ok"}),
            )
            .with_recoveries(vec![
                Recovery::new(RecoveryKind::TrailingClosers),
                Recovery::naming(RecoveryKind::ReasoningMember, vec!["analysis".into()]),
            ]),
        );
        assert_eq!(
            serde_json::to_value(&outcome).unwrap(),
            json!({"accepted": true, "response": {"a": 1}, "reasoning": "r",
                   "recovery": "reasoning_member",
                   "recoveries": [{"kind": "trailing_closers", "parameters": []},
                                  {"kind": "reasoning_member", "parameters": ["analysis"]}],
                   "tool_result": {"success": true, "message": "ok"}})
        );
    }

    #[test]
    fn payload_error_has_no_cause() {
        let outcome = Outcome::<()>::Rejected(Rejected::new(SubmitError::Payload {
            message: "failed to decode payload: x".into(),
        }));
        let value = serde_json::to_value(&outcome).unwrap();
        assert_eq!(value["class"], "payload");
        assert_eq!(value["cause"], Value::Null);
        assert_eq!(
            value["trace_error"],
            "payload error: failed to decode payload: x"
        );
    }
}
