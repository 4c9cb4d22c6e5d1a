//! Step *Nested payload* of the parsing rules: the payload parameter, an object as it is or a
//! payload that arrived as a string (`stringified`), and where the payload was found, ready for
//! step *Decode*; and the bounded echo of a string that was declined.

use std::borrow::Cow;

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::arguments::{JsonType, Member, Object, PayloadRead};
use super::closing::{leading_decoded, leading_object};
use super::from_reasoning::from_reasoning;
use crate::error::{ParameterCause, SubmitError};
use crate::outcome::RecoveryKind;

/// Where the payload object was found, ready for step *Decode*.
#[derive(Debug)]
pub(crate) enum Payload<'a, R> {
    /// Decoded into the response type as it was found: step *Decode* has nothing left to do.
    Decoded(R),
    /// The object as JSON, for step *Decode* to decode.
    Json(Json<'a>),
}

/// A payload object as JSON.
#[derive(Debug)]
pub(crate) enum Json<'a> {
    /// An object argument, read in place.
    Value(&'a Value),
    /// An object built while parsing (strict mode's `null` removal, a flat payload's rules).
    Owned(Value),
    /// The JSON text of an object: a raw argument, or recovered from a string or reasoning.
    Text(Cow<'a, str>),
    /// A flat payload picked from value arguments, property by property.
    Members(Vec<(&'a str, &'a Value)>),
}

impl<'a> Json<'a> {
    pub(crate) fn of(member: Member<'a>) -> Self {
        match member {
            Member::Value(value) => Json::Value(value),
            Member::Text(raw) => Json::Text(Cow::Borrowed(raw.get())),
        }
    }
}

/// The payload, the reasoning that replaces the argument's (after a recovery from reasoning),
/// and which recovery applied.
#[derive(Debug)]
pub(crate) struct Located<'a, R> {
    pub(crate) payload: Payload<'a, R>,
    pub(crate) reasoning: Option<NewReasoning<'a>>,
    pub(crate) recovery: Option<RecoveryKind>,
    /// A rule applied after the recovery (a stringified payload that held a Markdown fence).
    pub(crate) also: Option<RecoveryKind>,
}

/// The reasoning that replaces the argument's after a recovery from reasoning.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum NewReasoning<'a> {
    /// The argument's first bytes, this many: the text before the payload's mark.
    Prefix(usize),
    /// Another text: the `reasoning` member of the one object the whole reasoning held.
    Text(Cow<'a, str>),
}

impl NewReasoning<'_> {
    /// This reasoning, owning its text (so the argument it may borrow from can move).
    pub(crate) fn into_owned(self) -> NewReasoning<'static> {
        match self {
            NewReasoning::Prefix(len) => NewReasoning::Prefix(len),
            NewReasoning::Text(text) => NewReasoning::Text(Cow::Owned(text.into_owned())),
        }
    }

    /// The reasoning, given the argument's.
    #[cfg(test)]
    pub(crate) fn of<'r>(&'r self, argument: &'r str) -> &'r str {
        match self {
            NewReasoning::Prefix(len) => argument.get(..*len).unwrap_or_default(),
            NewReasoning::Text(text) => text,
        }
    }
}

impl<'a, R> Located<'a, R> {
    pub(crate) fn direct(payload: Payload<'a, R>) -> Self {
        Located {
            payload,
            reasoning: None,
            recovery: None,
            also: None,
        }
    }
}

/// Step *Nested payload* for the payload parameter `field`: an object is taken as is; absent or
/// `null` goes to the recovery from reasoning (`from_reasoning.rs`); a string is read as the
/// object it holds (`stringified`); any other type rejects. `read` is the payload as the fast
/// path of step *The arguments as a whole* read it, if it did. Where the tool decodes its
/// payload straight from text (`decodes_text`), an object recovered from a string or from
/// reasoning is decoded as its end is found.
pub(crate) fn locate<'a, R: DeserializeOwned>(
    object: &Object<'a>,
    read: Option<PayloadRead<'a, R>>,
    field: &str,
    reasoning: &'a str,
    decodes_text: bool,
) -> Result<Located<'a, R>, SubmitError> {
    match read {
        Some(PayloadRead::Decoded(response)) => {
            return Ok(Located::direct(Payload::Decoded(response)))
        }
        Some(PayloadRead::Json(value)) => {
            return Ok(Located::direct(Payload::Json(Json::Owned(value))))
        }
        Some(PayloadRead::String(text)) => return stringified(field, text, decodes_text),
        None => {}
    }
    let Some(member) = object.get(field) else {
        return from_reasoning(field, reasoning, None, decodes_text);
    };
    match member.json_type() {
        JsonType::Object => Ok(Located::direct(Payload::Json(Json::of(member)))),
        JsonType::Null => from_reasoning(field, reasoning, Some(JsonType::Null), decodes_text),
        JsonType::String => {
            let text = member.as_str().unwrap_or_default();
            stringified(field, text, decodes_text)
        }
        other => Err(SubmitError::parameter(
            ParameterCause::AbsentOrMistyped,
            not_an_object(field, Some(other)),
        )),
    }
}

