//! How a tool call (or a hook around it) ends without an output: a fail for the model, an
//! interrupt, or an error that stops the run.

use std::fmt;

use crate::cause::BoxError;
use crate::message::{Interrupt, JsonObject};

/// How a tool call (or a hook around it) ended without an output.
///
/// Three kinds: an error *for the model* ([`ToolContext::fail`](crate::tool::ToolContext::fail)),
/// which the loop answers and continues; an *interrupt*
/// ([`ToolContext::interrupt`](crate::tool::ToolContext::interrupt)), which pauses the run; and any
/// other error, which stops the run. `?` turns any `std::error::Error` into the last kind.
///
/// ```
/// use submit_agent::tool::{ToolContext, ToolError};
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

    /// This error as the cause of a failed run: its text, and the error it was made from
    /// (`fail` or `?`), through any wrapping.
    pub(crate) fn into_cause(self) -> crate::run::Cause {
        let message = self.to_string();
        crate::run::Cause::with_boxed(message, self.into_source())
    }

    /// The error this one was made from, taken out.
    fn into_source(self) -> Option<BoxError> {
        match *self.repr {
            Repr::Fail { source, .. } => source,
            Repr::Other(e) => Some(e),
            Repr::Wrapped { inner, .. } => inner.into_source(),
            Repr::Interrupt(_) | Repr::Message(_) => None,
        }
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
