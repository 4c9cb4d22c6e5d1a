//! The JSON form of a part: one kind key plus an optional `metadata` object, with the typed
//! state of a tool request (interrupt, restart, pending output) folded into that metadata under
//! stable keys.

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};
use submit_core::JsonType;

use super::output::ToolOutput;
use super::part::*;

/// A tool request's argument text as the model sent it.
const KEY_ARGUMENTS_TEXT: &str = "argumentsText";
const KEY_INTERRUPT: &str = "interrupt";
const KEY_RESOLVED: &str = "resolvedInterrupt";
const KEY_INTERRUPTED_BY: &str = "interruptedBy";
const KEY_RELEASED_BY: &str = "releasedBy";
const KEY_RESUMED: &str = "resumed";
const KEY_REPLACED_INPUT: &str = "replacedInput";
const KEY_PENDING_OUTPUT: &str = "pendingOutput";
const KEY_PENDING_CONTENT: &str = "pendingContent";
const KEY_PENDING_METADATA: &str = "pendingMetadata";

const STATE_KEYS: [&str; 9] = [
    KEY_INTERRUPT,
    KEY_RESOLVED,
    KEY_INTERRUPTED_BY,
    KEY_RELEASED_BY,
    KEY_RESUMED,
    KEY_REPLACED_INPUT,
    KEY_PENDING_OUTPUT,
    KEY_PENDING_CONTENT,
    KEY_PENDING_METADATA,
];

