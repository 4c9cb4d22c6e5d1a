//! Why the turn that carried a call stopped: it ran to its end, or stopped at the output-token
//! limit, where the turn's last call may be cut off mid-write whatever its arguments parse to.

use std::io;

use crate::error::{ParameterCause, SubmitError};
use crate::parse::Arguments;
use crate::provider::Provider;

/// Why the model's turn stopped, as it bears on one call of it.
///
/// A turn that stopped at the output-token limit may end with a tool call whose arguments
/// stopped mid-write; what arrived can still parse (`{}`, an object the server closed, a
/// payload whose last field is missing), so only the stop reason tells. Pass
/// [`OutputLimit`](StopReason::OutputLimit) for the **last** tool call of such a turn; every
/// earlier call of it is complete.
///
/// ```
/// # extern crate submit_core as submit_result;
/// use submit_result::{Provider, StopReason};
///
/// assert_eq!(Provider::Claude.stop_reason("max_tokens"), StopReason::OutputLimit);
/// assert_eq!(Provider::OpenAiChat.stop_reason("length"), StopReason::OutputLimit);
/// assert_eq!(Provider::OpenAiChat.stop_reason("tool_calls"), StopReason::Complete);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum StopReason {
    /// The turn ended as usual, or how it ended is not known.
    #[default]
    Complete,
    /// The turn stopped at the output-token limit.
    OutputLimit,
}

impl StopReason {
    /// How a turn ended, from its stop reason in any provider's spelling: an output limit when
    /// some provider's [`Provider::stop_reason`] reads it as one.
    ///
    /// ```
    /// # extern crate submit_core as submit_result;
    /// use submit_result::StopReason;
    ///
    /// assert_eq!(StopReason::of_any_provider("length"), StopReason::OutputLimit);
    /// assert_eq!(StopReason::of_any_provider("MAX_TOKENS"), StopReason::OutputLimit);
    /// assert_eq!(StopReason::of_any_provider("end_turn"), StopReason::Complete);
    /// ```
    ///
    /// For a caller that holds a finish reason but not the provider that spelled it: an agent
    /// framework that hands over one provider's word through its own message type, whatever
    /// model it talks to. No provider's word for an ordinary end is another's output limit, so
    /// reading all four spellings loses nothing.
    pub fn of_any_provider(spelled: &str) -> StopReason {
        if Provider::ALL
            .iter()
            .any(|provider| provider.stop_reason(spelled) == StopReason::OutputLimit)
        {
            StopReason::OutputLimit
        } else {
            StopReason::Complete
        }
    }
}

impl Provider {
    /// How a turn ended, from its stop reason in this provider's own spelling: Anthropic
    /// `max_tokens` or `model_context_window_exceeded`, OpenAI Chat `length`, OpenAI Responses
    /// `max_output_tokens` (the `incomplete_details.reason` of an `incomplete` response),
    /// Gemini `MAX_TOKENS` are [`StopReason::OutputLimit`]; any other value, in any other case,
    /// is [`StopReason::Complete`].
    ///
    /// ```
    /// # extern crate submit_core as submit_result;
    /// use submit_result::{Provider, StopReason};
    ///
    /// assert_eq!(Provider::Gemini.stop_reason("MAX_TOKENS"), StopReason::OutputLimit);
    /// assert_eq!(Provider::Gemini.stop_reason("max_tokens"), StopReason::Complete);
    /// assert_eq!(Provider::OpenAiResponses.stop_reason("max_output_tokens"), StopReason::OutputLimit);
    /// ```
    pub fn stop_reason(self, spelled: &str) -> StopReason {
        let limit = match self {
            Provider::Claude => {
                matches!(spelled, "max_tokens" | "model_context_window_exceeded")
            }
            Provider::OpenAiChat => spelled == "length",
            Provider::OpenAiResponses => spelled == "max_output_tokens",
            Provider::Gemini => spelled == "MAX_TOKENS",
        };
        if limit {
            StopReason::OutputLimit
        } else {
            StopReason::Complete
        }
    }
}

/// Step *Cut off at the output limit*: the rejection of a call cut off at the output-token
/// limit, cause *truncated call*, naming how many bytes of arguments arrived.
pub(crate) fn truncated(tool: &str, arguments: Arguments<'_>) -> SubmitError {
    truncated_after(tool, argument_bytes(arguments))
}

