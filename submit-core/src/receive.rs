//! The one door: a call handed over as it arrived, with everything the front end knows of it,
//! and the sequence every front end needs: read the call out of its provider's shape, take the
//! call out of a `multi_tool_use.parallel` wrapper (step *Where the call was found*), apply the
//! stop reason (step *Cut off at the output limit*), then every other step of the parsing
//! rules.

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::error::{ParameterCause, SubmitError};
use crate::outcome::{Outcome, Recovery, RecoveryKind};
use crate::parse::parallel::{parallel_entries, ParallelEntry, NOT_A_TOOL, PARALLEL_WRAPPER};
use crate::parse::Arguments;
use crate::provider::json::{self, JsonArguments};
use crate::provider::{CallShapeError, Provider};
use crate::stop::{self, StopReason};
use crate::tool::SubmitTool;

/// A call as it reached a front end: the call in the form it arrived in, and how the turn that
/// carried it ended.
///
/// Build it with the constructor for the form at hand and hand it to [`SubmitTool::receive`].
/// Where the call's bytes are at hand, hand over the bytes: the parser then reads the model's
/// own argument text, so a member written twice is seen (a parsed value has lost it).
///
/// ```
/// # extern crate submit_core as submit_result;
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use submit_result::{Incoming, Options, ParameterCause, Provider, StopReason, SubmitTool};
///
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct Answer {
///     text: String,
/// }
///
/// let tool = SubmitTool::<Answer>::new(Options::new())?;
/// // A tool_use block as the Messages API sent it: `reasoning` written twice.
/// let block = br#"{"type": "tool_use", "id": "toolu_1", "name": "submit_result",
///     "input": {"reasoning": "a", "reasoning": "b", "result": {"text": "42"}}}"#;
/// let outcome = tool.receive(Incoming::call_json(Provider::Claude, block))?.unwrap();
/// assert_eq!(
///     outcome.error().unwrap().message(),
///     "failed to parse tool arguments: \"reasoning\" appears twice; send each parameter once"
/// );
///
/// // The same call's last block in a turn that stopped at `max_tokens` is never accepted.
/// let block = br#"{"type": "tool_use", "id": "toolu_1", "name": "submit_result",
///     "input": {"reasoning": "a", "result": {"text": "42"}}}"#;
/// let cut = Incoming::call_json(Provider::Claude, block)
///     .stop(Provider::Claude.stop_reason("max_tokens"));
/// let outcome = tool.receive(cut)?.unwrap();
/// assert_eq!(outcome.error().unwrap().cause(), Some(ParameterCause::TruncatedCall));
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Incoming<'a> {
    arrival: Arrival<'a>,
    stop: StopReason,
}

