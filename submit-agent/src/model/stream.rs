//! Streaming: the handle a model sends chunks through, and the run's one sink for model and
//! tool chunks, with the role and index rules.

use std::sync::{Arc, Mutex, PoisonError};

use crate::message::{Chunk, Role};

/// A streaming callback's failure.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct StreamError(pub String);

/// Receives every chunk of a streaming run, one at a time.
pub(crate) type ChunkSink = Arc<dyn Fn(Chunk) -> Result<(), StreamError> + Send + Sync>;

struct State {
    /// The message index model chunks are labelled with.
    index: usize,
    /// The role of the current message.
    role: Role,
    /// The index tool chunks are labelled with: the turn's tool message.
    tool_index: usize,
}

/// The run's stream: serializes sends and applies the index rules.
pub(crate) struct Stream {
    sink: ChunkSink,
    state: Mutex<State>,
}

impl Stream {
    pub(crate) fn new(sink: ChunkSink) -> Arc<Self> {
        Arc::new(Stream {
            sink,
            state: Mutex::new(State {
                index: 0,
                role: Role::Model,
                tool_index: 1,
            }),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Starts a turn whose model message has `index` in the response stream.
    pub(crate) fn begin_turn(&self, index: usize) {
        let mut s = self.lock();
        s.index = index;
        s.tool_index = index + 1;
        s.role = Role::Model;
    }

    /// Starts a resume: restarted tools stream into the resumed tool message, index 0.
    pub(crate) fn begin_resume(&self) {
        let mut s = self.lock();
        s.index = 0;
        s.tool_index = 0;
        s.role = Role::Tool;
    }

    /// A model chunk: an empty role keeps the current index and reads as `model`; a role that
    /// differs from the current one moves to the next index.
    pub(crate) fn model_chunk(&self, mut chunk: Chunk) -> Result<(), StreamError> {
        let mut s = self.lock();
        match chunk.role {
            Some(role) if role != s.role => {
                s.index += 1;
                s.role = role;
            }
            Some(_) => {}
            None => chunk.role = Some(Role::Model),
        }
        chunk.index = s.index;
        (self.sink)(chunk)
    }

    /// A chunk a tool sends: role `tool` unless set, index of the turn's tool message. A sink
    /// error is dropped: progress is best effort.
    pub(crate) fn tool_chunk(&self, mut chunk: Chunk) {
        let s = self.lock();
        chunk.role = Some(chunk.role.unwrap_or(Role::Tool));
        chunk.index = s.tool_index;
        if let Err(e) = (self.sink)(chunk) {
            tracing::debug!(error = %e, "tool chunk dropped by the streaming callback");
        }
    }

    /// A chunk with an explicit role and index (the tool message after a round).
    pub(crate) fn send(&self, chunk: Chunk) -> Result<(), StreamError> {
        let _s = self.lock();
        (self.sink)(chunk)
    }
}

/// The handle a model streams its chunks through.
#[derive(Clone)]
pub struct ModelStream {
    pub(crate) stream: Arc<Stream>,
}

impl ModelStream {
    /// Sends a chunk; the loop sets its index (and its role to `model` when unset).
    pub fn send(&self, chunk: Chunk) -> Result<(), StreamError> {
        self.stream.model_chunk(chunk)
    }
}

impl std::fmt::Debug for ModelStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ModelStream")
    }
}
