//! Errors of tool calls and of runs.

use std::fmt;

use crate::message::{Interrupt, JsonObject};
use crate::response::Response;

/// A boxed error that can cross tasks.
pub type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// How a tool call (or a hook around it) ended without an output.
///
/// Three kinds: an error *for the model* ([`ToolContext::fail`](crate::ToolContext::fail)),
/// which the loop answers and continues; an *interrupt*
/// ([`ToolContext::interrupt`](crate::ToolContext::interrupt)), which pauses the run; and any
/// other error, which stops the run. `?` turns any `std::error::Error` into the last kind.
///
/// ```
/// use submit_agent::{ToolContext, ToolError};
///
/// let ctx = ToolContext::detached();
/// let err = ctx.fail(std::io::Error::other("no such record"));
/// assert!(err.is_fail());
/// assert_eq!(err.to_string(), "no such record");
/// ```
pub struct ToolError {
    repr: Box<Repr>,
    /// Set when the tool stage itself returned the error (or the tool was missing).
    pub(crate) from_tool: bool,
}

enum Repr {
    Fail {
        message: String,
        source: Option<BoxError>,
    },
    Interrupt(Interrupt),
    Other(BoxError),
    Message(String),
    Wrapped {
        context: String,
        inner: Box<ToolError>,
    },
}

impl ToolError {
    fn from_repr(repr: Repr) -> Self {
        ToolError {
            repr: Box::new(repr),
            from_tool: false,
        }
    }

    /// An error meant for the model: the loop answers the call with `{"error": <message>}`.
    pub fn fail<E>(error: E) -> Self
    where
        E: std::error::Error + Send + Sync + 'static,
    {
        ToolError::from_repr(Repr::Fail {
            message: error.to_string(),
            source: Some(Box::new(error)),
        })
    }

    /// An error meant for the model, from a message.
    pub fn fail_message(message: impl Into<String>) -> Self {
        ToolError::from_repr(Repr::Fail {
            message: message.into(),
            source: None,
        })
    }

    /// A plain error that stops the run, from a message.
    pub fn msg(message: impl fmt::Display) -> Self {
        ToolError::from_repr(Repr::Message(message.to_string()))
    }

    pub(crate) fn interrupt(interrupt: Interrupt) -> Self {
        ToolError::from_repr(Repr::Interrupt(interrupt))
    }

    /// Wraps this error with context; whether it is a fail or an interrupt is kept.
    pub fn context(self, context: impl fmt::Display) -> Self {
        ToolError::from_repr(Repr::Wrapped {
            context: context.to_string(),
            inner: Box::new(self),
        })
    }

    /// True for an error made with [`ToolError::fail`] (through any wrapping).
    pub fn is_fail(&self) -> bool {
        self.fail_text().is_some()
    }

    /// The message the model reads for a fail: the innermost fail's message.
    pub fn fail_text(&self) -> Option<&str> {
        match self.repr.as_ref() {
            Repr::Fail { message, .. } => Some(message),
            Repr::Wrapped { inner, .. } => inner.fail_text(),
            _ => None,
        }
    }

    /// True for an interrupt (through any wrapping).
    pub fn is_interrupt(&self) -> bool {
        self.as_interrupt().is_some()
    }

    /// The interrupt this error carries.
    pub fn as_interrupt(&self) -> Option<&Interrupt> {
        match self.repr.as_ref() {
            Repr::Interrupt(i) => Some(i),
            Repr::Wrapped { inner, .. } => inner.as_interrupt(),
            _ => None,
        }
    }

    /// The interrupt data, for code running tools outside a loop: `Some(None)` for a bare
    /// interrupt, `None` when this is not an interrupt.
    pub fn interrupt_data(&self) -> Option<Option<&JsonObject>> {
        self.as_interrupt().map(|i| i.data.as_ref())
    }

    /// The wrapped error, if this error was made from one (`fail` or `?`).
    pub fn source_error(&self) -> Option<&(dyn std::error::Error + Send + Sync + 'static)> {
        match self.repr.as_ref() {
            Repr::Fail {
                source: Some(e), ..
            }
            | Repr::Other(e) => Some(e.as_ref()),
            Repr::Wrapped { inner, .. } => inner.source_error(),
            _ => None,
        }
    }

