//! The forms that write each argument between tags, as text: `xml_function`
//! (`<function=NAME><parameter=KEY>VALUE</parameter></function>`, optionally inside
//! `<tool_call>`) and `glm` (`<tool_call>NAME<arg_key>KEY</arg_key><arg_value>VALUE</arg_value>
//! </tool_call>`).
//!
//! A VALUE is text. Where the parameter's schema admits strings it is that text with one leading
//! and one trailing line break removed; otherwise it is read as one JSON value of a type the
//! schema admits (the reading of a flat property that arrived as a string), and failing that it
//! stays a string, for the parse to name. The parameters are the payload's properties for a flat
//! tool, and `reasoning` and the payload (a JSON object) for a nested one. Whitespace may stand
//! between all tags; a VALUE ends at the first closing tag of its own and may not hold another
//! marker of its form. The arguments are written out as JSON text, each KEY as given, so a KEY
//! given twice is the parse's duplicate.

use serde_json::value::RawValue;
use serde_json::Value;

use super::super::closing::{leading_object, only_closing_tokens};
use super::super::reasoning::{trim_space, REASONING};
use super::super::Parser;
use super::json::push_json_string;
use super::lex::{after, has, named, quoted, rest, skip_space};
use super::opening::{CallRead, Form, Opening};
use crate::schema::property::{Property, Types};

/// The Hermes, GLM and Qwen3-Coder call opener.
pub(crate) const TOOL_CALL: &str = "<tool_call>";
/// The xml_function opener.
pub(crate) const FUNCTION: &str = "<function=";

const PARAMETER: &str = "<parameter=";
const PARAMETER_END: &str = "</parameter>";
const FUNCTION_END: &str = "</function>";
const ARG_KEY: &str = "<arg_key>";
const ARG_KEY_END: &str = "</arg_key>";
const ARG_VALUE: &str = "<arg_value>";
const ARG_VALUE_END: &str = "</arg_value>";
const TOOL_CALL_END: &str = "</tool_call>";

/// What a VALUE's typing reads of the tool.
pub(crate) struct Typing<'t> {
    flat: bool,
    omit_reasoning: bool,
    payload: &'t str,
    properties: &'t [Property],
}

impl<'t> Typing<'t> {
    pub(crate) fn of(parser: &'t Parser<'_>) -> Typing<'t> {
        Typing {
            flat: parser.options.flat_payload,
            omit_reasoning: parser.options.omit_reasoning,
            payload: &parser.options.payload_field_name,
            properties: parser.properties,
        }
    }

    /// The types of the parameter `key` when its schema admits no string; `None` when it admits
    /// strings or is not known.
    fn non_string(&self, key: &str) -> Option<Types> {
        if !self.omit_reasoning && key == REASONING {
            return None;
        }
        if !self.flat {
            return (key == self.payload).then_some(Types::OBJECT);
        }
        self.properties
            .iter()
            .find(|property| property.name == key)
            .and_then(|property| property.types)
            .filter(|types| !types.has(Types::STRING))
    }
}

/// An xml_function call: `<function=` at `function`, the call's first marker at `start`.
pub(crate) fn xml_opening(
    text: &str,
    start: usize,
    function: usize,
    tool: &str,
) -> Option<Opening> {
    let name = function + FUNCTION.len();
    let (named, end) = named(text, name, tool, |rest| rest.starts_with('>'))?;
    Some(Opening {
        form: Form::XmlFunction { body: end },
        start,
        named,
        resume: end,
        crowded: false,
    })
}

/// A glm call: `<tool_call>` at `start`, the tool's name at `name`.
pub(crate) fn glm_opening(text: &str, start: usize, name: usize, tool: &str) -> Option<Opening> {
    let (named, end) = named(text, name, tool, |rest| {
        let next = rest.trim_start_matches([' ', '\t', '\r', '\n']);
        next.starts_with(ARG_KEY) || next.starts_with(TOOL_CALL_END)
    })?;
    Some(Opening {
        form: Form::Glm { body: end },
        start,
        named,
        resume: end,
        crowded: false,
    })
}

/// The arguments being written out as a JSON object.
struct ObjectWriter<'a, 't> {
    out: String,
    typing: &'a Typing<'t>,
}

impl ObjectWriter<'_, '_> {
    fn push(&mut self, key: &str, value: &str) {
        self.out.push(if self.out.is_empty() { '{' } else { ',' });
        push_json_string(&mut self.out, key);
        self.out.push(':');
        match self
            .typing
            .non_string(key)
            .and_then(|types| typed(value, types))
        {
            Some(json) => self.out.push_str(json),
            None => push_json_string(&mut self.out, without_line_breaks(value)),
        }
    }

    fn finish(mut self) -> String {
        if self.out.is_empty() {
            self.out.push('{');
        }
        self.out.push('}');
        self.out
    }
}

/// `value` without one leading and one trailing line break (LF or CRLF).
fn without_line_breaks(value: &str) -> &str {
    let value = value
        .strip_prefix("\r\n")
        .or_else(|| value.strip_prefix('\n'))
        .unwrap_or(value);
    value
        .strip_suffix("\r\n")
        .or_else(|| value.strip_suffix('\n'))
        .unwrap_or(value)
}

