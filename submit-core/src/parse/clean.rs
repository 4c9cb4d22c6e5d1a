//! The common cases in one pass: OpenAI argument text whose reasoning is a string and whose
//! payload is an object that decodes, or a string holding such an object followed by closing
//! tokens (step 6). The payload is decoded into the response type while the arguments are read,
//! instead of being skipped as raw text and decoded afterwards.
//!
//! This is an optimisation only. When the payload is absent or `null` the members read so far
//! are handed to the steps (step 1 is then done); on anything else it gives up and the steps
//! start over, so every rejection and every recovery is found and worded by them.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{DeserializeOwned, DeserializeSeed, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;

use super::arguments::RawObject;
use super::closing::only_closing_tokens;
use super::cow_str::CowStr;
use super::duplicates::{decode_map, Checked, Seen};
use super::reasoning::{trim_start_space, REASONING};
use crate::outcome::Recovery;

/// What one pass over argument text found.
pub(crate) enum OnePass<'a, R> {
    /// A clean call: the response, the reasoning, and the recovery (none, or a stringified
    /// payload).
    Accepted(R, String, Option<Recovery>),
    /// The arguments object, member by member, with the payload absent or `null`, and the
    /// reasoning already unescaped when it was a string: the steps go on from step 2.
    Members(RawObject<'a>, Option<Cow<'a, str>>),
    /// Anything else: the steps start over.
    Steps,
}

/// Reads argument text in one pass, decoding the payload on the way.
pub(crate) fn decode<'a, R: DeserializeOwned>(
    text: &'a str,
    field: &str,
    omit_reasoning: bool,
) -> OnePass<'a, R> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let read = Call::<R> {
        field,
        omit_reasoning,
        response: PhantomData,
    }
    .deserialize(&mut deserializer);
    let (Ok(read), Ok(())) = (read, deserializer.end()) else {
        return OnePass::Steps;
    };
    match (read.payload, read.reasoning) {
        (None, reasoning) => OnePass::Members(read.members, reasoning),
        (Some((response, recovery)), _) if omit_reasoning => {
            OnePass::Accepted(response, String::new(), recovery)
        }
        (Some((response, recovery)), Some(reasoning)) => {
            OnePass::Accepted(response, reasoning.into_owned(), recovery)
        }
        (Some(_), None) => OnePass::Steps,
    }
}

struct Call<'f, R> {
    field: &'f str,
    omit_reasoning: bool,
    response: PhantomData<fn() -> R>,
}

struct Read<'de, R> {
    /// Every member but a decoded payload and the reasoning; a `null` payload is kept as `null`.
    members: RawObject<'de>,
    /// The reasoning, unescaped (borrowed when it has no escapes); a reasoning that is not a
    /// string gives up.
    reasoning: Option<Cow<'de, str>>,
    payload: Option<(R, Option<Recovery>)>,
}

impl<'de, R: DeserializeOwned> DeserializeSeed<'de> for Call<'_, R> {
    type Value = Read<'de, R>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de, R: DeserializeOwned> Visitor<'de> for Call<'_, R> {
    type Value = Read<'de, R>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the arguments object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut read = Read {
            members: RawObject::default(),
            reasoning: None,
            payload: None,
        };
        // A repeated member gives up: the steps reject it (§10.2).
        let mut seen = Seen::default();
        while let Some(key) = map.next_key::<CowStr<'de>>()? {
            if !seen.insert(&key.0) {
                return Err(serde::de::Error::custom(NOT_CLEAN));
            }
            if key.0 == self.field {
                read.payload = map.next_value_seed(Object(PhantomData))?;
                if read.payload.is_none() {
                    read.members.members.push((key.0, RawValue::NULL));
                }
            } else if key.0 == REASONING && !self.omit_reasoning {
                read.reasoning = Some(map.next_value::<CowStr<'de>>()?.0);
            } else {
                read.members.members.push((key.0, map.next_value()?));
            }
        }
        Ok(read)
    }
}

/// The payload: an object decoded straight from the map being read, a string holding one, or
/// `null` (`None`).
struct Object<R>(PhantomData<fn() -> R>);

impl<'de, R: DeserializeOwned> DeserializeSeed<'de> for Object<R> {
    type Value = Option<(R, Option<Recovery>)>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de, R: DeserializeOwned> Visitor<'de> for Object<R> {
    type Value = Option<(R, Option<Recovery>)>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        Ok(Some((decode_map(map)?, None)))
    }

    /// Step 6 on the string as it is read: its first value decodes into the response type,
    /// is an object, and only closing tokens follow. Anything else gives up without quoting
    /// the string, and the steps decide.
    fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Self::Value, E> {
        if !trim_start_space(text).starts_with('{') {
            return Err(E::custom(NOT_CLEAN));
        }
        let mut stream = serde_json::Deserializer::from_str(text).into_iter::<Checked<R>>();
        match stream.next() {
            Some(Ok(Checked(response)))
                if text
                    .get(stream.byte_offset()..)
                    .is_some_and(only_closing_tokens) =>
            {
                Ok(Some((response, Some(Recovery::Stringified))))
            }
            _ => Err(E::custom(NOT_CLEAN)),
        }
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
}

