//! Where calls written as text open: the markers of every form, in the order they stand in the
//! text, outside the JSON objects and arrays the text holds; and what may follow a call.
//!
//! One pass from the start. `memchr` finds the next `<`, `[` or `{`, and three `memmem` finders
//! the next `to=functions.`, `Malformed function call:` and `<tool>(`, each searching a stretch
//! of text once; the nearest of them is looked at, and the pass goes on past it. Each look is bounded (a marker, whitespace, a name
//! of at most [`MAX_NAME`] bytes) or consumes what it scans: a complete JSON object or array is
//! skipped whole, so a form quoted inside a JSON string the model printed is part of that JSON,
//! not a call. A JSON value or a Python list that turns out not to be one is not tried again from
//! inside the bytes it covered, which keeps the pass linear in the text.

use memchr::{memchr3, memmem};

use super::{objects, python, tags, tokens, Named, Opening};

/// The longest name of another tool read out of a form (the submit tool's own name is compared
/// whole, whatever its length).
pub(super) const MAX_NAME: usize = 256;

/// The tokens that may end a turn after a call (besides whitespace and closing tokens).
const END_OF_TURN: [&str; 10] = [
    "<|im_end|>",
    "<|eot_id|>",
    "<|eom_id|>",
    "<|eot|>",
    "<|eom|>",
    "<|python_end|>",
    "<|call|>",
    "<|end|>",
    "</s>",
    "<｜end▁of▁sentence｜>",
];

/// Whether `byte` is ASCII whitespace: space, tab, CR, LF.
pub(super) fn is_space(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\r' | b'\n')
}

/// The offset of the first byte at or after `at` that is not whitespace.
pub(super) fn skip_space(text: &str, at: usize) -> usize {
    let bytes = text.as_bytes();
    let mut at = at;
    while bytes.get(at).copied().is_some_and(is_space) {
        at += 1;
    }
    at
}

/// Whether `text` holds `marker` at `at`.
pub(super) fn has(text: &str, at: usize, marker: &str) -> bool {
    text.as_bytes()
        .get(at..)
        .is_some_and(|rest| rest.starts_with(marker.as_bytes()))
}

/// The offset after `marker` at `at`, if it is there.
pub(super) fn after(text: &str, at: usize, marker: &str) -> Option<usize> {
    has(text, at, marker).then_some(at + marker.len())
}

/// `text[at..]`, or `""` past its end.
pub(super) fn rest(text: &str, at: usize) -> &str {
    text.get(at..).unwrap_or_default()
}

/// Whether `byte` may be part of a tool's name as the forms write it.
pub(super) fn is_name_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'-' | b'.')
}

/// Who the name at `at` is, and where it ends. The submit tool is named where its exact name is
/// there and no other name byte follows it. Another tool is named by a run of 1 to [`MAX_NAME`]
/// name bytes that `then` accepts what follows of (the form's next token), so that prose after
/// a marker is not taken for a name.
pub(super) fn named(
    text: &str,
    at: usize,
    tool: &str,
    then: impl Fn(&str) -> bool,
) -> Option<(Named, usize)> {
    let bytes = text.as_bytes();
    let run = bytes
        .get(at..)
        .unwrap_or_default()
        .iter()
        .take(MAX_NAME + 1)
        .take_while(|byte| is_name_byte(**byte))
        .count();
    let end = at + run;
    if has(text, at, tool)
        && !bytes
            .get(at + tool.len())
            .copied()
            .is_some_and(is_name_byte)
    {
        return Some((Named::Submit, at + tool.len()));
    }
    (run > 0 && run <= MAX_NAME && then(rest(text, end))).then_some((Named::Other, end))
}

/// Whether `rest` (what follows a call) holds only whitespace, closing tokens (`}`, `]`,
/// `</NAME>` with NAME in `[A-Za-z0-9_]+`) and end-of-turn tokens, in any order.
pub(super) fn only_end(rest: &str) -> bool {
    let bytes = rest.as_bytes();
    let mut at = 0;
    while let Some(&byte) = bytes.get(at) {
        if is_space(byte) || byte == b'}' || byte == b']' {
            at += 1;
        } else if let Some(token) = END_OF_TURN.iter().find(|token| has(rest, at, token)) {
            at += token.len();
        } else if let Some(len) = closing_tag_len(bytes.get(at..).unwrap_or_default()) {
            at += len;
        } else {
            return false;
        }
    }
    true
}

/// The byte length of the closing tag `</NAME>` that `bytes` starts with, if it starts with one.
fn closing_tag_len(bytes: &[u8]) -> Option<usize> {
    let name = bytes.strip_prefix(b"</")?;
    let len = name
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
        .count();
    (len > 0 && name.get(len) == Some(&b'>')).then_some(len + 3)
}

