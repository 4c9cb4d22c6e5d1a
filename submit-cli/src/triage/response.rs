//! What a whole response holds: its submit calls, each with how its turn ended, and the visible
//! text of each turn that made none (where a call the model wrote as text may stand).

use std::borrow::Cow;

use serde_json::Value;
use submit_core::{Provider, StopReason};

use super::calls::{chat_calls, claude_blocks, gemini_parts, mark_last, responses_items, stop};
use super::line::{Found, FoundText, Line};

/// What a whole response gives: its submit calls, and the text of each turn that made none.
#[derive(Default)]
pub(super) struct Answer<'a> {
    calls: Vec<Found<'a>>,
    texts: Vec<FoundText<'a>>,
}

impl<'a> Answer<'a> {
    /// Adds a turn's calls, or its text when it made no submit call.
    pub(super) fn turn(
        &mut self,
        calls: Vec<Found<'a>>,
        text: impl FnOnce() -> Option<FoundText<'a>>,
    ) {
        if calls.is_empty() {
            self.texts
                .extend(text().filter(|text| !text.text.is_empty()));
        }
        self.calls.extend(calls);
    }

    pub(super) fn line(self, custom_id: Option<&'a str>) -> Line<'a> {
        Line::Calls {
            custom_id,
            calls: self.calls,
            texts: self.texts,
        }
    }
}

/// The calls (and texts) of a whole response, `None` when it is not one (or is one of a
/// provider not in `only`).
pub(super) fn response_of<'a>(
    value: &'a Value,
    tool: &str,
    only: Option<&[Provider]>,
) -> Option<Answer<'a>> {
    let allowed = |provider| only.is_none_or(|only| only.contains(&provider));
    if let Some(choices) = value.get("choices").and_then(Value::as_array) {
        return allowed(Provider::OpenAiChat).then(|| chat_completion(choices, tool));
    }
    if let Some(output) = value.get("output").and_then(Value::as_array) {
        return allowed(Provider::OpenAiResponses).then(|| responses_answer(value, output, tool));
    }
    if value.get("type").and_then(Value::as_str) == Some("message") {
        if !allowed(Provider::Claude) {
            return None;
        }
        return claude_message(value, tool);
    }
    if let Some(candidates) = value.get("candidates").and_then(Value::as_array) {
        return allowed(Provider::Gemini).then(|| gemini_candidates(candidates, tool));
    }
    None
}

/// The calls and texts of an OpenAI Chat completion's choices.
fn chat_completion<'a>(choices: &'a [Value], tool: &str) -> Answer<'a> {
    let mut answer = Answer::default();
    // Each choice is a turn of its own, with its own finish reason.
    for choice in choices {
        let message = choice.get("message");
        let mut found = chat_calls(message, tool, None);
        let last = message
            .and_then(|m| m.get("tool_calls"))
            .and_then(Value::as_array)
            .and_then(|tool_calls| tool_calls.last());
        let end = stop(Provider::OpenAiChat, choice.get("finish_reason"));
        mark_last(&mut found, last, end);
        answer.turn(found, || {
            let content = message?.get("content")?;
            let text = match content.as_str() {
                Some(text) => Cow::Borrowed(text),
                None => join(
                    content
                        .as_array()?
                        .iter()
                        .filter_map(|part| text_of(part, "text")),
                )?,
            };
            // A message's content comes before its tool calls: a tool call after the text
            // is where a cut fell.
            let end = if last.is_some() {
                StopReason::Complete
            } else {
                end
            };
            Some(FoundText {
                provider: Provider::OpenAiChat,
                text,
                end,
            })
        });
    }
    answer
}

/// The calls and text of an OpenAI Responses response, whose `output` is `output`.
fn responses_answer<'a>(value: &'a Value, output: &'a [Value], tool: &str) -> Answer<'a> {
    let mut calls: Vec<Found<'a>> = responses_items(output.iter(), tool, None).collect();
    // Every kind of tool call item is named `…_call` (`function_call`, `custom_tool_call`,
    // `web_search_call`, …); outputs and other items are not.
    let is_call = |item: &Value| {
        item.get("type")
            .and_then(Value::as_str)
            .is_some_and(|kind| kind.ends_with("_call"))
    };
    let last = output.iter().rev().find(|item| is_call(item));
    let end = if value.get("status").and_then(Value::as_str) == Some("incomplete") {
        let details = value.get("incomplete_details").unwrap_or(&Value::Null);
        stop(Provider::OpenAiResponses, details.get("reason"))
    } else {
        StopReason::Complete
    };
    mark_last(&mut calls, last, end);
    let mut answer = Answer::default();
    answer.turn(calls, || {
        let parts = |item: &'a Value| {
            let message = item.get("type").and_then(Value::as_str) == Some("message");
            message
                .then(|| item.get("content").and_then(Value::as_array))
                .flatten()
                .into_iter()
                .flatten()
                .filter_map(|part| text_of(part, "output_text"))
        };
        let text = join(output.iter().flat_map(parts))?;
        let holds_text = |item: &'a Value| parts(item).next().is_some();
        Some(FoundText {
            provider: Provider::OpenAiResponses,
            text,
            end: text_end(output, holds_text, is_call, end),
        })
    });
    answer
}

