//! Implementation detail of the `submit-result` crate.
//!
//! The metadata of a terminal `submit_result` tool and the one grammar that reads it, shared by
//! `#[derive(SubmitResult)]` at compile time and `Options::from_tag` at run time so that both
//! accept the same keys and report the same mistakes. It has no dependencies, so the derive
//! stays light.
//!
//! One file, read top to bottom: the defaults, the keys ([`Key`]), the metadata they set
//! ([`Metadata`]), the tag's lexing ([`split_tag`]) and name rules, the errors ([`Error`]),
//! and the [`Builder`] that reads keys into metadata, collecting every error.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

use std::borrow::Cow;
use std::fmt;

/// The tool name used when none is given.
pub const DEFAULT_TOOL_NAME: &str = "submit_result";
/// The payload parameter name used when none is given.
pub const DEFAULT_PAYLOAD_FIELD: &str = "result";
/// The `message` of the success tool result when none is given.
pub const DEFAULT_SUCCESS_MESSAGE: &str = "Result submitted successfully.";
/// The payload parameter's description when none is given.
pub const DEFAULT_PAYLOAD_DESCRIPTION: &str = "Structured result payload.";
/// The tool description when none is given.
pub const DEFAULT_DESCRIPTION: &str = "Submit the final result and end the task. This call is \
terminal: the run stops as soon as it is accepted, and its payload is the answer handed back. \
Call it exactly once, with the complete answer. Never call it with placeholder or probe content \
(such as \"test\") to try out the schema: whatever is accepted is final and the real answer is \
lost. If a call is rejected, fix what the error names and send the full corrected result again, \
not a smaller test value.";
/// The description of the `reasoning` parameter.
pub const REASONING_DESCRIPTION: &str =
    "Say why you are confident this result is complete and accurate.";
/// The name of the reasoning parameter.
pub const REASONING: &str = "reasoning";

/// A key of the metadata grammar.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Key {
    /// `name`: the tool name.
    Name,
    /// `description`: the tool description.
    Description,
    /// `success`: the `message` of the success tool result.
    Success,
    /// `payload`: the payload parameter name.
    Payload,
    /// `payload_description` (tag form also `payloadDescription`).
    PayloadDescription,
    /// `flat`: advertise each payload property as its own parameter.
    Flat,
    /// `omit_reasoning` (tag form also `omitReasoning`): drop the reasoning parameter.
    OmitReasoning,
}

impl Key {
    /// Every key, in the order they are listed in messages.
    pub const ALL: [Key; 7] = [
        Key::Name,
        Key::Description,
        Key::Success,
        Key::Payload,
        Key::PayloadDescription,
        Key::Flat,
        Key::OmitReasoning,
    ];

    /// The key as written in the attribute spelling (`payload_description`).
    pub fn as_str(self) -> &'static str {
        match self {
            Key::Name => "name",
            Key::Description => "description",
            Key::Success => "success",
            Key::Payload => "payload",
            Key::PayloadDescription => "payload_description",
            Key::Flat => "flat",
            Key::OmitReasoning => "omit_reasoning",
        }
    }

    /// The key as written in the tag spelling (`payloadDescription`).
    pub fn tag_str(self) -> &'static str {
        match self {
            Key::PayloadDescription => "payloadDescription",
            Key::OmitReasoning => "omitReasoning",
            other => other.as_str(),
        }
    }

    /// Whether the key takes a boolean (`flat`, `omit_reasoning`) rather than text.
    pub fn is_flag(self) -> bool {
        matches!(self, Key::Flat | Key::OmitReasoning)
    }

    /// Reads an attribute-spelling key (`payload_description`), exactly.
    pub fn from_ident(ident: &str) -> Option<Key> {
        Key::ALL.into_iter().find(|key| key.as_str() == ident)
    }

    /// Reads a tag-spelling key, case-insensitively, in either spelling.
    pub fn from_tag_key(text: &str) -> Option<Key> {
        Key::ALL.into_iter().find(|key| {
            key.as_str().eq_ignore_ascii_case(text) || key.tag_str().eq_ignore_ascii_case(text)
        })
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The metadata of a submit tool: what `#[submit_result(...)]` or a tag string says.
///
/// `None` means "not given": the default applies when the tool is built.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Metadata {
    /// The tool name.
    pub name: Option<Cow<'static, str>>,
    /// The tool description.
    pub description: Option<Cow<'static, str>>,
    /// The `message` of the success tool result.
    pub success: Option<Cow<'static, str>>,
    /// The payload parameter name.
    pub payload: Option<Cow<'static, str>>,
    /// The payload parameter's description.
    pub payload_description: Option<Cow<'static, str>>,
    /// Advertise each payload property as its own parameter.
    pub flat: bool,
    /// Drop the `reasoning` parameter.
    pub omit_reasoning: bool,
}

