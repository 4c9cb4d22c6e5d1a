//! SUBMIT.md §7: the bounded, escaped echo of a declined stringified payload (trace only).

/// How many bytes of a long string the echo quotes.
pub(crate) const ECHO_LIMIT: usize = 128;

/// `<field> arrived as a <N>-byte string: <quoted>` for N ≤ 128, else `… beginning <quoted
/// prefix>` with the prefix cut back to a UTF-8 boundary, quoted as `Debug` quotes a `str`.
pub(crate) fn echo(field: &str, text: &str) -> String {
    let len = text.len();
    if len <= ECHO_LIMIT {
        return format!("{field} arrived as a {len}-byte string: {text:?}");
    }
    let mut end = ECHO_LIMIT;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let prefix = text.get(..end).unwrap_or_default();
    format!("{field} arrived as a {len}-byte string beginning {prefix:?}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_string_is_quoted_whole() {
        assert_eq!(
            echo("analysis", "not a json object"),
            "analysis arrived as a 17-byte string: \"not a json object\""
        );
    }

    #[test]
    fn exactly_128_bytes_is_quoted_whole() {
        let text = "a".repeat(128);
        assert_eq!(
            echo("r", &text),
            format!("r arrived as a 128-byte string: \"{text}\"")
        );
    }

    #[test]
    fn long_string_is_cut_to_128_bytes() {
        let text = format!("{}NEEDLE", "a".repeat(200));
        let echoed = echo("r", &text);
        assert_eq!(
            echoed,
            format!(
                "r arrived as a 206-byte string beginning \"{}\"",
                "a".repeat(128)
            )
        );
        assert!(!echoed.contains("NEEDLE"));
    }

    #[test]
    fn cut_backs_to_a_utf8_boundary() {
        // 127 ASCII bytes then a 3-byte character straddling the bound.
        let text = format!("{}€tail", "a".repeat(127));
        assert_eq!(
            echo("r", &text),
            format!(
                "r arrived as a {}-byte string beginning \"{}\"",
                text.len(),
                "a".repeat(127)
            )
        );
    }

    #[test]
    fn control_characters_are_escaped() {
        let echoed = echo("r", "\u{1b}[31mred\n\"q\"\\");
        assert_eq!(
            echoed,
            "r arrived as a 13-byte string: \"\\u{1b}[31mred\\n\\\"q\\\"\\\\\""
        );
        assert!(!echoed.contains('\u{1b}'));
    }
}
