//! Step 2: the `reasoning` parameter.

use std::borrow::Cow;

use super::arguments::Args;
use crate::error::{ParameterCause, SubmitError};
pub(crate) use crate::metadata::REASONING;

/// Step 2. Under `omit_reasoning` the reasoning is `""` and the argument is not read; otherwise
/// it must be present and a JSON string (cause *absent or mistyped parameter*).
pub(crate) fn read<'a>(args: &Args<'a>, omit_reasoning: bool) -> Result<Cow<'a, str>, SubmitError> {
    if omit_reasoning {
        return Ok(Cow::Borrowed(""));
    }
    let Some(param) = args.get(REASONING) else {
        return Err(mistyped(format!("{REASONING} parameter is required")));
    };
    param.as_str().ok_or_else(|| {
        mistyped(format!(
            "{REASONING} parameter must be a JSON string, got {}",
            param.json_type()
        ))
    })
}

fn mistyped(message: String) -> SubmitError {
    SubmitError::parameter(ParameterCause::AbsentOrMistyped, message)
}

/// Whether `byte` is whitespace as SUBMIT.md §5 means it: ASCII space, tab, CR, LF.
pub(crate) fn is_space(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\r' | b'\n')
}

/// `text` without trailing whitespace (§5's sense).
pub(crate) fn trim_end_space(text: &str) -> &str {
    text.trim_end_matches([' ', '\t', '\r', '\n'])
}

/// `text` without leading whitespace (§5's sense).
pub(crate) fn trim_start_space(text: &str) -> &str {
    text.trim_start_matches([' ', '\t', '\r', '\n'])
}

/// `text` without leading or trailing whitespace (§5's sense).
pub(crate) fn trim_space(text: &str) -> &str {
    trim_start_space(trim_end_space(text))
}

#[cfg(test)]
mod tests {
    use super::super::arguments::{decode, Arguments};
    use super::*;
    use serde_json::json;

    #[test]
    fn reasoning_string_is_read_from_value_and_text() {
        let value = json!({"reasoning": "done"});
        let args = decode(Arguments::Value(&value)).unwrap();
        assert_eq!(read(&args, false).unwrap(), "done");
        let args = decode(Arguments::Text(r#"{"reasoning":"line\nnext"}"#)).unwrap();
        assert_eq!(read(&args, false).unwrap(), "line\nnext");
    }

    #[test]
    fn absent_reasoning_is_required() {
        let value = json!({"result": {}});
        let args = decode(Arguments::Value(&value)).unwrap();
        let error = read(&args, false).unwrap_err();
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
            for args in [
                decode(Arguments::Value(&value)).unwrap(),
                decode(Arguments::Text(&value.to_string())).unwrap(),
            ] {
                let error = read(&args, false).unwrap_err();
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
        let args = decode(Arguments::Value(&value)).unwrap();
        assert_eq!(read(&args, true).unwrap(), "");
    }

    #[test]
    fn trimming_uses_ascii_whitespace_only() {
        assert_eq!(trim_space(" \t\r\nx\u{a0} \n"), "x\u{a0}");
        assert_eq!(trim_end_space("x\u{2003}"), "x\u{2003}");
    }
}
