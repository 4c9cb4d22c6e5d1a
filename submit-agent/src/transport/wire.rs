//! The conversions every provider's wire format shares: tool outputs as text, media as URLs
//! and base64, part metadata, argument objects, token counts.

use serde_json::{Map, Value};

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
    provider: &'static str,
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
                    return Err(TransportError::Request {
                        provider,
                        message:
                            "system messages may hold text only: move other parts to a user message"
                                .into(),
                    })
                }
            }
        }
    }
    Ok((!texts.is_empty()).then(|| texts.join("\n\n")))
}

/// The MIME type of media, required by every provider.
pub(crate) fn mime<'m>(
    provider: &'static str,
    media: &'m Media,
) -> Result<&'m str, TransportError> {
    media
        .content_type
        .as_deref()
        .filter(|t| !t.is_empty())
        .ok_or_else(|| TransportError::Request {
            provider,
            message: "a media part has no content type: set one (image/png, application/pdf, …)"
                .into(),
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
pub(crate) fn media_url(provider: &'static str, media: &Media) -> Result<String, TransportError> {
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

/// A call whose arguments arrive as text (OpenAI's `arguments`): a string is kept as the text
/// the model sent; absent or `null` is no arguments; any other value (a gateway that decoded
/// it) is kept as that value.
#[cfg_attr(
    not(any(feature = "openai-chat", feature = "openai-responses")),
    allow(dead_code, reason = "used by the OpenAI transports only")
)]
pub(crate) fn text_call(name: &str, id: Option<String>, arguments: Option<&Value>) -> Part {
    match arguments {
        Some(Value::String(text)) => Part::tool_request_text(name, id, text.clone()),
        None => Part::tool_request(name, id, Value::Null),
        Some(value) => Part::tool_request(name, id, value.clone()),
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

/// Appends `piece` to the string field `key` of an object, in place (linear over a stream's
/// deltas); a value that is not an object is left alone.
#[cfg_attr(
    not(any(feature = "claude", feature = "gemini", feature = "openai-responses")),
    allow(
        dead_code,
        reason = "the Chat transport assembles into its own buffers"
    )
)]
pub(crate) fn append_text(value: &mut Value, key: &str, piece: &str) {
    if let Some(map) = value.as_object_mut() {
        match map.get_mut(key) {
            Some(Value::String(s)) => s.push_str(piece),
            _ => {
                map.insert(key.to_owned(), Value::String(piece.to_owned()));
            }
        }
    }
}

/// A `u64` field of a JSON object, 0 when absent.
pub(crate) fn count(value: &Value, key: &str) -> u64 {
    value.get(key).and_then(Value::as_u64).unwrap_or(0)
}

/// A `u64` field of an object field, 0 when absent.
#[cfg_attr(
    not(any(feature = "openai-chat", feature = "openai-responses")),
    allow(dead_code, reason = "used by the OpenAI transports only")
)]
pub(crate) fn nested(value: &Value, outer: &str, key: &str) -> u64 {
    value.get(outer).map(|v| count(v, key)).unwrap_or(0)
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