fn strip_state_keys(metadata: &Option<JsonObject>) -> Option<JsonObject> {
    metadata.as_ref().map(|m| {
        m.iter()
            .filter(|(k, _)| !STATE_KEYS.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    })
}

impl Part {
    fn to_json(&self) -> Value {
        let mut out = Map::new();
        let mut metadata = self.metadata.clone();
        let (key, body) = match &self.kind {
            PartKind::Text(t) => ("text", Value::String(t.clone())),
            PartKind::Reasoning(t) => ("reasoning", Value::String(t.clone())),
            PartKind::Data(v) => ("data", v.clone()),
            PartKind::Custom(v) => ("custom", v.clone()),
            PartKind::Media(m) => ("media", media_to_json(m)),
            PartKind::ToolRequest(r) => {
                metadata = with_request_state(r, &metadata);
                ("toolRequest", request_to_json(r))
            }
            PartKind::ToolResponse(r) => ("toolResponse", response_to_json(r)),
        };
        out.insert(key.into(), body);
        if let Some(m) = metadata {
            out.insert("metadata".into(), Value::Object(m));
        }
        Value::Object(out)
    }

    fn from_json(value: Value) -> Result<Part, String> {
        let Value::Object(mut obj) = value else {
            return Err(format!(
                "a part must be a JSON object, got {}",
                JsonType::of(&value).as_str()
            ));
        };
        let metadata = match obj.remove("metadata") {
            None | Some(Value::Null) => None,
            Some(Value::Object(m)) => Some(m),
            Some(other) => {
                return Err(format!(
                    "part metadata must be a JSON object, got {}",
                    JsonType::of(&other).as_str()
                ))
            }
        };
        let kinds = [
            "text",
            "media",
            "data",
            "reasoning",
            "toolRequest",
            "toolResponse",
            "custom",
        ];
        let mut found = kinds.iter().filter(|k| obj.contains_key(**k));
        let (Some(kind), None) = (found.next(), found.next()) else {
            return Err(
                "a part holds exactly one of text, media, data, reasoning, toolRequest, toolResponse, custom"
                    .into(),
            );
        };
        if let Some(extra) = obj.keys().find(|k| k.as_str() != *kind) {
            return Err(format!("field {extra} is not valid on a {kind} part"));
        }
        let body = obj.remove(*kind).unwrap_or(Value::Null);
        let kind = match *kind {
            "text" => PartKind::Text(string_field(body, "text")?),
            "reasoning" => PartKind::Reasoning(string_field(body, "reasoning")?),
            "data" => PartKind::Data(body),
            "custom" => PartKind::Custom(body),
            "media" => PartKind::Media(media_from_json(body)?),
            "toolRequest" => {
                let mut r = request_from_json(body)?;
                let metadata = lift_request_state(&mut r, metadata)?;
                return Ok(Part {
                    kind: PartKind::ToolRequest(r),
                    metadata,
                });
            }
            _ => PartKind::ToolResponse(response_from_json(body)?),
        };
        Ok(Part { kind, metadata })
    }
}

fn string_field(value: Value, what: &str) -> Result<String, String> {
    match value {
        Value::String(s) => Ok(s),
        other => Err(format!(
            "{what} must be a string, got {}",
            JsonType::of(&other).as_str()
        )),
    }
}

fn object(value: Value, what: &str) -> Result<JsonObject, String> {
    match value {
        Value::Object(m) => Ok(m),
        other => Err(format!(
            "{what} must be an object, got {}",
            JsonType::of(&other).as_str()
        )),
    }
}

fn opt_string(obj: &mut JsonObject, key: &str, what: &str) -> Result<Option<String>, String> {
    match obj.remove(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(format!(
            "{what}.{key} must be a string, got {}",
            JsonType::of(&other).as_str()
        )),
    }
}

/// A media part's body: its content type and its URL (inline bytes as a `data:` URL).
fn media_to_json(m: &Media) -> Value {
    let mut media = Map::new();
    if let Some(ct) = &m.content_type {
        media.insert("contentType".into(), Value::String(ct.clone()));
    }
    let url = match &m.source {
        MediaSource::Url(u) => u.clone(),
        MediaSource::Inline(bytes) => format!(
            "data:{};base64,{}",
            m.content_type
                .as_deref()
                .unwrap_or("application/octet-stream"),
            base64_encode(bytes)
        ),
    };
    media.insert("url".into(), Value::String(url));
    Value::Object(media)
}

/// A tool request's body: name, reference, input and the argument text as sent.
fn request_to_json(r: &ToolRequest) -> Value {
    let mut req = Map::new();
    req.insert("name".into(), Value::String(r.name.clone()));
    if let Some(reference) = &r.reference {
        req.insert("ref".into(), Value::String(reference.clone()));
    }
    req.insert("input".into(), r.input.clone());
    if let Some(text) = &r.arguments_text {
        req.insert(KEY_ARGUMENTS_TEXT.into(), Value::String(text.clone()));
    }
    Value::Object(req)
}

/// A tool request part's metadata with the request's typed state (interrupt, restart,
/// pending output) folded in under the state keys, which replace any the metadata held.
fn with_request_state(r: &ToolRequest, metadata: &Option<JsonObject>) -> Option<JsonObject> {
    let mut m = strip_state_keys(metadata).unwrap_or_default();
    if let Some(i) = &r.interrupt {
        let payload = i.data.clone().map_or(Value::Bool(true), Value::Object);
        let key = if i.resolved {
            KEY_RESOLVED
        } else {
            KEY_INTERRUPT
        };
        m.insert(key.into(), payload);
        if let Some(by) = &i.raised_by {
            m.insert(KEY_INTERRUPTED_BY.into(), Value::String(by.clone()));
        }
        if !i.released_by.is_empty() {
            m.insert(
                KEY_RELEASED_BY.into(),
                Value::Array(i.released_by.iter().cloned().map(Value::String).collect()),
            );
        }
    }
    if let Some(rs) = &r.restart {
        m.insert(
            KEY_RESUMED.into(),
            rs.resume.clone().unwrap_or(Value::Bool(true)),
        );
        if let Some(orig) = &rs.original_input {
            m.insert(KEY_REPLACED_INPUT.into(), orig.clone());
        }
    }
    if let Some(p) = &r.pending {
        m.insert(
            KEY_PENDING_OUTPUT.into(),
            p.output.clone().unwrap_or(Value::Null),
        );
        if !p.content.is_empty() {
            m.insert(
                KEY_PENDING_CONTENT.into(),
                Value::Array(p.content.iter().map(Part::to_json).collect()),
            );
        }
        if let Some(pm) = &p.metadata {
            m.insert(KEY_PENDING_METADATA.into(), Value::Object(pm.clone()));
        }
    }
    (!m.is_empty()).then_some(m)
}

/// A tool response's body: name, reference, output and content parts.
fn response_to_json(r: &ToolResponse) -> Value {
    let mut resp = Map::new();
    resp.insert("name".into(), Value::String(r.name.clone()));
    if let Some(reference) = &r.reference {
        resp.insert("ref".into(), Value::String(reference.clone()));
    }
    if let Some(output) = &r.output {
        resp.insert("output".into(), output.clone());
    }
    if !r.content.is_empty() {
        resp.insert(
            "content".into(),
            Value::Array(r.content.iter().map(Part::to_json).collect()),
        );
    }
    Value::Object(resp)
}

fn media_from_json(value: Value) -> Result<Media, String> {
    let mut obj = object(value, "media")?;
    let content_type = opt_string(&mut obj, "contentType", "media")?;
    let url =
        opt_string(&mut obj, "url", "media")?.ok_or_else(|| "media.url is required".to_owned())?;
    let source = match url.strip_prefix("data:").and_then(|rest| {
        let (head, body) = rest.split_once(',')?;
        head.ends_with(";base64")
            .then(|| base64_decode(body))
            .flatten()
    }) {
        Some(bytes) => MediaSource::Inline(bytes),
        None => MediaSource::Url(url),
    };
    Ok(Media {
        content_type,
        source,
    })
}

fn request_from_json(value: Value) -> Result<ToolRequest, String> {
    let mut obj = object(value, "toolRequest")?;
    let name = opt_string(&mut obj, "name", "toolRequest")?
        .ok_or_else(|| "toolRequest.name is required".to_owned())?;
    let reference = opt_string(&mut obj, "ref", "toolRequest")?;
    let input = obj.remove("input").unwrap_or(Value::Null);
    let arguments_text = opt_string(&mut obj, KEY_ARGUMENTS_TEXT, "toolRequest")?;
    Ok(ToolRequest {
        name,
        reference,
        input,
        arguments_text,
        ..ToolRequest::default()
    })
}

fn response_from_json(value: Value) -> Result<ToolResponse, String> {
    let mut obj = object(value, "toolResponse")?;
    let name = opt_string(&mut obj, "name", "toolResponse")?
        .ok_or_else(|| "toolResponse.name is required".to_owned())?;
    let reference = opt_string(&mut obj, "ref", "toolResponse")?;
    let output = obj.remove("output");
    let content = match obj.remove("content") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items
            .into_iter()
            .map(Part::from_json)
            .collect::<Result<_, _>>()?,
        Some(other) => {
            return Err(format!(
                "toolResponse.content must be an array, got {}",
                JsonType::of(&other).as_str()
            ))
        }
    };
    Ok(ToolResponse {
        name,
        reference,
        output,
        content,
    })
}

