//! Calls found where the model did not make them as calls: written as text in its visible
//! turn, in a chat template's own tool-call syntax, or as an entry of an invented
//! `multi_tool_use.parallel` call.

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::error::{ParameterCause, SubmitError};
use crate::outcome::{Outcome, Recovery, RecoveryKind};
use crate::parse::parallel::{parallel_entries, NOT_A_TOOL};
use crate::parse::{text, Arguments};
use crate::stop::{self, StopReason};
use crate::tool::SubmitTool;

impl<R: DeserializeOwned> SubmitTool<R> {
    /// Reads a model's visible text turn for a call of this tool written as text, in the
    /// tool-call syntax of a chat template, and handles it; `None` when the text holds no such
    /// call (no form's opening names this tool).
    ///
    /// The forms are the [`TextFormat`](crate::TextFormat)s. An accepted call records
    /// [`RecoveryKind::CallInText`] first, naming its format; the arguments then go through
    /// every rule a call's arguments go through. The text must hold exactly one call, of this
    /// tool, with nothing after it but whitespace, closing tokens and end-of-turn tokens; prose
    /// before it is fine. A call that cannot be read, or that another call or text after it
    /// declines, is rejected with cause [`ParameterCause::UndecodableArguments`] and the message
    /// `your reply contains a <format> call of <tool> written as text, which is not run; call
    /// <tool> as a tool call`, followed by `: <why>` when the call could not be read. In a turn
    /// that stopped at the output-token limit ([`StopReason::OutputLimit`]) a call found is
    /// cut off ([`ParameterCause::TruncatedCall`]), counting its bytes from its first marker.
    /// Forms inside a JSON object or array the text holds are part of that JSON, not calls.
    ///
    /// ```
    /// # extern crate submit_core as submit_result;
    /// # fn main() -> Result<(), submit_result::BuildError> {
    /// use submit_result::{Options, Outcome, RecoveryKind, StopReason, SubmitTool, TextFormat};
    ///
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Answer {
    ///     text: String,
    /// }
    ///
    /// let tool = SubmitTool::<Answer>::new(Options::new())?;
    /// let turn = "Done.\n<tool_call>\n{\"name\": \"submit_result\", \"arguments\": \
    ///             {\"reasoning\": \"checked\", \"result\": {\"text\": \"42\"}}}\n</tool_call>";
    /// let Some(Outcome::Accepted(accepted)) = tool.handle_text(turn, StopReason::Complete) else {
    ///     panic!("not accepted");
    /// };
    /// assert_eq!(accepted.response.text, "42");
    /// assert_eq!(accepted.recoveries[0].kind, RecoveryKind::CallInText);
    /// assert_eq!(accepted.recoveries[0].format, Some(TextFormat::Hermes));
    ///
    /// assert!(tool.handle_text("No call here.", StopReason::Complete).is_none());
    /// # Ok(())
    /// # }
    /// ```
    pub fn handle_text(&self, text: &str, stop: StopReason) -> Option<Outcome<R>> {
        let found = text::find(text, self.name())?;
        if stop == StopReason::OutputLimit {
            let cut = Arguments::Text(found.cut_off_text());
            return Some(self.reject(stop::truncated(self.name(), cut)));
        }
        let parser = self.parser();
        Some(match found.read(&parser) {
            Ok(arguments) => {
                let recorded = Recovery::call_in_text(found.format());
                match parser.parse(Arguments::Text(&arguments), Some(recorded), self.from_value) {
                    Ok(accepted) => Outcome::Accepted(accepted),
                    Err(error) => self.reject(error),
                }
            }
            Err(error) => self.reject(error),
        })
    }

    /// Handles the parameters of a `multi_tool_use.parallel` entry naming this tool (see
    /// [`parallel_entries`](crate::parallel_entries)), recording
    /// [`RecoveryKind::ParallelWrapper`] first.
    ///
    /// Pass [`StopReason::OutputLimit`] only for the wrapper's last entry of a turn that
    /// stopped at the output-token limit: that entry may be cut off, the ones before it are
    /// complete.
    ///
    /// ```
    /// # extern crate submit_core as submit_result;
    /// # fn main() -> Result<(), submit_result::BuildError> {
    /// use serde_json::json;
    /// use submit_result::{parallel_entries, Arguments, Options, RecoveryKind, StopReason, SubmitTool};
    ///
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Answer {
    ///     text: String,
    /// }
    ///
    /// let tool = SubmitTool::<Answer>::new(Options::new())?;
    /// let wrapper = json!({"tool_uses": [{"recipient_name": "functions.submit_result",
    ///     "parameters": {"reasoning": "checked", "result": {"text": "42"}}}]});
    /// let entries = parallel_entries(Arguments::Value(&wrapper)).unwrap();
    /// let outcome = tool.handle_parallel_entry(&entries[0].parameters, StopReason::Complete);
    /// let accepted = outcome.accepted().unwrap();
    /// assert_eq!(accepted.response.text, "42");
    /// assert_eq!(accepted.recoveries[0].kind, RecoveryKind::ParallelWrapper);
    /// # Ok(())
    /// # }
    /// ```
    pub fn handle_parallel_entry(&self, parameters: &Value, stop: StopReason) -> Outcome<R> {
        let arguments = Arguments::Value(parameters);
        if stop == StopReason::OutputLimit {
            return self.reject(stop::truncated(self.name(), arguments));
        }
        let recorded = Recovery::new(RecoveryKind::ParallelWrapper);
        match self
            .parser()
            .parse(arguments, Some(recorded), self.from_value)
        {
            Ok(accepted) => Outcome::Accepted(accepted),
            Err(error) => self.reject(error),
        }
    }

    /// Handles a whole `multi_tool_use.parallel` call for this tool, as a reader that runs no
    /// other tool does (the command line's `parse`): its one entry naming this tool is handled
    /// as that call ([`SubmitTool::handle_parallel_entry`]); `None` when no entry names it.
    /// Two or more entries naming it, or an entry not of the wrapper's shape, decline the
    /// wrapper as a whole (cause [`ParameterCause::UndecodableArguments`], message
    /// `multi_tool_use.parallel is not a tool; call each tool directly`). Under
    /// [`StopReason::OutputLimit`] the entry is cut only when it is the wrapper's last.
    ///
    /// ```
    /// # extern crate submit_core as submit_result;
    /// # fn main() -> Result<(), submit_result::BuildError> {
    /// use serde_json::json;
    /// use submit_result::{Arguments, Options, StopReason, SubmitTool};
    ///
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Answer {
    ///     text: String,
    /// }
    ///
    /// let tool = SubmitTool::<Answer>::new(Options::new())?;
    /// let wrapper = json!({"tool_uses": [
    ///     {"recipient_name": "functions.search", "parameters": {"q": "42"}},
    ///     {"recipient_name": "functions.submit_result",
    ///      "parameters": {"reasoning": "checked", "result": {"text": "42"}}}]});
    /// let outcome = tool.handle_parallel(Arguments::Value(&wrapper), StopReason::Complete);
    /// assert_eq!(outcome.unwrap().accepted().unwrap().response.text, "42");
    /// # Ok(())
    /// # }
    /// ```
    pub fn handle_parallel(
        &self,
        arguments: Arguments<'_>,
        stop: StopReason,
    ) -> Option<Outcome<R>> {
        let declined = |message: String| {
            self.reject(SubmitError::parameter(
                ParameterCause::UndecodableArguments,
                message,
            ))
        };
        let entries = match parallel_entries(arguments) {
            Ok(entries) => entries,
            Err(message) => return Some(declined(message)),
        };
        let mut of_tool = entries
            .iter()
            .enumerate()
            .filter(|(_, entry)| entry.name == self.name());
        let (at, entry) = of_tool.next()?;
        if of_tool.next().is_some() {
            return Some(declined(NOT_A_TOOL.to_owned()));
        }
        let stop = if at + 1 == entries.len() {
            stop
        } else {
            StopReason::Complete
        };
        Some(self.handle_parallel_entry(&entry.parameters, stop))
    }
}
