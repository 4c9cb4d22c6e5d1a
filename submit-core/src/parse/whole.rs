//! The recoveries of step *The arguments as a whole*, read where it would otherwise reject:
//! empty or whitespace-only text (read as `{}`), `trailing_closers`, `stringified_arguments` and
//! `fenced_arguments`; and, where a later step would otherwise find a required parameter absent,
//! `wrapped_arguments` (one extra wrapper member) and beside it `wrapped_call` (the whole call
//! given as the arguments, `{"name": <tool>, "arguments": {…}}`).

use std::borrow::Cow;
use std::ops::Range;

use serde_json::value::RawValue;
use serde_json::Value;

use serde::de::IgnoredAny;

use super::arguments::{self, Arguments, ArgumentsRead, AsWhole, JsonType, Member, Object};
use super::closing::leading_object;
use super::members::{repeated, Members, Stopped};
use super::reasoning::{trim_space, trim_start_space, REASONING};
use crate::error::SubmitError;
use crate::outcome::RecoveryKind;
use crate::schema::property::Property;

/// The arguments object a recovery found in text that step *The arguments as a whole*
/// rejected, and the kinds recorded, in order.
pub(crate) struct Extracted<'a> {
    pub(crate) object: Cow<'a, str>,
    pub(crate) kinds: Vec<RecoveryKind>,
}

/// The recoveries of text (empty text, `trailing_closers`, `stringified_arguments`,
/// `fenced_arguments`) on argument text that step *The arguments as a whole* rejected; `None`
/// when none reads it. `encoded` allows `stringified_arguments`: it is off for text that was
/// itself a string's content (one level only).
pub(crate) fn recover(text: &str, encoded: bool) -> Option<Extracted<'_>> {
    let trimmed = trim_space(text);
    // Empty or whitespace-only text: read as `{}`, like `null`.
    if trimmed.is_empty() {
        return Some(Extracted {
            object: Cow::Borrowed("{}"),
            kinds: Vec::new(),
        });
    }
    match trimmed.as_bytes().first() {
        // `trailing_closers`: closing tokens after the object.
        Some(b'{') => object_then_closers(text, RecoveryKind::TrailingClosers, true),
        // `stringified_arguments`: the arguments JSON-encoded twice.
        Some(b'"') if encoded => {
            let content = serde_json::from_str::<String>(text).ok()?;
            let found = object_then_closers(&content, RecoveryKind::StringifiedArguments, false)?;
            Some(Extracted {
                object: Cow::Owned(found.object.into_owned()),
                kinds: found.kinds,
            })
        }
        // `fenced_arguments`: the arguments in a Markdown fence.
        Some(b'`') => {
            let inner = fenced(trimmed)?;
            object_then_closers(inner, RecoveryKind::FencedArguments, false)
        }
        _ => None,
    }
}

/// The object `text` starts with, followed by closing tokens only. `kind` is recorded; when
/// `kind` is not itself `trailing_closers` and closers other than whitespace follow,
/// `trailing_closers` is recorded after it. `closers_required`: `trailing_closers` on its own
/// applies only where something follows the object.
fn object_then_closers(
    text: &str,
    kind: RecoveryKind,
    closers_required: bool,
) -> Option<Extracted<'_>> {
    let range = leading_object(text)?;
    let rest = text.get(range.end..)?;
    let closers = !trim_space(rest).is_empty();
    if closers_required && !closers {
        return None;
    }
    let mut kinds = vec![kind];
    if closers && kind != RecoveryKind::TrailingClosers {
        kinds.push(RecoveryKind::TrailingClosers);
    }
    Some(Extracted {
        object: Cow::Borrowed(text.get(range)?),
        kinds,
    })
}

/// The text between a Markdown fence's opening line (three backticks and an optional language
/// tag of `[A-Za-z0-9_+-]`) and its closing line of three backticks; `text` is trimmed.
pub(crate) fn fenced(text: &str) -> Option<&str> {
    text.get(fenced_range(text)?)
}