fn lift_request_state(
    r: &mut ToolRequest,
    metadata: Option<JsonObject>,
) -> Result<Option<JsonObject>, String> {
    let Some(mut m) = metadata else {
        return Ok(None);
    };
    let interrupt_payload = |v: Value, key: &str| -> Result<Option<JsonObject>, String> {
        match v {
            Value::Bool(true) => Ok(None),
            Value::Object(o) => Ok(Some(o)),
            other => Err(format!(
                "metadata.{key} must be true or a JSON object, got {}",
                JsonType::of(&other).as_str()
            )),
        }
    };
    let (interrupt, resolved) = match (m.remove(KEY_INTERRUPT), m.remove(KEY_RESOLVED)) {
        (Some(v), _) if truthy(&v) => (Some(interrupt_payload(v, KEY_INTERRUPT)?), false),
        (_, Some(v)) if truthy(&v) => (Some(interrupt_payload(v, KEY_RESOLVED)?), true),
        _ => (None, false),
    };
    let raised_by = opt_string(&mut m, KEY_INTERRUPTED_BY, "metadata")?;
    let released_by = match m.remove(KEY_RELEASED_BY) {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items
            .into_iter()
            .map(|v| string_field(v, "metadata.releasedBy[]"))
            .collect::<Result<_, _>>()?,
        Some(other) => {
            return Err(format!(
                "metadata.releasedBy must be an array, got {}",
                JsonType::of(&other).as_str()
            ))
        }
    };
    if let Some(data) = interrupt {
        r.interrupt = Some(Interrupt {
            data,
            resolved,
            raised_by,
            released_by,
        });
    }
    let original_input = m.remove(KEY_REPLACED_INPUT);
    if let Some(v) = m.remove(KEY_RESUMED) {
        if truthy(&v) {
            r.restart = Some(Restart {
                resume: (v != Value::Bool(true)).then_some(v),
                original_input,
            });
        }
    }
    if let Some(output) = m.remove(KEY_PENDING_OUTPUT) {
        let content = match m.remove(KEY_PENDING_CONTENT) {
            Some(Value::Array(items)) => items
                .into_iter()
                .map(Part::from_json)
                .collect::<Result<_, _>>()?,
            _ => Vec::new(),
        };
        let metadata = match m.remove(KEY_PENDING_METADATA) {
            Some(Value::Object(o)) => Some(o),
            _ => None,
        };
        r.pending = Some(ToolOutput {
            output: (!output.is_null()).then_some(output),
            content,
            metadata,
        });
    }
    m.remove(KEY_PENDING_CONTENT);
    m.remove(KEY_PENDING_METADATA);
    Ok((!m.is_empty()).then_some(m))
}

