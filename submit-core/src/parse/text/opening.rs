//! A call's opening as the pass finds it: the form, where the call starts, the tool it names,
//! and where the form's reading goes on.

use std::borrow::Cow;

use super::lex::Named;
use crate::outcome::TextFormat;

/// How a Python call stands in the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Enclosure {
    /// `NAME(…)`.
    Bare,
    /// `[NAME(…)]`.
    List,
    /// `Malformed function call: print(default_api.NAME(…))`.
    Gemini,
}

/// Where a form's reading starts, and what it needs to know of its opening.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Form {
    /// The call object's `{`.
    Hermes { object: usize },
    /// After `<function=NAME`.
    XmlFunction { body: usize },
    /// After `<tool_call>NAME`.
    Glm { body: usize },
    /// The submit call's object inside the array.
    MistralArray { object: usize },
    /// After `[TOOL_CALLS]NAME`.
    MistralArgs { body: usize },
    /// The call object's `{`, and whether a Markdown fence holds it.
    LlamaJson { object: usize, fenced: bool },
    /// After the tool's name; whether a section opened the call; whether a fenced object
    /// follows.
    Deepseek {
        section: bool,
        body: usize,
        fenced: bool,
    },
    /// After `functions.NAME`; whether a section opened the call.
    Kimi { section: bool, body: usize },
    /// After `to=functions.NAME`.
    Harmony { body: usize },
    /// The tool's name, and how the call stands.
    Pythonic { call: usize, enclosure: Enclosure },
}

impl Form {
    pub(crate) fn format(self) -> TextFormat {
        match self {
            Form::Hermes { .. } => TextFormat::Hermes,
            Form::XmlFunction { .. } => TextFormat::XmlFunction,
            Form::Glm { .. } => TextFormat::Glm,
            Form::MistralArray { .. } | Form::MistralArgs { .. } => TextFormat::Mistral,
            Form::LlamaJson { .. } => TextFormat::LlamaJson,
            Form::Deepseek { .. } => TextFormat::Deepseek,
            Form::Kimi { .. } => TextFormat::Kimi,
            Form::Harmony { .. } => TextFormat::Harmony,
            Form::Pythonic { .. } => TextFormat::Pythonic,
        }
    }
}

/// The opening of a call in the text.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Opening {
    pub(crate) form: Form,
    /// The offset of the call's first marker.
    pub(crate) start: usize,
    pub(crate) named: Named,
    /// Where the pass goes on when this is not the submit call.
    pub(crate) resume: usize,
    /// The form itself holds other calls beside this one (a list, an array).
    pub(crate) crowded: bool,
}

/// A call read out of the text: its arguments as argument text, and the offset after it.
pub(crate) struct CallRead<'t> {
    pub(crate) arguments: Cow<'t, str>,
    pub(crate) end: usize,
}