/// The JSON text of the one value of an admitted type that `value` holds, trimmed: an object or
/// an array followed by closing tokens only, or exactly one scalar.
fn typed(value: &str, types: Types) -> Option<&str> {
    let trimmed = trim_space(value);
    match trimmed.as_bytes().first() {
        Some(b'{') if types.has(Types::OBJECT) => value.get(leading_object(value)?),
        Some(b'[') if types.has(Types::ARRAY) => leading_array(value),
        _ => {
            let admitted = match serde_json::from_str::<Value>(trimmed).ok()? {
                Value::Bool(_) => types.has(Types::BOOLEAN),
                Value::Null => types.has(Types::NULL),
                Value::Number(number) => {
                    types.has(Types::NUMBER)
                        || (types.has(Types::INTEGER) && (number.is_i64() || number.is_u64()))
                }
                _ => false,
            };
            admitted.then_some(trimmed)
        }
    }
}

/// The JSON array `text` starts with (after whitespace), when closing tokens only follow it.
fn leading_array(text: &str) -> Option<&str> {
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<&RawValue>();
    let raw = stream.next()?.ok()?;
    let array = raw.get().starts_with('[');
    (array && only_closing_tokens(text.get(stream.byte_offset()..)?)).then_some(raw.get())
}

/// The first of `markers` that `value` holds.
fn held<'m>(value: &str, markers: &[&'m str]) -> Option<&'m str> {
    markers
        .iter()
        .find(|marker| memchr::memmem::find(value.as_bytes(), marker.as_bytes()).is_some())
        .copied()
}

/// The text from `at` up to the first `close`, and the offset after `close`.
fn up_to<'t>(text: &'t str, at: usize, close: &str) -> Option<(&'t str, usize)> {
    let found = memchr::memmem::find(rest(text, at).as_bytes(), close.as_bytes())?;
    Some((text.get(at..at + found)?, at + found + close.len()))
}

/// Reads an xml_function call from after `<function=NAME`.
pub(crate) fn read_xml<'t>(
    text: &'t str,
    body: usize,
    typing: &Typing<'_>,
) -> Result<CallRead<'t>, String> {
    let mut at = after(text, body, ">").ok_or("no > after <function=NAME")?;
    let mut members = ObjectWriter {
        out: String::new(),
        typing,
    };
    loop {
        at = skip_space(text, at);
        if let Some(key_at) = after(text, at, PARAMETER) {
            let (key, value_at) = up_to(text, key_at, ">")
                .filter(|(key, _)| !key.is_empty() && !key.contains(['<', '\n']))
                .ok_or("a <parameter= tag is not closed by >")?;
            let (value, next) = up_to(text, value_at, PARAMETER_END).ok_or_else(|| {
                format!("the value of {} is not closed by </parameter>", quoted(key))
            })?;
            if let Some(marker) = held(value, &[PARAMETER, FUNCTION, FUNCTION_END]) {
                return Err(format!("the value of {} holds {marker}", quoted(key)));
            }
            members.push(key, value);
            at = next;
        } else if let Some(end) = after(text, at, FUNCTION_END) {
            return Ok(CallRead {
                arguments: members.finish().into(),
                end,
            });
        } else {
            return Err("expected <parameter=KEY> or </function>".to_owned());
        }
    }
}

/// Reads a glm call from after the tool's name.
pub(crate) fn read_glm<'t>(
    text: &'t str,
    body: usize,
    typing: &Typing<'_>,
) -> Result<CallRead<'t>, String> {
    let mut at = body;
    let mut members = ObjectWriter {
        out: String::new(),
        typing,
    };
    loop {
        at = skip_space(text, at);
        if let Some(key_at) = after(text, at, ARG_KEY) {
            let (key, next) = up_to(text, key_at, ARG_KEY_END)
                .filter(|(key, _)| !key.contains('<'))
                .ok_or("an <arg_key> is not closed by </arg_key>")?;
            let value_at = after(text, skip_space(text, next), ARG_VALUE)
                .ok_or_else(|| format!("no <arg_value> after the key {}", quoted(key)))?;
            let (value, next) = up_to(text, value_at, ARG_VALUE_END).ok_or_else(|| {
                format!("the value of {} is not closed by </arg_value>", quoted(key))
            })?;
            if let Some(marker) = held(
                value,
                &[ARG_KEY, ARG_KEY_END, ARG_VALUE, TOOL_CALL, TOOL_CALL_END],
            ) {
                return Err(format!("the value of {} holds {marker}", quoted(key)));
            }
            members.push(key, value);
            at = next;
        } else if let Some(end) = after(text, at, TOOL_CALL_END) {
            return Ok(CallRead {
                arguments: members.finish().into(),
                end,
            });
        } else if has(text, at, ARG_VALUE) {
            return Err("an <arg_value> without its <arg_key>".to_owned());
        } else {
            return Err("expected <arg_key> or </tool_call>".to_owned());
        }
    }
}