/// `stringified`: the first JSON value of the string must be an object followed by closing
/// tokens.
fn stringified<'a, R: DeserializeOwned>(
    field: &str,
    text: Cow<'a, str>,
    decodes_text: bool,
) -> Result<Located<'a, R>, SubmitError> {
    // The object decoded as its end is found.
    if decodes_text {
        if let Some(response) = leading_decoded::<R>(&text) {
            return Ok(Located {
                payload: Payload::Decoded(response),
                reasoning: None,
                recovery: Some(RecoveryKind::Stringified),
                also: None,
            });
        }
    }
    let (range, also) = match leading_object(&text) {
        Some(range) => (Some(range), None),
        // The string holds the object in a Markdown fence.
        None => match super::whole::fenced_object(&text) {
            Some(range) => (Some(range), Some(RecoveryKind::FencedArguments)),
            None => (None, None),
        },
    };
    match range {
        Some(range) => Ok(Located {
            payload: Payload::Json(Json::Text(slice(text, range))),
            reasoning: None,
            recovery: Some(RecoveryKind::Stringified),
            also,
        }),
        None => Err(SubmitError::parameter(
            ParameterCause::StringifiedDeclined,
            string_declined(field, &text),
        )
        .with_echo(echo(field, &text))),
    }
}

/// The message of step *Nested payload* for a payload that is no object: `<field> parameter is
/// required` when absent (`got` is `None`), else `<field> parameter must be a JSON object, got
/// <type>`, with a hint for a string.
pub(crate) fn not_an_object(field: &str, got: Option<JsonType>) -> String {
    match got {
        None => format!("{field} parameter is required"),
        Some(JsonType::String) => format!(
            "{field} parameter must be a JSON object, got string \u{2014} it looks like the \
             object was JSON-encoded into a string; pass {field} as a nested JSON object, not \
             as a string"
        ),
        Some(got) => format!("{field} parameter must be a JSON object, got {got}"),
    }
}

/// The rejection of a string not read as an object (`stringified_declined`). It says the object
/// was JSON-encoded only when the string looks like one encoded: past whitespace (and a
/// byte-order mark) it opens an object, a Markdown fence, or a JSON string that opens one.
/// Of any other string it says what the string holds instead.
fn string_declined(field: &str, text: &str) -> String {
    let start = text.trim_start_matches([' ', '\t', '\r', '\n', '\u{feff}']);
    let quoted = start
        .strip_prefix('"')
        .map(|rest| rest.trim_start_matches([' ', '\t', '\r', '\n']));
    if start.starts_with('{')
        || start.starts_with("```")
        || quoted.is_some_and(|rest| rest.starts_with('{'))
    {
        return not_an_object(field, Some(JsonType::String));
    }
    let holds = if start.starts_with('[') {
        "a JSON array, not an object"
    } else {
        "no JSON object"
    };
    format!(
        "{field} parameter must be a JSON object, got string \u{2014} the string holds {holds}; \
         pass {field} as a nested JSON object, not as a string"
    )
}

