//! The forms whose call is a JSON object naming the tool: `hermes`
//! (`<tool_call>{"name": …, "arguments": …}</tool_call>`), `mistral` (`[TOOL_CALLS]` and an
//! array of such objects, or `NAME[ARGS]{…}`) and `llama_json` (the whole text is one such
//! object).
//!
//! A JSON form names its tool when the object's first member is `"name": "<tool>"` (for
//! llama_json also second, after `"type": "function"`), as the bytes stand: inside a JSON string
//! the quotes are escaped, so a call quoted there names nothing. The call object holds only its
//! own members, each once; the arguments object is handed over as the text it is, so a member
//! it names twice is seen by the parse.

use std::borrow::Cow;

use serde_json::value::RawValue;

use super::super::members::{CowStr, Members};
use super::json::{array_elements, fence_close, fence_open, json_object};
use super::lex::{after, has, named, quoted, rest, skip_space, Named, MAX_NAME};
use super::opening::{CallRead, Form, Opening};

/// Mistral's marker.
pub(crate) const TOOL_CALLS: &str = "[TOOL_CALLS]";

/// Who the JSON call object at `brace` names: its first member must be `"name"` with the tool's
/// name as a string (`typed`: or its second, after `"type": "function"`).
pub(crate) fn json_named(text: &str, brace: usize, tool: &str, typed: bool) -> Option<Named> {
    let mut at = skip_space(text, after(text, brace, "{")?);
    if typed {
        if let Some(next) = type_function(text, at) {
            at = next;
        }
    }
    let at = skip_space(text, after(text, at, "\"name\"")?);
    let at = skip_space(text, after(text, at, ":")?);
    let at = after(text, at, "\"")?;
    if has(text, at, tool) && has(text, at + tool.len(), "\"") {
        return Some(Named::Submit);
    }
    // Another tool's name: a JSON string of at most `MAX_NAME` bytes.
    let bytes = text.as_bytes();
    let mut end = at;
    while end - at <= MAX_NAME {
        match bytes.get(end) {
            Some(b'"') => return (end > at).then_some(Named::Other),
            Some(b'\\') => end += 2,
            Some(_) => end += 1,
            None => return None,
        }
    }
    None
}

/// The offset after a leading `"type": "function",` member.
fn type_function(text: &str, at: usize) -> Option<usize> {
    let at = skip_space(text, after(text, at, "\"type\"")?);
    let at = skip_space(text, after(text, at, ":")?);
    let at = skip_space(text, after(text, at, "\"function\"")?);
    Some(skip_space(text, after(text, at, ",")?))
}

/// A hermes call: `<tool_call>` at `start`, its object at `brace`.
pub(crate) fn hermes_opening(
    text: &str,
    start: usize,
    brace: usize,
    tool: &str,
) -> Option<Opening> {
    let named = json_named(text, brace, tool, false)?;
    Some(Opening {
        form: Form::Hermes { object: brace },
        start,
        named,
        // The object is skipped as JSON: what it quotes is not a call.
        resume: brace,
        crowded: false,
    })
}

/// A llama_json call: the text, after whitespace and an optional `<|python_tag|>`,
/// `<|python_start|>` or Markdown fence opener, starts with the call object.
pub(crate) fn llama_opening(text: &str, tool: &str) -> Option<Opening> {
    let start = skip_space(text, 0);
    let (object, fenced) = if let Some(next) =
        after(text, start, "<|python_tag|>").or_else(|| after(text, start, "<|python_start|>"))
    {
        (skip_space(text, next), false)
    } else if let Some(next) = fence_open(text, start) {
        (skip_space(text, next), true)
    } else {
        (start, false)
    };
    let named = json_named(text, object, tool, true)?;
    Some(Opening {
        form: Form::LlamaJson { object, fenced },
        start,
        named,
        resume: object,
        crowded: false,
    })
}

/// A mistral call at `[TOOL_CALLS]` (at `at`, its body after whitespace at `body`): an array
/// of call objects (`array`: its end, when the pass found it complete), or `NAME[ARGS]` /
/// `NAME[CALL_ID]`.
pub(crate) fn mistral_opening(
    text: &str,
    at: usize,
    body: usize,
    array: Option<usize>,
    tool: &str,
) -> Option<Opening> {
    if !has(text, body, "[") {
        let (named, end) = named(text, body, tool, |rest| {
            rest.starts_with("[ARGS]") || rest.starts_with("[CALL_ID]")
        })?;
        return Some(Opening {
            form: Form::MistralArgs { body: end },
            start: at,
            named,
            resume: end,
            crowded: false,
        });
    }
    if let Some(opening) = array.and_then(|end| mistral_array(text, at, body, end, tool)) {
        return Some(opening);
    }
    // A broken array: its first object, as it stands.
    let object = skip_space(text, body + 1);
    let named = json_named(text, object, tool, false)?;
    Some(Opening {
        form: Form::MistralArray { object },
        start: at,
        named,
        resume: body + 1,
        crowded: false,
    })
}

