//! The agent: a model, tools, hooks and limits, and the start of a run.

use std::collections::HashMap;
use std::sync::Arc;

use futures::FutureExt;

use super::call::{AnswersErrors, Exec, TerminalGate};
use super::resume::Resume;
use super::turn::{with_turn_hooks, Run, Setup};
use crate::hook::{Chain, ModelHook, ToolHook, TurnEnd, TurnHook, TurnInfo};
use crate::message::{Chunk, Message};
use crate::model::stream::{ChunkSink, Stream};
use crate::model::{Model, ToolChoice, Usage};
use crate::run::response::{Response, TurnOutcome};
use crate::run::{RunError, RunErrorKind};
use crate::tool::Tool;
use crate::tool::ToolDefinition;

/// The default number of tool rounds a run may take.
pub const DEFAULT_MAX_TURNS: usize = 5;

/// A configured tool loop: a model, tools, hooks, limits.
///
/// ```
/// use schemars::JsonSchema;
/// use serde::Deserialize;
/// use serde_json::json;
/// use submit_agent::prelude::*;
///
/// #[derive(Deserialize, JsonSchema)]
/// struct Add { a: i64, b: i64 }
///
/// let model = ScriptedModel::new()
///     .then_message(vec![Part::tool_request("add", None, json!({"a": 2, "b": 3}))])
///     .then_text("5");
/// let agent = Agent::new(model.clone()).tool(Tool::new(
///     "add",
///     "Adds.",
///     |_ctx: ToolContext, i: Add| async move { Ok::<_, ToolError>(i.a + i.b) },
/// ));
/// let response = futures::executor::block_on(agent.generate(vec![Message::user("2+3?")])).unwrap();
/// assert_eq!(response.text(), "5");
/// let second = &model.requests()[1];
/// assert_eq!(second.messages[2].content[0].as_tool_response().unwrap().output, Some(json!(5)));
/// ```
#[derive(Clone)]
pub struct Agent {
    model: Arc<dyn Model>,
    tools: Vec<Tool>,
    tool_hooks: Vec<Arc<dyn ToolHook>>,
    turn_hooks: Vec<Arc<dyn TurnHook>>,
    model_hooks: Vec<Arc<dyn ModelHook>>,
    answers_errors: Vec<AnswersErrors>,
    max_turns: usize,
    tool_choice: ToolChoice,
    sink: Option<ChunkSink>,
}

impl std::fmt::Debug for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Agent")
            .field("tools", &self.tools)
            .field("max_turns", &self.max_turns)
            .finish_non_exhaustive()
    }
}

impl Agent {
    /// A loop around `model`, with no tools and [`DEFAULT_MAX_TURNS`].
    pub fn new(model: impl Model + 'static) -> Self {
        Agent {
            model: Arc::new(model),
            tools: Vec::new(),
            tool_hooks: Vec::new(),
            turn_hooks: Vec::new(),
            model_hooks: Vec::new(),
            answers_errors: Vec::new(),
            max_turns: DEFAULT_MAX_TURNS,
            tool_choice: ToolChoice::Auto,
            sink: None,
        }
    }

    /// Adds a tool.
    pub fn tool(mut self, tool: impl Into<Tool>) -> Self {
        self.tools.push(tool.into());
        self
    }

    /// Adds a tool hook; the first added is outermost.
    pub fn hook(mut self, hook: impl ToolHook + 'static) -> Self {
        self.tool_hooks.push(Arc::new(hook));
        self
    }

    /// Adds a turn hook; the first added is outermost.
    pub fn turn_hook(mut self, hook: impl TurnHook + 'static) -> Self {
        self.turn_hooks.push(Arc::new(hook));
        self
    }

    /// Adds a model hook; the first added is outermost.
    pub fn model_hook(mut self, hook: impl ModelHook + 'static) -> Self {
        self.model_hooks.push(Arc::new(hook));
        self
    }

