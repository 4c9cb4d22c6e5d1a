//! Declined shapes: what followed the payload object when a recovery declined, and a bounded
//! counter of the most common ones.

use std::collections::HashMap;

use serde::de::IgnoredAny;
use serde_json::Value;
use submit_core::{Arguments, JsonType, ParameterCause};

/// The longest remainder, in bytes, a shape keeps before it is cut (at a character boundary).
pub const SHAPE_BYTES: usize = 40;

/// How many distinct shapes the counter tracks at once.
pub const SHAPE_CAPACITY: usize = 256;

/// The shape of a declined payload: for `stringified_declined` what followed the first JSON
/// value of the string, for `reasoning_declined` what followed the object after the payload's
/// mark in the reasoning. `None` when the arguments do not hold what the cause implies.
pub fn declined_shape(
    arguments: Arguments<'_>,
    payload: &str,
    cause: ParameterCause,
) -> Option<String> {
    let parsed;
    let object = match arguments {
        Arguments::Value(value) => value,
        Arguments::Text(text) => {
            parsed = serde_json::from_str::<Value>(text).ok()?;
            &parsed
        }
        Arguments::Missing => return None,
    };
    match cause {
        ParameterCause::StringifiedDeclined => {
            let text = object.get(payload)?.as_str()?;
            Some(after_first_value(text))
        }
        ParameterCause::ReasoningDeclined => {
            let reasoning = object.get("reasoning")?.as_str()?;
            Some(reasoning_shape(reasoning, payload))
        }
        _ => None,
    }
}

/// JSON whitespace, which is also the spec's "whitespace": space, tab, CR, LF.
fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

fn skip_ws(text: &str) -> &str {
    text.trim_start_matches([' ', '\t', '\r', '\n'])
}

/// What followed the first JSON value of `text` (leading whitespace skipped), truncated and
/// escaped; or a description in parentheses when there is no object to follow.
///
pub fn after_first_value(text: &str) -> String {
    let rest = skip_ws(text);
    if rest.is_empty() {
        return if text.is_empty() {
            "(empty)".to_owned()
        } else {
            "(whitespace only)".to_owned()
        };
    }
    let mut values = serde_json::Deserializer::from_str(rest).into_iter::<IgnoredAny>();
    match values.next() {
        Some(Ok(_)) => {}
        _ => return format!("(no JSON value at the start: {})", escape(rest, 16)),
    }
    // The value parsed, so its first byte names its type.
    let kind = match rest.as_bytes().first() {
        Some(b'{') => JsonType::Object,
        Some(b'[') => JsonType::Array,
        Some(b'"') => JsonType::String,
        Some(b't' | b'f') => JsonType::Boolean,
        Some(b'n') => JsonType::Null,
        _ => JsonType::Number,
    };
    if kind != JsonType::Object {
        return format!("(a JSON {kind}, not an object)");
    }
    match rest.get(values.byte_offset()..) {
        Some("") | None => "(nothing after the object)".to_owned(),
        Some(remainder) => escape(remainder, SHAPE_BYTES),
    }
}

/// The shape of a reasoning whose payload recovery declined: what followed the object after
/// the first payload mark (`<parameter name="P">` or a `"P":` member).
pub fn reasoning_shape(reasoning: &str, payload: &str) -> String {
    let opener = format!("<parameter name=\"{payload}\">");
    let opener_at = reasoning.find(&opener).map(|at| (at, at + opener.len()));
    let member_at = find_member(reasoning, payload);
    let (mark, value_start) = match (opener_at, member_at) {
        (Some(o), Some(m)) => {
            if o.0 <= m.0 {
                o
            } else {
                m
            }
        }
        (Some(o), None) => o,
        (None, Some(m)) => m,
        (None, None) => return "(no payload mark in the reasoning)".to_owned(),
    };
    if reasoning
        .get(..mark)
        .is_some_and(|before| before.contains("<parameter name="))
    {
        return "(another <parameter name=…> before the payload)".to_owned();
    }
    match reasoning.get(value_start..) {
        Some(after) => after_first_value(after),
        None => "(nothing after the mark)".to_owned(),
    }
}

/// The first `"<payload>"` followed by optional whitespace and `:`: its offset and the offset
/// just after the colon. Linear: the whitespace after one candidate ends before the next.
fn find_member(text: &str, payload: &str) -> Option<(usize, usize)> {
    let quoted = format!("\"{payload}\"");
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(found) = text.get(from..).and_then(|rest| rest.find(&quoted)) {
        let at = from + found;
        let mut i = at + quoted.len();
        while bytes.get(i).copied().is_some_and(is_ws) {
            i += 1;
        }
        if bytes.get(i) == Some(&b':') {
            return Some((at, i + 1));
        }
        from = at + 1;
    }
    None
}

