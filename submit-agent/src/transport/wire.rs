//! The conversions every provider's wire format shares: tool outputs as text, media as URLs
//! and base64, part metadata, argument objects, token counts.

use serde::de::value::MapAccessDeserializer;
use serde::de::{self, Deserializer, Error as _, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::{Map, Value};
use submit_core::Provider;

use super::TransportError;
use crate::message::{Media, MediaSource, Part, ToolRequest};

/// Text of a tool output: a string as is, anything else as compact JSON.
pub(crate) fn output_text(output: Option<&Value>) -> String {
    match output {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

/// The text of an error result as the OpenAI formats carry it.
#[cfg_attr(
    not(any(feature = "openai-chat", feature = "openai-responses")),
    allow(dead_code, reason = "used by the OpenAI transports only")
)]
pub(crate) fn error_text(output: Option<&Value>) -> String {
    format!("Error: {}", output_text(output))
}

/// The joined text of every system message; non-text system parts are refused.
pub(crate) fn system_text<M: std::borrow::Borrow<crate::message::Message>>(
    provider: Provider,
    messages: &[M],
) -> Result<Option<String>, TransportError> {
    let mut texts = Vec::new();
    for message in messages.iter().map(|m| m.borrow()) {
        if message.role != crate::message::Role::System {
            continue;
        }
        for part in &message.content {
            match part.as_text() {
                Some(t) => texts.push(t.to_owned()),
                None => {
                    return Err(TransportError::refused(
                        provider,
                        "system messages may hold text only: move other parts to a user message",
                    ))
                }
            }
        }
    }
    Ok((!texts.is_empty()).then(|| texts.join("\n\n")))
}

/// The MIME type of media, required by every provider.
pub(crate) fn mime(provider: Provider, media: &Media) -> Result<&str, TransportError> {
    media
        .content_type
        .as_deref()
        .filter(|t| !t.is_empty())
        .ok_or_else(|| {
            TransportError::refused(
                provider,
                "a media part has no content type: set one (image/png, application/pdf, …)",
            )
        })
}

/// A `data:` URL for inline media, the URL itself otherwise.
#[cfg_attr(
    not(any(
        feature = "claude",
        feature = "openai-chat",
        feature = "openai-responses"
    )),
    allow(dead_code, reason = "used by the transports that send media as URLs")
)]
pub(crate) fn media_url(provider: Provider, media: &Media) -> Result<String, TransportError> {
    Ok(match &media.source {
        MediaSource::Url(u) => u.clone(),
        MediaSource::Inline(bytes) => {
            format!(
                "data:{};base64,{}",
                mime(provider, media)?,
                base64_encode(bytes)
            )
        }
    })
}

/// A provider-namespaced metadata value of a part (`metadata.<namespace>.<key>`).
#[cfg_attr(
    not(any(feature = "claude", feature = "gemini", feature = "openai-responses")),
    allow(
        dead_code,
        reason = "used by the transports that keep provider state on parts"
    )
)]
pub(crate) fn meta<'p>(part: &'p Part, namespace: &str, key: &str) -> Option<&'p Value> {
    part.metadata.as_ref()?.get(namespace)?.get(key)
}

/// Sets `metadata.<namespace>` on a part.
#[cfg_attr(
    not(any(feature = "claude", feature = "gemini", feature = "openai-responses")),
    allow(
        dead_code,
        reason = "used by the transports that keep provider state on parts"
    )
)]
pub(crate) fn with_meta(mut part: Part, namespace: &str, values: Map<String, Value>) -> Part {
    if !values.is_empty() {
        part.metadata
            .get_or_insert_with(Map::new)
            .insert(namespace.to_owned(), Value::Object(values));
    }
    part
}

