//! A line that is one OpenAI Chat tool call and nothing else, read once: under `--input auto`
//! the common line of a Chat log is told and read in the same pass, with no reading of its top
//! level for detection first.
//!
//! The pass takes a line only when its answer is certain to be the one detection and the
//! door give: an object whose members are `id` (a string or `null`), `type` (absent, or written
//! `"function"`) and `function` (an object with a `name` string and an `arguments` string or
//! `null`), each once. Detection reads such a line as a bare call (it has none of the members
//! that tell another format), and the door's reading of its bytes gives the same name and
//! argument text, so the arguments go to the tool as the door would hand them on. Any other
//! line (another member, a member twice, another type, no JSON) is left to detection as before.

use std::borrow::Cow;
use std::fmt;

use serde::de::{Deserializer, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;
use submit_core::{Arguments, Incoming, Outcome, SubmitTool};

/// The outcome of the call `line` holds, when the line is a Chat call this pass takes; `None`
/// for any other line (detection reads it). `Some(None)`: a `multi_tool_use.parallel` call
/// with no entry of the tool.
pub(super) fn handle_chat_line(
    tool: &SubmitTool<Value>,
    line: &[u8],
) -> Option<Option<Outcome<Value>>> {
    let call: ChatLine<'_> = serde_json::from_slice(line).ok()?;
    if let Some(kind) = call.kind {
        if kind.get() != "\"function\"" {
            return None;
        }
    }
    let arguments = match &call.function.arguments {
        None => Arguments::Missing,
        Some(Text(Some(text))) => Arguments::Text(text),
        Some(Text(None)) => Arguments::Value(&Value::Null),
    };
    // A call read from its bytes, with no stop reason, is judged by its name and arguments
    // alone: the door's answer for the same call.
    tool.receive(Incoming::arguments(Some(&call.function.name), arguments))
        .ok()
}

/// A Chat tool call with no other member.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ChatLine<'a> {
    #[serde(default, borrow, rename = "id")]
    _id: Option<Cow<'a, str>>,
    #[serde(rename = "type", default, borrow, deserialize_with = "present")]
    kind: Option<&'a RawValue>,
    #[serde(borrow)]
    function: Function<'a>,
}

/// Its `function` (other members in it are passed over, as the door passes them over).
#[derive(Deserialize)]
struct Function<'a> {
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(default, borrow, deserialize_with = "present_text")]
    arguments: Option<Text<'a>>,
}

/// A member that is present, whatever it holds (`null` included), as its JSON text.
fn present<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(deserializer).map(Some)
}

/// `arguments` when present, `null` included.
fn present_text<'de: 'a, 'a, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Text<'a>>, D::Error> {
    Text::deserialize(deserializer).map(Some)
}

/// `arguments`: a JSON string's content (borrowed where it has no escapes), or `None` for
/// `null`; anything else fails the pass.
struct Text<'a>(Option<Cow<'a, str>>);