/// The end of the JSON object or array that starts at `at`, or the offset where the bytes stop
/// being one. Iterative (a stack of open containers, no recursion); strings may hold raw control
/// bytes and any escape, since the question is where the JSON the model printed ends, not
/// whether a decoder takes it.
pub(super) fn json_end(bytes: &[u8], at: usize) -> Result<usize, usize> {
    // The open containers, `true` for an object.
    let mut open: Vec<bool> = Vec::new();
    let mut at = at;
    'value: loop {
        at = skip_json_space(bytes, at);
        match bytes.get(at) {
            Some(b'{') => {
                at = skip_json_space(bytes, at + 1);
                if bytes.get(at) == Some(&b'}') {
                    at += 1;
                } else {
                    open.push(true);
                    at = json_key(bytes, at)?;
                    continue 'value;
                }
            }
            Some(b'[') => {
                at = skip_json_space(bytes, at + 1);
                if bytes.get(at) == Some(&b']') {
                    at += 1;
                } else {
                    open.push(false);
                    continue 'value;
                }
            }
            Some(b'"') => at = json_string_end(bytes, at)?,
            Some(b't') => at = literal_end(bytes, at, b"true")?,
            Some(b'f') => at = literal_end(bytes, at, b"false")?,
            Some(b'n') => at = literal_end(bytes, at, b"null")?,
            Some(b'-' | b'0'..=b'9') => at = json_number_end(bytes, at)?,
            _ => return Err(at),
        }
        // A value ended: close what it ends, or go on to the next value.
        loop {
            let Some(&object) = open.last() else {
                return Ok(at);
            };
            at = skip_json_space(bytes, at);
            match bytes.get(at) {
                Some(b',') if object => {
                    at = json_key(bytes, at + 1)?;
                    continue 'value;
                }
                Some(b',') => {
                    at += 1;
                    continue 'value;
                }
                Some(b'}') if object => {
                    open.pop();
                    at += 1;
                }
                Some(b']') if !object => {
                    open.pop();
                    at += 1;
                }
                _ => return Err(at),
            }
        }
    }
}

fn skip_json_space(bytes: &[u8], at: usize) -> usize {
    let mut at = at;
    while bytes.get(at).copied().is_some_and(is_space) {
        at += 1;
    }
    at
}

/// A member's key and its colon, from `at`; the offset after the colon.
fn json_key(bytes: &[u8], at: usize) -> Result<usize, usize> {
    let at = skip_json_space(bytes, at);
    if bytes.get(at) != Some(&b'"') {
        return Err(at);
    }
    let at = skip_json_space(bytes, json_string_end(bytes, at)?);
    if bytes.get(at) != Some(&b':') {
        return Err(at);
    }
    Ok(at + 1)
}

/// The offset after the JSON string whose opening quote is at `at`.
fn json_string_end(bytes: &[u8], at: usize) -> Result<usize, usize> {
    let mut at = at + 1;
    loop {
        let rest = bytes.get(at..).unwrap_or_default();
        match memchr::memchr2(b'"', b'\\', rest) {
            None => return Err(bytes.len()),
            Some(found) => {
                at += found;
                if bytes.get(at) == Some(&b'"') {
                    return Ok(at + 1);
                }
                // A backslash escapes the byte after it.
                at += 2;
            }
        }
    }
}

fn literal_end(bytes: &[u8], at: usize, literal: &[u8]) -> Result<usize, usize> {
    if bytes
        .get(at..)
        .is_some_and(|rest| rest.starts_with(literal))
    {
        Ok(at + literal.len())
    } else {
        Err(at)
    }
}

/// The offset after the JSON number at `at`: `-`? digits (`.` digits)? (`e` sign? digits)?.
fn json_number_end(bytes: &[u8], at: usize) -> Result<usize, usize> {
    let digits = |from: usize| {
        bytes
            .get(from..)
            .unwrap_or_default()
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count()
    };
    let mut at = at;
    if bytes.get(at) == Some(&b'-') {
        at += 1;
    }
    let whole = digits(at);
    if whole == 0 {
        return Err(at);
    }
    // A leading zero stands alone.
    at += if bytes.get(at) == Some(&b'0') {
        1
    } else {
        whole
    };
    if bytes.get(at) == Some(&b'.') {
        let fraction = digits(at + 1);
        if fraction == 0 {
            return Err(at + 1);
        }
        at += 1 + fraction;
    }
    if matches!(bytes.get(at), Some(b'e' | b'E')) {
        at += 1;
        if matches!(bytes.get(at), Some(b'+' | b'-')) {
            at += 1;
        }
        let exponent = digits(at);
        if exponent == 0 {
            return Err(at);
        }
        at += exponent;
    }
    Ok(at)
}

