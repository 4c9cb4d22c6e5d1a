//! The loop: turns, tool rounds, interrupts, resume, streaming.

use std::collections::HashMap;
use std::sync::Arc;

use futures::future::{join_all, BoxFuture};
use futures::FutureExt;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::context::{CallState, Delivery};
use crate::definition::ToolDefinition;
use crate::error::{RunError, RunErrorKind, ToolError};
use crate::hook::{Chain, ModelHook, ModelNext, ToolCall, ToolHook, TurnEnd, TurnHook, TurnInfo};
use crate::message::{
    json_type, Chunk, Interrupt, JsonObject, Message, Part, PartKind, PendingOutput, Role,
    ToolRequest, ToolResponse, KEY_IS_ERROR, KEY_SOURCE,
};
use crate::middleware::SoftToolErrors;
use crate::model::{FinishReason, Model, ModelRequest, ToolChoice, Usage};
use crate::response::{Response, TurnOutcome};
use crate::stream::{ChunkSink, ModelStream, Stream};
use crate::tool::{Tool, ToolOutput};

/// The default number of tool rounds a run may take.
pub const DEFAULT_MAX_TURNS: usize = 5;

const INTERRUPTED_MESSAGE: &str = "One or more tool calls resulted in interrupts.";
const REINTERRUPTED_MESSAGE: &str =
    "One or more tools triggered interrupts while resuming generation. The model was not called.";

/// Directives answering the interrupts of a stored conversation.
///
/// ```
/// use submit_agent::{Part, Resume};
///
/// let resume = Resume::new().respond(Part::tool_response("ask", Some("1".into()), None));
/// assert_eq!(resume.respond.len(), 1);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Resume {
    /// Restart directives: tool requests with restart state.
    #[serde(default)]
    pub restart: Vec<Part>,
    /// Respond directives: tool responses.
    #[serde(default)]
    pub respond: Vec<Part>,
    /// Metadata stored on the resumed tool message (`resumed`), `true` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<JsonObject>,
}

impl Resume {
    /// No directives.
    pub fn new() -> Self {
        Resume::default()
    }

    /// Adds a restart directive.
    pub fn restart(mut self, part: Part) -> Self {
        self.restart.push(part);
        self
    }

    /// Adds a respond directive.
    pub fn respond(mut self, part: Part) -> Self {
        self.respond.push(part);
        self
    }

    /// Sorts parts into restart (tool requests) and respond (everything else, checked later).
    pub fn from_parts(parts: impl IntoIterator<Item = Part>) -> Self {
        let mut resume = Resume::new();
        for part in parts {
            if part.as_tool_request().is_some() {
                resume.restart.push(part);
            } else {
                resume.respond.push(part);
            }
        }
        resume
    }
}

/// A configured tool loop: a model, tools, hooks, limits.
///
/// ```
/// use schemars::JsonSchema;
/// use serde::Deserialize;
/// use serde_json::json;
/// use submit_agent::{Agent, Message, Part, ScriptedModel, Tool, ToolContext, ToolError};
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
    soft_errors: Vec<SoftToolErrors>,
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
            soft_errors: Vec::new(),
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

    /// Answers errors of the covered tools to the model (instances combine).
    pub fn soft_tool_errors(mut self, policy: SoftToolErrors) -> Self {
        self.soft_errors.push(policy);
        self
    }

    /// How many tool rounds a run may take; one more fails with max turns exceeded.
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
        F: Fn(Chunk) -> Result<(), crate::StreamError> + Send + Sync + 'static,
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
            agent: self,
            exec: Exec {
                chain: Chain::new(&self.tool_hooks, tools),
                stream: self.sink.clone().map(Stream::new),
                soft: &self.soft_errors,
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
        };
        if let Some(resume) = resume {
            let info = TurnInfo {
                turn: 0,
                message_index: 0,
            };
            let body = run.resume(resume).map(|r| {
                r.map(|done| TurnEnd(done.map_or(TurnOutcome::Continue, TurnOutcome::Done)))
            });
            if let TurnOutcome::Done(done) = with_turn_hooks(self, info, body.boxed()).await? {
                return Ok(done);
            }
            run.turn = 1;
            run.rounds = 1;
        }
        run.drive().await
    }
}

/// Runs a turn's body inside the turn hooks, the first outermost.
async fn with_turn_hooks<'b>(
    agent: &'b Agent,
    info: TurnInfo,
    body: BoxFuture<'b, Result<TurnEnd, RunError>>,
) -> Result<TurnOutcome, RunError> {
    let mut turn = body;
    for hook in agent.turn_hooks.iter().rev() {
        turn = hook.wrap_turn(info, turn);
    }
    Ok(turn.await?.0)
}