/// A call's `arguments` as OpenAI sends them: the text the model wrote, in a JSON string; a
/// gateway that decoded it sends the value instead, kept as it came.
#[cfg_attr(
    not(any(feature = "openai-chat", feature = "openai-responses")),
    allow(dead_code, reason = "used by the OpenAI transports only")
)]
#[derive(Clone, Debug, Default, PartialEq, serde::Deserialize)]
#[serde(from = "Option<Value>")]
pub(crate) enum TextArguments {
    /// Absent or `null`: no arguments.
    #[default]
    Missing,
    /// The text the model sent.
    Text(String),
    /// A value a gateway decoded.
    Value(Value),
}

impl From<Option<Value>> for TextArguments {
    fn from(value: Option<Value>) -> Self {
        match value {
            None | Some(Value::Null) => TextArguments::Missing,
            Some(Value::String(text)) => TextArguments::Text(text),
            Some(value) => TextArguments::Value(value),
        }
    }
}

impl TextArguments {
    /// The text the call's deltas continue: the text so far, or none.
    #[cfg_attr(
        not(feature = "openai-responses"),
        allow(dead_code, reason = "used by the Responses transport only")
    )]
    pub(crate) fn text(&self) -> &str {
        match self {
            TextArguments::Text(text) => text,
            _ => "",
        }
    }

    /// Appends a streamed piece of the text (a value a gateway sent is replaced).
    #[cfg_attr(
        not(feature = "openai-responses"),
        allow(dead_code, reason = "used by the Responses transport only")
    )]
    pub(crate) fn push(&mut self, piece: &str) {
        match self {
            TextArguments::Text(text) => text.push_str(piece),
            other => *other = TextArguments::Text(piece.to_owned()),
        }
    }

    /// The call as a part: the text as the model sent it, or the value, or no arguments.
    #[cfg_attr(
        not(any(feature = "openai-chat", feature = "openai-responses")),
        allow(dead_code, reason = "used by the OpenAI transports only")
    )]
    pub(crate) fn into_call(self, name: impl Into<String>, id: Option<String>) -> Part {
        match self {
            TextArguments::Text(text) => Part::tool_request_text(name, id, text),
            TextArguments::Missing => Part::tool_request(name, id, Value::Null),
            TextArguments::Value(value) => Part::tool_request(name, id, value),
        }
    }
}

/// A call's arguments as the OpenAI formats send them back: the text the model sent when the
/// call arrived as text, exactly; otherwise the value as JSON text (a string value as it is).
#[cfg_attr(
    not(any(feature = "openai-chat", feature = "openai-responses")),
    allow(dead_code, reason = "used by the OpenAI transports only")
)]
pub(crate) fn arguments_text(request: &ToolRequest) -> String {
    if let Some(text) = &request.arguments_text {
        return text.clone();
    }
    match &request.input {
        Value::Null => "{}".to_owned(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// A call's arguments as the object-argument formats send them back: the value when it is an
/// object, else the text (or string value) decoded when that is one object, else `{}`.
#[cfg_attr(
    not(any(feature = "claude", feature = "gemini")),
    allow(dead_code, reason = "used by the object-argument transports only")
)]
pub(crate) fn input_object(request: &ToolRequest) -> Value {
    match (&request.input, &request.arguments_text) {
        (Value::Object(_), _) => request.input.clone(),
        (Value::Null, Some(text)) | (Value::String(text), _) => {
            match serde_json::from_str::<Value>(text) {
                Ok(v @ Value::Object(_)) => v,
                _ => Value::Object(Map::new()),
            }
        }
        _ => Value::Object(Map::new()),
    }
}

/// Standard base64, as every provider sends inline bytes.
pub(crate) fn base64_encode(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// Standard base64, or its URL-safe alphabet, padded or not.
#[cfg_attr(
    not(feature = "gemini"),
    allow(dead_code, reason = "used by the Gemini transport only")
)]
pub(crate) fn base64_decode(text: &str) -> Option<Vec<u8>> {
    use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
    use base64::engine::DecodePaddingMode;
    use base64::Engine as _;
    let config =
        GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent);
    GeneralPurpose::new(&base64::alphabet::STANDARD, config)
        .decode(text)
        .or_else(|_| GeneralPurpose::new(&base64::alphabet::URL_SAFE, config).decode(text))
        .ok()
}