impl Metadata {
    /// Metadata with nothing set: every default applies.
    pub const EMPTY: Metadata = Metadata {
        name: None,
        description: None,
        success: None,
        payload: None,
        payload_description: None,
        flat: false,
        omit_reasoning: false,
    };

    /// Reads a tag string in the metadata grammar, the one `#[submit_result("...")]` reads
    /// (`name=x,payloadDescription=a\, b,flat`).
    ///
    /// Every mistake is reported, not only the first.
    pub fn from_tag(tag: &str) -> Result<Metadata, Errors> {
        let mut builder = Builder::default();
        for part in split_tag(tag) {
            builder.tag_part(&part, ());
        }
        builder.finish()
    }
}

/// Splits a tag string into its parts, before trimming: `\,` is a literal comma (both bytes
/// consumed), an unescaped `,` ends a part, every other byte (a lone `\` included) is kept.
///
/// The final part is always present, so `""` gives `[""]`.
pub fn split_tag(tag: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut current = String::new();
    let mut chars = tag.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&',') => {
                chars.next();
                current.push(',');
            }
            ',' => parts.push(std::mem::take(&mut current)),
            other => current.push(other),
        }
    }
    parts.push(current);
    parts
}

/// Whether `name` is a valid tool or parameter name: `^[A-Za-z0-9_-]{1,64}$`.
pub fn is_valid_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// The known key nearest to `unknown`, if one is close enough to be a likely typo.
pub fn suggest<'a>(unknown: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let unknown = unknown.to_ascii_lowercase();
    candidates
        .iter()
        .map(|candidate| {
            (
                edit_distance(&unknown, &candidate.to_ascii_lowercase()),
                *candidate,
            )
        })
        .filter(|(distance, candidate)| *distance <= (candidate.len() / 3).max(1))
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, candidate)| candidate)
}

/// Edit distance counting an adjacent transposition as one edit (optimal string alignment).
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let width = b.len() + 1;
    let mut d = vec![0usize; (a.len() + 1) * width];
    for (i, row) in d.chunks_mut(width).enumerate() {
        if let Some(first) = row.first_mut() {
            *first = i;
        }
    }
    for (j, cell) in d.iter_mut().take(width).enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[(i - 1) * width + j] + 1)
                .min(d[i * width + j - 1] + 1)
                .min(d[(i - 1) * width + j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[(i - 2) * width + j - 2] + 1);
            }
            d[i * width + j] = best;
        }
    }
    d[a.len() * width + b.len()]
}

/// One mistake in metadata.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// A key that is not one of [`Key::ALL`] (nor, in the attribute spelling, `crate`).
    UnknownKey {
        /// The key as written.
        key: String,
        /// The nearest known key, if any is close.
        suggestion: Option<&'static str>,
        /// The spelling the key was written in, which decides how known keys are listed.
        tag: bool,
    },
    /// A key given twice.
    DuplicateKey(Key),
    /// A key with no value (`name=`, or a bare `name`).
    EmptyValue(Key),
    /// `flat` or `omit_reasoning` with a value other than `true` or `false`.
    NotBoolean {
        /// The flag.
        key: Key,
        /// The value as written.
        value: String,
    },
    /// A tool or payload name outside `^[A-Za-z0-9_-]{1,64}$`.
    InvalidName {
        /// `name` or `payload`.
        key: Key,
        /// The name as written.
        value: String,
    },
    /// A payload parameter named `reasoning` without `omit_reasoning`.
    PayloadNamedReasoning,
}

