//! JSON objects read member by member, each name once: step *Duplicate members* of the parsing
//! rules.
//!
//! A member name written twice in argument text is ambiguous, so the call is rejected, naming
//! it (see [rejections](crate::rules::rejections)). A parsed `Value` has already lost the
//! repeat, so the check happens while the text is read: every reader of an object notes its
//! keys in a [`Seen`], and the payload is decoded into the response type through a map that
//! notes its keys on the way.
//! Nothing scans the text a second time.
//!
//! Where the rejection must name the member, the name leaves the serde pass the way
//! serde_path_to_error carries a path out: the map access that finds the repeat writes it into
//! a slot its caller lent it ([`Repeat`]), then stops the read with an error.

use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt;
use std::marker::PhantomData;

use serde::de::value::{BorrowedStrDeserializer, MapAccessDeserializer, StringDeserializer};
use serde::de::{
    self, Deserialize, DeserializeOwned, DeserializeSeed, Deserializer, MapAccess, Visitor,
};
use serde_json::value::RawValue;

use crate::error::{ParameterCause, SubmitError};

/// A JSON string, borrowed from the input when it has no escapes.
pub(crate) struct CowStr<'a>(pub(crate) Cow<'a, str>);

impl<'de> Deserialize<'de> for CowStr<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Text;

        impl<'de> Visitor<'de> for Text {
            type Value = CowStr<'de>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON string")
            }

            fn visit_borrowed_str<E>(self, text: &'de str) -> Result<Self::Value, E> {
                Ok(CowStr(Cow::Borrowed(text)))
            }

            fn visit_str<E>(self, text: &str) -> Result<Self::Value, E> {
                Ok(CowStr(Cow::Owned(text.to_owned())))
            }

            fn visit_string<E>(self, text: String) -> Result<Self::Value, E> {
                Ok(CowStr(Cow::Owned(text)))
            }
        }

        deserializer.deserialize_str(Text)
    }
}

/// Up to this many keys are compared one by one; beyond it a hash set keeps the check linear.
const SMALL: usize = 16;

/// The keys of one object read so far.
#[derive(Default)]
pub(crate) struct Seen<'de> {
    keys: Vec<Cow<'de, str>>,
    set: Option<HashSet<Cow<'de, str>>>,
}

impl<'de> Seen<'de> {
    /// Notes `key`; `false` when it was seen before.
    #[allow(
        clippy::ptr_arg,
        reason = "a borrowed key is kept as the same borrow, without a copy"
    )]
    pub(crate) fn insert(&mut self, key: &Cow<'de, str>) -> bool {
        if let Some(set) = &mut self.set {
            return set.insert(key.clone());
        }
        if self.keys.iter().any(|seen| seen == key) {
            return false;
        }
        self.keys.push(key.clone());
        if self.keys.len() > SMALL {
            self.set = Some(self.keys.drain(..).collect());
        }
        true
    }
}

/// The slot a read writes the first repeated member name into before it stops.
pub(crate) type Repeat = Option<String>;

/// The (never shown) error that stops a read at a repeated member.
fn stop<E: de::Error>(name: &str, repeat: Option<&mut Repeat>) -> E {
    if let Some(slot) = repeat {
        *slot = Some(name.to_owned());
    }
    E::custom("a member appears twice")
}

/// Why a checked read of one JSON object stopped.
#[derive(Debug)]
pub(crate) enum Stopped {
    /// A member name given twice (unescaped): the read stopped at its second occurrence.
    Repeated(String),
    /// The decoder's own error.
    Decoder(serde_json::Error),
}

/// The rejection of arguments that name a member twice.
pub(crate) fn repeated(name: &str) -> SubmitError {
    SubmitError::parameter(
        ParameterCause::UndecodableArguments,
        format!("failed to parse tool arguments: {name:?} appears twice; send each parameter once"),
    )
}

/// The members of a JSON object, each as its raw JSON text, in order (names unescaped).
#[derive(Debug, Default)]
pub(crate) struct Members<'a> {
    pub(crate) list: Vec<(Cow<'a, str>, &'a RawValue)>,
}

