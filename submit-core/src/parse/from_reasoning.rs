//! Step *Nested payload* of the parsing rules, for a payload absent or `null`: a payload the
//! model wrote inside the reasoning string, recovered from there (`reasoning_opener`,
//! `reasoning_member`).
//!
//! Only reached when the payload parameter is absent or `null`. The whole reasoning being one
//! JSON object that holds the payload is checked first; otherwise the first mark decides the
//! form: the opener `<parameter name="<payload>">` or the JSON member `"<payload>":`. The
//! object must start right after the mark and be followed by closing tokens only.

use std::borrow::Cow;

use memchr::{memchr2_iter, memmem};
use serde::de::DeserializeOwned;

use super::arguments::JsonType;
use super::closing::{leading_decoded, leading_members, leading_object};
use super::members::CowStr;
use super::payload::{not_an_object, Json, Located, NewReasoning, Payload};
use super::reasoning::{is_space, trim_end_space, trim_space, REASONING};
use crate::error::{ParameterCause, SubmitError};
use crate::outcome::RecoveryKind;

/// Any parameter's opener: text before the payload that holds one may hide another value.
const ANY_OPENER: &str = "<parameter name=";

/// The recovery from reasoning. `got` is how the payload arrived: absent (`None`) or `null`.
/// Without a mark the submit rejects with the message of a payload that is no object (cause
/// *absent or mistyped parameter*); a mark that does not lead to an object followed by closing
/// tokens rejects with a hint (cause *reasoning recovery declined*). Where the tool decodes its
/// payload straight from text (`decodes_text`), the object after a mark is decoded into the
/// response type as its end is found, so it is read once; when that decode fails, the object is
/// located as the other tools locate it, and step *Decode* words the failure.
pub(crate) fn from_reasoning<'a, R: DeserializeOwned>(
    field: &str,
    reasoning: &'a str,
    got: Option<JsonType>,
    decodes_text: bool,
) -> Result<Located<'a, R>, SubmitError> {
    if let Some(located) = whole_object(field, reasoning) {
        return Ok(located);
    }
    let Some((mark, opener_before)) = first_mark(field, reasoning) else {
        return Err(SubmitError::parameter(
            ParameterCause::AbsentOrMistyped,
            not_an_object(field, got),
        ));
    };
    let marked = match mark {
        _ if opener_before => None,
        Mark::Opener { at } => opener_form(reasoning, at, opener_len(field)),
        Mark::Member { quote, value } => member_form(reasoning, quote, value),
    };
    let Some(Marked {
        after,
        kept,
        recovery,
    }) = marked
    else {
        return Err(declined(field, got, mark));
    };
    let located = |payload| Located {
        payload,
        reasoning: Some(NewReasoning::Prefix(kept)),
        recovery: Some(recovery),
        also: None,
    };
    if decodes_text {
        if let Some(response) = leading_decoded::<R>(after) {
            return Ok(located(Payload::Decoded(response)));
        }
    }
    leading_object(after)
        .and_then(|range| after.get(range))
        .map(|payload| located(Payload::Json(Json::Text(Cow::Borrowed(payload)))))
        .ok_or_else(|| declined(field, got, mark))
}

/// What follows a mark: the text after it, how many bytes of the argument's reasoning the
/// reasoning keeps when the object is recovered, and the form.
struct Marked<'a> {
    after: &'a str,
    kept: usize,
    recovery: RecoveryKind,
}

/// The byte length of `<parameter name="<field>">`.
fn opener_len(field: &str) -> usize {
    ANY_OPENER.len() + field.len() + 3
}

/// The decline for a mark that did not lead to a recoverable object.
fn declined(field: &str, got: Option<JsonType>, mark: Mark) -> SubmitError {
    let required = not_an_object(field, got);
    let message = match mark {
        Mark::Opener { .. } => format!(
            "{required}: reasoning contains a <parameter name=\"{field}\"> block, so {field} was \
             written inside the reasoning string and could not be recovered from there; send \
             {field} as its own parameter, not inside reasoning"
        ),
        Mark::Member { quote, .. } => format!(
            "{required}: found a \"{field}\" JSON member at byte {quote} of reasoning, so \
             {field} was written inside the reasoning string and could not be recovered from \
             there; send {field} as the top-level parameter, not inside reasoning"
        ),
    };
    SubmitError::parameter(ParameterCause::ReasoningDeclined, message)
}

