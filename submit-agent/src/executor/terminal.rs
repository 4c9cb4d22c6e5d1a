//! The terminal tool as the executor needs it, and its implementation for the submit tool.

use serde::de::DeserializeOwned;
use serde_json::Value;
use submit_core::{Arguments, Incoming, Outcome, ParallelEntry, Provider, StopReason, SubmitTool};

use crate::tool::ToolDefinition;

/// The terminal tool as the executor needs it. Implemented by [`SubmitTool`]; implement it
/// for a test double or another terminal tool.
pub trait TerminalTool<R>: Send + Sync {
    /// The tool's name.
    fn name(&self) -> &str;
    /// The definition the model sees.
    fn definition(&self) -> ToolDefinition;
    /// The full payload schema the built-in validator checks the response against.
    fn payload_schema(&self) -> Value;
    /// The verdict on one call: its arguments in the form they arrived (text as the model sent
    /// it, or the provider's JSON object) and how the turn that carried it ended, as it bears
    /// on this call ([`StopReason::OutputLimit`] only for the last call of a turn that stopped
    /// at the output-token limit).
    fn verdict(&self, arguments: Arguments<'_>, end: StopReason) -> Outcome<R>;

    /// The verdict on a turn that made no tool call, for a call of this tool the model wrote as
    /// text; `None` when the text holds none. By default a terminal reads no text.
    fn verdict_on_text(&self, text: &str, end: StopReason) -> Option<Outcome<R>> {
        let _ = (text, end);
        None
    }

    /// The verdict on an entry of an invented `multi_tool_use.parallel` call that names this
    /// tool. By default, as a call with the entry's parameters.
    fn verdict_on_entry(&self, entry: &ParallelEntry, end: StopReason) -> Outcome<R> {
        self.verdict(Arguments::Value(&entry.parameters), end)
    }
}

impl<R> TerminalTool<R> for SubmitTool<R>
where
    R: DeserializeOwned + Send + Sync + 'static,
    SubmitTool<R>: Send + Sync,
{
    fn name(&self) -> &str {
        SubmitTool::name(self)
    }

    fn definition(&self) -> ToolDefinition {
        let d = SubmitTool::definition(self, Provider::Claude);
        let text = |key: &str| d.get(key).and_then(Value::as_str).unwrap_or("").to_owned();
        ToolDefinition::new(
            text("name"),
            text("description"),
            d.get("input_schema").cloned().unwrap_or(Value::Null),
        )
        .with_wire(|provider| SubmitTool::definition(self, provider))
    }

    fn payload_schema(&self) -> Value {
        SubmitTool::payload_schema(self).clone()
    }

    fn verdict(&self, arguments: Arguments<'_>, end: StopReason) -> Outcome<R> {
        received(
            self,
            Incoming::arguments(None, arguments).stop(end),
            arguments,
        )
    }

    fn verdict_on_text(&self, text: &str, end: StopReason) -> Option<Outcome<R>> {
        SubmitTool::handle_text(self, text, end)
    }

    fn verdict_on_entry(&self, entry: &ParallelEntry, end: StopReason) -> Outcome<R> {
        let arguments = Arguments::Value(&entry.parameters);
        received(self, Incoming::parallel_entry(entry).stop(end), arguments)
    }
}

/// The door's verdict on a call of the submit tool itself (arguments without a wrapper's name,
/// or a wrapper's entry), which the door always gives; were it ever to give none, the
/// arguments are handled as a complete call.
fn received<R: DeserializeOwned>(
    tool: &SubmitTool<R>,
    incoming: Incoming<'_>,
    arguments: Arguments<'_>,
) -> Outcome<R> {
    match tool.receive(incoming) {
        Ok(Some(outcome)) => outcome,
        Ok(None) | Err(_) => tool.handle_arguments(arguments),
    }
}
