//! A line handled by the submit tool: the outcome of each call found in it, and the shape a
//! declined recovery saw.

use std::borrow::Cow;

use serde::de::IgnoredAny;
use serde_json::Value;
use submit_core::{
    Incoming, Outcome, ParameterCause, Provider, StopReason, SubmitTool, PARALLEL_WRAPPER,
};

use super::chat::handle_chat_line;
use super::detect::{detect, Node, Top};
use super::found::{find, Line};
use crate::args::InputFormat;
use crate::shapes::declined_shape;

/// A call handled: its outcome and, for a declined recovery, the declined shape.
#[derive(Debug)]
pub struct Handled {
    /// The outcome.
    pub outcome: Outcome<Value>,
    /// What followed the payload object, when a recovery declined.
    pub shape: Option<String>,
}

/// A line handled: every submit call found in it, or the batch status that stands in for an
/// answer.
#[derive(Debug, Default)]
pub struct Entry {
    /// The batch entry's `custom_id`.
    pub custom_id: Option<String>,
    /// Each call found, with its message's index in a conversation.
    pub calls: Vec<(Option<usize>, Handled)>,
    /// A batch entry with no answer: why (`anthropic batch: expired`).
    pub failed: Option<String>,
}

impl From<Handled> for Entry {
    fn from(handled: Handled) -> Self {
        Entry {
            calls: vec![(None, handled)],
            ..Entry::default()
        }
    }
}

/// Handles lines with `tool`, each line one call (with no stop reason around it, so handled as
/// usual): a line that is not JSON, or not a call in `provider`'s shape, is an `Err` naming why.
pub fn handler(
    tool: &SubmitTool<Value>,
    provider: Provider,
) -> impl Fn(&[u8]) -> Result<Handled, String> + Sync + '_ {
    move |line| {
        bare(tool, provider, line)?
            .ok_or_else(|| format!("a {PARALLEL_WRAPPER} call with no entry of the tool"))
    }
}

/// Handles lines with `tool`, each read as `format` says (see [`InputFormat`]), every call of
/// the tool found by its name; a bare call is read in `provider`'s shape. A submit call that is
/// the last tool call of a response that stopped at the output-token limit is rejected with
/// cause `truncated_call` (see `find`).
///
/// Under [`InputFormat::Auto`] the line's top-level members are read first, without decoding
/// them, to tell what it holds; a bare call (under `Auto` or [`InputFormat::Call`]) is handed to
/// the tool as the line's bytes. A line that is an OpenAI Chat call with no other member (read
/// under `--provider openai-chat`) is told and read in one pass, with the same outcome.
///
/// The visible text of a whole response's turn that made no submit call is read for one the
/// model wrote as text ([`SubmitTool::handle_text`], with how the turn ended): a call found
/// there is handled after the line's other calls, its outcome recording `call_in_text` and its
/// format; text with no such call adds nothing, so a line whose turns have neither is counted
/// as holding no submit call. A call in text carries no declined shape.
pub fn reader(
    tool: &SubmitTool<Value>,
    provider: Provider,
    format: InputFormat,
) -> impl Fn(&[u8]) -> Result<Entry, String> + Sync + '_ {
    move |line| {
        let format = match format {
            InputFormat::Auto => {
                if provider == Provider::OpenAiChat {
                    if let Some(outcome) = handle_chat_line(tool, line) {
                        let handled =
                            outcome.map(|outcome| with_shape(tool, provider, line, outcome));
                        return Ok(handled.map(Entry::from).unwrap_or_default());
                    }
                }
                detect(Node::Top(&Top::read(line).map_err(not_json)?))
            }
            chosen => chosen,
        };
        if format == InputFormat::Call {
            return Ok(bare(tool, provider, line)?
                .map(Entry::from)
                .unwrap_or_default());
        }
        let value: Value = serde_json::from_slice(line).map_err(not_json)?;
        entry(tool, find(&value, format, provider, tool.name())?)
    }
}

