//! The `pythonic` form: a call in Python syntax, `[NAME(k=v, …)]` or `NAME(k=v, …)`, or
//! Gemini's `MALFORMED_FUNCTION_CALL` message `Malformed function call: print(default_api.NAME(k=v,
//! …))`; every value a Python literal.
//!
//! Literals become JSON as they are read, left to right, with a stack of open containers (no
//! recursion): `'…'` and `"…"` strings with Python's escapes (an unknown escape keeps its
//! backslash), integers and floats with an optional sign, `True`/`False`/`None`, lists and
//! tuples as arrays, dicts with string keys as objects. Anything else declines: a name, a call,
//! an expression, a triple-quoted or prefixed string, an integer with a leading zero, a
//! non-string key, nesting deeper than [`MAX_DEPTH`]. A bare `NAME(` right after an identifier
//! character or `.` is no call; another tool's call is one only inside the submit call's own
//! list, where the list is read for its brackets alone (and the strings that may hold some).

use super::lex::{after, has, named, skip_space, Named};
use super::literal::{Literal, MAX_DEPTH};
use super::opening::{CallRead, Enclosure, Form, Opening};

/// Gemini's finish message for a call it could not parse.
pub(crate) const MALFORMED: &str = "Malformed function call:";

/// What a `[` opens.
pub(crate) enum List {
    /// A list of calls that holds a call of the submit tool (or starts with one).
    Call(Opening),
    /// A list of calls of other tools only, which are no calls here; it ends at the offset.
    OthersOnly(usize),
    /// No list of calls; when it looked like one up to an offset, no list is tried again before
    /// it.
    NotCalls(Option<usize>),
}

/// A bare call of the submit tool: `<tool>(` at `at`, not right after an identifier character
/// or `.`.
pub(crate) fn bare_opening(text: &str, at: usize, tool: &str) -> Option<Opening> {
    let before = text.get(..at)?.chars().next_back();
    if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.') {
        return None;
    }
    Some(Opening {
        form: Form::Pythonic {
            call: at,
            enclosure: Enclosure::Bare,
        },
        start: at,
        named: Named::Submit,
        resume: at + tool.len() + 1,
        crowded: false,
    })
}

/// Gemini's message at `at`: `Malformed function call:`, whitespace, `print(default_api.NAME(`.
pub(crate) fn gemini_opening(text: &str, at: usize, tool: &str) -> Option<Opening> {
    let print = skip_space(text, at + MALFORMED.len());
    let call = after(text, print, "print(default_api.")?;
    let (named, end) = named(text, call, tool, |rest| rest.starts_with('('))?;
    Some(Opening {
        form: Form::Pythonic {
            call,
            enclosure: Enclosure::Gemini,
        },
        start: at,
        named,
        resume: end,
        crowded: false,
    })
}

/// What the `[` at `at` opens: a list of calls, read for its brackets.
pub(crate) fn list_opening(text: &str, at: usize, tool: &str) -> List {
    let bytes = text.as_bytes();
    let mut submit = None;
    let mut calls = 0;
    let mut next = skip_space(text, at + 1);
    let found = |submit: Option<usize>, calls: usize, end: usize| match submit {
        Some(call) => List::Call(Opening {
            form: Form::Pythonic {
                call,
                enclosure: Enclosure::List,
            },
            start: at,
            named: Named::Submit,
            resume: end,
            crowded: calls > 1,
        }),
        None => List::OthersOnly(end),
    };
    loop {
        // An element: NAME( … ).
        let name = next;
        let starts_name = bytes
            .get(name)
            .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_')
            || has(text, name, tool);
        let element = named(text, name, tool, |rest| rest.starts_with('('))
            .filter(|(_, open)| starts_name && has(text, *open, "("));
        let Some((who, open)) = element else {
            return match submit {
                Some(_) => found(submit, calls, name),
                None if calls == 0 => List::NotCalls(None),
                None => List::NotCalls(Some(name)),
            };
        };
        calls += 1;
        if who == Named::Submit && submit.is_none() {
            submit = Some(name);
        }
        let end = match skip_group(bytes, open) {
            Ok(end) => end,
            Err(stop) => {
                return match submit {
                    Some(_) => found(submit, calls, stop),
                    None => List::NotCalls(Some(stop)),
                }
            }
        };
        next = skip_space(text, end);
        if let Some(end) = after(text, next, "]") {
            return found(submit, calls, end);
        }
        let Some(comma) = after(text, next, ",") else {
            return match submit {
                Some(_) => found(submit, calls, next),
                None => List::NotCalls(Some(next)),
            };
        };
        next = skip_space(text, comma);
        if let Some(end) = after(text, next, "]") {
            return found(submit, calls, end);
        }
    }
}

/// The offset after the group that the bracket at `open` opens, read for its brackets: strings
/// (with escapes, single or triple quoted) and nested brackets; or the offset where the nesting
/// breaks.
fn skip_group(bytes: &[u8], open: usize) -> Result<usize, usize> {
    let mut closers: Vec<u8> = Vec::new();
    let mut at = open;
    while let Some(&byte) = bytes.get(at) {
        match byte {
            b'\'' | b'"' => {
                at = string_end(bytes, at)?;
                continue;
            }
            b'(' => closers.push(b')'),
            b'[' => closers.push(b']'),
            b'{' => closers.push(b'}'),
            b')' | b']' | b'}' => {
                if closers.pop() != Some(byte) {
                    return Err(at);
                }
                if closers.is_empty() {
                    return Ok(at + 1);
                }
            }
            _ => {}
        }
        if closers.len() > MAX_DEPTH + 1 {
            return Err(at);
        }
        at += 1;
    }
    Err(bytes.len())
}

/// The offset after the Python string whose quote is at `at`.
fn string_end(bytes: &[u8], at: usize) -> Result<usize, usize> {
    let quote = bytes.get(at).copied().unwrap_or(b'"');
    let triple = bytes.get(at + 1) == Some(&quote) && bytes.get(at + 2) == Some(&quote);
    let mut at = if triple { at + 3 } else { at + 1 };
    loop {
        match bytes.get(at) {
            None => return Err(bytes.len()),
            Some(b'\\') => at += 2,
            Some(b'\n') if !triple => return Err(at),
            Some(&byte) if byte == quote => {
                if !triple {
                    return Ok(at + 1);
                }
                if bytes.get(at + 1) == Some(&quote) && bytes.get(at + 2) == Some(&quote) {
                    return Ok(at + 3);
                }
                at += 1;
            }
            Some(_) => at += 1,
        }
    }
}

/// Reads a pythonic call of `tool`, whose name is at `call`.
pub(crate) fn read<'t>(
    text: &'t str,
    call: usize,
    enclosure: Enclosure,
    tool: &str,
) -> Result<CallRead<'t>, String> {
    let open = call + tool.len();
    if !has(text, open, "(") {
        return Err(format!("no ( after {tool}"));
    }
    let (arguments, end) = Literal::arguments(text, open)?;
    let end = match enclosure {
        Enclosure::Bare => end,
        Enclosure::List => {
            let mut at = skip_space(text, end);
            if let Some(comma) = after(text, at, ",") {
                at = skip_space(text, comma);
            }
            after(text, at, "]").ok_or("no ] after the call")?
        }
        Enclosure::Gemini => {
            after(text, skip_space(text, end), ")").ok_or("no ) closing print(")?
        }
    };
    Ok(CallRead {
        arguments: arguments.into(),
        end,
    })
}
