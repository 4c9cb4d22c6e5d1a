//! A model that replays canned responses: for tests, examples and documentation.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};

use futures::future::BoxFuture;
use futures::FutureExt;

use super::{Model, ModelError, ModelRequest, ModelResponse, ModelStream};
use crate::message::{Chunk, Message, Part};

/// One canned step of a [`ScriptedModel`].
#[derive(Clone, Debug)]
enum Step {
    Respond(Vec<Chunk>, ModelResponse),
    Fail(String),
}

#[derive(Default)]
struct Script {
    steps: VecDeque<Step>,
    repeat_last: Option<Step>,
    requests: Vec<ModelRequest>,
}

/// A model that replays canned responses and records every request. Clones share the script.
///
/// ```
/// use submit_agent::{message::{Message, Part}, model::ScriptedModel};
///
/// let model = ScriptedModel::new().then_text("hello");
/// let agent = submit_agent::run::Agent::new(model.clone());
/// let response = futures::executor::block_on(agent.generate(vec![Message::user("hi")])).unwrap();
/// assert_eq!(response.text(), "hello");
/// assert_eq!(model.requests().len(), 1);
/// ```
#[derive(Clone, Default)]
pub struct ScriptedModel {
    script: Arc<Mutex<Script>>,
}

impl std::fmt::Debug for ScriptedModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScriptedModel")
            .field("requests", &self.requests().len())
            .finish()
    }
}

impl ScriptedModel {
    /// An empty script.
    pub fn new() -> Self {
        ScriptedModel::default()
    }

    fn push(self, step: Step) -> Self {
        self.lock().steps.push_back(step);
        self
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Script> {
        self.script.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Then answers with `response`.
    pub fn then(self, response: ModelResponse) -> Self {
        self.push(Step::Respond(Vec::new(), response))
    }

    /// Then answers with a model message of these parts.
    pub fn then_message(self, parts: Vec<Part>) -> Self {
        self.then(ModelResponse::new(Message::model(parts)))
    }

    /// Then answers with text.
    pub fn then_text(self, text: impl Into<String>) -> Self {
        self.then_message(vec![Part::text(text)])
    }

    /// Then streams `chunks` and answers with `response`.
    pub fn then_streamed(self, chunks: Vec<Chunk>, response: ModelResponse) -> Self {
        self.push(Step::Respond(chunks, response))
    }

    /// Then fails with `message`.
    pub fn then_fail(self, message: impl Into<String>) -> Self {
        self.push(Step::Fail(message.into()))
    }

    /// Once the script is used up, answers every further call with `parts`.
    pub fn repeat_message(self, parts: Vec<Part>) -> Self {
        self.lock().repeat_last = Some(Step::Respond(
            Vec::new(),
            ModelResponse::new(Message::model(parts)),
        ));
        self
    }

    /// Every request received so far.
    pub fn requests(&self) -> Vec<ModelRequest> {
        self.lock().requests.clone()
    }

    /// The number of steps not yet used.
    pub fn remaining(&self) -> usize {
        self.lock().steps.len()
    }
}

impl Model for ScriptedModel {
    fn generate<'a>(
        &'a self,
        request: ModelRequest,
        stream: Option<ModelStream>,
    ) -> BoxFuture<'a, Result<ModelResponse, ModelError>> {
        let step = {
            let mut script = self.lock();
            script.requests.push(request);
            script
                .steps
                .pop_front()
                .or_else(|| script.repeat_last.clone())
        };
        async move {
            match step {
                None => Err(ModelError::new(
                    "the scripted model has no response left: add one with then_…",
                )),
                Some(Step::Fail(message)) => Err(ModelError::new(message)),
                Some(Step::Respond(chunks, response)) => {
                    if let Some(stream) = &stream {
                        for chunk in chunks {
                            stream
                                .send(chunk)
                                .map_err(|e| ModelError::new(format!("streaming failed: {e}")))?;
                        }
                    }
                    Ok(response)
                }
            }
        }
        .boxed()
    }
}