    /// Answers the own errors of the tools `covers` names (and unknown tool names it covers) to
    /// the model instead of stopping the run; several combine. `Agent::soft_tool_errors` sets
    /// it.
    pub(crate) fn answer_errors_of(
        mut self,
        covers: impl Fn(&str) -> bool + Send + Sync + 'static,
    ) -> Self {
        self.answers_errors.push(Arc::new(covers));
        self
    }

    /// How many tool rounds a run may take; one more fails with max turns exceeded.
    ///
    /// Under an [`Executor`](crate::executor::Executor), the last round's request forces the submit tool
    /// (or, where the executor may not force it, ends with a user message asking for it), so a
    /// run out of turns still ends with a result when the model can give one.
    pub fn max_turns(mut self, rounds: usize) -> Self {
        self.max_turns = rounds;
        self
    }

    /// The tool choice of every model request (a forced terminal choice overrides it).
    pub fn tool_choice(mut self, choice: ToolChoice) -> Self {
        self.tool_choice = choice;
        self
    }

    /// Streams every model and tool chunk to `sink`.
    pub fn stream<F>(mut self, sink: F) -> Self
    where
        F: Fn(Chunk) -> Result<(), crate::model::StreamError> + Send + Sync + 'static,
    {
        self.sink = Some(Arc::new(sink));
        self
    }

    /// The caller's tools.
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// Runs the loop on `messages` until the model stops calling tools, a call interrupts, or
    /// an error stops it.
    pub async fn generate(&self, messages: Vec<Message>) -> Result<Response, RunError> {
        self.run_with(messages, None, None).await
    }

    /// Resumes an interrupted conversation (its [`Response::history`]) with directives.
    pub async fn resume(
        &self,
        messages: Vec<Message>,
        resume: Resume,
    ) -> Result<Response, RunError> {
        self.run_with(messages, Some(resume), None).await
    }

    pub(crate) async fn run_with(
        &self,
        messages: Vec<Message>,
        resume: Option<Resume>,
        terminal: Option<&dyn TerminalGate>,
    ) -> Result<Response, RunError> {
        let mut tools = HashMap::new();
        for tool in &self.tools {
            if tools.insert(tool.name().to_owned(), tool.clone()).is_some() {
                return Err(RunError::new(RunErrorKind::Config(format!(
                    "duplicate tool {:?}: register each tool once",
                    tool.name()
                ))));
            }
        }
        let mut definitions: Vec<ToolDefinition> = Vec::new();
        if let Some(t) = terminal {
            definitions.push(t.definition());
        }
        definitions.extend(self.tools.iter().map(|t| t.definition().clone()));
        let start = messages.len();
        let mut run = Run {
            setup: Setup {
                model: self.model.as_ref(),
                model_hooks: &self.model_hooks,
                turn_hooks: &self.turn_hooks,
                max_turns: self.max_turns,
                tool_choice: &self.tool_choice,
            },
            exec: Exec {
                chain: Chain::new(&self.tool_hooks, tools),
                stream: self.sink.clone().map(Stream::new),
                answers_errors: &self.answers_errors,
            },
            terminal,
            definitions,
            messages: messages.into_iter().map(Arc::new).collect(),
            start,
            usage: Usage::default(),
            turn: 0,
            rounds: 0,
            unusable: 0,
            force_next: false,
            budget_asked: false,
        };
        if let Some(resume) = resume {
            let info = TurnInfo {
                turn: 0,
                message_index: 0,
            };
            let body = run.resume(resume).map(|r| {
                r.map(|done| TurnEnd(done.map_or(TurnOutcome::Continue, TurnOutcome::Done)))
            });
            if let TurnOutcome::Done(done) =
                with_turn_hooks(&self.turn_hooks, info, body.boxed()).await?
            {
                return Ok(done);
            }
            run.turn = 1;
            run.rounds = 1;
        }
        run.drive().await
    }
}