impl Serialize for Part {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Part {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        Part::from_json(value).map_err(D::Error::custom)
    }
}

fn base64_encode(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

fn base64_decode(text: &str) -> Option<Vec<u8>> {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.decode(text).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn argument_text_survives_the_json_form_as_it_was_sent() {
        let text = r#"{"reasoning":"a","result":{"s":1},"result":{"s":2}}</invoke>"#;
        let part = Part::tool_request_text("submit_result", Some("call_1".into()), text);
        let json = serde_json::to_value(&part).unwrap();
        assert_eq!(json["toolRequest"]["argumentsText"], text);
        let stored = serde_json::to_string(&json).unwrap();
        let back: Part = serde_json::from_str(&stored).unwrap();
        assert_eq!(back, part);
        assert_eq!(
            back.as_tool_request().unwrap().arguments_text.as_deref(),
            Some(text)
        );
    }

    #[test]
    fn tool_request_state_round_trips_through_json() {
        let part = Part {
            kind: PartKind::ToolRequest(ToolRequest {
                name: "transfer".into(),
                reference: Some("r1".into()),
                input: json!({"amount": 5}),
                arguments_text: None,
                interrupt: Some(Interrupt {
                    data: Some(json!({"reason": "large"}).as_object().cloned().unwrap()),
                    resolved: false,
                    raised_by: Some("gate".into()),
                    released_by: vec!["outer".into()],
                }),
                restart: None,
                pending: Some(ToolOutput {
                    output: Some(json!(3)),
                    content: vec![Part::text("x")],
                    metadata: None,
                }),
            }),
            metadata: Some(json!({"custom": 1}).as_object().cloned().unwrap()),
        };
        let json = serde_json::to_value(&part).unwrap();
        assert_eq!(json["metadata"]["interrupt"], json!({"reason": "large"}));
        assert_eq!(json["metadata"]["interruptedBy"], json!("gate"));
        let back: Part = serde_json::from_value(json).unwrap();
        assert_eq!(back, part);
    }

    #[test]
    fn inline_media_round_trips_as_data_url() {
        let part = Part::inline_media("image/png", vec![0, 1, 2, 250, 251]);
        let json = serde_json::to_value(&part).unwrap();
        assert!(json["media"]["url"]
            .as_str()
            .unwrap()
            .starts_with("data:image/png;base64,"));
        let back: Part = serde_json::from_value(json).unwrap();
        assert_eq!(back, part);
    }

    #[test]
    fn resumed_false_is_not_a_restart() {
        let part: Part = serde_json::from_value(
            json!({"toolRequest": {"name": "t", "input": {}}, "metadata": {"resumed": false, "interrupt": null}}),
        )
        .unwrap();
        assert!(!part.is_restart());
        assert!(!part.is_interrupt());
    }

    #[test]
    fn foreign_field_on_a_part_is_rejected() {
        let err = serde_json::from_value::<Part>(json!({"text": "a", "url": "b"})).unwrap_err();
        assert!(err
            .to_string()
            .contains("field url is not valid on a text part"));
    }
}
