//! The submit calls in each provider's message shapes, and how a turn's stop reason marks the
//! last call of a turn cut at the output-token limit.

use serde_json::Value;
use submit_core::{Provider, StopReason, PARALLEL_WRAPPER};

use super::line::Found;

/// How a turn ended, from its stop reason as `provider` spells it; one that is absent or not
/// a string is [`StopReason::Complete`].
pub(super) fn stop(provider: Provider, reason: Option<&Value>) -> StopReason {
    reason
        .and_then(Value::as_str)
        .map_or(StopReason::Complete, |reason| provider.stop_reason(reason))
}

/// Gives `end` to the call found that is `last`, the turn's last tool call of any tool (so
/// none when that call is of another tool).
pub(super) fn mark_last(calls: &mut [Found<'_>], last: Option<&Value>, end: StopReason) {
    let Some(last) = last else {
        return;
    };
    for found in calls {
        if std::ptr::eq(found.call, last) {
            found.end = end;
        }
    }
}

/// Whether an OpenAI call named `name` may hold the submit call: a call of the tool, or a
/// `multi_tool_use.parallel` call models invent around it (its entries are read later).
fn is_submit(name: Option<&str>, tool: &str) -> bool {
    name == Some(tool) || name == Some(PARALLEL_WRAPPER)
}

/// The submit calls among a Chat message's `tool_calls` (a `multi_tool_use.parallel` call
/// among them).
pub(super) fn chat_calls<'a>(
    message: Option<&'a Value>,
    tool: &str,
    message_index: Option<usize>,
) -> Vec<Found<'a>> {
    let tool_calls = message
        .and_then(|m| m.get("tool_calls"))
        .and_then(Value::as_array);
    tool_calls
        .into_iter()
        .flatten()
        .filter(|call| {
            is_submit(
                call.get("function")
                    .and_then(|f| f.get("name"))
                    .and_then(Value::as_str),
                tool,
            )
        })
        .map(|call| Found {
            provider: Provider::OpenAiChat,
            call,
            message: message_index,
            end: StopReason::Complete,
        })
        .collect()
}

/// The submit calls among Responses items (`function_call`; a `multi_tool_use.parallel` call
/// among them).
pub(super) fn responses_items<'a, 'i>(
    items: impl Iterator<Item = &'a Value> + 'i,
    tool: &'i str,
    message_index: Option<usize>,
) -> impl Iterator<Item = Found<'a>> + 'i {
    items
        .filter(move |item| {
            item.get("type").and_then(Value::as_str) == Some("function_call")
                && is_submit(item.get("name").and_then(Value::as_str), tool)
        })
        .map(move |call| Found {
            provider: Provider::OpenAiResponses,
            call,
            message: message_index,
            end: StopReason::Complete,
        })
}

/// The submit calls among an Anthropic message's content blocks (`tool_use`); `None` when the
/// content is not an array.
pub(super) fn claude_blocks<'a>(
    content: Option<&'a Value>,
    tool: &str,
    message_index: Option<usize>,
) -> Option<Vec<Found<'a>>> {
    let blocks = content?.as_array()?;
    Some(
        blocks
            .iter()
            .filter(|block| {
                block.get("type").and_then(Value::as_str) == Some("tool_use")
                    && block.get("name").and_then(Value::as_str) == Some(tool)
            })
            .map(|call| Found {
                provider: Provider::Claude,
                call,
                message: message_index,
                end: StopReason::Complete,
            })
            .collect(),
    )
}

/// The submit calls among Gemini parts (`functionCall`).
pub(super) fn gemini_parts<'a>(
    parts: Option<&'a Value>,
    tool: &str,
    message_index: Option<usize>,
) -> Vec<Found<'a>> {
    parts
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|part| {
            part.get("functionCall")
                .and_then(|call| call.get("name"))
                .and_then(Value::as_str)
                == Some(tool)
        })
        .map(|call| Found {
            provider: Provider::Gemini,
            call,
            message: message_index,
            end: StopReason::Complete,
        })
        .collect()
}