/// The executor's hold on the terminal tool, erased over the response type.
pub(crate) trait TerminalGate: Send + Sync {
    fn name(&self) -> &str;
    fn definition(&self) -> ToolDefinition;
    fn forbid_forcing(&self) -> bool;
    fn gate<'a>(&'a self, request: &'a ToolRequest) -> BoxFuture<'a, GateStep>;
}

/// What the gate made of one terminal call.
pub(crate) enum GateStep {
    /// Answer the model; the run continues.
    Answer { output: Value, is_error: bool },
    /// Committed; the run ends.
    Commit { output: Value },
    /// A validator failed; the run aborts.
    Abort(String),
}

/// How one call ended.
#[allow(
    clippy::large_enum_variant,
    reason = "short-lived, one per call; boxing the common case buys nothing"
)]
enum CallResult {
    Done(Part),
    Interrupted(Interrupt),
    Failed(ToolError),
}

/// What runs calls: the chain, the stream and the soft-error policies.
struct Exec<'a> {
    chain: Arc<Chain>,
    stream: Option<Arc<Stream>>,
    soft: &'a [SoftToolErrors],
}

impl Exec<'_> {
    async fn call(&self, request: ToolRequest, delivery: Option<Delivery>) -> CallResult {
        let state = CallState::new(
            request.name.clone(),
            request.reference.clone(),
            self.stream.clone(),
            delivery,
        );
        let call = ToolCall {
            name: request.name.clone(),
            reference: request.reference.clone(),
            input: request.input,
        };
        let result = self.chain.execute(call, Arc::clone(&state)).await;
        let attached = state.take_parts();
        match result {
            Ok(mut out) => {
                out.content.extend(attached);
                CallResult::Done(response_part(&request.name, request.reference, out))
            }
            Err(e) => {
                if let Some(interrupt) = e.as_interrupt() {
                    return CallResult::Interrupted(interrupt.clone());
                }
                match self.soft_answer(&e, &request.name) {
                    Some(message) => CallResult::Done(error_part(
                        &request.name,
                        request.reference,
                        message,
                        attached,
                    )),
                    None => CallResult::Failed(e),
                }
            }
        }
    }

    fn soft_answer(&self, e: &ToolError, name: &str) -> Option<String> {
        if let Some(text) = e.fail_text() {
            return Some(text.to_owned());
        }
        (e.is_tools_own() && self.soft.iter().any(|p| p.covers(name))).then(|| e.to_string())
    }
}

fn response_part(name: &str, reference: Option<String>, out: ToolOutput) -> Part {
    Part {
        kind: PartKind::ToolResponse(ToolResponse {
            name: name.to_owned(),
            reference,
            output: out.output,
            content: out.content,
        }),
        metadata: out.metadata,
    }
}

fn error_part(name: &str, reference: Option<String>, message: String, content: Vec<Part>) -> Part {
    let mut part = response_part(
        name,
        reference,
        ToolOutput {
            output: Some(json!({ "error": message })),
            content,
            metadata: None,
        },
    );
    part.set_meta(KEY_IS_ERROR, Value::Bool(true));
    part
}

fn pending_of(part: &Part) -> PendingOutput {
    let response = part.as_tool_response().cloned().unwrap_or_default();
    PendingOutput {
        output: response.output,
        content: response.content,
        metadata: part.metadata.clone(),
    }
}

fn with_request(part: &Part, edit: impl FnOnce(&mut ToolRequest)) -> Part {
    let mut part = part.clone();
    if let PartKind::ToolRequest(r) = &mut part.kind {
        edit(r);
    }
    part
}

struct Run<'a> {
    agent: &'a Agent,
    exec: Exec<'a>,
    terminal: Option<&'a dyn TerminalGate>,
    definitions: Vec<ToolDefinition>,
    messages: Vec<Arc<Message>>,
    start: usize,
    usage: Usage,
    turn: usize,
    rounds: usize,
    unusable: usize,
    force_next: bool,
}

/// How a round ended.
enum Round {
    Complete {
        tool_message: Message,
        committed: bool,
    },
    Interrupted(Message),
}

