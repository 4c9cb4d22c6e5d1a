//! Where calls written as text open: the markers of every form, in the order they stand in the
//! text, outside the JSON objects and arrays the text holds; and what may follow a call.
//!
//! One pass from the start. `memchr` finds the next `<`, `[` or `{`, and three `memmem` finders
//! the next `to=functions.`, `Malformed function call:` and `<tool>(`, each searching a stretch
//! of text once, a window at a time; the nearest of them is looked at, and the pass goes on past it. Each look is bounded (a marker, whitespace, a name
//! of at most [`MAX_NAME`] bytes) or consumes what it scans: a complete JSON object or array is
//! skipped whole, so a form quoted inside a JSON string the model printed is part of that JSON,
//! not a call. A JSON value or a Python list that turns out not to be one is not tried again from
//! inside the bytes it covered, which keeps the pass linear in the text.

use memchr::{memchr3, memmem};

use super::json::json_end;
use super::lex::{after, has, skip_space};
use super::opening::Opening;
use super::{objects, python, tags, tokens};

/// How far ahead of the pass one search looks at a time. Every needle is searched a window at
/// a time, so the searches of one stretch of text run while it is in cache, and a long text is
/// read from memory once, not once per needle.
const WINDOW: usize = 64 << 10;

/// The next occurrence of one needle, found by searching each stretch of text once: a search
/// starts where the pass is, and runs again only once the pass went beyond what it found.
struct Next {
    /// The needle; `None` for any of `<`, `[`, `{`.
    finder: Option<memmem::Finder<'static>>,
    /// The needle's length less one: how far a match that starts in a window reaches past it.
    overlap: usize,
    /// The first occurrence at or after the pass, once found.
    at: Option<usize>,
    /// Where the search has reached: no occurrence starts between the pass and here but `at`.
    to: usize,
}

impl Next {
    fn new(needle: Option<&[u8]>) -> Next {
        Next {
            finder: needle.map(|needle| memmem::Finder::new(needle).into_owned()),
            overlap: needle.map_or(0, |needle| needle.len().saturating_sub(1)),
            at: None,
            to: 0,
        }
    }

    /// The first occurrence at or after `pos`, searching on a window at a time until one is
    /// found or the search has reached `limit` (or the end).
    fn peek(&mut self, bytes: &[u8], pos: usize, limit: usize) -> Option<usize> {
        match self.at {
            Some(at) if at >= pos => return Some(at),
            Some(_) => {
                // What lay between the occurrence passed and `to` was not searched.
                self.at = None;
                self.to = pos;
            }
            None => self.to = self.to.max(pos),
        }
        while self.to < limit && self.to < bytes.len() {
            let from = self.to;
            let end = from.saturating_add(WINDOW).min(bytes.len());
            let hay = bytes
                .get(from..end.saturating_add(self.overlap).min(bytes.len()))
                .unwrap_or_default();
            let found = match &self.finder {
                Some(finder) => finder.find(hay),
                None => memchr3(b'<', b'[', b'{', hay),
            };
            self.to = end;
            if let Some(found) = found {
                self.at = Some(from + found);
                return self.at;
            }
        }
        None
    }

    /// Where the search has reached when it found nothing; `None` once it reached the end.
    fn frontier(&self, bytes: &[u8]) -> Option<usize> {
        (self.at.is_none() && self.to < bytes.len()).then_some(self.to)
    }
}

/// What stands at a place the pass looks at.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Signpost {
    /// `<`, `[` or `{`.
    Byte,
    /// `to=functions.`
    Recipient,
    /// `Malformed function call:`
    Malformed,
    /// `<tool>(`
    Bare,
}

/// The openings of the calls in a text, in order.
pub(crate) struct Scanner<'t> {
    text: &'t str,
    tool: &'t str,
    /// Where the pass is.
    pos: usize,
    /// JSON values are tried only from here on (a failed try covered the bytes before).
    json_from: usize,
    /// Python lists of calls are tried only from here on.
    python_from: usize,
    byte: Next,
    recipient: Next,
    malformed: Next,
    bare: Next,
}