/// The byte range of [`fenced`]'s text in `text`.
fn fenced_range(text: &str) -> Option<Range<usize>> {
    let body = text.strip_prefix("```")?;
    let tag = body
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'+' | b'-'))
        .count();
    let after_tag = body.get(tag..)?;
    let line_break = if after_tag.starts_with("\r\n") {
        2
    } else if after_tag.starts_with('\n') {
        1
    } else {
        return None;
    };
    let start = "```".len() + tag + line_break;
    let body = text.get(start..)?.strip_suffix("```")?;
    let line_break = if body.ends_with("\r\n") {
        2
    } else if body.ends_with('\n') {
        1
    } else if body.is_empty() {
        0
    } else {
        return None;
    };
    Some(start..start + body.len() - line_break)
}

/// A fenced stringified payload (`fenced_arguments` inside step *Nested payload*): the byte
/// range in `text` of the object between the fence lines, followed by closing tokens only.
pub(crate) fn fenced_object(text: &str) -> Option<Range<usize>> {
    let leading = text.len() - trim_start_space(text).len();
    let trimmed = trim_space(text);
    let inner = fenced_range(trimmed)?;
    let object = leading_object(trimmed.get(inner.clone())?)?;
    let at = leading + inner.start;
    Some(at + object.start..at + object.end)
}

/// What `wrapped_arguments` and `wrapped_call` need of the tool: the advertised parameters,
/// which of them are required, and the tool's name.
pub(crate) struct Parameters<'t> {
    /// The tool's name.
    pub(crate) tool: &'t str,
    pub(crate) reasoning: bool,
    /// The payload parameter (nested), or `None` under `flat`.
    pub(crate) payload: Option<&'t str>,
    /// Under `flat`: each property and whether it is required.
    pub(crate) properties: &'t [Property],
    /// Properties the options withhold from the advertised schema: no parameter.
    pub(crate) omitted: &'t [String],
    pub(crate) flat: bool,
}

impl Parameters<'_> {
    /// Whether `name` is an advertised parameter (a property the options omit is not).
    pub(crate) fn is_parameter(&self, name: &str) -> bool {
        (self.reasoning && name == REASONING)
            || match self.payload {
                Some(payload) if !self.flat => name == payload,
                _ => self.properties.iter().any(|property| {
                    property.name == name && !self.omitted.contains(&property.name)
                }),
            }
    }

    /// The required parameters.
    fn required(&self) -> impl Iterator<Item = &str> {
        let reasoning = self.reasoning.then_some(REASONING);
        let payload = if self.flat { None } else { self.payload };
        let properties = self
            .properties
            .iter()
            .filter(|property| self.flat && property.required)
            .map(|property| property.name.as_str());
        reasoning.into_iter().chain(payload).chain(properties)
    }

    fn holds_exactly_parameters<'k>(&self, names: impl Iterator<Item = &'k str> + Clone) -> bool {
        names.clone().all(|name| self.is_parameter(name))
            && self
                .required()
                .all(|required| names.clone().any(|name| name == required))
    }
}

/// The arguments a wrapper held, and the kinds recorded for it, in order.
#[derive(Debug)]
pub(crate) enum Unwrapped<'a> {
    /// The inner object, read in place.
    Object(Object<'a>, Vec<RecoveryKind>),
    /// The text of the inner object, read from argument text inside the wrapper.
    Text(String, Vec<RecoveryKind>),
}

/// `wrapped_arguments`, else `wrapped_call`. `Ok(None)` when neither applies; an inner object
/// that names a member twice rejects.
pub(crate) fn unwrap<'a>(
    args: &Object<'a>,
    parameters: &Parameters<'_>,
) -> Result<Option<Unwrapped<'a>>, SubmitError> {
    if let Some(inner) = wrapped_arguments(args, parameters)? {
        return Ok(Some(Unwrapped::Object(
            inner,
            vec![RecoveryKind::WrappedArguments],
        )));
    }
    whole_call(args, parameters)
}