    /// True when the error came from the tool itself (or a missing tool), wrapped or not,
    /// rather than from a hook that replaced it.
    pub(crate) fn is_tools_own(&self) -> bool {
        self.from_tool
            || match self.repr.as_ref() {
                Repr::Wrapped { inner, .. } => inner.is_tools_own(),
                _ => false,
            }
    }

    pub(crate) fn mark_from_tool(mut self) -> Self {
        self.from_tool = true;
        self
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.repr.as_ref() {
            Repr::Fail { message, .. } => f.write_str(message),
            Repr::Interrupt(_) => f.write_str("tool call interrupted"),
            Repr::Other(e) => fmt::Display::fmt(e, f),
            Repr::Message(m) => f.write_str(m),
            Repr::Wrapped { context, inner } => write!(f, "{context}: {inner}"),
        }
    }
}

impl fmt::Debug for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.repr.as_ref() {
            Repr::Fail { .. } => "fail",
            Repr::Interrupt(_) => "interrupt",
            Repr::Other(_) | Repr::Message(_) => "error",
            Repr::Wrapped { .. } => "wrapped",
        };
        f.debug_struct("ToolError")
            .field("kind", &kind)
            .field("message", &self.to_string())
            .field("interrupt", &self.as_interrupt())
            .finish()
    }
}

impl<E> From<E> for ToolError
where
    E: std::error::Error + Send + Sync + 'static,
{
    fn from(error: E) -> Self {
        ToolError::from_repr(Repr::Other(Box::new(error)))
    }
}

/// Why a run stopped without a result.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RunErrorKind {
    /// The agent or executor is configured wrongly.
    #[error("invalid configuration: {0}")]
    Config(String),
    /// The model call failed; the [`ModelError`](crate::ModelError) keeps its typed cause.
    #[error("model call failed: {0}")]
    Model(#[source] crate::model::ModelError),
    /// One more tool round than `max_turns` allows.
    #[error(
        "exceeded maximum tool call iterations ({0}): raise max_turns or steer the model to finish"
    )]
    MaxTurnsExceeded(usize),
    /// A tool call failed with an error not meant for the model.
    #[error("tool {name:?} failed: {message}")]
    ToolFailed {
        /// The tool's name.
        name: String,
        /// The error.
        message: String,
    },
    /// The resume directives do not fit the conversation; nothing ran.
    #[error("invalid resume: {0}")]
    InvalidResume(String),
    /// A restarted call raised an interrupt again; the partial response lists it.
    #[error("one or more tools triggered an interrupt during a restarted execution: answer the new interrupts with another resume")]
    InterruptedOnResume,
    /// The streaming callback failed where its failure cannot be ignored.
    #[error("streaming callback failed: {0}")]
    Stream(String),
    /// A result validator returned an error.
    #[error("result validation: {0}")]
    ResultValidation(String),
    /// The model answered too many turns in a row without calling a tool.
    #[error(
        "the model answered {turns} turns in a row without calling a tool: it never called {tool}"
    )]
    Unusable {
        /// The consecutive unusable turns.
        turns: usize,
        /// The terminal tool's name.
        tool: String,
    },
}

/// A run that stopped without a result: what went wrong and, where the run got that far, the
/// partial response (its history ends where it can be sent again).
///
/// Its [`source`](std::error::Error::source) is the kind's cause: for a failed model call the
/// [`ModelError`](crate::ModelError), whose own source is the model's typed error (a
/// transport's `TransportError`).
#[derive(Debug)]
pub struct RunError {
    /// What went wrong.
    pub kind: RunErrorKind,
    /// The response so far.
    pub partial: Option<Box<Response>>,
}

impl RunError {
    pub(crate) fn new(kind: RunErrorKind) -> Self {
        RunError {
            kind,
            partial: None,
        }
    }

    pub(crate) fn with_partial(kind: RunErrorKind, partial: Response) -> Self {
        RunError {
            kind,
            partial: Some(Box::new(partial)),
        }
    }
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.kind, f)
    }
}

impl std::error::Error for RunError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        std::error::Error::source(&self.kind)
    }
}