/// The next occurrence of one needle, found once for every stretch of text the pass crosses:
/// each search starts where the pass is, and runs again only once the pass went beyond what it
/// found.
struct Next {
    /// The needle; `None` for any of `<`, `[`, `{`.
    finder: Option<memmem::Finder<'static>>,
    /// The occurrence at or after the pass, `None` once there is none.
    at: Option<usize>,
}

impl Next {
    fn new(needle: Option<&[u8]>, bytes: &[u8]) -> Next {
        let finder = needle.map(|needle| memmem::Finder::new(needle).into_owned());
        let mut next = Next { finder, at: None };
        next.at = next.search(bytes, 0);
        next
    }

    fn search(&self, bytes: &[u8], pos: usize) -> Option<usize> {
        let rest = bytes.get(pos..)?;
        let found = match &self.finder {
            Some(finder) => finder.find(rest),
            None => memchr3(b'<', b'[', b'{', rest),
        };
        found.map(|found| pos + found)
    }

    /// The occurrence at or after `pos`.
    fn from(&mut self, bytes: &[u8], pos: usize) -> Option<usize> {
        match self.at {
            Some(at) if at < pos => {
                self.at = self.search(bytes, pos);
                self.at
            }
            other => other,
        }
    }
}

/// What stands at a place the pass looks at.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mark {
    /// `<`, `[` or `{`.
    Byte,
    /// `to=functions.`
    Recipient,
    /// `Malformed function call:`
    Malformed,
    /// `<tool>(`
    Bare,
}

/// The openings of the calls in a text, in order.
pub(super) struct Scanner<'t> {
    text: &'t str,
    tool: &'t str,
    /// Where the pass is.
    pos: usize,
    /// JSON values are tried only from here on (a failed try covered the bytes before).
    json_from: usize,
    /// Python lists of calls are tried only from here on.
    python_from: usize,
    byte: Next,
    recipient: Next,
    malformed: Next,
    bare: Next,
}

impl<'t> Scanner<'t> {
    /// A pass over `text`, for the submit tool `tool`.
    pub(super) fn new(text: &'t str, tool: &'t str) -> Scanner<'t> {
        let bytes = text.as_bytes();
        let mut call = tool.as_bytes().to_vec();
        call.push(b'(');
        Scanner {
            text,
            tool,
            pos: 0,
            json_from: 0,
            python_from: 0,
            byte: Next::new(None, bytes),
            recipient: Next::new(Some(tokens::RECIPIENT.as_bytes()), bytes),
            malformed: Next::new(Some(python::MALFORMED.as_bytes()), bytes),
            bare: Next::new(Some(&call), bytes),
        }
    }

    /// The nearest place to look at, at or after the pass.
    fn next_mark(&mut self) -> Option<(usize, Mark)> {
        let bytes = self.text.as_bytes();
        let pos = self.pos;
        [
            self.byte.from(bytes, pos).map(|at| (at, Mark::Byte)),
            self.recipient
                .from(bytes, pos)
                .map(|at| (at, Mark::Recipient)),
            self.malformed
                .from(bytes, pos)
                .map(|at| (at, Mark::Malformed)),
            self.bare.from(bytes, pos).map(|at| (at, Mark::Bare)),
        ]
        .into_iter()
        .flatten()
        .min_by_key(|(at, _)| *at)
    }

    /// Skips the JSON object or array at `at` when it is complete; otherwise no JSON value is
    /// tried again before where it stopped being one. The pass goes on after what it skipped.
    fn skip_json(&mut self, at: usize) {
        if at < self.json_from {
            self.pos = at + 1;
            return;
        }
        match json_end(self.text.as_bytes(), at) {
            Ok(end) => self.pos = end,
            Err(stop) => {
                self.json_from = stop;
                self.pos = at + 1;
            }
        }
    }

    /// The opening at a `[`: Mistral's marker, a Python list of calls, or else JSON.
    fn at_bracket(&mut self, at: usize) -> Option<Opening> {
        let (text, tool) = (self.text, self.tool);
        if let Some(body) = after(text, at, objects::TOOL_CALLS) {
            let body = skip_space(text, body);
            // An array of calls is read whole when it is one.
            let mut array = None;
            if has(text, body, "[") && body >= self.json_from {
                match json_end(text.as_bytes(), body) {
                    Ok(end) => array = Some(end),
                    Err(stop) => self.json_from = stop,
                }
            }
            let found = objects::mistral_opening(text, at, body, array, tool);
            if found.is_none() {
                self.pos = body;
            }
            return found;
        }
        if at >= self.python_from {
            match python::list_opening(text, at, tool) {
                python::List::Call(opening) => return Some(opening),
                python::List::OthersOnly(end) => {
                    self.pos = end;
                    return None;
                }
                python::List::NotCalls(Some(stop)) => self.python_from = stop,
                python::List::NotCalls(None) => {}
            }
        }
        self.skip_json(at);
        None
    }

    /// The next opening of a call, of any tool.
    pub(super) fn next_opening(&mut self) -> Option<Opening> {
        let text = self.text;
        let tool = self.tool;
        loop {
            let (at, mark) = self.next_mark()?;
            let found = match mark {
                Mark::Recipient => tokens::harmony_opening(text, at, tool),
                Mark::Malformed => python::gemini_opening(text, at, tool),
                Mark::Bare => python::bare_opening(text, at, tool),
                Mark::Byte => match text.as_bytes().get(at) {
                    Some(b'<') => angle_opening(text, at, tool),
                    Some(b'[') => {
                        let found = self.at_bracket(at);
                        if found.is_none() {
                            continue;
                        }
                        found
                    }
                    _ => {
                        self.skip_json(at);
                        continue;
                    }
                },
            };
            match found {
                Some(opening) => {
                    self.pos = opening.resume.max(at + 1);
                    return Some(opening);
                }
                None => self.pos = at + 1,
            }
        }
    }
}