/// Why a line is malformed when it is not JSON.
fn not_json(error: serde_json::Error) -> String {
    format!("not JSON: {error}")
}

/// The calls and texts found in a line, handled.
fn entry(tool: &SubmitTool<Value>, line: Line<'_>) -> Result<Entry, String> {
    match line {
        Line::Failed { custom_id, status } => Ok(Entry {
            custom_id: custom_id.map(str::to_owned),
            calls: Vec::new(),
            failed: Some(status),
        }),
        Line::Calls {
            custom_id,
            calls,
            texts,
        } => {
            let mut handled = Vec::with_capacity(calls.len() + texts.len());
            for found in calls {
                if let Some(outcome) = handle(tool, found.provider, found.call, found.end)? {
                    handled.push((found.message, outcome));
                }
            }
            for found in texts {
                if let Some(outcome) = tool.handle_text(&found.text, found.end) {
                    handled.push((
                        None,
                        Handled {
                            outcome,
                            shape: None,
                        },
                    ));
                }
            }
            Ok(Entry {
                custom_id: custom_id.map(str::to_owned),
                calls: handled,
                failed: None,
            })
        }
    }
}

/// A line that is one call in `provider`'s shape, handled from its bytes as they are (the
/// argument text read in place); `None` for a `multi_tool_use.parallel` call with no entry of
/// the tool.
fn bare(
    tool: &SubmitTool<Value>,
    provider: Provider,
    line: &[u8],
) -> Result<Option<Handled>, String> {
    let received = tool.receive(Incoming::call_json(provider, line));
    let outcome = match received {
        Ok(Some(outcome)) => outcome,
        Ok(None) => return Ok(None),
        // A line that is no JSON says so as every other malformed line does.
        Err(error) => match serde_json::from_slice::<IgnoredAny>(line) {
            Err(syntax) => return Err(not_json(syntax)),
            Ok(_) => return Err(error.to_string()),
        },
    };
    Ok(Some(with_shape(tool, provider, line, outcome)))
}

/// The outcome of the call `line` holds, with its declined shape (read from the line's value,
/// decoded only for a declined recovery).
fn with_shape(
    tool: &SubmitTool<Value>,
    provider: Provider,
    line: &[u8],
    outcome: Outcome<Value>,
) -> Handled {
    let shape = declined(
        tool,
        &outcome,
        || serde_json::from_slice::<Value>(line).ok().map(Cow::Owned),
        provider,
    );
    Handled { outcome, shape }
}

/// The declined shape of `outcome`, a rejection whose recovery declined, read from the call's
/// value (`call`, only decoded then); `None` for any other outcome.
fn declined<'v>(
    tool: &SubmitTool<Value>,
    outcome: &Outcome<Value>,
    call: impl FnOnce() -> Option<Cow<'v, Value>>,
    provider: Provider,
) -> Option<String> {
    let Outcome::Rejected(rejected) = outcome else {
        return None;
    };
    let cause @ (ParameterCause::StringifiedDeclined | ParameterCause::ReasoningDeclined) =
        rejected.error.cause()?
    else {
        return None;
    };
    let value = call()?;
    let call = provider
        .read_call(&value)
        .ok()
        .filter(|call| call.name != Some(PARALLEL_WRAPPER))?;
    declined_shape(call.arguments, tool.payload_field(), cause)
}

/// One call found, handled; `None` for a `multi_tool_use.parallel` call with no entry of the
/// tool (its one entry of the tool is handled as that call).
fn handle(
    tool: &SubmitTool<Value>,
    provider: Provider,
    value: &Value,
    end: StopReason,
) -> Result<Option<Handled>, String> {
    let Some(outcome) = tool
        .receive(Incoming::call(provider, value).stop(end))
        .map_err(|error| error.to_string())?
    else {
        return Ok(None);
    };
    let shape = declined(tool, &outcome, || Some(Cow::Borrowed(value)), provider);
    Ok(Some(Handled { outcome, shape }))
}
