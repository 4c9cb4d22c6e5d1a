//! Calls found where the model did not make them as calls: written as text in its visible
//! turn, in a chat template's own tool-call syntax. (An entry of an invented
//! `multi_tool_use.parallel` call is read by the door, `receive.rs`.)

use serde::de::DeserializeOwned;

#[cfg(doc)]
use crate::error::ParameterCause;
#[cfg(doc)]
use crate::outcome::RecoveryKind;
use crate::outcome::{Outcome, Recovery};
use crate::parse::{text, Arguments};
use crate::stop::{self, StopReason};
use crate::tool::SubmitTool;

impl<R: DeserializeOwned> SubmitTool<R> {
    /// Reads a model's visible text turn for a call of this tool written as text, in the
    /// tool-call syntax of a chat template, and handles it; `None` when the text holds no such
    /// call (no form's opening names this tool).
    ///
    /// The forms are the [`TextFormat`](crate::TextFormat)s. An accepted call records
    /// [`RecoveryKind::CallInText`] first, naming its format; the arguments then go through every
    /// step of the [parsing rules](crate::rules::parsing) after step *Where the call was found*.
    /// The text must hold exactly one call, of this tool, with nothing after it but whitespace,
    /// closing tokens and end-of-turn tokens; prose before it is fine. A call that cannot be read,
    /// or that another call or text after it declines, is rejected with cause
    /// [`ParameterCause::UndecodableArguments`] and the message `your reply contains a <format>
    /// call of <tool> written as text, which is not run; call <tool> as a tool call`, followed by
    /// `: <why>` when the call could not be read. In a turn that stopped at the output-token limit
    /// ([`StopReason::OutputLimit`]) a call found is cut off ([`ParameterCause::TruncatedCall`]),
    /// counting its bytes from its first marker. Forms inside a JSON object or array the text holds
    /// are part of that JSON, not calls.
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

    /// Where a call of this tool written as text may begin in a visible turn that is still
    /// arriving: the byte offset of the first marker of any form (a `<`, `[` or `{`,
    /// `to=functions.`, `Malformed function call:` or `<tool>(`), or of the beginning of one
    /// that the text ends in; `None` when no part of the text so far can belong to a call.
    ///
    /// A stream of text deltas can pass on everything before this offset as it arrives and
    /// hold the rest back until the turn ends, then give the whole turn to
    /// [`SubmitTool::handle_text`]: whatever follows, no call begins earlier.
    ///
    /// ```
    /// # extern crate submit_core as submit_result;
    /// # fn main() -> Result<(), submit_result::BuildError> {
    /// use submit_result::{Options, SubmitTool};
    ///
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Answer {
    ///     text: String,
    /// }
    ///
    /// let tool = SubmitTool::<Answer>::new(Options::new())?;
    /// assert_eq!(tool.text_call_start("Done. <tool_call>{\"na"), Some(6));
    /// // A marker being written at the end of the text so far.
    /// assert_eq!(tool.text_call_start("Done. to=func"), Some(6));
    /// assert_eq!(tool.text_call_start("Done, all checked."), None);
    /// # Ok(())
    /// # }
    /// ```
    pub fn text_call_start(&self, text: &str) -> Option<usize> {
        text::call_start(text, self.name())
    }
}