/// The whole reasoning (trimmed) is one JSON object followed by closing tokens, and its member
/// `field` is an object: that member is the payload, its `reasoning` string the reasoning.
fn whole_object<'a, R>(field: &str, reasoning: &'a str) -> Option<Located<'a, R>> {
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
        payload: Payload::Json(Json::Text(Cow::Borrowed(payload.get()))),
        reasoning: Some(NewReasoning::Text(inner_reasoning)),
        recovery: Some(RecoveryKind::ReasoningMember),
        also: None,
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

/// Whichever mark comes first, and whether a parameter's opener starts before it.
///
/// The candidates are the occurrences of `"<payload>"`, leftmost first and not overlapping
/// one another: each is either inside the opener `<parameter name="<payload>">`, or followed
/// by whitespace and a colon, or no mark. Up to the first parameter's opener, one scan for `<`
/// and `"` finds both that opener and the candidates (an opener mark starts with that first
/// opener, so only member marks can come before it); after it, only the candidates are
/// searched. Every byte is scanned once, and the whitespace after each candidate once.
fn first_mark(field: &str, reasoning: &str) -> Option<(Mark, bool)> {
    let bytes = reasoning.as_bytes();
    let quoted = format!("\"{field}\"");
    let quoted = quoted.as_bytes();
    // Where the next candidate may start: the end of the last one.
    let mut next = 0;
    let mut first_opener = None;
    for at in memchr2_iter(b'<', b'"', bytes) {
        let rest = bytes.get(at..).unwrap_or_default();
        if rest.first() == Some(&b'<') {
            if rest.starts_with(ANY_OPENER.as_bytes()) {
                first_opener = Some(at);
                break;
            }
        } else if at >= next && rest.starts_with(quoted) {
            next = at + quoted.len();
            if let Some(mark) = mark_at(bytes, at, quoted.len()) {
                return Some((mark, false));
            }
        }
    }
    let first_opener = first_opener?;
    let from = first_opener.max(next);
    let mark = memmem::find_iter(bytes.get(from..)?, quoted)
        .find_map(|quote| mark_at(bytes, from + quote, quoted.len()))?;
    let at = match mark {
        Mark::Opener { at } => at,
        Mark::Member { quote, .. } => quote,
    };
    Some((mark, first_opener < at))
}

/// The mark that the candidate `"<payload>"` (`quoted_len` bytes) at `quote` is, if any.
fn mark_at(bytes: &[u8], quote: usize, quoted_len: usize) -> Option<Mark> {
    let after = quote + quoted_len;
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
}