/// `wrapped_arguments`: one member that is no parameter, holding every required parameter and
/// nothing else. `Ok(None)` when it does not apply.
fn wrapped_arguments<'a>(
    args: &Object<'a>,
    parameters: &Parameters<'_>,
) -> Result<Option<Object<'a>>, SubmitError> {
    match args {
        Object::Value(map) if map.len() == 1 => {
            let Some((name, Value::Object(inner))) = map.iter().next() else {
                return Ok(None);
            };
            let fits = !parameters.is_parameter(name)
                && parameters.holds_exactly_parameters(inner.keys().map(String::as_str));
            Ok(fits.then_some(Object::Value(inner)))
        }
        Object::Text(object) if object.list.len() == 1 => {
            let Some((name, raw)) = object.list.first() else {
                return Ok(None);
            };
            if parameters.is_parameter(name) || !raw.get().starts_with('{') {
                return Ok(None);
            }
            let inner = raw_members(raw)?;
            let fits = parameters
                .holds_exactly_parameters(inner.list.iter().map(|(name, _)| name.as_ref()));
            Ok(fits.then_some(Object::Text(inner)))
        }
        _ => Ok(None),
    }
}

/// The members that may hold the arguments of a whole call given as the arguments.
const CALL_ARGUMENTS: [&str; 4] = ["arguments", "parameters", "input", "args"];

/// `wrapped_call`, the whole call as the arguments: exactly two members, `name` (the tool's
/// name) and one of [`CALL_ARGUMENTS`] holding an object, or argument text that the recoveries
/// of text read as one (its own layer: the kinds they record follow `wrapped_call`); neither
/// member a parameter.
fn whole_call<'a>(
    args: &Object<'a>,
    parameters: &Parameters<'_>,
) -> Result<Option<Unwrapped<'a>>, SubmitError> {
    if args.len() != 2 || parameters.is_parameter("name") {
        return Ok(None);
    }
    let named = args
        .get("name")
        .and_then(Member::as_str)
        .is_some_and(|name| name == parameters.tool);
    if !named {
        return Ok(None);
    }
    let Some((key, inner)) = CALL_ARGUMENTS
        .into_iter()
        .find_map(|key| Some((key, args.get(key)?)))
    else {
        return Ok(None);
    };
    if parameters.is_parameter(key) {
        return Ok(None);
    }
    let kinds = vec![RecoveryKind::WrappedCall];
    match (inner, inner.json_type()) {
        (Member::Value(Value::Object(map)), _) => {
            Ok(Some(Unwrapped::Object(Object::Value(map), kinds)))
        }
        (Member::Text(raw), JsonType::Object) => Ok(Some(Unwrapped::Object(
            Object::Text(raw_members(raw)?),
            kinds,
        ))),
        (_, JsonType::String) => {
            let text = inner.as_str().unwrap_or_default();
            call_text(&text, kinds)
        }
        _ => Ok(None),
    }
}

/// Argument text inside a whole call: an object as it is, else what the recoveries of text read
/// from it, their kinds after `kinds`.
fn call_text(
    text: &str,
    mut kinds: Vec<RecoveryKind>,
) -> Result<Option<Unwrapped<'static>>, SubmitError> {
    match arguments::read::<IgnoredAny>(Arguments::Text(text), None)? {
        AsWhole::Object(ArgumentsRead {
            object: Object::Text(_),
            ..
        }) => Ok(Some(Unwrapped::Text(text.to_owned(), kinds))),
        AsWhole::Object(_) => Ok(None),
        AsWhole::NotAnObject { .. } => Ok(recover(text, true).map(|found| {
            kinds.extend(found.kinds);
            Unwrapped::Text(found.object.into_owned(), kinds)
        })),
    }
}

