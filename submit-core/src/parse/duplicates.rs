//! SUBMIT.md §10.2: a member name written twice in argument text is ambiguous.
//!
//! A parsed `Value` has already lost the duplicate, so the check happens while the text is
//! read: the readers of the arguments object ([`RawObject`](super::arguments::RawObject), the
//! one pass of `clean.rs`) note each key in a [`Seen`], and the payload object is decoded
//! through [`Checked`], which notes its keys on the way into the response type. Neither scans
//! the text a second time.

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashSet;
use std::fmt;
use std::marker::PhantomData;

use serde::de::value::{BorrowedStrDeserializer, MapAccessDeserializer, StringDeserializer};
use serde::de::{self, DeserializeOwned, DeserializeSeed, Deserializer, MapAccess, Visitor};

use super::cow_str::CowStr;
use crate::error::{ParameterCause, SubmitError};

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

thread_local! {
    /// The name of the duplicate that stopped the last checked read on this thread.
    static DUPLICATE: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Records `name` as the duplicate that stopped a read, and the (never shown) error for it.
pub(crate) fn stop<E: de::Error>(name: &str) -> E {
    DUPLICATE.with(|cell| *cell.borrow_mut() = Some(name.to_owned()));
    E::custom(DUPLICATE_MEMBER)
}

/// Forgets a duplicate recorded earlier on this thread (before a checked read).
pub(crate) fn clear() {
    DUPLICATE.with(|cell| cell.borrow_mut().take());
}

/// The duplicate that stopped the last checked read, if one did.
pub(crate) fn take() -> Option<String> {
    DUPLICATE.with(|cell| cell.borrow_mut().take())
}

/// §10.2's rejection.
pub(crate) fn rejection(name: &str) -> SubmitError {
    SubmitError::parameter(
        ParameterCause::UndecodableArguments,
        format!("failed to parse tool arguments: {name:?} appears twice; send each parameter once"),
    )
}

const DUPLICATE_MEMBER: &str = "duplicate member";

/// A response decoded from a JSON object whose own members are checked for duplicates.
pub(crate) struct Checked<R>(pub(crate) R);

impl<'de, R: DeserializeOwned> de::Deserialize<'de> for Checked<R> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer
            .deserialize_any(ObjectOf::<R>(PhantomData))
            .map(Checked)
    }
}

/// Decodes `R` from a map, noting its keys.
pub(crate) struct ObjectOf<R>(pub(crate) PhantomData<fn() -> R>);

impl<'de, R: DeserializeOwned> Visitor<'de> for ObjectOf<R> {
    type Value = R;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<R, A::Error> {
        decode_map(map)
    }
}

/// `R` decoded from `map`, whose keys are noted as they pass.
pub(crate) fn decode_map<'de, R: DeserializeOwned, A: MapAccess<'de>>(
    map: A,
) -> Result<R, A::Error> {
    R::deserialize(MapAccessDeserializer::new(Noting {
        map,
        seen: Seen::default(),
    }))
}

/// A map whose keys are noted before the response type sees them.
struct Noting<'de, A> {
    map: A,
    seen: Seen<'de>,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Noting<'de, A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        let Some(CowStr(key)) = self.map.next_key::<CowStr<'de>>()? else {
            return Ok(None);
        };
        if !self.seen.insert(&key) {
            return Err(stop(&key));
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

/// `text`, one JSON object, decoded into `R` with its members checked: the response, or
/// §10.2's rejection, or the decoder's own error (from a plain decode, so that its message is
/// serde's, whatever way the checked read failed).
pub(crate) fn decode_text<R: DeserializeOwned>(
    text: &str,
) -> Result<R, Result<SubmitError, serde_json::Error>> {
    clear();
    match serde_json::from_str::<Checked<R>>(text) {
        Ok(Checked(response)) => Ok(response),
        Err(_) => match take() {
            Some(name) => Err(Ok(rejection(&name))),
            None => serde_json::from_str::<R>(text).map_err(Err),
        },
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
        let error = decode_text::<Value>(r#"{"a":1,"b":{"x":1,"x":2},"a":2}"#).unwrap_err();
        let error = error.unwrap();
        assert_eq!(
            error.message(),
            "failed to parse tool arguments: \"a\" appears twice; send each parameter once"
        );
        assert_eq!(error.cause(), Some(ParameterCause::UndecodableArguments));
        // Deeper objects are not checked.
        let value = decode_text::<Value>(r#"{"b":{"x":1,"x":2}}"#).unwrap();
        assert_eq!(value["b"]["x"], 2);
        // Escaped keys are compared unescaped.
        assert!(decode_text::<Value>(r#"{"a":1,"\u0061":2}"#)
            .unwrap_err()
            .is_ok());
        let error = decode_text::<Vec<u8>>("{}").unwrap_err().unwrap_err();
        assert!(error.to_string().starts_with("invalid type: map"));
    }
}
