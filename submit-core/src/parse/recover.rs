//! Step 5: recovering a payload that the model wrote inside the reasoning string.
//!
//! Only reached when the payload parameter is absent or `null`. The whole reasoning being one
//! JSON object that holds the payload is checked first; otherwise the first mark decides the
//! form: the opener `<parameter name="<payload>">` or the JSON member `"<payload>":`.

use std::borrow::Cow;

use memchr::memmem;

use super::arguments::{CowStr, JsonType};
use super::closing::{leading_members, leading_object};
use super::payload::{not_an_object, Located, Payload};
use super::reasoning::{is_space, trim_end_space, trim_space, REASONING};
use crate::error::{ParameterCause, SubmitError};
use crate::outcome::Recovery;

/// How the payload parameter arrived when recovery is tried.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Arrival {
    Absent,
    Null,
}

/// Any parameter's opener: text before the payload that holds one may hide another value.
const ANY_OPENER: &str = "<parameter name=";

/// Step 5. Without a mark the submit rejects with step 4's message (cause *absent or mistyped
/// parameter*); a mark that does not lead to an object followed by closing tokens rejects
/// with a hint (cause *reasoning recovery declined*).
pub(crate) fn from_reasoning<'a>(
    field: &str,
    reasoning: &'a str,
    arrival: Arrival,
) -> Result<Located<'a>, SubmitError> {
    let required = not_an_object(field, (arrival == Arrival::Null).then_some(JsonType::Null));
    if let Some(located) = whole_object(field, reasoning) {
        return Ok(located);
    }
    let opener = format!("<parameter name=\"{field}\">");
    let found = first_mark(field, reasoning);
    match found {
        None => Err(SubmitError::parameter(
            ParameterCause::AbsentOrMistyped,
            required,
        )),
        Some((Mark::Opener { at }, opener_before)) => {
            opener_form(reasoning, at, opener.len(), opener_before).ok_or_else(|| {
                declined(format!(
                "{required}: reasoning contains a {opener} block, so {field} was written inside \
                 the reasoning string and could not be recovered from there; send {field} as its \
                 own parameter, not inside reasoning"
            ))
            })
        }
        Some((Mark::Member { quote, value }, opener_before)) => {
            member_form(reasoning, quote, value, opener_before).ok_or_else(|| {
                declined(format!(
                    "{required}: found a \"{field}\" JSON member at byte {quote} of reasoning, so \
                 {field} was written inside the reasoning string and could not be recovered from \
                 there; send {field} as the top-level parameter, not inside reasoning"
                ))
            })
        }
    }
}

fn declined(message: String) -> SubmitError {
    SubmitError::parameter(ParameterCause::ReasoningDeclined, message)
}

/// The whole reasoning (trimmed) is one JSON object followed by closing tokens, and its member
/// `field` is an object: that member is the payload, its `reasoning` string the reasoning.
fn whole_object<'a>(field: &str, reasoning: &'a str) -> Option<Located<'a>> {
    let text = trim_space(reasoning);
    if !text.starts_with('{') {
        return None;
    }
    let members = leading_members(text)?;
    let payload = members.get(field)?;
    if !payload.get().starts_with('{') {
        return None;
    }
    let inner_reasoning = members
        .get(REASONING)
        .and_then(|raw| serde_json::from_str::<CowStr<'a>>(raw.get()).ok())
        .map_or(Cow::Borrowed(""), |text| text.0);
    Some(Located {
        payload: Payload::Text(Cow::Borrowed(payload.get())),
        reasoning: Some(inner_reasoning),
        recovery: Some(Recovery::ReasoningMember),
    })
}

/// The first mark of the payload in reasoning.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mark {
    /// `<parameter name="<payload>">` at byte `at`.
    Opener { at: usize },
    /// `"<payload>"`, JSON whitespace, `:`: its opening quote at `quote`, the value after the
    /// colon at `value`.
    Member { quote: usize, value: usize },
}

/// Whichever mark comes first, and whether a parameter's opener starts before it. One pass
/// finds both forms: each occurrence of `"<payload>"` is either inside the opener
/// `<parameter name="<payload>">`, or followed by whitespace and a colon, or no mark. The
/// occurrences cannot overlap (the name holds no quote), so the whitespace after each is
/// scanned once; the search for any opener stops at the mark.
fn first_mark(field: &str, reasoning: &str) -> Option<(Mark, bool)> {
    let bytes = reasoning.as_bytes();
    let quoted = format!("\"{field}\"");
    let mark = memmem::find_iter(bytes, quoted.as_bytes()).find_map(|quote| {
        let after = quote + quoted.len();
        let lead = quote.checked_sub(ANY_OPENER.len());
        let in_opener = lead.is_some_and(|lead| {
            bytes.get(lead..quote) == Some(ANY_OPENER.as_bytes()) && bytes.get(after) == Some(&b'>')
        });
        if let (true, Some(at)) = (in_opener, lead) {
            return Some(Mark::Opener { at });
        }
        let rest = bytes.get(after..)?;
        let spaces = rest.iter().take_while(|b| is_space(**b)).count();
        (rest.get(spaces) == Some(&b':')).then_some(Mark::Member {
            quote,
            value: after + spaces + 1,
        })
    })?;
    let at = match mark {
        Mark::Opener { at } => at,
        Mark::Member { quote, .. } => quote,
    };
    let opener_before = memmem::find(bytes.get(..at)?, ANY_OPENER.as_bytes()).is_some();
    Some((mark, opener_before))
}