/// The members of a raw object, each named once.
fn raw_members(raw: &RawValue) -> Result<Members<'_>, SubmitError> {
    Members::read(raw.get()).map_err(|stopped| match stopped {
        Stopped::Repeated(name) => repeated(&name),
        // A raw member is one JSON object: only a repeat stops its read.
        Stopped::Decoder(error) => SubmitError::parameter(
            crate::error::ParameterCause::UndecodableArguments,
            format!("failed to parse tool arguments: {error}"),
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Option<(String, Vec<RecoveryKind>)> {
        recover(text, true).map(|found| (found.object.into_owned(), found.kinds))
    }

    #[test]
    fn a_fenced_object_is_given_as_its_range_in_the_string() {
        for (text, object) in [
            ("```json\n{\"a\":1}\n```", "{\"a\":1}"),
            (" \r\n```\r\n {\"a\":[1]}</x>\r\n``` \n", "{\"a\":[1]}"),
            ("```\n{}\n```", "{}"),
        ] {
            let range = fenced_object(text).unwrap();
            assert_eq!(&text[range], object, "{text:?}");
        }
        for text in [
            "```json\n{\"a\":1} x\n```",
            "```json {\"a\":1}```",
            "{\"a\":1}",
            "```\n```",
        ] {
            assert_eq!(fenced_object(text), None, "{text:?}");
        }
        assert_eq!(fenced("```\n```"), Some(""));
        assert_eq!(fenced("```js\r\nx\r\n```"), Some("x"));
    }

    #[test]
    fn empty_text_reads_as_an_empty_object() {
        for text in ["", " ", "\n\t\r "] {
            assert_eq!(found(text), Some(("{}".into(), vec![])));
        }
    }

    #[test]
    fn closers_after_the_object_are_dropped() {
        assert_eq!(
            found("{\"a\":1}}"),
            Some(("{\"a\":1}".into(), vec![RecoveryKind::TrailingClosers]))
        );
        assert_eq!(
            found(" {\"a\":1}\n</invoke>"),
            Some(("{\"a\":1}".into(), vec![RecoveryKind::TrailingClosers]))
        );
        for text in [
            "{\"a\":1}{\"a\":1}",
            "{\"a\":1} ok",
            "{\"a\":",
            "{'a': 1}",
            "{\"a\":1}",
        ] {
            assert_eq!(found(text), None, "{text:?}");
        }
    }

    #[test]
    fn arguments_encoded_twice_are_read_once() {
        assert_eq!(
            found(r#""{\"a\":1}""#),
            Some(("{\"a\":1}".into(), vec![RecoveryKind::StringifiedArguments]))
        );
        assert_eq!(
            found(r#""{\"a\":1}}""#),
            Some((
                "{\"a\":1}".into(),
                vec![
                    RecoveryKind::StringifiedArguments,
                    RecoveryKind::TrailingClosers
                ]
            ))
        );
        for text in [r#""\"{\\\"a\\\":1}\"""#, r#""[1]""#, r#""null""#, r#""x""#] {
            assert_eq!(found(text), None, "{text:?}");
        }
        assert!(recover(r#""{\"a\":1}""#, false).is_none());
    }

    #[test]
    fn a_markdown_fence_is_opened() {
        for text in [
            "```json\n{\"a\":1}\n```",
            "\n```\n {\"a\":1} \n```\n",
            "```JSON5\r\n{\"a\":1}\r\n```",
        ] {
            assert_eq!(
                found(text),
                Some(("{\"a\":1}".into(), vec![RecoveryKind::FencedArguments])),
                "{text:?}"
            );
        }
        for text in [
            "```json {\"a\":1}\n```",
            "```json\n{\"a\":1}```",
            "```json\n{\"a\":1}\n``` done",
            "```js on\n{\"a\":1}\n```",
            "```json\n{\"a\":1}\n{\"a\":2}\n```",
            "``json\n{\"a\":1}\n``",
            "```json\n[1]\n```",
        ] {
            assert_eq!(found(text), None, "{text:?}");
        }
    }
}