impl<'a> Run<'a> {
    fn response(
        &self,
        message: Option<Message>,
        finish: FinishReason,
        note: Option<&str>,
    ) -> Response {
        Response {
            messages: self.messages.iter().map(|m| Message::clone(m)).collect(),
            message,
            finish_reason: finish,
            finish_message: note.map(str::to_owned),
            usage: self.usage,
        }
    }

    fn fail(&self, kind: RunErrorKind, finish: FinishReason) -> RunError {
        let note = kind.to_string();
        let partial = self.response(None, finish, Some(&note));
        RunError::with_partial(kind, partial)
    }

    async fn drive(&mut self) -> Result<Response, RunError> {
        let agent = self.agent;
        loop {
            let info = TurnInfo {
                turn: self.turn,
                message_index: self.messages.len().saturating_sub(self.start),
            };
            let body = self.turn_body(info).map(|r| r.map(TurnEnd)).boxed();
            match with_turn_hooks(agent, info, body).await? {
                TurnOutcome::Continue => self.turn += 1,
                TurnOutcome::Done(response) => return Ok(response),
            }
        }
    }

    async fn turn_body(&mut self, info: TurnInfo) -> Result<TurnOutcome, RunError> {
        if let Some(stream) = &self.exec.stream {
            stream.begin_turn(info.message_index);
        }
        let tool_choice = match (self.force_next, self.terminal) {
            (true, Some(t)) => ToolChoice::Tool(t.name().to_owned()),
            _ => self.agent.tool_choice.clone(),
        };
        let request = ModelRequest {
            messages: self.messages.clone(),
            tools: self.definitions.clone(),
            tool_choice,
        };
        let next = ModelNext {
            hooks: &self.agent.model_hooks,
            model: self.agent.model.as_ref(),
            stream: self.exec.stream.as_ref().map(|s| ModelStream {
                stream: Arc::clone(s),
            }),
        };
        let response = match next.run(request).await {
            Ok(r) => r,
            Err(e) => return Err(self.fail(RunErrorKind::Model(e), FinishReason::Failed)),
        };
        self.usage += response.usage;
        let mut message = response.message;
        let mut counter = 0usize;
        for part in &mut message.content {
            if let PartKind::ToolRequest(r) = &mut part.kind {
                counter += 1;
                if r.reference.is_none() {
                    r.reference = Some(format!("call-{}-{counter}", info.message_index));
                }
            }
        }
        if message.tool_requests().next().is_none() {
            if let Some(t) = self.terminal {
                self.unusable += 1;
                if self.unusable >= 3 {
                    return Err(self.fail(
                        RunErrorKind::Unusable {
                            turns: self.unusable,
                            tool: t.name().to_owned(),
                        },
                        FinishReason::Failed,
                    ));
                }
                self.messages.push(Arc::new(message));
                self.messages.push(Arc::new(Message::user(nudge(t.name()))));
                self.force_next = !t.forbid_forcing();
                return Ok(TurnOutcome::Continue);
            }
            return Ok(TurnOutcome::Done(self.response(
                Some(message),
                response.finish_reason,
                None,
            )));
        }
        self.unusable = 0;
        self.force_next = false;
        if self.rounds + 1 > self.agent.max_turns {
            return Err(self.fail(
                RunErrorKind::MaxTurnsExceeded(self.agent.max_turns),
                FinishReason::Aborted,
            ));
        }
        self.rounds += 1;
        match self.round(&message).await? {
            Round::Interrupted(revised) => Ok(TurnOutcome::Done(self.response(
                Some(revised),
                FinishReason::Interrupted,
                Some(INTERRUPTED_MESSAGE),
            ))),
            Round::Complete {
                tool_message,
                committed,
            } => {
                let index = info.message_index + 1;
                self.messages.push(Arc::new(message));
                self.messages.push(Arc::new(tool_message.clone()));
                self.stream_tool_message(&tool_message, index)?;
                if committed {
                    // The conversation ends with the tool message answering the submit.
                    self.messages.pop();
                    let done = self.response(Some(tool_message), FinishReason::Stop, None);
                    return Ok(TurnOutcome::Done(done));
                }
                Ok(TurnOutcome::Continue)
            }
        }
    }

    fn stream_tool_message(&self, tool_message: &Message, index: usize) -> Result<(), RunError> {
        let Some(stream) = &self.exec.stream else {
            return Ok(());
        };
        let chunk = Chunk {
            role: Some(Role::Tool),
            index,
            content: tool_message.content.clone(),
        };
        stream.send(chunk).map_err(|e| {
            // The round already happened; the history keeps it.
            let partial = self.response(None, FinishReason::Failed, Some(&e.0));
            RunError::with_partial(RunErrorKind::Stream(e.0), partial)
        })
    }