impl<'a> Members<'a> {
    /// The member named `name` (a name appears once: the reader stops at a repeat).
    pub(crate) fn get(&self, name: &str) -> Option<&'a RawValue> {
        self.list
            .iter()
            .rev()
            .find(|(key, _)| key == name)
            .map(|(_, value)| *value)
    }

    /// `text`, one JSON object, read member by member: the members, or why the read stopped.
    pub(crate) fn read(text: &'a str) -> Result<Self, Stopped> {
        let mut repeat = None;
        let mut deserializer = serde_json::Deserializer::from_str(text);
        let read = MembersOf {
            repeat: Some(&mut repeat),
        }
        .deserialize(&mut deserializer)
        .and_then(|members| deserializer.end().map(|()| members));
        read.map_err(|error| match repeat {
            Some(name) => Stopped::Repeated(name),
            None => Stopped::Decoder(error),
        })
    }

    /// The name given twice in the object `text` starts with, if a read of it stops there.
    pub(crate) fn repeat_at_start(text: &str) -> Option<String> {
        let mut repeat = None;
        let mut deserializer = serde_json::Deserializer::from_str(text);
        let _ = MembersOf {
            repeat: Some(&mut repeat),
        }
        .deserialize(&mut deserializer);
        repeat
    }
}

impl<'de> Deserialize<'de> for Members<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        MembersOf { repeat: None }.deserialize(deserializer)
    }
}

/// Reads [`Members`], writing a repeated name into `repeat` when it is lent.
struct MembersOf<'r> {
    repeat: Option<&'r mut Repeat>,
}

impl<'de> DeserializeSeed<'de> for MembersOf<'_> {
    type Value = Members<'de>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for MembersOf<'_> {
    type Value = Members<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut list = Vec::new();
        let mut seen = Seen::default();
        while let Some(CowStr(key)) = map.next_key::<CowStr<'de>>()? {
            if !seen.insert(&key) {
                return Err(stop(&key, self.repeat));
            }
            list.push((key, map.next_value::<&'de RawValue>()?));
        }
        Ok(Members { list })
    }
}

/// A response decoded from a JSON object whose own members are each named once.
pub(crate) struct UniqueMembers<R>(pub(crate) R);

impl<'de, R: DeserializeOwned> Deserialize<'de> for UniqueMembers<R> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        UniqueMembersOf::<R> {
            repeat: None,
            response: PhantomData,
        }
        .deserialize(deserializer)
        .map(UniqueMembers)
    }
}

/// Decodes `R` from a JSON object, noting its keys, writing a repeated name into `repeat`.
struct UniqueMembersOf<'r, R> {
    repeat: Option<&'r mut Repeat>,
    response: PhantomData<fn() -> R>,
}

impl<'de, R: DeserializeOwned> DeserializeSeed<'de> for UniqueMembersOf<'_, R> {
    type Value = R;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<R, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de, R: DeserializeOwned> Visitor<'de> for UniqueMembersOf<'_, R> {
    type Value = R;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<R, A::Error> {
        decode_map(map, self.repeat)
    }
}

/// `R` decoded from `map`, whose keys are noted as they pass; a repeated name is written into
/// `repeat` when it is lent.
pub(crate) fn decode_map<'de, R: DeserializeOwned, A: MapAccess<'de>>(
    map: A,
    repeat: Option<&mut Repeat>,
) -> Result<R, A::Error> {
    R::deserialize(MapAccessDeserializer::new(Noting {
        map,
        seen: Seen::default(),
        repeat,
    }))
}

/// A map whose keys are noted before the response type sees them.
struct Noting<'de, 'r, A> {
    map: A,
    seen: Seen<'de>,
    repeat: Option<&'r mut Repeat>,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Noting<'de, '_, A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        let Some(CowStr(key)) = self.map.next_key::<CowStr<'de>>()? else {
            return Ok(None);
        };
        if !self.seen.insert(&key) {
            return Err(stop(&key, self.repeat.as_deref_mut()));
        }
        match key {
            Cow::Borrowed(key) => seed
                .deserialize(BorrowedStrDeserializer::<A::Error>::new(key))
                .map(Some),
            Cow::Owned(key) => seed
                .deserialize(StringDeserializer::<A::Error>::new(key))
                .map(Some),
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        self.map.next_value_seed(seed)
    }