/// The opener form: the object after the first opener; reasoning is the text before it with
/// argument-close markup trimmed. Declines when another parameter's opener comes before.
fn opener_form(
    reasoning: &str,
    at: usize,
    opener_len: usize,
    opener_before: bool,
) -> Option<Located<'_>> {
    let before = reasoning.get(..at)?;
    if opener_before {
        return None;
    }
    let after = reasoning.get(at + opener_len..)?;
    let range = leading_object(after)?;
    Some(Located {
        payload: Payload::Text(Cow::Borrowed(after.get(range)?)),
        reasoning: Some(Cow::Borrowed(trim_argument_close(before))),
        recovery: Some(Recovery::ReasoningOpener),
    })
}

/// Repeats {strip trailing whitespace; strip one `</reasoning>`, else one `</parameter>`} until
/// neither matches.
fn trim_argument_close(mut text: &str) -> &str {
    loop {
        text = trim_end_space(text);
        match text
            .strip_suffix("</reasoning>")
            .or_else(|| text.strip_suffix("</parameter>"))
        {
            Some(shorter) => text = shorter,
            None => return text,
        }
    }
}

/// The JSON-member form: the object after the colon; reasoning is the text before the member
/// without, in order, trailing whitespace, one `,`, trailing whitespace and one `"`. Declines
/// when a parameter's opener comes before.
fn member_form(
    reasoning: &str,
    quote: usize,
    value: usize,
    opener_before: bool,
) -> Option<Located<'_>> {
    let before = reasoning.get(..quote)?;
    if opener_before {
        return None;
    }
    let after = reasoning.get(value..)?;
    let range = leading_object(after)?;
    let prose = trim_end_space(before);
    let prose = prose.strip_suffix(',').unwrap_or(prose);
    let prose = trim_end_space(prose);
    let prose = prose.strip_suffix('"').unwrap_or(prose);
    Some(Located {
        payload: Payload::Text(Cow::Borrowed(after.get(range)?)),
        reasoning: Some(Cow::Borrowed(prose)),
        recovery: Some(Recovery::ReasoningMember),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const OBJ: &str = r#"{"summary":"all good"}"#;

    fn recovered(reasoning: &str) -> (String, String, Recovery) {
        let located = from_reasoning("analysis", reasoning, Arrival::Absent).unwrap();
        let Payload::Text(payload) = located.payload else {
            panic!("text payload expected")
        };
        (
            payload.into_owned(),
            located.reasoning.unwrap().into_owned(),
            located.recovery.unwrap(),
        )
    }

    fn declined_message(reasoning: &str) -> String {
        let error = from_reasoning("analysis", reasoning, Arrival::Absent).unwrap_err();
        assert_eq!(error.cause(), Some(ParameterCause::ReasoningDeclined));
        error.message().to_owned()
    }

    #[test]
    fn opener_form_recovers_and_trims_argument_close_markup() {
        let p = "The logs show a timeout.";
        for (reasoning, expected) in [
            (format!("{p}</reasoning>\n<parameter name=\"analysis\">{OBJ}"), p.to_owned()),
            (format!("{p}</parameter>\n<parameter name=\"analysis\">{OBJ}"), p.to_owned()),
            (format!("{p}\n<parameter name=\"analysis\">{OBJ}"), p.to_owned()),
            (format!("<parameter name=\"analysis\">{OBJ}"), String::new()),
            (
                format!("{p} <b>done</b></reasoning>\n<parameter name=\"analysis\">{OBJ}"),
                format!("{p} <b>done</b>"),
            ),
            (
                format!("{p}</reasoning>\n<parameter name=\"analysis\">{OBJ}</parameter>"),
                p.to_owned(),
            ),
            (
                format!(
                    "{p}</reasoning>\n<parameter name=\"analysis\">\n{OBJ}\n</parameter>\n</invoke>\n"
                ),
                p.to_owned(),
            ),
            (
                format!("{p} </parameter>\n</reasoning> \n<parameter name=\"analysis\">{OBJ}"),
                p.to_owned(),
            ),
        ] {
            assert_eq!(
                recovered(&reasoning),
                (OBJ.to_owned(), expected, Recovery::ReasoningOpener),
                "{reasoning:?}"
            );
        }
    }

    #[test]
    fn opener_form_declines_with_the_opener_hint() {
        let head = "done</reasoning>\n<parameter name=\"analysis\">";
        for reasoning in [
            format!("{head}{{\"summary\":\"all go"),
            format!("{head}{OBJ} and that is my answer"),
            format!("{head}{{\"summary\":\"one\"}}</parameter>\n<parameter name=\"analysis\">{{\"summary\":\"two\"}}"),
            format!("done</reasoning>\n<parameter name=\"verdict\">ok</parameter>\n<parameter name=\"analysis\">{OBJ}"),
            format!("{head}\"all good\""),
            format!("{head}null"),
            format!("{head}[{OBJ}]"),
        ] {
            assert_eq!(
                declined_message(&reasoning),
                "analysis parameter is required: reasoning contains a <parameter \
                 name=\"analysis\"> block, so analysis was written inside the reasoning string \
                 and could not be recovered from there; send analysis as its own parameter, not \
                 inside reasoning",
                "{reasoning:?}"
            );
        }
    }

    #[test]
    fn null_payload_names_null_in_the_decline() {
        let error = from_reasoning("analysis", "<parameter name=\"analysis\">x", Arrival::Null)
            .unwrap_err();
        assert!(error
            .message()
            .starts_with("analysis parameter must be a JSON object, got null: reasoning contains"));
    }

    #[test]
    fn member_form_recovers_and_trims_the_member_lead_in() {
        for (reasoning, expected) in [
            (
                format!("I checked it.\", \"analysis\": {OBJ}}}"),
                "I checked it.",
            ),
            (
                format!("I checked it.\",\n  \"analysis\" :\n{OBJ}\n}}\n"),
                "I checked it.",
            ),
            (format!("\"analysis\":{OBJ}"), ""),
            (format!("prose \"analysis\":{OBJ}</parameter>"), "prose"),
        ] {
            assert_eq!(
                recovered(&reasoning),
                (
                    OBJ.to_owned(),
                    expected.to_owned(),
                    Recovery::ReasoningMember
                ),
                "{reasoning:?}"
            );
        }
    }

    #[test]
    fn member_form_declines_with_the_byte_offset() {
        let reasoning = format!("I checked.\", \"analysis\": {OBJ} and more");
        assert_eq!(
            declined_message(&reasoning),
            "analysis parameter is required: found a \"analysis\" JSON member at byte 13 of \
             reasoning, so analysis was written inside the reasoning string and could not be \
             recovered from there; send analysis as the top-level parameter, not inside reasoning"
        );
        let reasoning = format!("<parameter name=\"x\">1 \"analysis\": {OBJ}");
        assert!(declined_message(&reasoning).contains("JSON member at byte 22 of reasoning"));
    }

    #[test]
    fn whole_reasoning_object_is_checked_first() {
        let reasoning = format!(
            " {{\"reasoning\":\"see <parameter name=\\\"analysis\\\">\",\"analysis\":{OBJ}}}\n</reasoning>"
        );
        assert_eq!(
            recovered(&reasoning),
            (
                OBJ.to_owned(),
                "see <parameter name=\"analysis\">".to_owned(),
                Recovery::ReasoningMember
            )
        );
        let reasoning = format!("{{\"analysis\":{OBJ}}}");
        assert_eq!(
            recovered(&reasoning),
            (OBJ.to_owned(), String::new(), Recovery::ReasoningMember)
        );
    }

    #[test]
    fn first_mark_decides_the_form() {
        // The opener comes first and declines: the later member is not tried.
        let reasoning = format!("<parameter name=\"analysis\">oops \"analysis\": {OBJ}");
        assert!(declined_message(&reasoning).contains("block"));
        // The member comes first and declines: the later opener is not tried.
        let reasoning = format!("\"analysis\": 1 <parameter name=\"analysis\">{OBJ}");
        assert!(declined_message(&reasoning).contains("JSON member at byte 0"));
        // A quoted name without a colon is no mark.
        let reasoning = format!("\"analysis\" was hard. <parameter name=\"analysis\">{OBJ}");
        assert_eq!(recovered(&reasoning).2, Recovery::ReasoningOpener);
    }

    #[test]
    fn no_mark_is_plain_absent() {
        let reasoning = format!("done</reasoning>\n<parameter name=\"verdict\">{OBJ}");
        let error = from_reasoning("analysis", &reasoning, Arrival::Absent).unwrap_err();
        assert_eq!(error.cause(), Some(ParameterCause::AbsentOrMistyped));
        assert_eq!(error.message(), "analysis parameter is required");
    }

    #[test]
    fn many_false_marks_stay_linear_and_decline() {
        let reasoning = "\"analysis\"    x".repeat(100_000);
        let error = from_reasoning("analysis", &reasoning, Arrival::Absent).unwrap_err();
        assert_eq!(error.cause(), Some(ParameterCause::AbsentOrMistyped));
        let reasoning = "</reasoning>".repeat(100_000) + "<parameter name=\"analysis\">{}";
        assert_eq!(recovered(&reasoning).1, "");
    }
}
