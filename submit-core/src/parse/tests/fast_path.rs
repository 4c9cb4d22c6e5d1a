//! The fast path of step *The arguments as a whole*: argument text read in one pass, the
//! payload decoded in place, and everything it does not expect left to the general reading.

use std::borrow::Cow;

use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::parse::arguments::{
    read_in_place, ArgumentsRead, InPlace, JsonType, Member, PayloadRead,
};

#[derive(Debug, Deserialize, PartialEq)]
struct Sample {
    summary: String,
}

#[derive(Debug, Deserialize, PartialEq)]
enum Verdict {
    Block { reason: String },
}

fn sample(summary: &str) -> Sample {
    Sample {
        summary: summary.into(),
    }
}

/// What the fast path read of `text`, for a payload named `field`: `None` where it gives
/// up.
fn decode<'a, R: DeserializeOwned>(
    text: &'a str,
    field: &str,
    omit_reasoning: bool,
) -> Option<ArgumentsRead<'a, R>> {
    let names = InPlace {
        payload: field,
        reasoning: !omit_reasoning,
        as_json: false,
    };
    read_in_place(text, names)
}

/// The payload decoded in place and the reasoning read in place (`""` when omitted).
fn accepted<R>(read: Option<ArgumentsRead<'_, R>>) -> Option<(R, String)> {
    let read = read?;
    match read.payload? {
        PayloadRead::Decoded(response) => Some((
            response,
            read.reasoning.map(Cow::into_owned).unwrap_or_default(),
        )),
        PayloadRead::String(_) | PayloadRead::Json(_) => None,
    }
}

#[test]
fn clean_call_decodes_in_one_pass() {
    let text = r#"{"analysis":{"summary":"s"},"extra":[1,{"a":2}],"reasoning":"r"}"#;
    let decoded = accepted(decode::<Sample>(text, "analysis", false));
    assert_eq!(decoded, Some((sample("s"), "r".into())));
    let decoded = accepted(decode::<Value>(
        r#"{"analysis":{"a":[1]}}"#,
        "analysis",
        true,
    ));
    assert_eq!(decoded, Some((json!({"a": [1]}), String::new())));
    let text = r#"{"reasoning":"r","v":{"Block":{"reason":"x"}}}"#;
    let decoded = accepted(decode::<Verdict>(text, "v", false));
    let expected = Verdict::Block { reason: "x".into() };
    assert_eq!(decoded.map(|d| d.0), Some(expected));
}

#[test]
fn a_string_payload_is_read_as_its_content() {
    let text = r#"{"reasoning":"r","analysis":" {\"summary\":\"s\"}</analysis>"}"#;
    let read = decode::<Sample>(text, "analysis", false).unwrap();
    let Some(PayloadRead::String(content)) = read.payload else {
        panic!("the string's content expected")
    };
    assert_eq!(content, " {\"summary\":\"s\"}</analysis>");
    assert_eq!(read.reasoning.as_deref(), Some("r"));
}

#[test]
fn absent_or_null_payload_leaves_the_members_to_the_steps() {
    for text in [
        r#"{"reasoning":"<parameter name=\"analysis\">{}","x":[1]}"#,
        r#"{"reasoning":"<parameter name=\"analysis\">{}","x":[1],"analysis":null}"#,
    ] {
        let read = decode::<Sample>(text, "analysis", false).unwrap();
        assert!(read.payload.is_none(), "{text}");
        assert_eq!(
            read.reasoning.as_deref(),
            Some("<parameter name=\"analysis\">{}")
        );
        assert_eq!(
            read.object.get("x").map(|x| x.json_type()),
            Some(JsonType::Array)
        );
        let payload = read.object.get("analysis").map(Member::json_type);
        assert!(
            payload.is_none() || payload == Some(JsonType::Null),
            "{text}"
        );
    }
}

#[test]
fn anything_else_is_left_to_the_general_reading() {
    for text in [
        r#"{"reasoning":1,"analysis":{"summary":"s"}}"#,
        r#"{"reasoning":"r","analysis":{"summary":1}}"#,
        r#"{"reasoning":"r","analysis":{"summary":"s"}} x"#,
        r#"{"reasoning":"r","analysis":42}"#,
        r#"{"reasoning":"r","analysis":[]}"#,
        "[]",
    ] {
        assert!(
            decode::<Sample>(text, "analysis", false).is_none(),
            "{text}"
        );
    }
}

#[test]
fn a_repeated_member_is_left_to_the_steps() {
    for text in [
        r#"{"reasoning":"a","analysis":{"summary":"one"},"analysis":{"summary":"two"}}"#,
        r#"{"reasoning":"a","analysis":{"summary":"s"},"reasoning":"b"}"#,
        r#"{"reasoning":"a","analysis":{"summary":"one","summary":"two"}}"#,
    ] {
        assert!(
            decode::<Sample>(text, "analysis", false).is_none(),
            "{text}"
        );
    }
    let text = r#"{"reasoning":"a","analysis":{"summary":"s","x":{"y":1,"y":2}}}"#;
    let decoded = accepted(decode::<Sample>(text, "analysis", false));
    assert_eq!(decoded, Some((sample("s"), "a".into())));
}