/// The opening of a form whose marker starts with `<`.
fn angle_opening(text: &str, at: usize, tool: &str) -> Option<Opening> {
    if let Some(body) = after(text, at, tags::TOOL_CALL) {
        let body = skip_space(text, body);
        return if has(text, body, "{") {
            objects::hermes_opening(text, at, body, tool)
        } else if has(text, body, tags::FUNCTION) {
            tags::xml_opening(text, at, body, tool)
        } else {
            tags::glm_opening(text, at, body, tool)
        };
    }
    if has(text, at, tags::FUNCTION) {
        return tags::xml_opening(text, at, at, tool);
    }
    tokens::section_opening(text, at, tool)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_values_end_where_they_close_and_stop_where_they_break() {
        for (text, end) in [
            ("{}", Ok(2)),
            ("[]x", Ok(2)),
            (r#"{"a": [1, -2.5e3, true, null, "x\"}"]} tail"#, Ok(38)),
            ("{\"raw\nline\": 1}", Ok(15)),
            ("[1, 2, and", Err(7)),
            ("{see below}", Err(1)),
            ("{\"a\" 1}", Err(5)),
            ("[\"open", Err(6)),
            ("[01]", Err(2)),
            ("[0.5, -0]", Ok(9)),
            ("[1.]", Err(3)),
        ] {
            assert_eq!(json_end(text.as_bytes(), 0), end, "{text:?}");
        }
    }

    #[test]
    fn json_values_of_any_depth_are_skipped_without_recursion() {
        let deep = format!("{}{}", "[".repeat(1 << 20), "]".repeat(1 << 20));
        assert_eq!(json_end(deep.as_bytes(), 0), Ok(deep.len()));
        let open = "[".repeat(1 << 20);
        assert_eq!(json_end(open.as_bytes(), 0), Err(open.len()));
    }

    #[test]
    fn a_call_may_be_followed_by_whitespace_closing_tokens_and_end_of_turn_tokens() {
        for rest in [
            "",
            " \n",
            "</tool_call>",
            "}]\n</function_calls>",
            "<|im_end|>",
            "<|eot_id|><|eom_id|><|eot|><|eom|><|python_end|><|call|><|end|></s>",
            "\n<｜end▁of▁sentence｜>",
        ] {
            assert!(only_end(rest), "{rest:?}");
        }
        for rest in [
            "x",
            ")",
            "<|tool_call_end|>",
            "</tool_call> done",
            "<tool_call>",
            "</>",
        ] {
            assert!(!only_end(rest), "{rest:?}");
        }
    }

    #[test]
    fn a_name_is_the_submit_tool_only_when_no_name_byte_follows_it() {
        let any = |_: &str| true;
        assert_eq!(
            named("submit_result>", 0, "submit_result", any),
            Some((Named::Submit, 13))
        );
        assert_eq!(
            named("submit_result2>", 0, "submit_result", any),
            Some((Named::Other, 14))
        );
        assert_eq!(
            named("get_weather tail", 0, "submit_result", |rest| rest
                .starts_with('<')),
            None
        );
        assert_eq!(named("", 0, "submit_result", any), None);
        let long = "a".repeat(MAX_NAME + 1);
        assert_eq!(named(&long, 0, "submit_result", any), None);
    }
}