impl Error {
    /// The key the mistake is about, to place it on the right token.
    pub fn key(&self) -> Option<Key> {
        match self {
            Error::UnknownKey { .. } => None,
            Error::DuplicateKey(key) | Error::EmptyValue(key) => Some(*key),
            Error::NotBoolean { key, .. } | Error::InvalidName { key, .. } => Some(*key),
            Error::PayloadNamedReasoning => Some(Key::Payload),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::UnknownKey {
                key,
                suggestion,
                tag,
            } => {
                write!(
                    f,
                    "unknown submit_result attribute `{key}`, expected one of "
                )?;
                for (i, known) in Key::ALL.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    let known = if *tag {
                        known.tag_str()
                    } else {
                        known.as_str()
                    };
                    write!(f, "`{known}`")?;
                }
                // The attribute spelling also takes the path of the runtime crate.
                if !*tag {
                    f.write_str(", `crate`")?;
                }
                if let Some(suggestion) = suggestion {
                    write!(f, "; did you mean `{suggestion}`?")?;
                }
                Ok(())
            }
            Error::DuplicateKey(key) => write!(f, "duplicate submit_result attribute `{key}`"),
            Error::EmptyValue(key) if key.is_flag() => write!(
                f,
                "empty value for `{key}`: write `{key}` alone, or `{key} = true` or `{key} = false`"
            ),
            Error::EmptyValue(key) => write!(
                f,
                "empty value for `{key}`: give it a value, or remove it to use the default"
            ),
            Error::NotBoolean { key, value } => {
                write!(f, "expected `{key}` to be `true` or `false`, got `{value}`")
            }
            Error::InvalidName { key, value } => {
                let what = if *key == Key::Name {
                    "tool name"
                } else {
                    "payload field name"
                };
                write!(
                    f,
                    "invalid {what} `{value}`: use 1 to 64 characters from `A-Z`, `a-z`, `0-9`, `_` and `-`"
                )
            }
            Error::PayloadNamedReasoning => f.write_str(
                "the payload field cannot be named `reasoning` while the reasoning parameter is \
                 advertised: choose another `payload` name, or set `omit_reasoning`",
            ),
        }
    }
}

impl std::error::Error for Error {}

/// Every mistake found in one piece of metadata, in the order they were found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Errors(pub Vec<Error>);

impl fmt::Display for Errors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, error) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{error}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Errors {}

/// Builds [`Metadata`] key by key, collecting every mistake with a location of the caller's
/// choosing (`S`: a span in the derive, `()` at run time).
#[derive(Debug)]
pub struct Builder<S> {
    metadata: Metadata,
    seen: Vec<(Key, S)>,
    errors: Vec<(Error, S)>,
}

impl<S> Default for Builder<S> {
    fn default() -> Self {
        Builder {
            metadata: Metadata::EMPTY,
            seen: Vec::new(),
            errors: Vec::new(),
        }
    }
}

impl<S: Clone> Builder<S> {
    /// Reads one part of a tag string (as [`split_tag`] returns it) located at `at`.
    pub fn tag_part(&mut self, part: &str, at: S) {
        let part = part.trim();
        if part.is_empty() {
            return;
        }
        let (key_text, value) = match part.split_once('=') {
            Some((key, value)) => (key.trim(), Some(value.trim())),
            None => (part, None),
        };
        match Key::from_tag_key(key_text) {
            Some(key) => self.set(key, value, at),
            None => {
                let candidates: Vec<&'static str> = Key::ALL.iter().map(|k| k.tag_str()).collect();
                let error = Error::UnknownKey {
                    key: key_text.to_owned(),
                    suggestion: suggest(key_text, &candidates),
                    tag: true,
                };
                self.errors.push((error, at));
            }
        }
    }

    /// Sets `key`; `value` is `None` for a bare key (a flag set to true, or an empty value).
    pub fn set(&mut self, key: Key, value: Option<&str>, at: S) {
        if self.seen.iter().any(|(seen, _)| *seen == key) {
            self.errors.push((Error::DuplicateKey(key), at));
            return;
        }
        self.seen.push((key, at.clone()));
        if key.is_flag() {
            let flag = match value {
                None => true,
                Some(v) if v.eq_ignore_ascii_case("true") => true,
                Some(v) if v.eq_ignore_ascii_case("false") => false,
                Some("") => return self.errors.push((Error::EmptyValue(key), at)),
                Some(v) => {
                    let error = Error::NotBoolean {
                        key,
                        value: v.to_owned(),
                    };
                    return self.errors.push((error, at));
                }
            };
            match key {
                Key::Flat => self.metadata.flat = flag,
                _ => self.metadata.omit_reasoning = flag,
            }
            return;
        }
        let value = match value {
            Some(v) if !v.is_empty() => v,
            _ => return self.errors.push((Error::EmptyValue(key), at)),
        };
        if matches!(key, Key::Name | Key::Payload) && !is_valid_name(value) {
            let error = Error::InvalidName {
                key,
                value: value.to_owned(),
            };
            return self.errors.push((error, at));
        }
        let value = Some(Cow::Owned(value.to_owned()));
        match key {
            Key::Name => self.metadata.name = value,
            Key::Description => self.metadata.description = value,
            Key::Success => self.metadata.success = value,
            Key::Payload => self.metadata.payload = value,
            _ => self.metadata.payload_description = value,
        }
    }