    fn size_hint(&self) -> Option<usize> {
        self.map.size_hint()
    }
}

/// `text`, one JSON object, decoded into `R` with its members each named once: the response,
/// or the name given twice, or the decoder's own error (from a plain decode, so that its message
/// is serde's, whatever way the checked read failed).
pub(crate) fn decode_unique<R: DeserializeOwned>(text: &str) -> Result<R, Stopped> {
    let mut repeat = None;
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let read = UniqueMembersOf::<R> {
        repeat: Some(&mut repeat),
        response: PhantomData,
    }
    .deserialize(&mut deserializer)
    .and_then(|response| deserializer.end().map(|()| response));
    match (read, repeat) {
        (Ok(response), _) => Ok(response),
        (Err(_), Some(name)) => Err(Stopped::Repeated(name)),
        (Err(_), None) => serde_json::from_str::<R>(text).map_err(Stopped::Decoder),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn seen_finds_repeats_among_few_and_many_keys() {
        let mut seen = Seen::default();
        for i in 0..100 {
            assert!(seen.insert(&Cow::Owned(format!("k{i}"))));
        }
        assert!(!seen.insert(&Cow::Borrowed("k3")));
        assert!(!seen.insert(&Cow::Borrowed("k99")));
        let mut few = Seen::default();
        assert!(few.insert(&Cow::Borrowed("a")));
        assert!(!few.insert(&Cow::Borrowed("a")));
    }

    #[test]
    fn checked_decode_rejects_a_repeated_member_and_keeps_serde_messages() {
        let error = decode_unique::<Value>(r#"{"a":1,"b":{"x":1,"x":2},"a":2}"#).unwrap_err();
        let Stopped::Repeated(name) = error else {
            panic!("the repeat expected, got {error:?}")
        };
        let error = repeated(&name);
        assert_eq!(
            error.message(),
            "failed to parse tool arguments: \"a\" appears twice; send each parameter once"
        );
        assert_eq!(error.cause(), Some(ParameterCause::UndecodableArguments));
        // Deeper objects are not checked.
        let value = decode_unique::<Value>(r#"{"b":{"x":1,"x":2}}"#).unwrap();
        assert_eq!(value["b"]["x"], 2);
        // Escaped keys are compared unescaped.
        assert!(matches!(
            decode_unique::<Value>(r#"{"a":1,"\u0061":2}"#),
            Err(Stopped::Repeated(name)) if name == "a"
        ));
        let error = decode_unique::<Vec<u8>>("{}").unwrap_err();
        let Stopped::Decoder(error) = error else {
            panic!("the decoder's error expected, got {error:?}")
        };
        assert!(error.to_string().starts_with("invalid type: map"));
    }

    #[test]
    fn a_repeat_is_named_only_where_the_read_stopped_at_it() {
        assert!(matches!(
            Members::read(r#"{"a":1,"a":2"#),
            Err(Stopped::Repeated(name)) if name == "a"
        ));
        assert!(matches!(
            Members::read(r#"{"a":1,"b":}"#),
            Err(Stopped::Decoder(_))
        ));
        assert_eq!(
            Members::repeat_at_start(r#"{"a":1,"a":2} and more"#),
            Some("a".to_owned())
        );
        assert_eq!(Members::repeat_at_start(r#"{"a":1} {"a":1,"a":1}"#), None);
        // A type error met before the repeat is the decoder's.
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code, reason = "decoded for its error only")]
        struct One {
            a: String,
        }
        let error = decode_unique::<One>(r#"{"a":1,"a":"x"}"#).unwrap_err();
        let Stopped::Decoder(error) = error else {
            panic!("the decoder's error expected, got {error:?}")
        };
        assert!(error.to_string().starts_with("invalid type"));
    }
}