impl<'t> Scanner<'t> {
    /// A pass over `text`, for the submit tool `tool`.
    pub(crate) fn new(text: &'t str, tool: &'t str) -> Scanner<'t> {
        let mut call = tool.as_bytes().to_vec();
        call.push(b'(');
        Scanner {
            text,
            tool,
            pos: 0,
            json_from: 0,
            python_from: 0,
            byte: Next::new(None),
            recipient: Next::new(Some(tokens::RECIPIENT.as_bytes())),
            malformed: Next::new(Some(python::MALFORMED.as_bytes())),
            bare: Next::new(Some(&call)),
        }
    }

    /// The nearest place to look at, at or after the pass: the nearest occurrence of any needle,
    /// once every needle has been searched at least that far.
    fn next_signpost(&mut self) -> Option<(usize, Signpost)> {
        let bytes = self.text.as_bytes();
        let pos = self.pos;
        let mut limit = pos.saturating_add(WINDOW);
        loop {
            let best = [
                self.byte
                    .peek(bytes, pos, limit)
                    .map(|at| (at, Signpost::Byte)),
                self.recipient
                    .peek(bytes, pos, limit)
                    .map(|at| (at, Signpost::Recipient)),
                self.malformed
                    .peek(bytes, pos, limit)
                    .map(|at| (at, Signpost::Malformed)),
                self.bare
                    .peek(bytes, pos, limit)
                    .map(|at| (at, Signpost::Bare)),
            ]
            .into_iter()
            .flatten()
            .min_by_key(|(at, _)| *at);
            let frontier = [&self.byte, &self.recipient, &self.malformed, &self.bare]
                .into_iter()
                .filter_map(|next| next.frontier(bytes))
                .min();
            match (best, frontier) {
                (Some((at, mark)), Some(frontier)) if at < frontier => return Some((at, mark)),
                (Some(found), None) => return Some(found),
                (None, None) => return None,
                (_, Some(frontier)) => limit = frontier.saturating_add(WINDOW),
            }
        }
    }

    /// Skips the JSON object or array at `at` when it is complete; otherwise no JSON value is
    /// tried again before where it stopped being one. The pass goes on after what it skipped.
    fn skip_json(&mut self, at: usize) {
        if at < self.json_from {
            self.pos = at + 1;
            return;
        }
        match json_end(self.text.as_bytes(), at) {
            Ok(end) => self.pos = end,
            Err(stop) => {
                self.json_from = stop;
                self.pos = at + 1;
            }
        }
    }

    /// The opening at a `[`: Mistral's marker, a Python list of calls, or else JSON.
    fn at_bracket(&mut self, at: usize) -> Option<Opening> {
        let (text, tool) = (self.text, self.tool);
        if let Some(body) = after(text, at, objects::TOOL_CALLS) {
            let body = skip_space(text, body);
            // An array of calls is read whole when it is one.
            let mut array = None;
            if has(text, body, "[") && body >= self.json_from {
                match json_end(text.as_bytes(), body) {
                    Ok(end) => array = Some(end),
                    Err(stop) => self.json_from = stop,
                }
            }
            let found = objects::mistral_opening(text, at, body, array, tool);
            if found.is_none() {
                self.pos = body;
            }
            return found;
        }
        if at >= self.python_from {
            match python::list_opening(text, at, tool) {
                python::List::Call(opening) => return Some(opening),
                python::List::OthersOnly(end) => {
                    self.pos = end;
                    return None;
                }
                python::List::NotCalls(Some(stop)) => self.python_from = stop,
                python::List::NotCalls(None) => {}
            }
        }
        self.skip_json(at);
        None
    }

    /// The next opening of a call, of any tool.
    pub(crate) fn next_opening(&mut self) -> Option<Opening> {
        let text = self.text;
        let tool = self.tool;
        loop {
            let (at, mark) = self.next_signpost()?;
            let found = match mark {
                Signpost::Recipient => tokens::harmony_opening(text, at, tool),
                Signpost::Malformed => python::gemini_opening(text, at, tool),
                Signpost::Bare => python::bare_opening(text, at, tool),
                Signpost::Byte => match text.as_bytes().get(at) {
                    Some(b'<') => angle_opening(text, at, tool),
                    Some(b'[') => {
                        let found = self.at_bracket(at);
                        if found.is_none() {
                            continue;
                        }
                        found
                    }
                    _ => {
                        self.skip_json(at);
                        continue;
                    }
                },
            };
            match found {
                Some(opening) => {
                    self.pos = opening.resume.max(at + 1);
                    return Some(opening);
                }
                None => self.pos = at + 1,
            }
        }
    }
}

/// Where a call may first open in a text still arriving: the first place the pass would look
/// at (a `<`, `[` or `{`, or the start of `to=functions.`, `Malformed function call:` or
/// `<tool>(`), or the start of the beginning of one of those needles that the text ends in.
/// Nothing before it can belong to a call, whatever text follows. Linear in the text.
pub(crate) fn call_start(text: &str, tool: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut bare = tool.as_bytes().to_vec();
    bare.push(b'(');
    let needles: [&[u8]; 3] = [
        tokens::RECIPIENT.as_bytes(),
        python::MALFORMED.as_bytes(),
        &bare,
    ];
    let byte = memchr3(b'<', b'[', b'{', bytes);
    needles
        .into_iter()
        .map(|needle| {
            memmem::find(bytes, needle).or_else(|| {
                // A needle the text may still be writing: the longest beginning of it that
                // ends the text.
                (1..needle.len().min(bytes.len() + 1))
                    .rev()
                    .find(|&len| bytes.ends_with(needle.get(..len).unwrap_or_default()))
                    .map(|len| bytes.len() - len)
            })
        })
        .chain([byte])
        .flatten()
        .min()
}

/// The opening of a form whose marker starts with `<`.
fn angle_opening(text: &str, at: usize, tool: &str) -> Option<Opening> {
    if let Some(body) = after(text, at, tags::TOOL_CALL) {
        let body = skip_space(text, body);
        return if has(text, body, "{") {
            objects::hermes_opening(text, at, body, tool)
        } else if has(text, body, tags::FUNCTION) {
            tags::xml_opening(text, at, body, tool)
        } else {
            tags::glm_opening(text, at, body, tool)
        };
    }
    if has(text, at, tags::FUNCTION) {
        return tags::xml_opening(text, at, at, tool);
    }
    tokens::section_opening(text, at, tool)
}
