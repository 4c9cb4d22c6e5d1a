//! The forms that put the arguments object between a model's special tokens: `deepseek`
//! (`<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>…<｜tool▁call▁end｜><｜tool▁calls▁end｜>`),
//! `kimi` (`<|tool_calls_section_begin|><|tool_call_begin|>functions.NAME:0
//! <|tool_call_argument_begin|>{…}<|tool_call_end|><|tool_calls_section_end|>`) and `harmony`
//! (gpt-oss: `to=functions.NAME`, a channel, a constraint, `<|message|>{…}`, `<|call|>`).
//!
//! Whitespace may stand between the deepseek and kimi tokens. A section holds the calls of one
//! turn: each `…call_begin…` token opens a call, the first one from the section's opening token;
//! a call read out of a section must be the section's only call, and the section must close.

use std::borrow::Cow;

use super::json::{fence_close, fence_open, json_object};
use super::lex::{after, has, is_name_byte, line_break, named, only_end, rest, skip_space};
use super::opening::{CallRead, Form, Opening};

/// gpt-oss's recipient of a function call.
pub(crate) const RECIPIENT: &str = "to=functions.";

const DEEPSEEK_SECTION: &str = "<｜tool▁calls▁begin｜>";
const DEEPSEEK_CALL: &str = "<｜tool▁call▁begin｜>";
const DEEPSEEK_SEP: &str = "<｜tool▁sep｜>";
const DEEPSEEK_FUNCTION: &str = "function<｜tool▁sep｜>";
const DEEPSEEK_CALL_END: &str = "<｜tool▁call▁end｜>";
const DEEPSEEK_SECTION_END: &str = "<｜tool▁calls▁end｜>";
const KIMI_SECTION: &str = "<|tool_calls_section_begin|>";
const KIMI_CALL: &str = "<|tool_call_begin|>";
const KIMI_ARGUMENTS: &str = "<|tool_call_argument_begin|>";
const KIMI_CALL_END: &str = "<|tool_call_end|>";
const KIMI_SECTION_END: &str = "<|tool_calls_section_end|>";

/// A deepseek or kimi call at `at`: a section's opening token followed by a call's, or a call's
/// alone (a later call of a section).
pub(crate) fn section_opening(text: &str, at: usize, tool: &str) -> Option<Opening> {
    if let Some(next) = after(text, at, DEEPSEEK_SECTION) {
        let call = after(text, skip_space(text, next), DEEPSEEK_CALL)?;
        return deepseek_call(text, at, call, true, tool);
    }
    if let Some(call) = after(text, at, DEEPSEEK_CALL) {
        return deepseek_call(text, at, call, false, tool);
    }
    if let Some(next) = after(text, at, KIMI_SECTION) {
        let call = after(text, skip_space(text, next), KIMI_CALL)?;
        return kimi_call(text, at, call, true, tool);
    }
    let call = after(text, at, KIMI_CALL)?;
    kimi_call(text, at, call, false, tool)
}

/// A deepseek call after its `<｜tool▁call▁begin｜>`: `function<｜tool▁sep｜>NAME` and a line
/// break (a fenced object follows), or `NAME<｜tool▁sep｜>` (an object follows).
fn deepseek_call(
    text: &str,
    start: usize,
    call: usize,
    section: bool,
    tool: &str,
) -> Option<Opening> {
    let body = skip_space(text, call);
    let (named, end, fenced) = match after(text, body, DEEPSEEK_FUNCTION) {
        Some(name) => {
            let (named, end) = named(text, name, tool, |rest| {
                rest.starts_with('\n') || rest.starts_with("\r\n")
            })?;
            (named, end, true)
        }
        None => {
            let (named, end) = named(text, body, tool, |rest| rest.starts_with(DEEPSEEK_SEP))?;
            (named, end, false)
        }
    };
    Some(Opening {
        form: Form::Deepseek {
            section,
            body: end,
            fenced,
        },
        start,
        named,
        resume: end,
        crowded: false,
    })
}

/// A kimi call after its `<|tool_call_begin|>`: `functions.NAME:`.
fn kimi_call(text: &str, start: usize, call: usize, section: bool, tool: &str) -> Option<Opening> {
    let name = after(text, skip_space(text, call), "functions.")?;
    let (named, end) = named(text, name, tool, |rest| rest.starts_with(':'))?;
    Some(Opening {
        form: Form::Kimi { section, body: end },
        start,
        named,
        resume: end,
        crowded: false,
    })
}

/// A harmony call at `to=functions.`; it starts at the `<|start|>assistant` and
/// `<|channel|>commentary` (or `analysis`) written before the recipient, when they are.
pub(crate) fn harmony_opening(text: &str, at: usize, tool: &str) -> Option<Opening> {
    let (named, end) = named(text, at + RECIPIENT.len(), tool, |rest| {
        rest.is_empty() || rest.starts_with(['<', ' ', '\t', '\r', '\n'])
    })?;
    Some(Opening {
        form: Form::Harmony { body: end },
        start: harmony_start(text, at),
        named,
        resume: end,
        crowded: false,
    })
}

