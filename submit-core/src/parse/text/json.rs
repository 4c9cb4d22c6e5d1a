//! JSON in the text: where an object or array the model printed ends (or stops being JSON), the
//! arguments object a form holds, the Markdown fences around one, and JSON strings written out.

use std::ops::Range;

use serde_json::value::RawValue;

use super::lex::{after, has, is_space, line_break, rest, skip_space};

/// The end of the JSON object or array that starts at `at`, or the offset where the bytes stop
/// being one. Iterative (a stack of open containers, no recursion); strings may hold raw control
/// bytes and any escape, since the question is where the JSON the model printed ends, not
/// whether a decoder takes it.
pub(crate) fn json_end(bytes: &[u8], at: usize) -> Result<usize, usize> {
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

/// The byte ranges in `text` of the elements of the JSON array that stands from `open` (its `[`)
/// to `end` (after its `]`); `None` when that text is not one JSON array.
pub(crate) fn array_elements(text: &str, open: usize, end: usize) -> Option<Vec<Range<usize>>> {
    let elements = serde_json::from_str::<Vec<&RawValue>>(text.get(open..end)?).ok()?;
    // The decoder took the array: between its elements stand whitespace and one comma.
    let mut ranges = Vec::with_capacity(elements.len());
    let mut at = open + 1;
    for (index, element) in elements.into_iter().enumerate() {
        at = skip_space(text, at);
        if index > 0 {
            at = skip_space(text, at + 1);
        }
        let range = at..at + element.get().len();
        if text.get(range.clone()) != Some(element.get()) {
            return None;
        }
        at = range.end;
        ranges.push(range);
    }
    Some(ranges)
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

/// A Markdown fence's opening line at `at`: three backticks, an optional language tag of
/// `[A-Za-z0-9_+-]`, a line break; the offset after it.
pub(crate) fn fence_open(text: &str, at: usize) -> Option<usize> {
    let tag = after(text, at, "```")?;
    let len = rest(text, tag)
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'+' | b'-'))
        .count();
    line_break(text, tag + len)
}

/// A fence's closing line after `at`: whitespace ending in a line break, then three backticks;
/// the offset after them.
pub(crate) fn fence_close(text: &str, at: usize) -> Option<usize> {
    let close = skip_space(text, at);
    let broken = close > at && text.as_bytes().get(close - 1) == Some(&b'\n');
    broken.then(|| after(text, close, "```")).flatten()
}

/// The JSON object that starts at `at` (after whitespace): its text and the offset after it.
pub(crate) fn json_object(text: &str, at: usize) -> Result<(&str, usize), String> {
    let at = skip_space(text, at);
    if !has(text, at, "{") {
        return Err("no arguments object where the form has one".to_owned());
    }
    let mut stream = serde_json::Deserializer::from_str(rest(text, at)).into_iter::<&RawValue>();
    match stream.next() {
        Some(Ok(raw)) => Ok((raw.get(), at + stream.byte_offset())),
        Some(Err(error)) => Err(format!("the arguments are not one JSON object: {error}")),
        None => Err("no arguments object where the form has one".to_owned()),
    }
}

/// Appends `text` to `out` as a JSON string.
pub(crate) fn push_json_string(out: &mut String, text: &str) {
    out.push('"');
    let mut plain = 0;
    for (at, byte) in text.bytes().enumerate() {
        let escaped = match byte {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0..=0x1f => "",
            _ => continue,
        };
        out.push_str(text.get(plain..at).unwrap_or_default());
        if escaped.is_empty() {
            out.push_str(&format!("\\u{byte:04x}"));
        } else {
            out.push_str(escaped);
        }
        plain = at + 1;
    }
    out.push_str(text.get(plain..).unwrap_or_default());
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn array_elements_are_the_ranges_the_decoder_read() {
        let text = "[TOOL_CALLS] [ {\"a\": \"x, ]\"} ,\r\n\t[1, [2]],\"s\" , 3 ]tail";
        let open = text.find("[ ").unwrap();
        let end = text.find("tail").unwrap();
        let ranges = array_elements(text, open, end).unwrap();
        let elements: Vec<&str> = ranges.iter().map(|range| &text[range.clone()]).collect();
        assert_eq!(elements, ["{\"a\": \"x, ]\"}", "[1, [2]]", "\"s\"", "3"]);
        assert_eq!(array_elements("[]", 0, 2), Some(vec![]));
        assert_eq!(array_elements("[ ]", 0, 3), Some(vec![]));
        for broken in ["[1,]", "[1 2]", "[1", "{}"] {
            assert_eq!(array_elements(broken, 0, broken.len()), None, "{broken:?}");
        }
    }

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
}