    fn is_terminal(&self, name: &str) -> bool {
        self.terminal.is_some_and(|t| t.name() == name)
    }

    /// Runs one round of the model message's tool requests.
    async fn round(&self, message: &Message) -> Result<Round, RunError> {
        let requests: Vec<(usize, &ToolRequest)> = message
            .content
            .iter()
            .enumerate()
            .filter_map(|(i, p)| p.as_tool_request().map(|r| (i, r)))
            .collect();
        let calls = requests
            .iter()
            .filter(|(_, r)| !self.is_terminal(&r.name))
            .map(|(i, r)| {
                let i = *i;
                self.exec.call((*r).clone(), None).map(move |res| (i, res))
            });
        let results: HashMap<usize, CallResult> = join_all(calls).await.into_iter().collect();

        for (i, r) in &requests {
            if let Some(CallResult::Failed(e)) = results.get(i) {
                return Err(self.fail(
                    RunErrorKind::ToolFailed {
                        name: r.name.clone(),
                        message: e.to_string(),
                    },
                    FinishReason::Failed,
                ));
            }
        }
        if results
            .values()
            .any(|r| matches!(r, CallResult::Interrupted(_)))
        {
            let mut revised = message.clone();
            for (i, part) in revised.content.iter_mut().enumerate() {
                match results.get(&i) {
                    Some(CallResult::Interrupted(interrupt)) => {
                        *part = with_request(part, |r| r.interrupt = Some(interrupt.clone()));
                    }
                    Some(CallResult::Done(response)) => {
                        let pending = pending_of(response);
                        *part = with_request(part, |r| r.pending = Some(pending));
                    }
                    _ => {}
                }
            }
            return Ok(Round::Interrupted(revised));
        }
        let mut responses: HashMap<usize, Part> = results
            .into_iter()
            .filter_map(|(i, r)| match r {
                CallResult::Done(p) => Some((i, p)),
                _ => None,
            })
            .collect();
        let committed = self.run_terminals(&requests, &mut responses).await?;
        let content = requests
            .iter()
            .filter_map(|(i, _)| responses.remove(i))
            .collect();
        Ok(Round::Complete {
            tool_message: Message::new(Role::Tool, content),
            committed,
        })
    }

    /// Runs the terminal calls after the others, in the model's order.
    async fn run_terminals(
        &self,
        requests: &[(usize, &ToolRequest)],
        responses: &mut HashMap<usize, Part>,
    ) -> Result<bool, RunError> {
        let Some(gate) = self.terminal else {
            return Ok(false);
        };
        let mut committed = false;
        for (i, r) in requests.iter().filter(|(_, r)| self.is_terminal(&r.name)) {
            let part = if committed {
                let mut part = response_part(
                    &r.name,
                    r.reference.clone(),
                    ToolOutput::value(json!({"error": "a terminal result was already accepted"})),
                );
                part.set_meta(KEY_IS_ERROR, Value::Bool(true));
                part
            } else {
                match gate.gate(r).await {
                    GateStep::Answer { output, is_error } => {
                        let mut part =
                            response_part(&r.name, r.reference.clone(), ToolOutput::value(output));
                        if is_error {
                            part.set_meta(KEY_IS_ERROR, Value::Bool(true));
                        }
                        part
                    }
                    GateStep::Commit { output } => {
                        committed = true;
                        response_part(&r.name, r.reference.clone(), ToolOutput::value(output))
                    }
                    GateStep::Abort(message) => {
                        return Err(self.fail(
                            RunErrorKind::ResultValidation(message),
                            FinishReason::Failed,
                        ))
                    }
                }
            };
            responses.insert(*i, part);
        }
        Ok(committed)
    }