/// Where a harmony call whose recipient is at `at` starts.
fn harmony_start(text: &str, at: usize) -> usize {
    let before = text.get(..at).unwrap_or_default();
    let trimmed = before.trim_end_matches([' ', '\t', '\r', '\n']);
    let Some(channel) = ["<|channel|>commentary", "<|channel|>analysis"]
        .iter()
        .find_map(|channel| trimmed.strip_suffix(channel))
    else {
        return at;
    };
    let header = channel.trim_end_matches([' ', '\t', '\r', '\n']);
    match header.strip_suffix("<|start|>assistant") {
        Some(start) => start.len(),
        None => channel.len(),
    }
}

/// What may follow a section's only call: the section's closing token. A call followed by
/// another call or by prose is left for the verdict to decline; a section that just stops is
/// not one that was read.
fn section_end(text: &str, at: usize, close: &str) -> Result<usize, String> {
    let next = skip_space(text, at);
    if let Some(end) = after(text, next, close) {
        return Ok(end);
    }
    if only_end(rest(text, at)) {
        return Err(format!("no {close} after the call"));
    }
    Ok(at)
}

/// Reads a deepseek call from after the tool's name.
pub(crate) fn read_deepseek(
    text: &str,
    section: bool,
    body: usize,
    fenced: bool,
) -> Result<CallRead<'_>, String> {
    if !section {
        return Err(format!("the call does not open with {DEEPSEEK_SECTION}"));
    }
    let (arguments, end) = if fenced {
        let fence = line_break(text, body).ok_or("no line break after the tool's name")?;
        let object = fence_open(text, fence).ok_or("no Markdown fence after the tool's name")?;
        let (arguments, end) = json_object(text, object)?;
        let end =
            fence_close(text, end).ok_or("the Markdown fence does not close after the object")?;
        (arguments, end)
    } else {
        let object =
            after(text, body, DEEPSEEK_SEP).ok_or("no <｜tool▁sep｜> after the tool's name")?;
        json_object(text, object)?
    };
    let end = after(text, skip_space(text, end), DEEPSEEK_CALL_END)
        .ok_or_else(|| format!("no {DEEPSEEK_CALL_END} after the arguments"))?;
    Ok(CallRead {
        arguments: Cow::Borrowed(arguments),
        end: section_end(text, end, DEEPSEEK_SECTION_END)?,
    })
}

/// Reads a kimi call from after `functions.NAME`.
pub(crate) fn read_kimi(text: &str, section: bool, body: usize) -> Result<CallRead<'_>, String> {
    if !section {
        return Err(format!("the call does not open with {KIMI_SECTION}"));
    }
    let index = after(text, body, ":").ok_or("no : after the tool's name")?;
    let digits = rest(text, index)
        .bytes()
        .take_while(u8::is_ascii_digit)
        .count();
    if digits == 0 {
        return Err("no call index after functions.NAME:".to_owned());
    }
    let object = after(text, skip_space(text, index + digits), KIMI_ARGUMENTS)
        .ok_or_else(|| format!("no {KIMI_ARGUMENTS} after the call index"))?;
    let (arguments, end) = json_object(text, object)?;
    let end = after(text, skip_space(text, end), KIMI_CALL_END)
        .ok_or_else(|| format!("no {KIMI_CALL_END} after the arguments"))?;
    Ok(CallRead {
        arguments: Cow::Borrowed(arguments),
        end: section_end(text, end, KIMI_SECTION_END)?,
    })
}

/// Reads a harmony call from after `to=functions.NAME`: an optional channel, optional
/// whitespace, an optional `<|constrain|>json` or ` json`, an optional `<|message|>`, the
/// object.
pub(crate) fn read_harmony(text: &str, body: usize) -> Result<CallRead<'_>, String> {
    let mut at = after(text, body, "<|channel|>commentary")
        .or_else(|| after(text, body, "<|channel|>analysis"))
        .unwrap_or(body);
    let spaced = skip_space(text, at);
    let had_space = spaced > at;
    at = spaced;
    if let Some(next) = after(text, at, "<|constrain|>json") {
        at = next;
    } else if had_space
        && has(text, at, "json")
        && !text
            .as_bytes()
            .get(at + 4)
            .copied()
            .is_some_and(is_name_byte)
    {
        at += 4;
    }
    at = skip_space(text, at);
    if let Some(next) = after(text, at, "<|message|>") {
        at = next;
    }
    let (arguments, end) = json_object(text, at)?;
    Ok(CallRead {
        arguments: Cow::Borrowed(arguments),
        end,
    })
}