/// The (never shown) reason the one-pass decoder gives up.
const NOT_CLEAN: &str = "not a clean call";

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::{json, Value};

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

    fn accepted<R>(pass: OnePass<'_, R>) -> Option<(R, String, Option<Recovery>)> {
        match pass {
            OnePass::Accepted(response, reasoning, recovery) => {
                Some((response, reasoning, recovery))
            }
            _ => None,
        }
    }

    #[test]
    fn clean_call_decodes_in_one_pass() {
        let text = r#"{"analysis":{"summary":"s"},"extra":[1,{"a":2}],"reasoning":"r"}"#;
        let decoded = accepted(decode::<Sample>(text, "analysis", false));
        assert_eq!(decoded, Some((sample("s"), "r".into(), None)));
        let decoded = accepted(decode::<Value>(
            r#"{"analysis":{"a":[1]}}"#,
            "analysis",
            true,
        ));
        assert_eq!(decoded, Some((json!({"a": [1]}), String::new(), None)));
        let text = r#"{"reasoning":"r","v":{"Block":{"reason":"x"}}}"#;
        let decoded = accepted(decode::<Verdict>(text, "v", false));
        let expected = Verdict::Block { reason: "x".into() };
        assert_eq!(decoded.map(|d| d.0), Some(expected));
    }

    #[test]
    fn stringified_payload_decodes_in_the_same_pass() {
        let text = r#"{"reasoning":"r","analysis":" {\"summary\":\"s\"}</analysis>\n</invoke>"}"#;
        let decoded = accepted(decode::<Sample>(text, "analysis", false));
        let recovery = Some(Recovery::Stringified);
        assert_eq!(decoded, Some((sample("s"), "r".into(), recovery)));
    }

    #[test]
    fn absent_or_null_payload_hands_the_members_to_the_steps() {
        for text in [
            r#"{"reasoning":"<parameter name=\"analysis\">{}","x":[1]}"#,
            r#"{"reasoning":"<parameter name=\"analysis\">{}","x":[1],"analysis":null}"#,
        ] {
            let OnePass::Members(members, reasoning) = decode::<Sample>(text, "analysis", false)
            else {
                panic!("members expected for {text}")
            };
            assert_eq!(
                reasoning.as_deref(),
                Some("<parameter name=\"analysis\">{}")
            );
            assert_eq!(members.get("x").unwrap().get(), "[1]");
            let payload = members.get("analysis").map(RawValue::get);
            assert!(payload.is_none() || payload == Some("null"), "{text}");
        }
    }

    #[test]
    fn anything_else_is_left_to_the_steps() {
        for text in [
            r#"{"analysis":{"summary":"s"}}"#,
            r#"{"reasoning":1,"analysis":{"summary":"s"}}"#,
            r#"{"reasoning":"r","analysis":"{\"summary\":\"s\"} and more"}"#,
            r#"{"reasoning":"r","analysis":"{\"summary\":1}"}"#,
            r#"{"reasoning":"r","analysis":"\ufeff{\"summary\":\"s\"}"}"#,
            r#"{"reasoning":"r","analysis":"[{\"summary\":\"s\"}]"}"#,
            r#"{"reasoning":"r","analysis":{"summary":1}}"#,
            r#"{"reasoning":"r","analysis":{"summary":"s"}} x"#,
            r#"{"reasoning":"r","analysis":42}"#,
            "[]",
        ] {
            let pass = decode::<Sample>(text, "analysis", false);
            assert!(matches!(pass, OnePass::Steps), "{text}");
        }
    }

    #[test]
    fn a_repeated_member_is_left_to_the_steps() {
        for text in [
            r#"{"reasoning":"a","analysis":{"summary":"one"},"analysis":{"summary":"two"}}"#,
            r#"{"reasoning":"a","analysis":{"summary":"s"},"reasoning":"b"}"#,
            r#"{"reasoning":"a","analysis":{"summary":"one","summary":"two"}}"#,
            r#"{"reasoning":"a","analysis":"{\"summary\":\"one\",\"summary\":\"two\"}"}"#,
        ] {
            let pass = decode::<Sample>(text, "analysis", false);
            assert!(matches!(pass, OnePass::Steps), "{text}");
        }
        let text = r#"{"reasoning":"a","analysis":{"summary":"s","x":{"y":1,"y":2}}}"#;
        let decoded = accepted(decode::<Sample>(text, "analysis", false));
        assert_eq!(decoded, Some((sample("s"), "a".into(), None)));
    }
}