/// `text[range]`, borrowed when `text` is, else cut in place.
fn slice(text: Cow<'_, str>, range: std::ops::Range<usize>) -> Cow<'_, str> {
    match text {
        Cow::Borrowed(text) => Cow::Borrowed(text.get(range).unwrap_or_default()),
        Cow::Owned(mut text) => {
            text.truncate(range.end);
            text.replace_range(..range.start, "");
            Cow::Owned(text)
        }
    }
}

/// How many bytes of a long string the echo quotes.
const ECHO_LIMIT: usize = 128;

/// `<field> arrived as a <N>-byte string: <quoted>` for N ≤ 128, else `… beginning <quoted
/// prefix>` with the prefix cut back to a UTF-8 boundary, quoted as `Debug` quotes a `str`.
fn echo(field: &str, text: &str) -> String {
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
    use super::super::tests::testing::object_of;
    use super::*;
    use serde_json::json;

    fn locate<'a>(
        object: &Object<'a>,
        field: &str,
        reasoning: &'a str,
    ) -> Result<Located<'a, Value>, SubmitError> {
        super::locate(object, None, field, reasoning, false)
    }

    fn text(payload: &Payload<'_, Value>) -> String {
        match payload {
            Payload::Json(Json::Value(value)) => value.to_string(),
            Payload::Json(Json::Owned(value)) => value.to_string(),
            Payload::Json(Json::Text(text)) => text.to_string(),
            Payload::Json(Json::Members(_)) | Payload::Decoded(_) => unreachable!(),
        }
    }

    #[test]
    fn object_payload_is_taken_directly() {
        let value = json!({"a": {"summary": "s"}});
        let args = object_of(&value);
        let located = locate(&args, "a", "").unwrap();
        assert_eq!(text(&located.payload), r#"{"summary":"s"}"#);
        assert_eq!(located.recovery, None);
    }

    #[test]
    fn stringified_payload_is_cut_from_value_and_text_arguments() {
        let value = json!({"a": " {\"summary\":\"s\"}</a>\n</invoke>"});
        let text_arguments = value.to_string();
        for object in [object_of(&value), object_of(text_arguments.as_str())] {
            let located = locate(&object, "a", "").unwrap();
            assert_eq!(text(&located.payload), r#"{"summary":"s"}"#);
            assert_eq!(located.recovery, Some(RecoveryKind::Stringified));
        }
    }

    #[test]
    fn stringified_payload_declines_with_the_hint_and_an_echo() {
        let value = json!({"a": " {\"summary\": \"s\" trailing"});
        let error = locate(&object_of(&value), "a", "").unwrap_err();
        assert_eq!(error.cause(), Some(ParameterCause::StringifiedDeclined));
        assert_eq!(
            error.message(),
            "a parameter must be a JSON object, got string \u{2014} it looks like the object \
             was JSON-encoded into a string; pass a as a nested JSON object, not as a string"
        );
        assert!(error
            .trace_text()
            .contains("(a arrived as a 25-byte string: "));
    }

    #[test]
    fn a_string_holding_no_json_object_is_declined_without_the_encoding_hint() {
        for payload in ["hello", "", "\"quoted\"", "42", "null"] {
            let value = json!({ "a": payload });
            let error = locate(&object_of(&value), "a", "").unwrap_err();
            assert_eq!(error.cause(), Some(ParameterCause::StringifiedDeclined));
            assert_eq!(
                error.message(),
                "a parameter must be a JSON object, got string \u{2014} the string holds no JSON \
                 object; pass a as a nested JSON object, not as a string",
                "{payload:?}"
            );
        }
        let value = json!({"a": "[{\"summary\": \"s\"}]"});
        let error = locate(&object_of(&value), "a", "").unwrap_err();
        assert_eq!(
            error.message(),
            "a parameter must be a JSON object, got string \u{2014} the string holds a JSON \
             array, not an object; pass a as a nested JSON object, not as a string"
        );
        // A byte-order mark before the object, or the object encoded twice, still reads as an
        // object JSON-encoded.
        for payload in [
            "\u{feff}{\"summary\": \"s\"}",
            "\"{\\\"summary\\\": \\\"s\\\"}\"",
        ] {
            let value = json!({ "a": payload });
            let error = locate(&object_of(&value), "a", "").unwrap_err();
            assert!(error.message().contains("was JSON-encoded"), "{payload:?}");
        }
        let value = json!({"a": "not a json object"});
        let error = locate(&object_of(&value), "a", "").unwrap_err();
        assert!(error
            .trace_text()
            .ends_with("(a arrived as a 17-byte string: \"not a json object\")"));
    }

    #[test]
    fn other_types_are_mistyped() {
        for (payload, got) in [
            (json!(42), "number"),
            (json!(true), "boolean"),
            (json!([]), "array"),
        ] {
            let value = json!({ "a": payload });
            let error = locate(&object_of(&value), "a", "").unwrap_err();
            assert_eq!(error.cause(), Some(ParameterCause::AbsentOrMistyped));
            assert_eq!(
                error.message(),
                format!("a parameter must be a JSON object, got {got}")
            );
        }
    }

    #[test]
    fn absent_and_null_without_a_mark_are_mistyped() {
        let value = json!({"b": 1});
        let error = locate(&object_of(&value), "a", "prose").unwrap_err();
        assert_eq!(error.cause(), Some(ParameterCause::AbsentOrMistyped));
        assert_eq!(error.message(), "a parameter is required");
        let value = json!({"a": null});
        let error = locate(&object_of(&value), "a", "prose").unwrap_err();
        assert_eq!(
            error.message(),
            "a parameter must be a JSON object, got null"
        );
    }

    #[test]
    fn present_payload_is_never_mined_from_reasoning() {
        let value = json!({"a": 42});
        let reasoning = "<parameter name=\"a\">{\"summary\":\"s\"}";
        let error = locate(&object_of(&value), "a", reasoning).unwrap_err();
        assert_eq!(
            error.message(),
            "a parameter must be a JSON object, got number"
        );
    }
}

#[cfg(test)]
mod echo_tests {
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
