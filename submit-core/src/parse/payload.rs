//! Steps 4 and 6: the nested payload parameter, and a payload that arrived as a string.

use std::borrow::Cow;

use serde::de::DeserializeOwned;

use super::arguments::{Args, JsonType, Param};
use super::closing::leading_object;
use super::echo::echo;
use super::located::{not_an_object, Located, Payload};
use super::recover::{self, Arrival, Recovered};
use crate::error::{ParameterCause, SubmitError};
use crate::outcome::{Recovery, RecoveryKind};

/// Steps 4 to 6 for the payload parameter `field`: an object is taken as is; absent or `null`
/// goes to the recovery from reasoning (step 5); a string to step 6; any other type rejects.
pub(crate) fn locate<'a>(
    args: &Args<'a>,
    field: &str,
    reasoning: &'a str,
) -> Result<Located<'a>, SubmitError> {
    let Some(param) = args.get(field) else {
        return recover::from_reasoning(field, reasoning, Arrival::Absent);
    };
    match param.json_type() {
        JsonType::Object => Ok(Located::direct(Payload::of(param))),
        JsonType::Null => recover::from_reasoning(field, reasoning, Arrival::Null),
        JsonType::String => stringified(field, param),
        other => Err(SubmitError::parameter(
            ParameterCause::AbsentOrMistyped,
            not_an_object(field, Some(other)),
        )),
    }
}

/// [`locate`] for a response type decoded straight from JSON text: a payload recovered from
/// reasoning comes back decoded (see [`recover::decoded_from_reasoning`]).
pub(crate) fn locate_decoded<'a, R: DeserializeOwned>(
    args: &Args<'a>,
    field: &str,
    reasoning: &'a str,
) -> Result<Recovered<'a, R>, SubmitError> {
    let arrival = match args.get(field) {
        None => Arrival::Absent,
        Some(param) if param.json_type() == JsonType::Null => Arrival::Null,
        Some(_) => return locate(args, field, reasoning).map(Recovered::Located),
    };
    recover::decoded_from_reasoning(field, reasoning, arrival)
}

/// Step 6: the first JSON value of the string must be an object followed by closing tokens.
fn stringified<'a>(field: &str, param: Param<'a>) -> Result<Located<'a>, SubmitError> {
    let text = param.as_str().unwrap_or_default();
    let (range, also) = match leading_object(&text) {
        Some(range) => (Some(range), None),
        // §10.1d: the string holds the object in a Markdown fence.
        None => match super::whole::fenced_object(&text) {
            Some(inner) => {
                let start = (inner.as_ptr() as usize).wrapping_sub(text.as_ptr() as usize);
                (
                    Some(start..start + inner.len()),
                    Some(RecoveryKind::FencedArguments),
                )
            }
            None => (None, None),
        },
    };
    match range {
        Some(range) => Ok(Located {
            payload: Payload::Text(slice(text, range)),
            reasoning: None,
            recovery: Some(Recovery::Stringified),
            also,
        }),
        None => Err(SubmitError::Parameter {
            cause: ParameterCause::StringifiedDeclined,
            message: string_declined(field, &text),
            echo: Some(echo(field, &text)),
        }),
    }
}

/// Step 6's rejection of a string not read as an object. The step-4 message says the object
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

#[cfg(test)]
mod tests {
    use super::super::arguments::{decode, Arguments};
    use super::*;
    use serde_json::json;

    fn text(payload: &Payload<'_>) -> String {
        match payload {
            Payload::Value(value) => value.to_string(),
            Payload::Owned(value) => value.to_string(),
            Payload::Text(text) => text.to_string(),
            Payload::Members(_) => unreachable!(),
        }
    }

    #[test]
    fn object_payload_is_taken_directly() {
        let value = json!({"a": {"summary": "s"}});
        let args = decode(Arguments::Value(&value)).unwrap();
        let located = locate(&args, "a", "").unwrap();
        assert_eq!(text(&located.payload), r#"{"summary":"s"}"#);
        assert_eq!(located.recovery, None);
    }

    #[test]
    fn stringified_payload_is_cut_from_value_and_text_arguments() {
        let value = json!({"a": " {\"summary\":\"s\"}</a>\n</invoke>"});
        for args in [
            decode(Arguments::Value(&value)).unwrap(),
            decode(Arguments::Text(&value.to_string())).unwrap(),
        ] {
            let located = locate(&args, "a", "").unwrap();
            assert_eq!(text(&located.payload), r#"{"summary":"s"}"#);
            assert_eq!(located.recovery, Some(Recovery::Stringified));
        }
    }

    #[test]
    fn stringified_payload_declines_with_the_hint_and_an_echo() {
        let value = json!({"a": " {\"summary\": \"s\" trailing"});
        let error = locate(&decode(Arguments::Value(&value)).unwrap(), "a", "").unwrap_err();
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
            let error = locate(&decode(Arguments::Value(&value)).unwrap(), "a", "").unwrap_err();
            assert_eq!(error.cause(), Some(ParameterCause::StringifiedDeclined));
            assert_eq!(
                error.message(),
                "a parameter must be a JSON object, got string \u{2014} the string holds no JSON \
                 object; pass a as a nested JSON object, not as a string",
                "{payload:?}"
            );
        }
        let value = json!({"a": "[{\"summary\": \"s\"}]"});
        let error = locate(&decode(Arguments::Value(&value)).unwrap(), "a", "").unwrap_err();
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
            let error = locate(&decode(Arguments::Value(&value)).unwrap(), "a", "").unwrap_err();
            assert!(error.message().contains("was JSON-encoded"), "{payload:?}");
        }
        let value = json!({"a": "not a json object"});
        let error = locate(&decode(Arguments::Value(&value)).unwrap(), "a", "").unwrap_err();
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
            let error = locate(&decode(Arguments::Value(&value)).unwrap(), "a", "").unwrap_err();
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
        let error = locate(&decode(Arguments::Value(&value)).unwrap(), "a", "prose").unwrap_err();
        assert_eq!(error.cause(), Some(ParameterCause::AbsentOrMistyped));
        assert_eq!(error.message(), "a parameter is required");
        let value = json!({"a": null});
        let error = locate(&decode(Arguments::Value(&value)).unwrap(), "a", "prose").unwrap_err();
        assert_eq!(
            error.message(),
            "a parameter must be a JSON object, got null"
        );
    }

    #[test]
    fn present_payload_is_never_mined_from_reasoning() {
        let value = json!({"a": 42});
        let reasoning = "<parameter name=\"a\">{\"summary\":\"s\"}";
        let error = locate(&decode(Arguments::Value(&value)).unwrap(), "a", reasoning).unwrap_err();
        assert_eq!(
            error.message(),
            "a parameter must be a JSON object, got number"
        );
    }
}