    /// Records a mistake found by the caller (an unknown attribute key, say).
    pub fn error(&mut self, error: Error, at: S) {
        self.errors.push((error, at));
    }

    /// Takes the mistakes recorded so far, so a caller can report them in source order.
    ///
    /// Cross-key rules are checked by [`Builder::finish_located`], not here.
    pub fn take_errors(&mut self) -> Vec<(Error, S)> {
        std::mem::take(&mut self.errors)
    }

    /// Where `key` was set, if it was.
    pub fn location(&self, key: Key) -> Option<&S> {
        self.seen
            .iter()
            .find(|(seen, _)| *seen == key)
            .map(|(_, at)| at)
    }

    /// Checks the rules across keys and returns the metadata with every mistake found.
    pub fn finish_located(mut self) -> (Metadata, Vec<(Error, S)>) {
        let payload_is_reasoning = self.metadata.payload.as_deref() == Some(REASONING);
        if payload_is_reasoning && !self.metadata.omit_reasoning {
            if let Some(at) = self.location(Key::Payload).cloned() {
                self.errors.push((Error::PayloadNamedReasoning, at));
            }
        }
        (self.metadata, self.errors)
    }

    /// Like [`Builder::finish_located`], for callers with no locations.
    pub fn finish(self) -> Result<Metadata, Errors> {
        let (metadata, errors) = self.finish_located();
        if errors.is_empty() {
            Ok(metadata)
        } else {
            Err(Errors(errors.into_iter().map(|(e, _)| e).collect()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_empty_gives_one_empty_part() {
        assert_eq!(split_tag(""), vec![""]);
    }

    #[test]
    fn split_escaped_comma_is_literal() {
        assert_eq!(split_tag("a=x\\, y,b=2"), vec!["a=x, y", "b=2"]);
    }

    #[test]
    fn split_trailing_escape_keeps_comma() {
        assert_eq!(split_tag("a=trailing\\,"), vec!["a=trailing,"]);
    }

    #[test]
    fn split_lone_backslash_is_kept() {
        assert_eq!(split_tag("a=back\\slash,b=2"), vec!["a=back\\slash", "b=2"]);
    }

    #[test]
    fn split_double_backslash_before_comma_escapes_the_comma() {
        assert_eq!(split_tag("a=x\\\\,b"), vec!["a=x\\,b"]);
    }

    #[test]
    fn suggest_finds_typos() {
        let keys: Vec<&str> = Key::ALL.iter().map(|k| k.as_str()).collect();
        assert_eq!(suggest("nmae", &keys), Some("name"));
        assert_eq!(suggest("payload_desc", &keys), None);
        assert_eq!(
            suggest("payload_descriptoin", &keys),
            Some("payload_description")
        );
        assert_eq!(suggest("zzzzzz", &keys), None);
    }

    #[test]
    fn unknown_key_lists_the_keys_of_its_spelling_then_suggests() {
        let attribute = Error::UnknownKey {
            key: "nmae".into(),
            suggestion: Some("name"),
            tag: false,
        };
        assert_eq!(
            attribute.to_string(),
            "unknown submit_result attribute `nmae`, expected one of `name`, `description`, \
             `success`, `payload`, `payload_description`, `flat`, `omit_reasoning`, `crate`; \
             did you mean `name`?"
        );
        let errors = Metadata::from_tag("omitreasonin").unwrap_err();
        assert_eq!(
            errors.to_string(),
            "unknown submit_result attribute `omitreasonin`, expected one of `name`, \
             `description`, `success`, `payload`, `payloadDescription`, `flat`, \
             `omitReasoning`; did you mean `omitReasoning`?"
        );
    }

    #[test]
    fn edit_distance_counts_edits() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("abc", "abc"), 0);
        assert_eq!(edit_distance("nmae", "name"), 1);
    }

    #[test]
    fn names_follow_the_rule() {
        assert!(is_valid_name("submit_result"));
        assert!(is_valid_name("a-B_9"));
        assert!(!is_valid_name(""));
        assert!(!is_valid_name("has space"));
        assert!(!is_valid_name(&"a".repeat(65)));
        assert!(is_valid_name(&"a".repeat(64)));
        assert!(!is_valid_name("naïve"));
    }
}
