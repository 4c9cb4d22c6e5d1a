//! Closing tokens, what may follow an object recovered from a string, from reasoning or from
//! broken argument text; and finding "one object, then closing tokens" at the start of a text.

use std::ops::Range;

use serde::de::DeserializeOwned;
use serde_json::value::RawValue;

use super::members::{Members, UniqueMembers};
use super::reasoning::trim_start_space;

/// Whether `rest` holds closing tokens only: runs of `}`, `]`, space, tab, CR, LF and closing
/// tags `</NAME>` with NAME in `[A-Za-z0-9_]+`, in any order. One pass over the bytes.
pub(crate) fn only_closing_tokens(rest: &str) -> bool {
    let bytes = rest.as_bytes();
    let mut at = 0;
    while let Some(&byte) = bytes.get(at) {
        match byte {
            b'}' | b']' | b' ' | b'\t' | b'\r' | b'\n' => at += 1,
            b'<' => match closing_tag_len(bytes.get(at..).unwrap_or_default()) {
                Some(len) => at += len,
                None => return false,
            },
            _ => return false,
        }
    }
    true
}

/// The byte length of the closing tag `</NAME>` that `text` starts with, if it starts with one.
fn closing_tag_len(text: &[u8]) -> Option<usize> {
    let name = text.strip_prefix(b"</")?;
    let name_len = name
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
        .count();
    (name_len > 0 && name.get(name_len) == Some(&b'>')).then_some(name_len + 3)
}

/// The byte range of the JSON object that `text` starts with (after JSON whitespace), when
/// what follows it is closing tokens only; `None` when the first value is not an object, does
/// not decode, or is followed by anything else. Linear: the object is scanned once, without
/// recursion (serde_json skips a raw value iteratively).
pub(crate) fn leading_object(text: &str) -> Option<Range<usize>> {
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<&RawValue>();
    let raw = stream.next()?.ok()?;
    let end = stream.byte_offset();
    let start = end.checked_sub(raw.get().len())?;
    (raw.get().starts_with('{') && only_closing_tokens(text.get(end..)?)).then_some(start..end)
}

/// The JSON object that `text` starts with (after JSON whitespace) decoded into `R`, when what
/// follows it is closing tokens only: [`leading_object`] and a decode of its range in one pass.
/// `None` when the first value is not an object, does not decode into `R`, or is followed by
/// anything else (a member of the object named twice included). Decoding is under
/// serde_json's depth limit.
pub(crate) fn leading_decoded<R: DeserializeOwned>(text: &str) -> Option<R> {
    if !trim_start_space(text).starts_with('{') {
        return None;
    }
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<UniqueMembers<R>>();
    let UniqueMembers(response) = stream.next()?.ok()?;
    only_closing_tokens(text.get(stream.byte_offset()..)?).then_some(response)
}

/// The members of the JSON object `text` starts with, when closing tokens only follow it.
pub(crate) fn leading_members(text: &str) -> Option<Members<'_>> {
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<Members<'_>>();
    let object = stream.next()?.ok()?;
    only_closing_tokens(text.get(stream.byte_offset()..)?).then_some(object)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closing_tokens_accept_braces_brackets_whitespace_and_closing_tags() {
        for rest in [
            "",
            "}",
            "}}",
            "]",
            "}]",
            " }\n} ",
            "]]}",
            "</analysis>\n",
            "</analysis>\n</invoke>\n",
            "\n</analysis>\n</invoke>\n",
            "</analysis>\n</submit_result>\n\n",
            "}</analysis>",
            "]</analysis>\n}",
            "\t\r\n</A_9>",
        ] {
            assert!(
                only_closing_tokens(rest),
                "{rest:?} should be closing tokens"
            );
        }
    }

    #[test]
    fn closing_tokens_decline_prose_opening_tags_and_malformed_tags() {
        for rest in [
            "</analysis>\n<parameter name=\"reasoning\">the log shows",
            "</analysis> and that is my answer",
            "</analysis",
            "</>",
            "</ analysis>",
            "</analysis >",
            "</a-b>",
            "</a:b>",
            " and that is my answer",
            "<parameter name=\"x\">",
            ")",
            "\"",
            "\u{a0}",
            "\u{feff}",
            "<",
            "</",
            ",",
        ] {
            assert!(!only_closing_tokens(rest), "{rest:?} should decline");
        }
    }

    #[test]
    fn leading_object_finds_the_object_and_allows_leading_whitespace() {
        let text = " \n{\"a\":\"}\"}</x>]";
        let range = leading_object(text).unwrap();
        assert_eq!(&text[range], "{\"a\":\"}\"}");
    }

    #[test]
    fn leading_object_declines_non_objects_truncation_bom_and_trailing_prose() {
        for text in [
            "",
            "null",
            "[1]",
            "\"x\"",
            "{\"a\":",
            "\u{feff}{}",
            "{} and more",
            "{}{}",
            "42 }",
        ] {
            assert_eq!(leading_object(text), None, "{text:?}");
        }
    }

    #[test]
    fn leading_object_survives_deep_nesting() {
        let deep = "[".repeat(1 << 20);
        assert_eq!(leading_object(&deep), None);
        let deep_object = format!("{{\"a\":{}", "[".repeat(1 << 20));
        assert_eq!(leading_object(&deep_object), None);
        assert_eq!(leading_object(&"{".repeat(1 << 20)), None);
    }

    #[test]
    fn leading_members_reads_the_object_members() {
        let members = leading_members("{\"reasoning\":\"r\",\"a\":{}}\n}").unwrap();
        assert_eq!(members.list.len(), 2);
        assert!(leading_members("{\"a\":{}} x").is_none());
    }
}
