//! Turns and tool rounds: ask the model, run its calls, gate the terminal one, repeat.

use std::collections::HashMap;
use std::sync::Arc;

use futures::future::{join_all, BoxFuture};
use futures::FutureExt;
use serde_json::Value;
use submit_core::{StopReason, PARALLEL_WRAPPER};

use super::call::{pending_of, with_request, CallResult, Exec, GateStep, GateTurn, TerminalGate};
use super::wrapper::{already_accepted, answer_part, wrappers};
use crate::hook::{ModelHook, ModelNext, TurnEnd, TurnHook, TurnInfo};
use crate::message::{Chunk, Message, Part, PartKind, Role, ToolRequest};
use crate::model::stream::ModelStream;
use crate::model::{FinishReason, Model, ModelRequest, ModelResponse, ToolChoice, Usage};
use crate::run::response::{Response, TurnOutcome};
use crate::run::{RunError, RunErrorKind};
use crate::tool::ToolDefinition;

const INTERRUPTED_MESSAGE: &str = "One or more tool calls resulted in interrupts.";

/// What a run reads of the agent's options.
#[derive(Clone, Copy)]
pub(super) struct Setup<'a> {
    pub(super) model: &'a dyn Model,
    pub(super) model_hooks: &'a [Arc<dyn ModelHook>],
    pub(super) turn_hooks: &'a [Arc<dyn TurnHook>],
    pub(super) max_turns: usize,
    pub(super) tool_choice: &'a ToolChoice,
}

/// Runs a turn's body inside the turn hooks, the first outermost.
pub(super) async fn with_turn_hooks<'b>(
    hooks: &'b [Arc<dyn TurnHook>],
    info: TurnInfo,
    body: BoxFuture<'b, Result<TurnEnd, RunError>>,
) -> Result<TurnOutcome, RunError> {
    let mut turn = body;
    for hook in hooks.iter().rev() {
        turn = hook.wrap_turn(info, turn);
    }
    Ok(turn.await?.0)
}