impl<'de: 'a, 'a> Deserialize<'de> for Text<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TextVisitor;

        impl<'de> Visitor<'de> for TextVisitor {
            type Value = Text<'de>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON string or null")
            }

            fn visit_borrowed_str<E>(self, text: &'de str) -> Result<Self::Value, E> {
                Ok(Text(Some(Cow::Borrowed(text))))
            }

            fn visit_str<E>(self, text: &str) -> Result<Self::Value, E> {
                Ok(Text(Some(Cow::Owned(text.to_owned()))))
            }

            fn visit_string<E>(self, text: String) -> Result<Self::Value, E> {
                Ok(Text(Some(Cow::Owned(text))))
            }

            fn visit_unit<E>(self) -> Result<Self::Value, E> {
                Ok(Text(None))
            }
        }

        deserializer.deserialize_any(TextVisitor)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use submit_core::{Options, Provider};

    use super::super::detect::{detect, Node, Top};
    use super::super::handler::{reader, Entry};
    use super::*;
    use crate::args::InputFormat;

    /// What `--input auto` gave before this pass: the line's format detected from its top
    /// level, a bare call then handled from its bytes (as `--input call` reads it).
    fn detected(tool: &SubmitTool<Value>, line: &[u8]) -> Result<Entry, String> {
        let top = Top::read(line).map_err(|error| format!("not JSON: {error}"))?;
        let format = detect(Node::Top(&top));
        reader(tool, Provider::OpenAiChat, format)(line)
    }

    /// The corpus's vectors as Chat call lines: each one's arguments (or argument text, or
    /// wrapper) as a call of the tool the vectors are written for.
    fn corpus_lines() -> Vec<String> {
        let vectors = submit_test_kit::corpus::vectors().unwrap();
        assert!(vectors.len() >= 100, "{} vectors", vectors.len());
        let mut lines = Vec::new();
        for vector in vectors {
            let (name, text) = if let Some(arguments) = vector.get("arguments") {
                ("submit_result", arguments.to_string())
            } else if let Some(text) = vector["arguments_text"].as_str() {
                ("submit_result", text.to_owned())
            } else if let Some(wrapper) = vector.get("wrapper") {
                let text = wrapper
                    .as_str()
                    .map_or_else(|| wrapper.to_string(), str::to_owned);
                ("multi_tool_use.parallel", text)
            } else {
                continue;
            };
            let call = Provider::OpenAiChat.call(name, Some("call_01"), text.as_str());
            lines.push(call.to_string());
        }
        lines
    }

    #[test]
    fn a_chat_line_read_in_one_pass_gets_the_entry_detection_gave() {
        let schema = json!({"type": "object", "properties": {
            "summary": {"type": "string"},
            "blocked": {"type": "boolean"},
            "tags": {"type": "array", "items": {"type": "string"}}},
            "required": ["summary"]});
        let options = Options::new()
            .payload_field_name("analysis")
            .tool_name("submit_result");
        let tool = SubmitTool::from_json_schema(schema, options).unwrap();
        let arguments = r#"{\"reasoning\":\"r\",\"analysis\":{\"summary\":\"s\"}}"#;
        // Written for this test (no recording holds them): the edges of the lines the pass
        // takes (`true`) and leaves to detection (`false`).
        let edges = [
            (
                format!(
                    r#"{{"id":"c","type":"function","function":{{"name":"submit_result","arguments":"{arguments}"}}}}"#
                ),
                true,
            ),
            (
                format!(
                    r#" {{"function":{{"arguments":"{arguments}","name":"submit_result","strict":[1,{{}}]}}}} "#
                ),
                true,
            ),
            (
                format!(
                    r#"{{"id":null,"function":{{"name":"submit\u005fresult","arguments":"{arguments}"}}}}"#
                ),
                true,
            ),
            (
                r#"{"function":{"name":"submit_result","arguments":null}}"#.to_owned(),
                true,
            ),
            (r#"{"function":{"name":"submit_result"}}"#.to_owned(), true),
            (
                r#"{"type":"function","function":{"name":"other","arguments":"{}"}}"#.to_owned(),
                true,
            ),
            (
                format!(
                    r#"{{"index":0,"function":{{"name":"submit_result","arguments":"{arguments}"}}}}"#
                ),
                false,
            ),
            (
                format!(
                    r#"{{"model":"m","function":{{"name":"submit_result","arguments":"{arguments}"}}}}"#
                ),
                false,
            ),
            (
                format!(
                    r#"{{"custom_id":"a","function":{{"name":"submit_result","arguments":"{arguments}"}}}}"#
                ),
                false,
            ),
            (
                format!(
                    r#"{{"type":"functio\u006e","function":{{"name":"submit_result","arguments":"{arguments}"}}}}"#
                ),
                false,
            ),
            (
                format!(
                    r#"{{"type":"function_call","function":{{"name":"submit_result","arguments":"{arguments}"}}}}"#
                ),
                false,
            ),
            (
                format!(
                    r#"{{"type":null,"function":{{"name":"submit_result","arguments":"{arguments}"}}}}"#
                ),
                false,
            ),
            (
                format!(
                    r#"{{"id":5,"function":{{"name":"submit_result","arguments":"{arguments}"}}}}"#
                ),
                false,
            ),
            (
                format!(
                    r#"{{"id":"a","id":"b","function":{{"name":"submit_result","arguments":"{arguments}"}}}}"#
                ),
                false,
            ),
            (
                r#"{"function":{"name":"submit_result","arguments":"{}","arguments":"{}"}}"#
                    .to_owned(),
                false,
            ),
            (
                r#"{"function":{"name":"submit_result","arguments":{"reasoning":"r"}}}"#.to_owned(),
                false,
            ),
            (
                r#"{"function":{"name":"submit_result","arguments":7}}"#.to_owned(),
                false,
            ),
            (r#"{"function":"submit_result"}"#.to_owned(), false),
            (
                format!(
                    r#"{{"function":{{"name":"submit_result","arguments":"{arguments}"}},"x":1e400}}"#
                ),
                false,
            ),
            (
                format!(r#"{{"function":{{"name":"submit_result","arguments":"{arguments}"}}}} x"#),
                false,
            ),
            (
                format!(r#"{{"function":{{"name":"submit_result","arguments":"{arguments}"}}"#),
                false,
            ),
            (
                r#"{"choices":[{"message":{"tool_calls":[]}}]}"#.to_owned(),
                false,
            ),
            (r#"[{"role":"user"}]"#.to_owned(), false),
        ];
        let corpus = corpus_lines();
        assert!(corpus.len() > 100, "{} corpus lines", corpus.len());
        let lines = edges
            .iter()
            .map(|(line, taken)| (line.clone(), Some(*taken)))
            .chain(corpus.into_iter().map(|line| (line, None)));
        let auto = reader(&tool, Provider::OpenAiChat, InputFormat::Auto);
        let mut taken = 0;
        for (line, expected) in lines {
            let bytes = line.as_bytes();
            let fast = handle_chat_line(&tool, bytes).is_some();
            if let Some(expected) = expected {
                assert_eq!(fast, expected, "{line}");
            }
            taken += usize::from(fast);
            assert_eq!(
                format!("{:?}", auto(bytes)),
                format!("{:?}", detected(&tool, bytes)),
                "{line}"
            );
        }
        assert!(taken > 100, "the pass took only {taken} lines");
    }

    #[test]
    fn a_line_that_is_no_json_or_invalid_utf8_is_left_to_detection() {
        let schema = json!({"type": "object", "properties": {"summary": {"type": "string"}}});
        let tool = SubmitTool::from_json_schema(schema, Options::new()).unwrap();
        let auto = reader(&tool, Provider::OpenAiChat, InputFormat::Auto);
        for line in [
            &b"{\"function\":{\"name\":\"submit_result\",\"arguments\":\"\xff\"}}"[..],
            b"{\"function\":{\"name\":\"submit_result\",\"arguments\":\"\\ud800\"}}",
            b"{\"function\":{\"name\":\"submit_result\"},\"\xff\":1}",
            b"not json",
        ] {
            assert_eq!(
                format!("{:?}", auto(line)),
                format!("{:?}", detected(&tool, line)),
                "{}",
                String::from_utf8_lossy(line)
            );
        }
    }
}