/// How a call arrived: the form it arrived in.
#[derive(Clone, Copy, Debug)]
enum Arrival<'a> {
    Call(Provider, &'a Value),
    CallJson(Provider, &'a [u8]),
    Arguments(Option<&'a str>, Arguments<'a>),
    ArgumentsJson(Option<&'a str>, &'a str),
    Entry(&'a ParallelEntry),
}

impl<'a> Incoming<'a> {
    fn new(arrival: Arrival<'a>) -> Self {
        Incoming {
            arrival,
            stop: StopReason::Complete,
        }
    }

    /// A call in `provider`'s shape, as a JSON value: an Anthropic `tool_use` block, a Gemini
    /// `functionCall` part, an OpenAI Chat tool call or a Responses `function_call` item (see
    /// [`Provider::read_call`]).
    pub fn call(provider: Provider, call: &'a Value) -> Self {
        Incoming::new(Arrival::Call(provider, call))
    }

    /// A call in `provider`'s shape, as its JSON bytes. An `input` or `args` object is read
    /// from its own bytes as argument text, so a member written twice in it is seen; a string
    /// `input` or `args` is argument text encoded once, as in a value; the truncation rule's
    /// byte count for an object is still that of its compact JSON.
    pub fn call_json(provider: Provider, bytes: &'a [u8]) -> Self {
        Incoming::new(Arrival::CallJson(provider, bytes))
    }

    /// A call's arguments alone, called under `name` where it is known (a call named
    /// `multi_tool_use.parallel` is read as the wrapper).
    pub fn arguments(name: Option<&'a str>, arguments: Arguments<'a>) -> Self {
        Incoming::new(Arrival::Arguments(name, arguments))
    }

    /// A call's arguments as the JSON text of a value, called under `name` where it is known:
    /// an MCP `tools/call`'s `arguments`, cut from the message's bytes. An object is read as
    /// argument text; a string is argument text encoded once, read as a string `input` is;
    /// anything else is read as its value (text that is no JSON as argument text, which the
    /// parser rejects saying why).
    pub fn arguments_json(name: Option<&'a str>, text: &'a str) -> Self {
        Incoming::new(Arrival::ArgumentsJson(name, text))
    }

    /// One entry of a `multi_tool_use.parallel` wrapper naming the tool (see
    /// [`parallel_entries`](crate::parallel_entries)): a loop that runs the wrapper's other
    /// entries hands over the tool's own one.
    pub fn parallel_entry(entry: &'a ParallelEntry) -> Self {
        Incoming::new(Arrival::Entry(entry))
    }

    /// How the turn that carried the call ended, as it bears on this call: pass
    /// [`StopReason::OutputLimit`] only for the **last** tool call of a turn that stopped at
    /// the output-token limit (in a wrapper, only its last entry is cut). Without it, the call
    /// is complete.
    #[must_use]
    pub fn stop(mut self, stop: StopReason) -> Self {
        self.stop = stop;
        self
    }
}

impl<R: DeserializeOwned> SubmitTool<R> {
    /// The one door: gives the verdict on a call as it arrived.
    ///
    /// It reads the call out of its provider's shape, takes the call out of a
    /// `multi_tool_use.parallel` wrapper (its one entry naming this tool, recording
    /// [`RecoveryKind::ParallelWrapper`]), applies the stop reason (the last call of a turn cut
    /// at the output-token limit is rejected with cause [`ParameterCause::TruncatedCall`],
    /// whatever its arguments parse to) and then every parsing rule.
    ///
    /// `Ok(None)`: a wrapper none of whose entries names this tool (no call of it was made).
    /// A wrapper with two entries naming it, or an entry not of the wrapper's shape, is
    /// declined (cause [`ParameterCause::UndecodableArguments`], message
    /// `multi_tool_use.parallel is not a tool; call each tool directly`).
    ///
    /// # Errors
    ///
    /// [`CallShapeError`] when the call is the caller's mistake, not the model's: bytes that
    /// are no JSON, or a call object not in the provider's shape (a whole message, a text
    /// block).
    ///
    /// ```
    /// # extern crate submit_core as submit_result;
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use serde_json::json;
    /// use submit_result::{Incoming, Options, Provider, RecoveryKind, SubmitTool};
    ///
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Answer {
    ///     text: String,
    /// }
    ///
    /// let tool = SubmitTool::<Answer>::new(Options::new())?;
    /// let wrapper = json!({"id": "call_1", "type": "function", "function": {
    ///     "name": "multi_tool_use.parallel",
    ///     "arguments": r#"{"tool_uses": [{"recipient_name": "functions.submit_result",
    ///         "parameters": {"reasoning": "checked", "result": {"text": "42"}}}]}"#}});
    /// let outcome = tool.receive(Incoming::call(Provider::OpenAiChat, &wrapper))?.unwrap();
    /// let accepted = outcome.accepted().unwrap();
    /// assert_eq!(accepted.response.text, "42");
    /// assert_eq!(accepted.recoveries[0].kind, RecoveryKind::ParallelWrapper);
    ///
    /// let message = json!({"role": "assistant", "content": "hi"});
    /// assert!(tool.receive(Incoming::call(Provider::OpenAiChat, &message)).is_err());
    /// # Ok(())
    /// # }
    /// ```
    pub fn receive(&self, incoming: Incoming<'_>) -> Result<Option<Outcome<R>>, CallShapeError> {
        let stop = incoming.stop;
        Ok(match incoming.arrival {
            Arrival::Call(provider, call) => {
                let call = provider.read_call(call)?;
                self.judge(call.name, call.arguments, stop)
            }
            Arrival::CallJson(provider, bytes) => {
                let call = json::read_call(provider, bytes)?;
                self.judge_json(call.name.as_deref(), &call.arguments, stop)
            }
            Arrival::Arguments(name, arguments) => self.judge(name, arguments, stop),
            Arrival::ArgumentsJson(name, text) => {
                self.judge_json(name, &JsonArguments::of_value_text(text), stop)
            }
            Arrival::Entry(entry) => Some(self.entry(entry, stop)),
        })
    }

    /// The verdict on a call called under `name`.
    fn judge(
        &self,
        name: Option<&str>,
        arguments: Arguments<'_>,
        stop: StopReason,
    ) -> Option<Outcome<R>> {
        if name == Some(PARALLEL_WRAPPER) {
            return self.wrapper(arguments, stop);
        }
        Some(self.verdict(arguments, stop))
    }

    /// The verdict on arguments read from bytes: an object cut off counts the bytes of its
    /// compact JSON, as the same object as a value does.
    fn judge_json(
        &self,
        name: Option<&str>,
        arguments: &JsonArguments<'_>,
        stop: StopReason,
    ) -> Option<Outcome<R>> {
        if let (StopReason::OutputLimit, JsonArguments::Object(text)) = (stop, arguments) {
            if name != Some(PARALLEL_WRAPPER) {
                return Some(self.reject(stop::truncated_object(self.name(), text)));
            }
        }
        self.judge(name, arguments.as_arguments(), stop)
    }

    /// The verdict on a call's arguments: step *Cut off at the output limit*, then every later
    /// step.
    pub(crate) fn verdict(&self, arguments: Arguments<'_>, stop: StopReason) -> Outcome<R> {
        match stop {
            StopReason::OutputLimit => self.reject(stop::truncated(self.name(), arguments)),
            StopReason::Complete => self.parse(arguments, None),
        }
    }

    /// The parsing rules on `arguments`, after `found` (step *Where the call was found*) is
    /// recorded.
    pub(crate) fn parse(&self, arguments: Arguments<'_>, found: Option<Recovery>) -> Outcome<R> {
        match self.parser().parse(arguments, found, self.from_value) {
            Ok(accepted) => Outcome::Accepted(accepted),
            Err(error) => self.reject(error),
        }
    }

    /// A whole `multi_tool_use.parallel` call: its one entry naming this tool is handled as that
    /// call; `None` when no entry names it. Under a stop at the output-token limit the entry is
    /// cut only when it is the wrapper's last.
    fn wrapper(&self, arguments: Arguments<'_>, stop: StopReason) -> Option<Outcome<R>> {
        let entries = match parallel_entries(arguments, self.name()) {
            Ok(entries) => entries,
            Err(message) => return Some(self.reject(declined(message))),
        };
        let mut of_tool = entries
            .iter()
            .enumerate()
            .filter(|(_, entry)| entry.name == self.name());
        let (at, entry) = of_tool.next()?;
        if of_tool.next().is_some() {
            return Some(self.reject(declined(NOT_A_TOOL.to_owned())));
        }
        let stop = if at + 1 == entries.len() {
            stop
        } else {
            StopReason::Complete
        };
        Some(self.entry(entry, stop))
    }

    /// One entry of a wrapper naming this tool: its parameters as text where the wrapper
    /// arrived as text (so a member written twice is named), recording the wrapper first.
    fn entry(&self, entry: &ParallelEntry, stop: StopReason) -> Outcome<R> {
        if stop == StopReason::OutputLimit {
            return self.reject(stop::truncated(
                self.name(),
                Arguments::Value(&entry.parameters),
            ));
        }
        self.parse(
            entry.arguments(),
            Some(Recovery::new(RecoveryKind::ParallelWrapper)),
        )
    }
}

/// The wrapper declined as a whole.
fn declined(message: String) -> SubmitError {
    SubmitError::parameter(ParameterCause::UndecodableArguments, message)
}

/// A call the door could not read, as the rejection [`SubmitTool::handle`] gives.
pub(crate) fn not_a_call(shape: &CallShapeError) -> SubmitError {
    SubmitError::parameter(
        ParameterCause::UndecodableArguments,
        format!("failed to parse tool arguments: {shape}"),
    )
}

/// A wrapper without an entry of the tool, as the rejection [`SubmitTool::handle`] gives.
pub(crate) fn no_entry() -> SubmitError {
    declined(NOT_A_TOOL.to_owned())
}