/// The calls a complete array after `[TOOL_CALLS]` holds, from `body` to `end`.
fn mistral_array(text: &str, at: usize, body: usize, end: usize, tool: &str) -> Option<Opening> {
    let elements = array_elements(text, body, end)?;
    let mut calls = 0;
    let mut submit = None;
    for element in elements {
        let Some(named) = json_named(text.get(element.clone())?, 0, tool, false) else {
            continue;
        };
        calls += 1;
        if named == Named::Submit && submit.is_none() {
            submit = Some(element.start);
        }
    }
    if calls == 0 {
        return None;
    }
    Some(Opening {
        form: Form::MistralArray {
            object: submit.unwrap_or(body),
        },
        start: at,
        named: if submit.is_some() {
            Named::Submit
        } else {
            Named::Other
        },
        resume: end,
        crowded: calls > 1,
    })
}

/// The call object at `brace`: its members (each once) and the offset after it.
fn call_object(text: &str, brace: usize) -> Result<(Members<'_>, usize), String> {
    let mut stream =
        serde_json::Deserializer::from_str(rest(text, brace)).into_iter::<Members<'_>>();
    match stream.next() {
        Some(Ok(members)) => Ok((members, brace + stream.byte_offset())),
        Some(Err(error)) => Err(match Members::repeat_at_start(rest(text, brace)) {
            Some(name) => format!("the call object names {} twice", quoted(&name)),
            None => format!("the call object is not JSON: {error}"),
        }),
        None => Err("the call object is not JSON".to_owned()),
    }
}

/// Checks that `object` holds only the members `allowed`.
fn only(object: &Members<'_>, allowed: &[&str]) -> Result<(), String> {
    match object
        .list
        .iter()
        .find(|(name, _)| !allowed.contains(&name.as_ref()))
    {
        Some((name, _)) => Err(format!(
            "the call object holds {}, which is not one of {}",
            quoted(name),
            allowed.join(", ")
        )),
        None => Ok(()),
    }
}

/// The arguments member `member`: an object as its text, or (`string`) a JSON string's
/// content as argument text.
fn arguments<'t>(raw: &'t RawValue, member: &str, string: bool) -> Result<Cow<'t, str>, String> {
    match raw.get().as_bytes().first() {
        Some(b'{') => Ok(Cow::Borrowed(raw.get())),
        Some(b'"') if string => serde_json::from_str::<CowStr<'t>>(raw.get())
            .map(|text| text.0)
            .map_err(|error| format!("{member} is not a JSON string: {error}")),
        _ if string => Err(format!("{member} is neither an object nor a JSON string")),
        _ => Err(format!("{member} is not an object")),
    }
}

/// Reads a hermes call.
pub(crate) fn read_hermes(text: &str, object: usize) -> Result<CallRead<'_>, String> {
    let (members, end) = call_object(text, object)?;
    only(&members, &["name", "arguments"])?;
    let raw = members
        .get("arguments")
        .ok_or("the call object has no arguments")?;
    let arguments = arguments(raw, "arguments", true)?;
    let end = after(text, skip_space(text, end), "</tool_call>")
        .ok_or("no </tool_call> after the call object")?;
    Ok(CallRead { arguments, end })
}

/// Reads a llama_json call.
pub(crate) fn read_llama(text: &str, object: usize, fenced: bool) -> Result<CallRead<'_>, String> {
    let (members, end) = call_object(text, object)?;
    only(&members, &["type", "name", "parameters", "arguments"])?;
    if let Some(kind) = members.get("type") {
        if kind.get() != "\"function\"" {
            return Err("the call object's type is not \"function\"".to_owned());
        }
    }
    let (raw, member) = match (members.get("parameters"), members.get("arguments")) {
        (Some(raw), None) => (raw, "parameters"),
        (None, Some(raw)) => (raw, "arguments"),
        (Some(_), Some(_)) => {
            return Err("the call object holds both parameters and arguments".to_owned())
        }
        (None, None) => return Err("the call object has no parameters".to_owned()),
    };
    let arguments = arguments(raw, member, false)?;
    let end = if fenced {
        fence_close(text, end).ok_or("the Markdown fence does not close after the call object")?
    } else {
        end
    };
    Ok(CallRead { arguments, end })
}

/// Reads a mistral call out of an array: its object, then the array's end.
pub(crate) fn read_mistral_array(text: &str, object: usize) -> Result<CallRead<'_>, String> {
    let (members, end) = call_object(text, object)?;
    only(&members, &["name", "arguments", "id"])?;
    let raw = members
        .get("arguments")
        .ok_or("the call object has no arguments")?;
    let arguments = arguments(raw, "arguments", false)?;
    let end = after(text, skip_space(text, end), "]").ok_or("no ] after the call object")?;
    Ok(CallRead { arguments, end })
}

/// Reads a mistral call written `NAME[ARGS]{…}` or `NAME[CALL_ID]<id>[ARGS]{…}`, from after
/// NAME.
pub(crate) fn read_mistral_args(text: &str, body: usize) -> Result<CallRead<'_>, String> {
    let args = if let Some(id) = after(text, body, "[CALL_ID]") {
        let len = rest(text, id)
            .bytes()
            .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-'))
            .count();
        if len == 0 {
            return Err("no call id after [CALL_ID]".to_owned());
        }
        after(text, id + len, "[ARGS]").ok_or("no [ARGS] after the call id")?
    } else {
        after(text, body, "[ARGS]").ok_or("no [ARGS] after the tool's name")?
    };
    // The object follows [ARGS] directly or after whitespace.
    let (arguments, end) = json_object(text, args)?;
    Ok(CallRead {
        arguments: Cow::Borrowed(arguments),
        end,
    })
}
