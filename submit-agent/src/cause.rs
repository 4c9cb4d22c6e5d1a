//! The error under another: kept whole, shared so the error holding it stays cheap to clone.

use std::error::Error;
use std::fmt;
use std::sync::Arc;

/// A boxed error that can cross tasks: what a tool, a result validator or a callback fails
/// with.
pub type BoxError = Box<dyn Error + Send + Sync + 'static>;

/// The typed error a cause keeps, shared.
type Shared = Arc<dyn Error + Send + Sync + 'static>;

/// What a tool, a result validator, a connection or a callback failed with: a message and,
/// when there was one, the typed error itself, reached through
/// [`source`](std::error::Error::source) or [`downcast_ref`](Cause::downcast_ref).
///
/// The errors of a run ([`RunErrorKind`](crate::run::RunErrorKind)), of the executor's gate
/// ([`GateStatus`](crate::executor::GateStatus)) and of MCP servers keep their causes as one.
/// Two causes are equal when their messages are.
///
/// ```
/// use std::error::Error as _;
/// use submit_agent::run::Cause;
///
/// let plain = Cause::new("the CI server is unreachable");
/// assert!(plain.source().is_none());
///
/// let typed = Cause::from_source(std::io::Error::other("connection reset"));
/// assert_eq!(typed.to_string(), "connection reset");
/// assert!(typed.downcast_ref::<std::io::Error>().is_some());
/// assert!(typed.source().is_some());
/// ```
#[derive(Clone)]
pub struct Cause {
    message: String,
    source: Option<Shared>,
}

impl Cause {
    /// A cause that is a message alone.
    pub fn new(message: impl Into<String>) -> Self {
        Cause {
            message: message.into(),
            source: None,
        }
    }

    /// A cause keeping `error`; the message is the error's.
    pub fn from_source<E>(error: E) -> Self
    where
        E: Error + Send + Sync + 'static,
    {
        Cause {
            message: error.to_string(),
            source: Some(Arc::new(error)),
        }
    }

    /// A cause keeping a boxed error (what a result validator or a tool returns); the message
    /// is the error's.
    pub fn from_boxed(error: BoxError) -> Self {
        Cause {
            message: error.to_string(),
            source: Some(Arc::from(error)),
        }
    }

    /// A cause keeping `error` under a message of its own (the error's text said otherwise).
    #[cfg_attr(
        not(feature = "mcp"),
        allow(dead_code, reason = "used by the MCP client only")
    )]
    pub(crate) fn described<E>(message: impl Into<String>, error: E) -> Self
    where
        E: Error + Send + Sync + 'static,
    {
        Cause {
            message: message.into(),
            source: Some(Arc::new(error)),
        }
    }

    /// A cause keeping an optional boxed error under a message of its own.
    pub(crate) fn with_boxed(message: impl Into<String>, error: Option<BoxError>) -> Self {
        Cause {
            message: message.into(),
            source: error.map(Arc::from),
        }
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The typed error as a `T`, when it is one.
    pub fn downcast_ref<T: Error + 'static>(&self) -> Option<&T> {
        self.source.as_deref().and_then(|e| e.downcast_ref::<T>())
    }
}

impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl fmt::Debug for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Cause")
            .field("message", &self.message)
            .field("source", &self.source)
            .finish()
    }
}

impl Error for Cause {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match &self.source {
            Some(e) => Some(e.as_ref()),
            None => None,
        }
    }
}

impl PartialEq for Cause {
    fn eq(&self, other: &Self) -> bool {
        self.message == other.message
    }
}

impl Eq for Cause {}

impl From<String> for Cause {
    fn from(message: String) -> Self {
        Cause::new(message)
    }
}

impl From<&str> for Cause {
    fn from(message: &str) -> Self {
        Cause::new(message)
    }
}
