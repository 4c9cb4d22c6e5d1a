//! A `tools/call`'s `arguments`, cut from the bytes of the message as the client wrote them.
//!
//! rmcp decodes a message into values before a handler sees it: a member the model wrote twice
//! in the arguments has lost a value by then, a string `arguments` is no `tools/call` it can
//! decode, and the message's own nesting counts against the payload's depth. So before rmcp
//! reads a message, it is read here once, borrowed (serde_json's `RawValue`, whose scan keeps
//! no stack and decodes nothing): for a `tools/call` whose `params` is an object, the text of
//! its `arguments` member is taken as written, and the message rmcp reads holds `null` in its
//! place. The text reaches the submit tool beside the message, in the request's extensions
//! ([`ArgumentText`]); rmcp reads everything else, as the protocol layer.
//!
//! A `params` object that holds a member twice is no call to guess at: its `params` become
//! `null`, and the member's name goes beside the message ([`RepeatedMember`]), for the
//! handler to answer `-32602` naming it.

use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt;
use std::ops::Range;

use bytes::Bytes;
use rmcp::model::{GetExtensions, JsonRpcMessage};
use rmcp::service::{RequestContext, RoleServer};
use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;

/// The text of a `tools/call`'s `arguments` as the message held it: the JSON text of one value,
/// not yet decoded.
#[derive(Clone, Debug)]
pub struct ArgumentText(Bytes);

impl ArgumentText {
    /// The text (cut from a message read as UTF-8, so never replaced).
    pub fn text(&self) -> Cow<'_, str> {
        String::from_utf8_lossy(&self.0)
    }
}

/// The name of a member a `tools/call`'s `params` held twice.
#[derive(Clone, Debug)]
pub struct RepeatedMember(pub String);

/// What reading a message found.
#[derive(Debug, PartialEq)]
pub enum Cut {
    /// Nothing to take: no `tools/call` with an object for `params` (or no JSON at all, which
    /// rmcp then answers); the message goes to rmcp as it is.
    Whole,
    /// A `tools/call` without an `arguments` member: the message goes to rmcp as it is, and
    /// the call has no arguments.
    NoArguments,
    /// A `tools/call`'s `arguments`: `text` is where their text stands in the message, and
    /// `message` the message with `null` in its place.
    Arguments {
        /// The message rmcp reads.
        message: Vec<u8>,
        /// Where the argument text stands in the message as it came.
        text: Range<usize>,
    },
    /// A `tools/call` whose `params` hold `member` twice: `message` is the message with
    /// `null` for its `params`.
    Repeated {
        /// The message rmcp reads.
        message: Vec<u8>,
        /// The member's name.
        member: String,
    },
}

/// Reads `message` (one JSON-RPC message) for a `tools/call`'s argument text.
pub fn cut(message: &str) -> Cut {
    let Ok(top) = serde_json::from_str::<Top<'_>>(message) else {
        return Cut::Whole;
    };
    let (true, Some(params)) = (top.method == "tools/call", top.params) else {
        return Cut::Whole;
    };
    if !params.get().starts_with('{') {
        return Cut::Whole;
    }
    let Ok(members) = serde_json::from_str::<Params<'_>>(params.get()) else {
        return Cut::Whole;
    };
    let taken = match &members.repeated {
        Some(_) => Some(params.get()),
        None => members.arguments.map(RawValue::get),
    };
    let Some(taken) = taken else {
        return Cut::NoArguments;
    };
    let Some((span, rest)) = replaced(message, taken) else {
        return Cut::Whole;
    };
    match members.repeated {
        Some(member) => Cut::Repeated {
            message: rest,
            member,
        },
        None => Cut::Arguments {
            message: rest,
            text: span,
        },
    }
}

impl Cut {
    /// The bytes rmcp reads: the cut message, or `whole` (the message as it came).
    pub fn message<'a>(&'a self, whole: &'a [u8]) -> &'a [u8] {
        match self {
            Cut::Arguments { message, .. } | Cut::Repeated { message, .. } => message,
            Cut::Whole | Cut::NoArguments => whole,
        }
    }

    /// Puts what was found beside `message`, the request decoded from [`Cut::message`]:
    /// `text` gives the bytes of a range of the message as it came.
    pub fn mark<Req: GetExtensions, Resp, Not>(
        &self,
        message: &mut JsonRpcMessage<Req, Resp, Not>,
        text: impl FnOnce(Range<usize>) -> Bytes,
    ) {
        let JsonRpcMessage::Request(request) = message else {
            return;
        };
        let extensions = request.request.extensions_mut();
        match self {
            Cut::Arguments { text: span, .. } => {
                extensions.insert(ArgumentText(text(span.clone())));
            }
            Cut::Repeated { member, .. } => {
                extensions.insert(RepeatedMember(member.clone()));
            }
            Cut::NoArguments | Cut::Whole => {}
        }
    }
}

impl Cut {
    /// Puts what was found beside an HTTP request whose body is [`Cut::message`]: in its
    /// `extensions`, which rmcp's streamable HTTP service hands on with the request's parts.
    /// `whole` is the body as it came.
    pub fn mark_http(&self, extensions: &mut http::Extensions, whole: &Bytes) {
        match self {
            Cut::Arguments { text, .. } if text.end <= whole.len() => {
                extensions.insert(ArgumentText(whole.slice(text.clone())));
            }
            Cut::Repeated { member, .. } => {
                extensions.insert(RepeatedMember(member.clone()));
            }
            Cut::Arguments { .. } | Cut::NoArguments | Cut::Whole => {}
        }
    }