    /// Turn 0 of a resume: validates every directive, then runs the steps. `Some` when the
    /// run ended here (a committed submit).
    async fn resume(&mut self, resume: Resume) -> Result<Option<Response>, RunError> {
        let invalid = |m: String| RunError::new(RunErrorKind::InvalidResume(m));
        let mut restarts = Vec::new();
        for part in &resume.restart {
            match part.as_tool_request() {
                Some(r) => restarts.push((r, part)),
                None => {
                    return Err(invalid(
                        "a restart directive must be a tool request part".into(),
                    ))
                }
            }
        }
        let mut responds = Vec::new();
        for part in &resume.respond {
            match part.as_tool_response() {
                Some(r) => responds.push((r, part)),
                None => {
                    return Err(invalid(
                        "a respond directive must be a tool response part".into(),
                    ))
                }
            }
        }
        for name in restarts
            .iter()
            .map(|(r, _)| r.name.as_str())
            .chain(responds.iter().map(|(r, _)| r.name.as_str()))
        {
            if !self.is_terminal(name) && !self.exec.chain.tools.contains_key(name) {
                return Err(invalid(format!("tool {name:?} not found")));
            }
        }
        let Some(last) = self.messages.last().map(|m| Message::clone(m)) else {
            return Err(invalid(
                "cannot resume a conversation with no messages".into(),
            ));
        };
        if last.role != Role::Model || last.tool_requests().next().is_none() {
            return Err(invalid(
                "cannot resume unless the last message is by the model with at least one tool request".into(),
            ));
        }

        enum Step {
            Replay(Part),
            Respond(Part),
            Restart(ToolRequest, Option<Delivery>),
            Terminal,
        }
        let mut plan: Vec<(usize, Step)> = Vec::new();
        for (i, part) in last.content.iter().enumerate() {
            let Some(request) = part.as_tool_request() else {
                continue;
            };
            let same = |name: &str, reference: &Option<String>| {
                name == request.name && *reference == request.reference
            };
            if let Some(pending) = &request.pending {
                let mut response = response_part(
                    &request.name,
                    request.reference.clone(),
                    ToolOutput {
                        output: pending.output.clone(),
                        content: pending.content.clone(),
                        metadata: pending.metadata.clone(),
                    },
                );
                response.set_meta(KEY_SOURCE, Value::String("pending".into()));
                plan.push((i, Step::Replay(response)));
            } else if let Some((r, p)) = responds.iter().find(|(r, _)| same(&r.name, &r.reference))
            {
                if let (Some(tool), Some(output)) =
                    (self.exec.chain.tools.get(&r.name), r.output.as_ref())
                {
                    tool.check_output(output).map_err(|problem| {
                        invalid(format!(
                            "tool {:?} output validation failed: {problem}",
                            r.name
                        ))
                    })?;
                }
                plan.push((i, Step::Respond((*p).clone())));
            } else if let Some((r, _)) = restarts.iter().find(|(r, _)| same(&r.name, &r.reference))
            {
                if self.is_terminal(&r.name) {
                    plan.push((i, Step::Terminal));
                    continue;
                }
                let interrupt = request
                    .interrupt
                    .clone()
                    .or_else(|| r.interrupt.clone())
                    .unwrap_or_default();
                let delivery = match &r.restart {
                    None => None,
                    Some(restart) => {
                        let resume = match &restart.resume {
                            None | Some(Value::Null) | Some(Value::Bool(true)) => JsonObject::new(),
                            Some(Value::Object(m)) => m.clone(),
                            Some(other) => {
                                return Err(invalid(format!(
                                    "resume data for tool {:?} must be a JSON object (a struct or map), got {}; a bare restart carries true or no payload",
                                    r.name,
                                    json_type(other)
                                )))
                            }
                        };
                        if interrupt.raised_by.is_none() {
                            if let Some(tool) = self.exec.chain.tools.get(&r.name) {
                                tool.check_resume(&Value::Object(resume.clone())).map_err(
                                    |problem| {
                                        invalid(format!(
                                            "resume data for tool {:?} does not match its resume schema: {problem}",
                                            r.name
                                        ))
                                    },
                                )?;
                            }
                        }
                        Some(Delivery {
                            resume,
                            original_input: restart.original_input.clone(),
                            legacy: interrupt.raised_by.is_none()
                                && interrupt.released_by.is_empty(),
                            raised_by: interrupt.raised_by,
                            released_by: interrupt.released_by,
                        })
                    }
                };
                let mut run_request = (*r).clone();
                run_request.interrupt = None;
                run_request.restart = None;
                plan.push((i, Step::Restart(run_request, delivery)));
            } else if self.is_terminal(&request.name) {
                plan.push((i, Step::Terminal));
            } else {
                let held = request
                    .interrupt
                    .as_ref()
                    .and_then(|i| i.raised_by.as_ref())
                    .map(|id| format!(" (it is held by the middleware {id:?})"))
                    .unwrap_or_default();
                return Err(invalid(format!(
                    "unresolved tool request \"{}#{}\" was not handled by the resume: supply a respond or restart directive for it, or keep the pending output of a previous call{held}",
                    request.name,
                    request.reference.as_deref().unwrap_or("")
                )));
            }
        }

        // Every directive checked: run the steps concurrently.
        if let Some(stream) = &self.exec.stream {
            stream.begin_resume();
        }
        let exec = &self.exec;
        let results: HashMap<usize, CallResult> =
            join_all(plan.into_iter().map(|(i, step)| async move {
                let result = match step {
                    Step::Replay(p) | Step::Respond(p) => Some(CallResult::Done(p)),
                    Step::Restart(request, delivery) => Some(exec.call(request, delivery).await),
                    Step::Terminal => None,
                };
                (i, result)
            }))
            .await
            .into_iter()
            .filter_map(|(i, r)| r.map(|r| (i, r)))
            .collect();

        let history_len = self.messages.len().saturating_sub(1);
        let mut revised = last.clone();
        let failed = last
            .content
            .iter()
            .enumerate()
            .find_map(|(i, p)| match results.get(&i) {
                Some(CallResult::Failed(e)) => Some((p, e)),
                _ => None,
            });
        let reinterrupted = results
            .values()
            .any(|r| matches!(r, CallResult::Interrupted(_)));
        if failed.is_some() || reinterrupted {
            for (i, part) in revised.content.iter_mut().enumerate() {
                match results.get(&i) {
                    Some(CallResult::Done(response)) => {
                        let pending = pending_of(response);
                        *part = with_request(part, |r| {
                            r.pending = Some(pending);
                            if let Some(int) = &mut r.interrupt {
                                int.resolved = true;
                            }
                        });
                    }
                    Some(CallResult::Interrupted(interrupt)) if failed.is_none() => {
                        *part = with_request(part, |r| r.interrupt = Some(interrupt.clone()));
                    }
                    _ => {}
                }
            }
            self.messages.truncate(history_len);
            if let Some((part, e)) = failed {
                let name = part
                    .as_tool_request()
                    .map(|r| r.name.clone())
                    .unwrap_or_default();
                let kind = RunErrorKind::ToolFailed {
                    name,
                    message: format!("failed to resolve resumed tool request: {e}"),
                };
                let note = kind.to_string();
                let partial = self.response(Some(revised), FinishReason::Failed, Some(&note));
                return Err(RunError::with_partial(kind, partial));
            }
            let partial = self.response(
                Some(revised),
                FinishReason::Interrupted,
                Some(REINTERRUPTED_MESSAGE),
            );
            return Err(RunError::with_partial(
                RunErrorKind::InterruptedOnResume,
                partial,
            ));
        }

        // All resolved: mark the history, run terminal calls, append the tool message.
        for (i, part) in revised.content.iter_mut().enumerate() {
            if results.contains_key(&i) {
                *part = with_request(part, |r| {
                    r.pending = None;
                    if let Some(int) = &mut r.interrupt {
                        int.resolved = true;
                    }
                });
            }
        }
        let requests: Vec<(usize, &ToolRequest)> = revised
            .content
            .iter()
            .enumerate()
            .filter_map(|(i, p)| p.as_tool_request().map(|r| (i, r)))
            .collect();
        let mut responses: HashMap<usize, Part> = results
            .into_iter()
            .filter_map(|(i, r)| match r {
                CallResult::Done(p) => Some((i, p)),
                _ => None,
            })
            .collect();
        let committed = self.run_terminals(&requests, &mut responses).await?;
        let content: Vec<Part> = requests
            .iter()
            .filter_map(|(i, _)| responses.remove(i))
            .collect();
        let mut tool_message = Message::new(Role::Tool, content);
        let mut meta = JsonObject::new();
        meta.insert(
            "resumed".into(),
            resume
                .metadata
                .clone()
                .map_or(Value::Bool(true), Value::Object),
        );
        tool_message.metadata = Some(meta);
        self.messages.truncate(history_len);
        self.messages.push(Arc::new(revised));
        self.start = self.messages.len();
        self.messages.push(Arc::new(tool_message.clone()));
        self.stream_tool_message(&tool_message, 0)?;
        if committed {
            self.messages.pop();
            let done = self.response(Some(tool_message), FinishReason::Stop, None);
            return Ok(Some(done));
        }
        Ok(None)
    }
}

/// The user message after a text-only turn, naming the configured terminal tool.
pub(crate) fn nudge(tool: &str) -> String {
    format!(
        "Your last turn did not call any tool, so the run cannot end. To finish, call the {tool} tool now with your complete, final result."
    )
}