/// The rejection of a call cut off at the output-token limit whose arguments object arrived as
/// JSON text: the bytes counted are those of its compact JSON, as for the same object as a
/// value.
pub(crate) fn truncated_object(tool: &str, text: &str) -> SubmitError {
    let bytes = match serde_json::from_str::<serde_json::Value>(text) {
        Ok(value) => argument_bytes(Arguments::Value(&value)),
        // Valid JSON that no value holds (a number beyond `f64`): its text without the
        // whitespace between tokens.
        Err(_) => compact_text_bytes(text),
    };
    truncated_after(tool, bytes)
}

fn truncated_after(tool: &str, bytes: usize) -> SubmitError {
    SubmitError::parameter(
        ParameterCause::TruncatedCall,
        format!(
            "the {tool} call was cut off at the output-token limit after {bytes} bytes of \
             arguments; call {tool} again with the complete result and keep it shorter (a brief \
             reasoning, no repeated content)"
        ),
    )
}

/// The byte length of the arguments as received: argument text as it is, a string value's
/// content, an object's compact JSON; absent or `null` arguments are 0.
fn argument_bytes(arguments: Arguments<'_>) -> usize {
    match arguments {
        Arguments::Text(text) => text.len(),
        Arguments::Missing | Arguments::Value(serde_json::Value::Null) => 0,
        Arguments::Value(serde_json::Value::String(text)) => text.len(),
        Arguments::Value(value) => {
            let mut counter = Counter(0);
            // Writing into a counter cannot fail; a failure would leave the count short, not
            // panic.
            let _ = serde_json::to_writer(&mut counter, value);
            counter.0
        }
    }
}

/// The length of JSON text without the whitespace between its tokens.
fn compact_text_bytes(text: &str) -> usize {
    let mut in_string = false;
    let mut escaped = false;
    let mut count = 0usize;
    for byte in text.bytes() {
        if in_string {
            count += 1;
            match (escaped, byte) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
        } else if !matches!(byte, b' ' | b'\t' | b'\r' | b'\n') {
            count += 1;
            in_string = byte == b'"';
        }
    }
    count
}

/// A writer that only counts the bytes written to it.
struct Counter(usize);

impl io::Write for Counter {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.0 = self.0.saturating_add(bytes.len());
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_byte_count_is_of_the_arguments_as_they_arrived() {
        assert_eq!(argument_bytes(Arguments::Text(r#"{"a": 1}"#)), 8);
        assert_eq!(argument_bytes(Arguments::Value(&json!({"a": 1}))), 7);
        assert_eq!(argument_bytes(Arguments::Value(&json!("{\"a\""))), 4);
        assert_eq!(argument_bytes(Arguments::Value(&json!(null))), 0);
        assert_eq!(argument_bytes(Arguments::Missing), 0);
    }

    #[test]
    fn any_providers_spelling_of_the_output_limit_is_read_without_the_provider() {
        for reason in [
            "max_tokens",
            "model_context_window_exceeded",
            "length",
            "max_output_tokens",
            "MAX_TOKENS",
        ] {
            assert_eq!(
                StopReason::of_any_provider(reason),
                StopReason::OutputLimit,
                "{reason}"
            );
        }
        for other in [
            "stop",
            "end_turn",
            "tool_use",
            "tool_calls",
            "STOP",
            "MALFORMED_FUNCTION_CALL",
            "",
            "Length",
            "max_tokens ",
        ] {
            assert_eq!(
                StopReason::of_any_provider(other),
                StopReason::Complete,
                "{other}"
            );
        }
    }

    #[test]
    fn only_the_providers_own_spelling_is_the_output_limit() {
        let limit = [
            (Provider::Claude, "max_tokens"),
            (Provider::Claude, "model_context_window_exceeded"),
            (Provider::OpenAiChat, "length"),
            (Provider::OpenAiResponses, "max_output_tokens"),
            (Provider::Gemini, "MAX_TOKENS"),
        ];
        for provider in Provider::ALL {
            for (owner, reason) in limit {
                let want = if owner == provider {
                    StopReason::OutputLimit
                } else {
                    StopReason::Complete
                };
                assert_eq!(provider.stop_reason(reason), want, "{provider} {reason}");
            }
            for other in [
                "stop",
                "end_turn",
                "tool_use",
                "STOP",
                "",
                "Length",
                "MAX_TOKENS ",
            ] {
                assert_eq!(
                    provider.stop_reason(other),
                    StopReason::Complete,
                    "{provider} {other}"
                );
            }
        }
    }
}
