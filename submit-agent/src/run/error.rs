//! Why a run stopped without a result, with the partial response where it got that far.

use std::fmt;

use crate::model::StreamError;
use crate::run::{Cause, Response};

/// Why a run stopped without a result.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RunErrorKind {
    /// The agent or executor is configured wrongly.
    #[error("invalid configuration: {0}")]
    Config(String),
    /// The model call failed; the [`ModelError`](crate::model::ModelError) keeps its typed cause.
    #[error("model call failed: {0}")]
    Model(#[source] crate::model::ModelError),
    /// One more tool round than `max_turns` allows.
    #[error(
        "exceeded maximum tool call iterations ({0}): raise max_turns or steer the model to finish"
    )]
    MaxTurnsExceeded(usize),
    /// A tool call failed with an error not meant for the model; the [`Cause`] keeps the
    /// tool's own error.
    #[error("tool {name:?} failed: {error}")]
    ToolFailed {
        /// The tool's name.
        name: String,
        /// The error, with the tool's typed error as its source when it had one.
        #[source]
        error: Cause,
    },
    /// The resume directives do not fit the conversation; nothing ran.
    #[error("invalid resume: {0}")]
    InvalidResume(String),
    /// A restarted call raised an interrupt again; the partial response lists it.
    #[error("one or more tools triggered an interrupt during a restarted execution: answer the new interrupts with another resume")]
    InterruptedOnResume,
    /// The streaming callback failed where its failure cannot be ignored.
    #[error("streaming callback failed: {0}")]
    Stream(#[source] StreamError),
    /// A result validator returned an error; the [`Cause`] keeps it.
    #[error("result validation: {0}")]
    ResultValidation(#[source] Cause),
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
    /// The executor's run ended without an error and without a committed result (a turn
    /// hook ended it before the terminal tool committed): no model call failed.
    #[error("the run ended without a committed result: the terminal tool {tool} never accepted a call; check the turn hooks that end the run")]
    NotCommitted {
        /// The terminal tool's name.
        tool: String,
    },
}

/// A run that stopped without a result: what went wrong and, where the run got that far, the
/// partial response (its history ends where it can be sent again).
///
/// Its [`source`](std::error::Error::source) is the kind's cause: for a failed model call the
/// [`ModelError`](crate::model::ModelError), whose own source is the model's typed error (a
/// transport's `TransportError`, whose source is the network's error); for a failed tool or
/// result validator the [`Cause`] holding its error; for a refused chunk the sink's
/// [`StreamError`].
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
