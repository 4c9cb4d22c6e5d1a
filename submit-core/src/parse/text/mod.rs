//! Calls a model wrote as text in its visible turn instead of making them (step *Where the call
//! was found* of the parsing rules): the tool-call syntax of its chat template ([`TextFormat`]),
//! which the inference server's tool parser missed.
//!
//! [`find`] looks for the first call of the submit tool: `scan.rs` finds where calls of any tool
//! open, in the order they stand in the text and outside the JSON objects and arrays it holds;
//! a call is found once its form's opening and the tool it names are there, even if the rest
//! cannot be read. [`Found::read`] then reads it exactly as written, one file per family of
//! forms: `objects.rs` (hermes, mistral, llama_json: a JSON call object), `tokens.rs`
//! (deepseek, kimi, harmony: an object between special tokens), `tags.rs` (xml_function, glm:
//! one tagged value per argument) and `python.rs` (pythonic, its literals read by `literal.rs`).
//! Its arguments become argument text for the parse, which records `call_in_text` first and
//! applies every rule after it.
//!
//! Every form reads with `lex.rs` (whitespace, markers, names, what may end a turn) and
//! `json.rs` (where JSON ends, an arguments object, fences); `opening.rs` holds a call's opening
//! as the pass finds it, `scan.rs` the pass, and this file the verdict on the call found.
//!
//! The text holds exactly one call, of the submit tool: a call of another tool anywhere before
//! it or beside it in its own form (a list, an array, a section), or anything after it but
//! whitespace, closing tokens and end-of-turn tokens, declines the call. Prose before it is not
//! part of the verdict. A call that could not be read, or that these rules decline, is answered
//! with one message naming the form and the tool, plus why it could not be read when that is
//! the reason; a call that was read gets the parse's own outcome.
//!
//! One pass over the text, linear in its length; nothing recurses on the text's nesting.

mod json;
mod lex;
mod literal;
mod objects;
mod opening;
mod python;
mod scan;
mod tags;
mod tokens;

#[cfg(test)]
mod tests;

use std::borrow::Cow;

use lex::Named;
use opening::{Form, Opening};

use super::Parser;
use crate::error::{ParameterCause, SubmitError};
use crate::outcome::TextFormat;

/// The first call of the submit tool written as text.
pub(crate) struct Found<'t> {
    text: &'t str,
    tool: &'t str,
    opening: Opening,
    /// A call of another tool opened before it.
    beside: bool,
}

/// The first call of the submit tool `tool` that `text` holds, in any form; `None` when no
/// form's opening names the tool.
pub(crate) fn find<'t>(text: &'t str, tool: &'t str) -> Option<Found<'t>> {
    let mut beside = false;
    let found = |opening: Opening, beside: bool| Found {
        text,
        tool,
        opening,
        beside,
    };
    if let Some(opening) = objects::llama_opening(text, tool) {
        match opening.named {
            Named::Submit => return Some(found(opening, false)),
            Named::Other => beside = true,
        }
    }
    let mut scanner = scan::Scanner::new(text, tool);
    while let Some(opening) = scanner.next_opening() {
        match opening.named {
            Named::Submit => return Some(found(opening, beside)),
            Named::Other => beside = true,
        }
    }
    None
}

/// Where a call of `tool` written as text may first open in a text still arriving (see
/// `scan::call_start`).
pub(crate) fn call_start(text: &str, tool: &str) -> Option<usize> {
    scan::call_start(text, tool)
}

impl<'t> Found<'t> {
    /// The call's form.
    pub(crate) fn format(&self) -> TextFormat {
        self.opening.form.format()
    }

    /// The text from the call's first marker to the end.
    pub(crate) fn cut_off_text(&self) -> &'t str {
        lex::rest(self.text, self.opening.start)
    }

    /// The call's arguments as argument text, or the rejection that declines it.
    pub(crate) fn read(&self, parser: &Parser<'_>) -> Result<Cow<'t, str>, SubmitError> {
        let format = self.format();
        if self.beside || self.opening.crowded {
            return Err(declined(format, self.tool, None));
        }
        let text = self.text;
        let typing = tags::Typing::of(parser);
        let read = match self.opening.form {
            Form::Hermes { object } => objects::read_hermes(text, object),
            Form::XmlFunction { body } => tags::read_xml(text, body, &typing),
            Form::Glm { body } => tags::read_glm(text, body, &typing),
            Form::MistralArray { object } => objects::read_mistral_array(text, object),
            Form::MistralArgs { body } => objects::read_mistral_args(text, body),
            Form::LlamaJson { object, fenced } => objects::read_llama(text, object, fenced),
            Form::Deepseek {
                section,
                body,
                fenced,
            } => tokens::read_deepseek(text, section, body, fenced),
            Form::Kimi { section, body } => tokens::read_kimi(text, section, body),
            Form::Harmony { body } => tokens::read_harmony(text, body),
            Form::Pythonic { call, enclosure } => python::read(text, call, enclosure, self.tool),
        };
        let read = read.map_err(|why| declined(format, self.tool, Some(&why)))?;
        if !lex::only_end(lex::rest(text, read.end)) {
            return Err(declined(format, self.tool, None));
        }
        Ok(read.arguments)
    }
}

/// The rejection of a call written as text that is not run: the form and the tool, and why the
/// call could not be read when that is why.
fn declined(format: TextFormat, tool: &str, why: Option<&str>) -> SubmitError {
    let mut message = format!(
        "your reply contains a {} call of {tool} written as text, which is not run; call {tool} \
         as a tool call",
        format.as_str()
    );
    if let Some(why) = why {
        message.push_str(": ");
        message.push_str(why);
    }
    SubmitError::parameter(ParameterCause::UndecodableArguments, message)
}