/// `text` cut to at most `max` bytes at a character boundary, quoted and escaped as Rust's
/// `Debug` quotes a `str`, with `…` when cut.
pub fn escape(text: &str, max: usize) -> String {
    let mut end = text.len().min(max);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let cut = text.get(..end).unwrap_or_default();
    if end < text.len() {
        format!("{cut:?}…")
    } else {
        format!("{cut:?}")
    }
}

/// The most common shapes, in bounded memory: exact counts while fewer than
/// [`SHAPE_CAPACITY`] distinct shapes occurred, the space-saving estimate after that (a new
/// shape replaces the least counted one and inherits its count).
#[derive(Debug, Default)]
pub struct ShapeCounter {
    slots: HashMap<(ParameterCause, String), u64>,
    evicted: bool,
}

/// A shape and how often it occurred.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShapeCount {
    /// The cause that declined.
    pub cause: ParameterCause,
    /// What followed the object, truncated and escaped.
    pub shape: String,
    /// How many calls had it (an upper bound once shapes were evicted).
    pub count: u64,
}

impl ShapeCounter {
    /// Counts one occurrence of `shape` under `cause`.
    pub fn add(&mut self, cause: ParameterCause, shape: String) {
        let key = (cause, shape);
        if let Some(count) = self.slots.get_mut(&key) {
            *count += 1;
            return;
        }
        if self.slots.len() < SHAPE_CAPACITY {
            self.slots.insert(key, 1);
            return;
        }
        let least = self
            .slots
            .iter()
            .min_by_key(|(_, count)| **count)
            .map(|(key, count)| (key.clone(), *count));
        if let Some((least_key, least)) = least {
            self.slots.remove(&least_key);
            self.evicted = true;
            self.slots.insert(key, least + 1);
        }
    }

    /// Whether every count is exact (no shape was ever evicted).
    pub fn exact(&self) -> bool {
        !self.evicted
    }

    /// The `n` most common shapes, most common first; ties by cause, then shape.
    pub fn top(&self, n: usize) -> Vec<ShapeCount> {
        let mut all: Vec<ShapeCount> = self
            .slots
            .iter()
            .map(|((cause, shape), count)| ShapeCount {
                cause: *cause,
                shape: shape.clone(),
                count: *count,
            })
            .collect();
        all.sort_by(|a, b| {
            b.count
                .cmp(&a.count)
                .then_with(|| cause_rank(a.cause).cmp(&cause_rank(b.cause)))
                .then_with(|| a.shape.cmp(&b.shape))
        });
        all.truncate(n);
        all
    }
}

