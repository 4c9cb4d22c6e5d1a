//! The pieces every form is read with: ASCII whitespace, exact markers, tool names, and what
//! may follow a call (whitespace, closing tokens, end-of-turn tokens).

/// Which tool a call names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Named {
    /// The submit tool.
    Submit,
    /// Another tool.
    Other,
}

/// The longest name of another tool read out of a form (the submit tool's own name is compared
/// whole, whatever its length).
pub(crate) const MAX_NAME: usize = 256;

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
pub(crate) fn is_space(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\r' | b'\n')
}

/// The offset of the first byte at or after `at` that is not whitespace.
pub(crate) fn skip_space(text: &str, at: usize) -> usize {
    let bytes = text.as_bytes();
    let mut at = at;
    while bytes.get(at).copied().is_some_and(is_space) {
        at += 1;
    }
    at
}

/// Whether `text` holds `marker` at `at`.
pub(crate) fn has(text: &str, at: usize, marker: &str) -> bool {
    text.as_bytes()
        .get(at..)
        .is_some_and(|rest| rest.starts_with(marker.as_bytes()))
}

/// The offset after `marker` at `at`, if it is there.
pub(crate) fn after(text: &str, at: usize, marker: &str) -> Option<usize> {
    has(text, at, marker).then_some(at + marker.len())
}

/// `text[at..]`, or `""` past its end.
pub(crate) fn rest(text: &str, at: usize) -> &str {
    text.get(at..).unwrap_or_default()
}

/// Whether `byte` may be part of a tool's name as the forms write it.
pub(crate) fn is_name_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'-' | b'.')
}

/// Who the name at `at` is, and where it ends. The submit tool is named where its exact name is
/// there and no other name byte follows it. Another tool is named by a run of 1 to [`MAX_NAME`]
/// name bytes that `then` accepts what follows of (the form's next token), so that prose after
/// a marker is not taken for a name.
pub(crate) fn named(
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
pub(crate) fn only_end(rest: &str) -> bool {
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

/// The offset after a line break (LF or CRLF) at `at`.
pub(crate) fn line_break(text: &str, at: usize) -> Option<usize> {
    after(text, at, "\n").or_else(|| after(text, at, "\r\n"))
}

/// A name the model wrote, quoted for a message: at most 64 bytes (cut at a character), quoted
/// and escaped as Rust quotes a `str`, so that nothing it holds can drive a terminal.
pub(crate) fn quoted(name: &str) -> String {
    let mut end = name.len().min(64);
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    match name.get(..end) {
        Some(cut) if end < name.len() => format!("{cut:?}…"),
        _ => format!("{name:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
