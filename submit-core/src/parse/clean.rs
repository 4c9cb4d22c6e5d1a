//! The common cases in one pass: OpenAI argument text whose reasoning is a string and whose
//! payload is an object that decodes, or a string holding such an object followed by closing
//! tokens (step 6). The payload is decoded into the response type while the arguments are read,
//! instead of being skipped as raw text and decoded afterwards.
//!
//! This is an optimisation only: it gives up (`None`) on anything else, and the steps of §5
//! then decide, so every rejection and every recovery is found and worded by them.

use std::fmt;
use std::marker::PhantomData;

use serde::de::value::MapAccessDeserializer;
use serde::de::{DeserializeOwned, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;

use super::arguments::CowStr;
use super::closing::only_closing_tokens;
use super::reasoning::{trim_start_space, REASONING};
use crate::outcome::Recovery;

/// The response, the reasoning and the recovery (none, or a stringified payload) of a clean
/// call, or `None` to take the steps.
pub(crate) fn decode<R: DeserializeOwned>(
    text: &str,
    field: &str,
    omit_reasoning: bool,
) -> Option<(R, String, Option<Recovery>)> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let call = Call::<R> {
        field,
        omit_reasoning,
        response: PhantomData,
    }
    .deserialize(&mut deserializer)
    .ok()?;
    deserializer.end().ok()?;
    let payload = call.payload?;
    let reasoning = match (omit_reasoning, call.reasoning) {
        (true, _) => String::new(),
        // Unescaped only now: a call that is not clean never pays for a long reasoning twice.
        (false, raw) => serde_json::from_str::<String>(raw?.get()).ok()?,
    };
    Some((payload.0, reasoning, payload.1))
}

struct Call<'f, R> {
    field: &'f str,
    omit_reasoning: bool,
    response: PhantomData<fn() -> R>,
}

struct Decoded<'de, R> {
    reasoning: Option<&'de RawValue>,
    payload: Option<(R, Option<Recovery>)>,
}

impl<'de, R: DeserializeOwned> DeserializeSeed<'de> for Call<'_, R> {
    type Value = Decoded<'de, R>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de, R: DeserializeOwned> Visitor<'de> for Call<'_, R> {
    type Value = Decoded<'de, R>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the arguments object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut decoded = Decoded {
            reasoning: None,
            payload: None,
        };
        // The last of repeated members wins, as in the steps.
        while let Some(key) = map.next_key::<CowStr<'de>>()? {
            if key.0 == self.field {
                decoded.payload = Some(map.next_value_seed(Object(PhantomData))?);
            } else if key.0 == REASONING && !self.omit_reasoning {
                decoded.reasoning = Some(map.next_value::<&'de RawValue>()?);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(decoded)
    }
}

/// The payload, which must be a JSON object: decoded straight from the map being read.
struct Object<R>(PhantomData<fn() -> R>);

impl<'de, R: DeserializeOwned> DeserializeSeed<'de> for Object<R> {
    type Value = (R, Option<Recovery>);

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de, R: DeserializeOwned> Visitor<'de> for Object<R> {
    type Value = (R, Option<Recovery>);

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        Ok((R::deserialize(MapAccessDeserializer::new(map))?, None))
    }

    /// Step 6 on the string as it is read: its first value decodes into the response type,
    /// is an object, and only closing tokens follow. Anything else gives up without quoting
    /// the string, and the steps decide.
    fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Self::Value, E> {
        if !trim_start_space(text).starts_with('{') {
            return Err(E::custom(NOT_CLEAN));
        }
        let mut stream = serde_json::Deserializer::from_str(text).into_iter::<R>();
        match stream.next() {
            Some(Ok(response))
                if text
                    .get(stream.byte_offset()..)
                    .is_some_and(only_closing_tokens) =>
            {
                Ok((response, Some(Recovery::Stringified)))
            }
            _ => Err(E::custom(NOT_CLEAN)),
        }
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
        Err(E::custom(NOT_CLEAN))
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

    #[test]
    fn clean_call_decodes_in_one_pass() {
        let decoded = decode::<Sample>(
            r#"{"analysis":{"summary":"s"},"extra":[1,{"a":2}],"reasoning":"r"}"#,
            "analysis",
            false,
        );
        assert_eq!(
            decoded,
            Some((
                Sample {
                    summary: "s".into()
                },
                "r".into(),
                None
            ))
        );
        let decoded = decode::<Value>(r#"{"analysis":{"a":[1]}}"#, "analysis", true);
        assert_eq!(decoded, Some((json!({"a": [1]}), String::new(), None)));
        let decoded = decode::<Verdict>(
            r#"{"reasoning":"r","v":{"Block":{"reason":"x"}}}"#,
            "v",
            false,
        );
        assert_eq!(
            decoded.map(|d| d.0),
            Some(Verdict::Block { reason: "x".into() })
        );
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
            r#"{"reasoning":"r","analysis":null}"#,
            r#"{"reasoning":"r","analysis":{"summary":1}}"#,
            r#"{"reasoning":"r","analysis":{"summary":"s"}} x"#,
            r#"{"reasoning":"r"}"#,
            "[]",
        ] {
            assert_eq!(decode::<Sample>(text, "analysis", false), None, "{text}");
        }
    }

    #[test]
    fn last_repeated_member_wins() {
        let decoded = decode::<Sample>(
            r#"{"reasoning":"a","analysis":{"summary":"one"},"analysis":{"summary":"two"},"reasoning":"b"}"#,
            "analysis",
            false,
        );
        assert_eq!(
            decoded,
            Some((
                Sample {
                    summary: "two".into()
                },
                "b".into(),
                None
            ))
        );
    }

    #[test]
    fn stringified_payload_decodes_in_the_same_pass() {
        let decoded = decode::<Sample>(
            r#"{"reasoning":"r","analysis":" {\"summary\":\"s\"}</analysis>\n</invoke>"}"#,
            "analysis",
            false,
        );
        let expected = Sample {
            summary: "s".into(),
        };
        assert_eq!(
            decoded,
            Some((expected, "r".into(), Some(Recovery::Stringified)))
        );
    }
}