fn cause_rank(cause: ParameterCause) -> u8 {
    match cause {
        ParameterCause::UndecodableArguments => 0,
        ParameterCause::AbsentOrMistyped => 1,
        ParameterCause::StringifiedDeclined => 2,
        ParameterCause::ReasoningDeclined => 3,
        ParameterCause::SwallowedParameter => 4,
        ParameterCause::TruncatedCall => 5,
        _ => 6,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn stringified_shape_is_the_text_after_the_object() {
        assert_eq!(
            after_first_value("  {\"summary\": \"s\"} Hope this helps!"),
            "\" Hope this helps!\""
        );
    }

    #[test]
    fn stringified_shape_is_truncated_and_escaped() {
        let text = format!("{{}}\n\u{1b}[31m{}", "x".repeat(100));
        let shape = after_first_value(&text);
        assert!(shape.starts_with("\"\\n\\u{1b}[31mxxx"), "{shape}");
        assert!(shape.ends_with('…'), "{shape}");
        assert!(!shape.contains('\u{1b}'));
        // 40 bytes kept: "\n", ESC, "[31m" (4) and 34 x.
        assert_eq!(shape.matches('x').count(), SHAPE_BYTES - 6);
    }

    #[test]
    fn truncation_respects_character_boundaries() {
        let shape = escape(&"é".repeat(30), 5);
        assert_eq!(shape, "\"éé\"…");
    }

    #[test]
    fn stringified_shapes_without_an_object_describe_what_was_there() {
        assert_eq!(after_first_value(""), "(empty)");
        assert_eq!(after_first_value(" \n"), "(whitespace only)");
        assert_eq!(after_first_value("[1,2]"), "(a JSON array, not an object)");
        assert_eq!(after_first_value("null"), "(a JSON null, not an object)");
        assert_eq!(after_first_value("\"x\""), "(a JSON string, not an object)");
        assert_eq!(
            after_first_value("Here is the result: {}"),
            "(no JSON value at the start: \"Here is the resu\"…)"
        );
        assert_eq!(
            after_first_value("{\"a\": 1"),
            "(no JSON value at the start: \"{\\\"a\\\": 1\")"
        );
        assert_eq!(
            after_first_value("\u{feff}{}"),
            "(no JSON value at the start: \"\\u{feff}{}\")"
        );
    }

    #[test]
    fn reasoning_shape_after_the_opener() {
        let reasoning = "sure <parameter name=\"result\">{\"summary\": \"s\"} and then more";
        assert_eq!(reasoning_shape(reasoning, "result"), "\" and then more\"");
    }

    #[test]
    fn reasoning_shape_after_a_member() {
        let reasoning = "sure\", \"result\" : {\"summary\": \"s\"}} P.S. done";
        assert_eq!(reasoning_shape(reasoning, "result"), "\"} P.S. done\"");
    }

    #[test]
    fn reasoning_shape_takes_the_first_mark() {
        let reasoning = "\"result\": {} x <parameter name=\"result\">{} y";
        assert_eq!(
            reasoning_shape(reasoning, "result"),
            "\" x <parameter name=\\\"result\\\">{} y\""
        );
    }

    #[test]
    fn reasoning_shape_names_another_parameter_before_the_mark() {
        let reasoning = "<parameter name=\"notes\">n</parameter><parameter name=\"result\">{}";
        assert_eq!(
            reasoning_shape(reasoning, "result"),
            "(another <parameter name=…> before the payload)"
        );
    }

    #[test]
    fn member_needs_a_colon() {
        assert_eq!(
            find_member("\"result\" is \"result\"  :{}", "result"),
            Some((12, 23))
        );
        assert_eq!(find_member("\"result\" only", "result"), None);
    }

    #[test]
    fn declined_shape_reads_value_and_text_arguments() {
        let value = json!({"reasoning": "r", "result": "{} </invoke> extra"});
        assert_eq!(
            declined_shape(
                Arguments::Value(&value),
                "result",
                ParameterCause::StringifiedDeclined
            )
            .as_deref(),
            Some("\" </invoke> extra\"")
        );
        let text = r#"{"reasoning": "a <parameter name=\"out\">{} tail"}"#;
        assert_eq!(
            declined_shape(
                Arguments::Text(text),
                "out",
                ParameterCause::ReasoningDeclined
            )
            .as_deref(),
            Some("\" tail\"")
        );
        assert_eq!(
            declined_shape(Arguments::Missing, "out", ParameterCause::ReasoningDeclined),
            None
        );
        assert_eq!(
            declined_shape(
                Arguments::Value(&value),
                "result",
                ParameterCause::AbsentOrMistyped
            ),
            None
        );
    }

    #[test]
    fn counter_orders_by_count_and_is_exact_below_capacity() {
        let mut counter = ShapeCounter::default();
        for _ in 0..3 {
            counter.add(ParameterCause::StringifiedDeclined, "\"a\"".to_owned());
        }
        counter.add(ParameterCause::ReasoningDeclined, "\"b\"".to_owned());
        counter.add(ParameterCause::StringifiedDeclined, "\"b\"".to_owned());
        assert!(counter.exact());
        let top = counter.top(2);
        assert_eq!(top.len(), 2);
        assert_eq!((top[0].shape.as_str(), top[0].count), ("\"a\"", 3));
        assert_eq!(top[1].cause, ParameterCause::StringifiedDeclined);
        assert_eq!((top[1].shape.as_str(), top[1].count), ("\"b\"", 1));
    }

    #[test]
    fn counter_memory_is_bounded_and_keeps_the_heavy_hitter() {
        let mut counter = ShapeCounter::default();
        for i in 0..10_000 {
            counter.add(ParameterCause::StringifiedDeclined, format!("\"{i}\""));
            if i % 4 == 0 {
                counter.add(ParameterCause::StringifiedDeclined, "\"common\"".to_owned());
            }
        }
        assert!(counter.slots.len() <= SHAPE_CAPACITY);
        assert!(!counter.exact());
        let top = counter.top(1);
        assert_eq!(top[0].shape, "\"common\"");
        assert!(top[0].count >= 2_500);
    }
}
