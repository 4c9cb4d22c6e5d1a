//! Step *Reasoning* of the parsing rules, the `reasoning` parameter; and whitespace as the rules
//! mean it.

use std::borrow::Cow;

use super::arguments::Object;
use crate::error::{ParameterCause, SubmitError};
pub(crate) use crate::metadata::REASONING;

/// Step *Reasoning*. Under `omit_reasoning` the reasoning is `""` and the argument is not read;
/// otherwise it must be present and a JSON string (cause *absent or mistyped parameter*). A
/// reasoning step *The arguments as a whole* already read in place (`read`) is taken as it is.
pub(crate) fn read<'a>(
    object: &Object<'a>,
    read: Option<Cow<'a, str>>,
    omit_reasoning: bool,
) -> Result<Cow<'a, str>, SubmitError> {
    if omit_reasoning {
        return Ok(Cow::Borrowed(""));
    }
    if let Some(reasoning) = read {
        return Ok(reasoning);
    }
    let Some(param) = object.get(REASONING) else {
        return Err(mistyped(format!("{REASONING} parameter is required")));
    };
    param.as_str().ok_or_else(|| match param.lone_surrogate() {
        Some((at, escape)) => mistyped(format!(
            "{REASONING} parameter holds the escape {escape} at byte {at} of its JSON string, \
             which is no Unicode scalar value (half of a surrogate pair); send the reasoning \
             as text without it"
        )),
        None => mistyped(format!(
            "{REASONING} parameter must be a JSON string, got {}",
            param.json_type()
        )),
    })
}

fn mistyped(message: String) -> SubmitError {
    SubmitError::parameter(ParameterCause::AbsentOrMistyped, message)
}

/// Whether `byte` is whitespace as the parsing rules mean it: ASCII space, tab, CR, LF.
pub(crate) fn is_space(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\r' | b'\n')
}

/// `text` without trailing whitespace (ASCII only).
pub(crate) fn trim_end_space(text: &str) -> &str {
    text.trim_end_matches([' ', '\t', '\r', '\n'])
}

/// `text` without leading whitespace (ASCII only).
pub(crate) fn trim_start_space(text: &str) -> &str {
    text.trim_start_matches([' ', '\t', '\r', '\n'])
}

/// `text` without leading or trailing whitespace (ASCII only).
pub(crate) fn trim_space(text: &str) -> &str {
    trim_start_space(trim_end_space(text))
}

#[cfg(test)]
mod tests {
    use super::super::tests::testing::object_of;
    use super::*;
    use serde_json::json;

    fn read(object: &Object<'_>, omit_reasoning: bool) -> Result<String, SubmitError> {
        super::read(object, None, omit_reasoning).map(Cow::into_owned)
    }

    #[test]
    fn reasoning_string_is_read_from_value_and_text() {
        let value = json!({"reasoning": "done"});
        let object = object_of(&value);
        assert_eq!(read(&object, false).unwrap(), "done");
        let object = object_of(r#"{"reasoning":"line\nnext"}"#);
        assert_eq!(read(&object, false).unwrap(), "line\nnext");
    }

    #[test]
    fn absent_reasoning_is_required() {
        let value = json!({"result": {}});
        let object = object_of(&value);
        let error = read(&object, false).unwrap_err();
        assert_eq!(error.cause(), Some(ParameterCause::AbsentOrMistyped));
        assert_eq!(error.message(), "reasoning parameter is required");
    }

    #[test]
    fn mistyped_reasoning_names_the_type() {
        for (reasoning, got) in [
            (json!(null), "null"),
            (json!({}), "object"),
            (json!([]), "array"),
            (json!(true), "boolean"),
            (json!(1.5), "number"),
        ] {
            let value = json!({ "reasoning": reasoning });
            let text = value.to_string();
            for object in [object_of(&value), object_of(text.as_str())] {
                let error = read(&object, false).unwrap_err();
                assert_eq!(error.cause(), Some(ParameterCause::AbsentOrMistyped));
                assert_eq!(
                    error.message(),
                    format!("reasoning parameter must be a JSON string, got {got}")
                );
            }
        }
    }

    #[test]
    fn omitted_reasoning_is_empty_and_unread() {
        let value = json!({"reasoning": 42});
        let object = object_of(&value);
        assert_eq!(read(&object, true).unwrap(), "");
    }

    #[test]
    fn trimming_uses_ascii_whitespace_only() {
        assert_eq!(trim_space(" \t\r\nx\u{a0} \n"), "x\u{a0}");
        assert_eq!(trim_end_space("x\u{2003}"), "x\u{2003}");
    }
}