    /// The body rmcp reads: the cut message, or `whole` (the body as it came).
    pub fn into_body(self, whole: Bytes) -> Bytes {
        match self {
            Cut::Arguments { message, .. } | Cut::Repeated { message, .. } => Bytes::from(message),
            Cut::Whole | Cut::NoArguments => whole,
        }
    }
}

/// What the transport put beside a request: in its own extensions (standard input and
/// output), or in those of the HTTP request it came in (rmcp's streamable HTTP service puts
/// the request's `http::request::Parts` there).
pub fn beside<T: Clone + Send + Sync + 'static>(
    context: &RequestContext<RoleServer>,
) -> Option<&T> {
    context.extensions.get::<T>().or_else(|| {
        context
            .extensions
            .get::<http::request::Parts>()
            .and_then(|parts| parts.extensions.get::<T>())
    })
}

/// Where `part`, a slice of `message` (serde_json borrows it from its input), stands in it,
/// and `message` with `null` in its place. `None` if it is no such slice: the message is then
/// left whole, never cut wrong.
fn replaced(message: &str, part: &str) -> Option<(Range<usize>, Vec<u8>)> {
    let start = (part.as_ptr() as usize).checked_sub(message.as_ptr() as usize)?;
    let end = start.checked_add(part.len())?;
    let (before, after) = (message.get(..start)?, message.get(end..)?);
    if message.get(start..end)?.as_ptr() != part.as_ptr() {
        return None;
    }
    let mut rest = Vec::with_capacity(before.len() + 4 + after.len());
    rest.extend_from_slice(before.as_bytes());
    rest.extend_from_slice(b"null");
    rest.extend_from_slice(after.as_bytes());
    Some((start..end, rest))
}

/// A message's top level, as far as telling a `tools/call` apart needs.
#[derive(Deserialize)]
struct Top<'a> {
    #[serde(borrow, default)]
    method: Cow<'a, str>,
    #[serde(borrow, default)]
    params: Option<&'a RawValue>,
}

/// A `params` object: its `arguments` text, and the first member it holds twice.
struct Params<'a> {
    arguments: Option<&'a RawValue>,
    repeated: Option<String>,
}

impl<'de> Deserialize<'de> for Params<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(ParamsVisitor)
    }
}

struct ParamsVisitor;

impl<'de> Visitor<'de> for ParamsVisitor {
    type Value = Params<'de>;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("a params object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Params<'de>, A::Error> {
        let mut seen = HashSet::new();
        let mut params = Params {
            arguments: None,
            repeated: None,
        };
        while let Some(name) = map.next_key::<String>()? {
            if name == "arguments" {
                params.arguments = Some(map.next_value::<&'de RawValue>()?);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
            if params.repeated.is_none() && !seen.insert(name.clone()) {
                params.repeated = Some(name);
            }
        }
        Ok(params)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(params: &str) -> String {
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{params}}}"#)
    }

    fn taken(message: &str) -> (String, String) {
        match cut(message) {
            Cut::Arguments {
                message: rest,
                text,
            } => (String::from_utf8(rest).unwrap(), message[text].to_owned()),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_arguments_are_taken_as_written_and_null_stands_in_their_place() {
        let arguments = r#"{"reasoning":"a", "reasoning" :"b","result":{"x":1e400,"y":"\ud800"}}"#;
        let message = call(&format!(
            r#"{{"name":"submit_result","arguments": {arguments} }}"#
        ));
        let (rest, text) = taken(&message);
        assert_eq!(text, arguments);
        assert_eq!(rest, call(r#"{"name":"submit_result","arguments": null }"#));
    }

    #[test]
    fn any_value_is_taken_and_the_members_may_come_in_any_order() {
        for arguments in [r#""{\"reasoning\":\"r\"}""#, "[1,2]", "7", "\"\"", "null"] {
            let message = format!(
                r#"{{"params":{{"arguments":{arguments},"name":"x"}},"id":"a","method":"tools\/call","jsonrpc":"2.0"}}"#
            );
            assert_eq!(taken(&message).1, arguments);
        }
    }

    #[test]
    fn depth_is_no_limit() {
        let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
        let arguments = format!(r#"{{"reasoning":"r","result":{deep}}}"#);
        let message = call(&format!(r#"{{"name":"s","arguments":{arguments}}}"#));
        assert_eq!(taken(&message).1, arguments);
    }

    #[test]
    fn a_repeated_params_member_is_named_and_the_params_left_out() {
        for (params, member) in [
            (r#"{"name":"a","name":"b","arguments":{}}"#, "name"),
            (
                r#"{"name":"a","arguments":{},"arguments":{"x":1}}"#,
                "arguments",
            ),
            (r#"{"_meta":{},"name":"a","_meta":{}}"#, "_meta"),
        ] {
            match cut(&call(params)) {
                Cut::Repeated {
                    message,
                    member: found,
                } => {
                    assert_eq!(found, member);
                    assert_eq!(String::from_utf8(message).unwrap(), call("null"));
                }
                other => panic!("{params}: {other:?}"),
            }
        }
    }

    #[test]
    fn other_messages_are_left_whole() {
        for message in [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"arguments":{}}}"#
                .to_owned(),
            call(r#"["name","arguments"]"#),
            call(r#""params""#),
            format!("{} trailing", call(r#"{"arguments":{}}"#)),
            r#"{"method":"tools/call","method":"tools/call","params":{"arguments":{}}}"#.to_owned(),
            "[1]".to_owned(),
            "not json".to_owned(),
            call(r#"{"arguments":{"a":}}"#),
        ] {
            assert_eq!(cut(&message), Cut::Whole, "{message}");
        }
        assert_eq!(cut(&call(r#"{"name":"x"}"#)), Cut::NoArguments);
    }
}