pub(super) struct Run<'a> {
    pub(super) setup: Setup<'a>,
    pub(super) exec: Exec<'a>,
    pub(super) terminal: Option<&'a dyn TerminalGate>,
    pub(super) definitions: Vec<ToolDefinition>,
    pub(super) messages: Vec<Arc<Message>>,
    pub(super) start: usize,
    pub(super) usage: Usage,
    pub(super) turn: usize,
    pub(super) rounds: usize,
    pub(super) unusable: usize,
    pub(super) force_next: bool,
    /// The last turn's user message asking for the submit was sent (where forcing is refused).
    pub(super) budget_asked: bool,
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
    pub(super) fn response(
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

    pub(super) fn fail(&self, kind: RunErrorKind, finish: FinishReason) -> RunError {
        let note = kind.to_string();
        let partial = self.response(None, finish, Some(&note));
        RunError::with_partial(kind, partial)
    }

    pub(super) async fn drive(&mut self) -> Result<Response, RunError> {
        let hooks = self.setup.turn_hooks;
        loop {
            let info = TurnInfo {
                turn: self.turn,
                message_index: self.messages.len().saturating_sub(self.start),
            };
            let body = self.turn_body(info).map(|r| r.map(TurnEnd)).boxed();
            match with_turn_hooks(hooks, info, body).await? {
                TurnOutcome::Continue => self.turn += 1,
                TurnOutcome::Done(response) => return Ok(response),
            }
        }
    }

    /// One turn: ask the model, then end the run, nudge it after a turn with no tool call, or
    /// run the round of its calls.
    async fn turn_body(&mut self, info: TurnInfo) -> Result<TurnOutcome, RunError> {
        if let Some(stream) = &self.exec.stream {
            stream.begin_turn(info.message_index);
        }
        let budget = self.budget();
        let response = self.ask_model(budget).await?;
        let finish_reason = response.finish_reason;
        let mut message = response.message;
        self.name_requests(&mut message, info.message_index);
        // What the round needs to know of this turn, kept on the message so a resumed round
        // knows it too.
        if finish_reason == FinishReason::Length {
            set_flag(&mut message, KEY_FINISH_REASON, Value::from(LENGTH));
        }
        if budget.is_some() {
            set_flag(&mut message, KEY_FORCED_BY_BUDGET, Value::Bool(true));
        }
        if message.tool_requests().next().is_none() {
            return self
                .text_turn(message, finish_reason, budget.is_some())
                .await;
        }
        self.tool_turn(message, info).await
    }

    /// The run's budget: on the last tool round it has, the request forces the submit (or,
    /// where forcing is refused, a user message asks for it), so that a run out of turns
    /// still ends with an answer when the model can give one. The terminal gate on that
    /// round, `None` on the others.
    fn budget(&mut self) -> Option<&'a dyn TerminalGate> {
        let last_round = self.setup.max_turns > 0 && self.rounds + 1 == self.setup.max_turns;
        let budget = self.terminal.filter(|_| last_round);
        if let Some(t) = budget {
            if t.forbid_forcing() && !self.budget_asked {
                self.budget_asked = true;
                self.messages
                    .push(Arc::new(Message::user(last_turn_request(t.name()))));
            }
        }
        budget
    }

    /// Asks the model through its hooks, with the tool choice this turn needs, and counts
    /// the usage.
    async fn ask_model(
        &mut self,
        budget: Option<&dyn TerminalGate>,
    ) -> Result<ModelResponse, RunError> {
        let tool_choice = match (self.force_next, self.terminal, budget) {
            (_, _, Some(t)) if !t.forbid_forcing() => ToolChoice::Tool(t.name().to_owned()),
            (true, Some(t), _) => ToolChoice::Tool(t.name().to_owned()),
            _ => self.setup.tool_choice.clone(),
        };
        let request = ModelRequest {
            messages: self.messages.clone(),
            tools: self.definitions.clone(),
            tool_choice,
        };
        let next = ModelNext {
            hooks: self.setup.model_hooks,
            model: self.setup.model,
            stream: self.exec.stream.as_ref().map(|s| ModelStream {
                stream: Arc::clone(s),
            }),
        };
        let response = match next.run(request).await {
            Ok(r) => r,
            Err(e) => return Err(self.fail(RunErrorKind::Model(e), FinishReason::Failed)),
        };
        self.usage += response.usage;
        Ok(response)
    }

    /// Gives each tool request without a reference one (`call-<message>-<n>`), and an
    /// ordinary tool's request its arguments as a value.
    fn name_requests(&self, message: &mut Message, message_index: usize) {
        let mut counter = 0usize;
        for part in &mut message.content {
            if let PartKind::ToolRequest(r) = &mut part.kind {
                counter += 1;
                if r.reference.is_none() {
                    r.reference = Some(format!("call-{message_index}-{counter}"));
                }
                // An ordinary tool and its hooks read a value; the terminal tool's parser
                // reads the arguments as they arrived.
                if r.input.is_null() && !self.is_terminal(&r.name) {
                    r.input = r.input_value().into_owned();
                }
            }
        }
    }

    /// A turn with no tool call. Without a terminal tool it ends the run. With one, a call
    /// of the terminal tool the model wrote as text commits as if made (the conversation
    /// keeps the turn as it was); otherwise the model is nudged to call it (with why, when
    /// the call it wrote was declined), and the third such turn in a row stops the run.
    async fn text_turn(
        &mut self,
        message: Message,
        finish_reason: FinishReason,
        forced_by_budget: bool,
    ) -> Result<TurnOutcome, RunError> {
        let Some(t) = self.terminal else {
            return Ok(TurnOutcome::Done(self.response(
                Some(message),
                finish_reason,
                None,
            )));
        };
        let end = if finish_reason == FinishReason::Length {
            StopReason::OutputLimit
        } else {
            StopReason::Complete
        };
        let turn = GateTurn {
            end,
            forced_by_budget,
        };
        let text = message.text();
        let hint = match t.gate_text(&text, turn).await {
            None => None,
            Some(GateStep::Commit { .. }) => {
                return Ok(TurnOutcome::Done(self.response(
                    Some(message),
                    FinishReason::Stop,
                    None,
                )));
            }
            Some(GateStep::Answer { output, .. }) => Some(answer_text(&output)),
            Some(GateStep::Abort(m)) => {
                return Err(self.fail(RunErrorKind::ResultValidation(m), FinishReason::Failed));
            }
        };
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
        let nudge = match hint {
            Some(hint) => nudge_with(t.name(), &hint),
            None => nudge(t.name()),
        };
        self.messages.push(Arc::new(Message::user(nudge)));
        self.force_next = !t.forbid_forcing();
        Ok(TurnOutcome::Continue)
    }

    /// A turn with tool calls: runs their round within the run's budget, then appends the
    /// message and the tool message answering it (the run ends when the submit committed).
    async fn tool_turn(
        &mut self,
        message: Message,
        info: TurnInfo,
    ) -> Result<TurnOutcome, RunError> {
        self.unusable = 0;
        self.force_next = false;
        if self.rounds + 1 > self.setup.max_turns {
            return Err(self.fail(
                RunErrorKind::MaxTurnsExceeded(self.setup.max_turns),
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

    pub(super) fn stream_tool_message(
        &self,
        tool_message: &Message,
        index: usize,
    ) -> Result<(), RunError> {
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
            RunError::with_partial(RunErrorKind::Stream(e), partial)
        })
    }

    pub(super) fn is_terminal(&self, name: &str) -> bool {
        self.terminal.is_some_and(|t| t.name() == name)
    }

    /// Runs one round of the model message's tool requests (the entries of a
    /// `multi_tool_use.parallel` call among them).
    async fn round(&self, message: &Message) -> Result<Round, RunError> {
        let requests = indexed_requests(message);
        // An entry of the terminal tool keeps its text for the terminal's parser.
        let terminal = self.terminal.map_or("", |t| t.name());
        let mut wrappers = wrappers(&requests, cut_call(message, &requests), terminal);
        let calls = requests
            .iter()
            .filter(|(_, r)| !self.is_terminal(&r.name) && r.name != PARALLEL_WRAPPER)
            .map(|(i, r)| {
                let i = *i;
                self.exec.call((*r).clone(), None).map(move |res| (i, res))
            });
        let entries = join_all(
            wrappers
                .iter_mut()
                .map(|w| w.run_calls(&self.exec, |name| self.is_terminal(name))),
        );
        let (results, entries) = futures::join!(join_all(calls), entries);
        let mut results: HashMap<usize, CallResult> = results.into_iter().collect();
        for entry in entries {
            if let Err((name, e)) = entry {
                return Err(self.tool_failed(name, e));
            }
        }
        let failed = requests
            .iter()
            .find(|(i, _)| matches!(results.get(i), Some(CallResult::Failed(_))));
        if let Some((i, r)) = failed {
            if let Some(CallResult::Failed(e)) = results.remove(i) {
                return Err(self.tool_failed(r.name.clone(), e));
            }
        }
        if results
            .values()
            .any(|r| matches!(r, CallResult::Interrupted(_)))
        {
            // A wrapper's terminal entries wait with the terminal calls: answered as not run.
            for w in wrappers {
                results.insert(w.index, CallResult::Done(w.into_part()));
            }
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
        let mut committed = false;
        if let Some(gate) = self.terminal {
            for w in &mut wrappers {
                committed = w
                    .run_terminal_entries(gate, forced_by_budget(message), committed)
                    .await
                    .map_err(|m| {
                        self.fail(RunErrorKind::ResultValidation(m), FinishReason::Failed)
                    })?;
            }
        }
        for w in wrappers {
            results.insert(w.index, CallResult::Done(w.into_part()));
        }
        let (content, committed) = self
            .finish_round(message, &requests, results, committed)
            .await?;
        Ok(Round::Complete {
            tool_message: Message::new(Role::Tool, content),
            committed,
        })
    }

    fn tool_failed(&self, name: String, e: crate::tool::ToolError) -> RunError {
        self.fail(
            RunErrorKind::ToolFailed {
                name,
                error: e.into_cause(),
            },
            FinishReason::Failed,
        )
    }

    /// Ends a round whose calls all resolved: the terminal calls run after the others, and the
    /// responses come back in the model's order, with whether a terminal call committed.
    pub(super) async fn finish_round(
        &self,
        message: &Message,
        requests: &[(usize, &ToolRequest)],
        results: HashMap<usize, CallResult>,
        committed: bool,
    ) -> Result<(Vec<Part>, bool), RunError> {
        let mut responses: HashMap<usize, Part> = results
            .into_iter()
            .filter_map(|(i, r)| match r {
                CallResult::Done(p) => Some((i, p)),
                _ => None,
            })
            .collect();
        let committed = self
            .run_terminals(message, requests, &mut responses, committed)
            .await?;
        let content = requests
            .iter()
            .filter_map(|(i, _)| responses.remove(i))
            .collect();
        Ok((content, committed))
    }

    /// Runs the terminal calls after the others, in the model's order. The message's last
    /// call, when its turn stopped at the output-token limit, is known to be cut off.
    async fn run_terminals(
        &self,
        message: &Message,
        requests: &[(usize, &ToolRequest)],
        responses: &mut HashMap<usize, Part>,
        mut committed: bool,
    ) -> Result<bool, RunError> {
        let Some(gate) = self.terminal else {
            return Ok(committed);
        };
        let cut = cut_call(message, requests);
        let forced_by_budget = forced_by_budget(message);
        for (i, r) in requests.iter().filter(|(_, r)| self.is_terminal(&r.name)) {
            let part = if committed {
                already_accepted(&r.name, r.reference.clone())
            } else {
                let end = if cut == Some(*i) {
                    StopReason::OutputLimit
                } else {
                    StopReason::Complete
                };
                let turn = GateTurn {
                    end,
                    forced_by_budget,
                };
                match gate.gate(r, turn).await {
                    GateStep::Answer { output, is_error } => {
                        answer_part(&r.name, r.reference.clone(), output, is_error)
                    }
                    GateStep::Commit { output } => {
                        committed = true;
                        answer_part(&r.name, r.reference.clone(), output, false)
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
}

/// The part index of the call the output-token limit cut: the message's last call, when its
/// turn stopped at the limit.
fn cut_call(message: &Message, requests: &[(usize, &ToolRequest)]) -> Option<usize> {
    (flag(message, KEY_FINISH_REASON) == Some(&Value::from(LENGTH)))
        .then(|| requests.last().map(|(i, _)| *i))
        .flatten()
}

/// Whether the run's budget forced this message's turn.
fn forced_by_budget(message: &Message) -> bool {
    flag(message, KEY_FORCED_BY_BUDGET) == Some(&Value::Bool(true))
}

fn flag<'m>(message: &'m Message, key: &str) -> Option<&'m Value> {
    message.metadata.as_ref().and_then(|m| m.get(key))
}

/// The message metadata key naming why a model turn stopped, when the round must know it.
const KEY_FINISH_REASON: &str = "finishReason";
/// Its value for a turn that stopped at the output-token limit.
const LENGTH: &str = "length";
/// The message metadata key marking a turn whose request the run's budget forced.
const KEY_FORCED_BY_BUDGET: &str = "forcedByBudget";

fn set_flag(message: &mut Message, key: &str, value: Value) {
    message
        .metadata
        .get_or_insert_with(Default::default)
        .insert(key.to_owned(), value);
}

/// The user message that asks for the submit on the run's last turn, where the provider
/// refuses a forced tool choice.
pub(crate) fn last_turn_request(tool: &str) -> String {
    format!(
        "This is the last turn of the run: no more tool calls will run after it. Call the {tool} tool now with your complete, final result."
    )
}

/// The user message after a text-only turn whose call of the terminal tool, written as text,
/// was declined: why, then how to finish.
fn nudge_with(tool: &str, hint: &str) -> String {
    format!(
        "Your last turn did not call any tool, so the run cannot end: {hint}. To finish, call the {tool} tool now with your complete, final result."
    )
}

/// What the model is told of an answer: its error, and each finding's details.
fn answer_text(output: &Value) -> String {
    let mut text = output
        .get("error")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    for finding in output
        .get("findings")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if let Some(details) = finding.get("details").and_then(Value::as_str) {
            text.push_str("; ");
            text.push_str(details);
        }
    }
    text
}

/// The user message after a text-only turn, naming the configured terminal tool.
pub(crate) fn nudge(tool: &str) -> String {
    format!(
        "Your last turn did not call any tool, so the run cannot end. To finish, call the {tool} tool now with your complete, final result."
    )
}

/// The message's tool requests, each with its index among the message's parts.
pub(super) fn indexed_requests(message: &Message) -> Vec<(usize, &ToolRequest)> {
    message
        .content
        .iter()
        .enumerate()
        .filter_map(|(i, p)| p.as_tool_request().map(|r| (i, r)))
        .collect()
}