/// The calls and texts of a Gemini response's candidates.
fn gemini_candidates<'a>(candidates: &'a [Value], tool: &str) -> Answer<'a> {
    let mut answer = Answer::default();
    // Each candidate is a turn of its own, with its own finish reason.
    for candidate in candidates {
        let content = candidate.get("content").unwrap_or(&Value::Null);
        let parts = content
            .get("parts")
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice);
        let mut found = gemini_parts(content.get("parts"), tool, None);
        let is_call = |part: &Value| part.get("functionCall").is_some();
        let last = parts.iter().rev().find(|part| is_call(part));
        let reason = candidate.get("finishReason");
        let end = stop(Provider::Gemini, reason);
        mark_last(&mut found, last, end);
        answer.turn(found, || {
            let visible = |part: &'a Value| {
                let thought = part.get("thought").and_then(Value::as_bool) == Some(true);
                part.get("text")
                    .and_then(Value::as_str)
                    .filter(|_| !thought)
            };
            let text = join(parts.iter().filter_map(visible));
            // The call Gemini could not parse is in the candidate's finish message.
            let malformed = reason.and_then(Value::as_str) == Some("MALFORMED_FUNCTION_CALL");
            let message = candidate
                .get("finishMessage")
                .and_then(Value::as_str)
                .filter(|_| malformed);
            let text = match (text, message) {
                (Some(text), Some(message)) => Cow::Owned(format!("{text}\n{message}")),
                (text, message) => text.or(message.map(Cow::Borrowed))?,
            };
            let holds_text = |part: &'a Value| visible(part).is_some();
            Some(FoundText {
                provider: Provider::Gemini,
                text,
                end: text_end(parts, holds_text, is_call, end),
            })
        });
    }
    answer
}

/// The calls of an Anthropic message, the last tool call (`tool_use`, `server_tool_use`,
/// `mcp_tool_use`) marked when its `stop_reason` is the limit, or its text when it made no
/// submit call; `None` when its content is not an array.
pub(super) fn claude_message<'a>(message: &'a Value, tool: &str) -> Option<Answer<'a>> {
    let mut calls = claude_blocks(message.get("content"), tool, None)?;
    let blocks = message
        .get("content")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    let is_call = |block: &Value| {
        block
            .get("type")
            .and_then(Value::as_str)
            .is_some_and(|kind| kind.ends_with("tool_use"))
    };
    let last = blocks.iter().rev().find(|block| is_call(block));
    let end = stop(Provider::Claude, message.get("stop_reason"));
    mark_last(&mut calls, last, end);
    let mut answer = Answer::default();
    answer.turn(calls, || {
        let text = join(blocks.iter().filter_map(|block| text_of(block, "text")))?;
        let holds_text = |block: &Value| text_of(block, "text").is_some();
        Some(FoundText {
            provider: Provider::Claude,
            text,
            end: text_end(blocks, holds_text, is_call, end),
        })
    });
    Some(answer)
}

/// The `text` of a content part or block whose `type` is `kind`.
pub(super) fn text_of<'a>(part: &'a Value, kind: &str) -> Option<&'a str> {
    if part.get("type").and_then(Value::as_str) != Some(kind) {
        return None;
    }
    part.get("text").and_then(Value::as_str)
}

/// The pieces of a turn's text joined as they are shown, one after the other; `None` when
/// there is none.
pub(super) fn join<'a>(mut pieces: impl Iterator<Item = &'a str>) -> Option<Cow<'a, str>> {
    let first = pieces.next()?;
    match pieces.next() {
        None => Some(Cow::Borrowed(first)),
        Some(second) => {
            let mut text = format!("{first}{second}");
            text.extend(pieces);
            Some(Cow::Owned(text))
        }
    }
}

/// How a turn's text ended among its ordered `items`: `end` unless a tool call follows the
/// last item that holds text (then the cut fell in that call, and the text is whole).
pub(super) fn text_end<'a>(
    items: &'a [Value],
    holds_text: impl Fn(&'a Value) -> bool,
    is_call: impl Fn(&Value) -> bool,
    end: StopReason,
) -> StopReason {
    let after = items
        .iter()
        .rposition(holds_text)
        .map_or(items.len(), |at| at + 1);
    if items[after..].iter().any(is_call) {
        StopReason::Complete
    } else {
        end
    }
}