/// An entry tagged by its `type` member (a content block, an output item), read in one pass
/// when `type` comes first, as the providers send it.
///
/// serde's derive for an internally tagged enum (`#[serde(tag = "type")]`) buffers each entry
/// before reading it, which costs as much again as reading a call's arguments object; the
/// stream events, small, use the derive. An entry whose `type` comes later is buffered and
/// read the same way.
#[cfg_attr(
    not(any(feature = "claude", feature = "openai-responses")),
    allow(
        dead_code,
        reason = "used by the transports whose answers hold tagged entries"
    )
)]
pub(crate) trait Tagged: Sized {
    /// The entry whose `type` is `tag`, read from its other members.
    fn variant<'de, D: Deserializer<'de>>(tag: &str, rest: D) -> Result<Self, D::Error>;
}

/// Reads a [`Tagged`] entry: the `Deserialize` of each such type.
#[cfg_attr(
    not(any(feature = "claude", feature = "openai-responses")),
    allow(
        dead_code,
        reason = "used by the transports whose answers hold tagged entries"
    )
)]
pub(crate) fn tagged<'de, T: Tagged, D: Deserializer<'de>>(deserializer: D) -> Result<T, D::Error> {
    struct Entry<T>(std::marker::PhantomData<T>);

    impl<'de, T: Tagged> Visitor<'de> for Entry<T> {
        type Value = T;

        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("an object with a `type` member")
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<T, A::Error> {
            match map.next_key::<FirstKey>()? {
                Some(FirstKey::Type) => {
                    let tag: String = map.next_value()?;
                    T::variant(&tag, MapAccessDeserializer::new(map))
                }
                first => {
                    // `type` comes later, or not at all: the entry is buffered.
                    let mut entry = Map::new();
                    if let Some(FirstKey::Other(key)) = first {
                        entry.insert(key, map.next_value()?);
                    }
                    while let Some((key, value)) = map.next_entry::<String, Value>()? {
                        entry.insert(key, value);
                    }
                    let tag = match entry.remove("type") {
                        Some(Value::String(tag)) => tag,
                        _ => return Err(A::Error::missing_field("type")),
                    };
                    T::variant(&tag, Value::Object(entry)).map_err(A::Error::custom)
                }
            }
        }
    }

    /// An entry's first key: `type`, or another (kept to buffer the entry).
    enum FirstKey {
        Type,
        Other(String),
    }

    impl<'de> Deserialize<'de> for FirstKey {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            struct Key;
            impl Visitor<'_> for Key {
                type Value = FirstKey;
                fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                    f.write_str("a member name")
                }
                fn visit_str<E: de::Error>(self, key: &str) -> Result<FirstKey, E> {
                    Ok(if key == "type" {
                        FirstKey::Type
                    } else {
                        FirstKey::Other(key.to_owned())
                    })
                }
            }
            deserializer.deserialize_identifier(Key)
        }
    }

    deserializer.deserialize_map(Entry(std::marker::PhantomData))
}

/// An entry of a type this crate does not read, whole, `type` first: it passes through.
#[cfg_attr(
    not(any(feature = "claude", feature = "openai-responses")),
    allow(
        dead_code,
        reason = "used by the transports whose answers hold tagged entries"
    )
)]
pub(crate) fn untouched<'de, D: Deserializer<'de>>(tag: &str, rest: D) -> Result<Value, D::Error> {
    let rest = Map::<String, Value>::deserialize(rest)?;
    let mut entry = Map::new();
    entry.insert("type".to_owned(), Value::String(tag.to_owned()));
    entry.extend(rest);
    Ok(Value::Object(entry))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_decodes_both_alphabets() {
        assert_eq!(base64_decode("+/8=").unwrap(), [251, 255]);
        assert_eq!(base64_decode("-_8").unwrap(), [251, 255]);
        assert_eq!(base64_encode(b"hi!"), "aGkh");
    }
}