/// The opener form: the object after the first opener; reasoning is the text before it with
/// argument-close markup trimmed.
fn opener_form(reasoning: &str, at: usize, opener_len: usize) -> Option<Marked<'_>> {
    Some(Marked {
        after: reasoning.get(at + opener_len..)?,
        kept: trim_argument_close(reasoning.get(..at)?).len(),
        recovery: RecoveryKind::ReasoningOpener,
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
/// without, in order, trailing whitespace, one `,`, trailing whitespace and one `"`.
fn member_form(reasoning: &str, quote: usize, value: usize) -> Option<Marked<'_>> {
    let prose = trim_end_space(reasoning.get(..quote)?);
    let prose = prose.strip_suffix(',').unwrap_or(prose);
    let prose = trim_end_space(prose);
    let prose = prose.strip_suffix('"').unwrap_or(prose);
    Some(Marked {
        after: reasoning.get(value..)?,
        kept: prose.len(),
        recovery: RecoveryKind::ReasoningMember,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    const ABSENT: Option<JsonType> = None;
    const NULL: Option<JsonType> = Some(JsonType::Null);

    fn from_reasoning<'a>(
        field: &str,
        reasoning: &'a str,
        got: Option<JsonType>,
    ) -> Result<Located<'a, Value>, SubmitError> {
        super::from_reasoning(field, reasoning, got, false)
    }

    const OBJ: &str = r#"{"summary":"all good"}"#;

    fn recovered(reasoning: &str) -> (String, String, RecoveryKind) {
        let located = from_reasoning("analysis", reasoning, ABSENT).unwrap();
        let Payload::Json(Json::Text(payload)) = located.payload else {
            panic!("text payload expected")
        };
        (
            payload.into_owned(),
            located.reasoning.unwrap().of(reasoning).to_owned(),
            located.recovery.unwrap(),
        )
    }

    fn declined_message(reasoning: &str) -> String {
        let error = from_reasoning("analysis", reasoning, ABSENT).unwrap_err();
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
                (OBJ.to_owned(), expected, RecoveryKind::ReasoningOpener),
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
        let error = from_reasoning("analysis", "<parameter name=\"analysis\">x", NULL).unwrap_err();
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
                    RecoveryKind::ReasoningMember
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
                RecoveryKind::ReasoningMember
            )
        );
        let reasoning = format!("{{\"analysis\":{OBJ}}}");
        assert_eq!(
            recovered(&reasoning),
            (OBJ.to_owned(), String::new(), RecoveryKind::ReasoningMember)
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
        assert_eq!(recovered(&reasoning).2, RecoveryKind::ReasoningOpener);
    }

    #[test]
    fn candidates_do_not_overlap_one_another() {
        // The quote closing the first `"analysis"` does not start a second candidate.
        for reasoning in [
            format!("\"analysis\"analysis\": {OBJ}"),
            format!("<parameter name=\"x\"> \"analysis\"analysis\": {OBJ}"),
        ] {
            let error = from_reasoning("analysis", &reasoning, ABSENT).unwrap_err();
            assert_eq!(error.cause(), Some(ParameterCause::AbsentOrMistyped));
        }
        let reasoning = format!("\"analysis\"analysis\" \"analysis\": {OBJ}");
        let expected = "\"analysis\"analysis".to_owned();
        assert_eq!(
            recovered(&reasoning),
            (OBJ.to_owned(), expected, RecoveryKind::ReasoningMember)
        );
        let reasoning = format!("\"analysis\"analysis\" \"analysis\": {OBJ} x");
        assert!(declined_message(&reasoning).contains("JSON member at byte 20"));
    }

    #[test]
    fn opener_before_a_member_mark_declines_after_a_one_pass_scan() {
        let reasoning = format!("\"a\" <b> <parameter name=\"x\">\"analysis\":{OBJ}");
        assert!(declined_message(&reasoning).contains("JSON member at byte 28"));
        let reasoning = format!("\"analysis\":{OBJ} <parameter name=\"x\">");
        assert!(declined_message(&reasoning).contains("JSON member at byte 0"));
    }

    #[test]
    fn decoded_recovery_agrees_with_the_located_payload() {
        #[derive(Debug, serde::Deserialize, PartialEq)]
        struct Sample {
            summary: String,
        }
        for reasoning in [
            format!("done</reasoning>\n<parameter name=\"analysis\">{OBJ}</parameter>"),
            format!("done\", \"analysis\": {OBJ}}}"),
            format!("{{\"reasoning\":\"r\",\"analysis\":{OBJ}}}"),
            "<parameter name=\"analysis\">{\"summary\":1}".to_owned(),
            format!("<parameter name=\"analysis\">{OBJ} and more"),
            format!("<parameter name=\"analysis\"> [{OBJ}]"),
            "no mark".to_owned(),
        ] {
            let located = super::from_reasoning::<Sample>("analysis", &reasoning, NULL, false);
            let decoded = super::from_reasoning::<Sample>("analysis", &reasoning, NULL, true);
            match (located, decoded) {
                (Ok(located), Ok(decoded)) => {
                    match (located.payload, decoded.payload) {
                        (Payload::Json(Json::Text(payload)), Payload::Decoded(response)) => {
                            let expected: Sample = serde_json::from_str(&payload).unwrap();
                            assert_eq!(response, expected, "{reasoning:?}");
                        }
                        (Payload::Json(Json::Text(payload)), Payload::Json(Json::Text(again))) => {
                            assert_eq!(payload, again, "{reasoning:?}");
                        }
                        other => panic!("unexpected payloads {other:?}"),
                    }
                    assert_eq!(located.reasoning, decoded.reasoning, "{reasoning:?}");
                    assert_eq!(located.recovery, decoded.recovery, "{reasoning:?}");
                }
                (Err(located), Err(decoded)) => {
                    assert_eq!(located.message(), decoded.message(), "{reasoning:?}");
                    assert_eq!(located.cause(), decoded.cause(), "{reasoning:?}");
                }
                _ => panic!("the two recoveries disagree on {reasoning:?}"),
            }
        }
    }

    #[test]
    fn no_mark_is_plain_absent() {
        let reasoning = format!("done</reasoning>\n<parameter name=\"verdict\">{OBJ}");
        let error = from_reasoning("analysis", &reasoning, ABSENT).unwrap_err();
        assert_eq!(error.cause(), Some(ParameterCause::AbsentOrMistyped));
        assert_eq!(error.message(), "analysis parameter is required");
    }

    #[test]
    fn many_false_marks_stay_linear_and_decline() {
        let reasoning = "\"analysis\"    x".repeat(100_000);
        let error = from_reasoning("analysis", &reasoning, ABSENT).unwrap_err();
        assert_eq!(error.cause(), Some(ParameterCause::AbsentOrMistyped));
        let reasoning = "</reasoning>".repeat(100_000) + "<parameter name=\"analysis\">{}";
        assert_eq!(recovered(&reasoning).1, "");
    }
}
