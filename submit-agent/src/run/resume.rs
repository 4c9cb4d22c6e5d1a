//! Resuming an interrupted conversation: every directive checked first, then the steps run.

use std::collections::HashMap;
use std::sync::Arc;

use futures::future::join_all;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use submit_core::JsonType;

use super::call::{pending_of, response_part, with_request, CallResult};
use super::turn::{indexed_requests, Run};
use crate::message::{
    Interrupt, JsonObject, Message, Part, Restart, Role, ToolRequest, ToolResponse, KEY_SOURCE,
};
use crate::model::FinishReason;
use crate::run::Response;
use crate::run::{RunError, RunErrorKind};
use crate::tool::context::Delivery;

const REINTERRUPTED_MESSAGE: &str =
    "One or more tools triggered interrupts while resuming generation. The model was not called.";

/// Directives answering the interrupts of a stored conversation.
///
/// ```
/// use submit_agent::{message::Part, run::Resume};
///
/// let resume = Resume::new().respond(Part::tool_response("ask", Some("1".into()), None));
/// assert_eq!(resume.respond.len(), 1);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
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

/// A resume's directives, each with the part it came in.
struct Directives<'r> {
    restarts: Vec<(&'r ToolRequest, &'r Part)>,
    responds: Vec<(&'r ToolResponse, &'r Part)>,
}

/// What a resume does for one tool request of the interrupted message.
enum Step {
    /// Answer with the pending output of a call that completed before the interrupt.
    Replay(Part),
    /// Answer with the caller's response.
    Respond(Part),
    /// Run the call again, with the restart's delivery.
    Restart(ToolRequest, Option<Delivery>),
    /// A terminal call, gated after the others.
    Terminal,
}

/// A resume the run refuses, with why.
fn invalid(message: String) -> RunError {
    RunError::new(RunErrorKind::InvalidResume(message))
}

impl Run<'_> {
    /// Turn 0 of a resume: validates every directive, plans a step for each tool request of
    /// the interrupted message, runs the steps, then finishes the round. `Some` when the run
    /// ended here (a committed submit).
    pub(super) async fn resume(&mut self, resume: Resume) -> Result<Option<Response>, RunError> {
        let directives = self.directives(&resume)?;
        let last = self.interrupted_message()?;
        let plan = self.plan(&last, &directives)?;
        let results = self.run_steps(plan).await;
        let history_len = self.messages.len().saturating_sub(1);
        let results = self.check_resolved(&last, results, history_len)?;
        self.finish_resume(last, results, resume.metadata, history_len)
            .await
    }

    /// The directives sorted by kind: a restart must be a tool request, a respond a tool
    /// response, and each must name a tool of the run.
    fn directives<'r>(&self, resume: &'r Resume) -> Result<Directives<'r>, RunError> {
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
        Ok(Directives { restarts, responds })
    }

    /// The conversation's last message, which a resume answers: the model's, with at least
    /// one tool request.
    fn interrupted_message(&self) -> Result<Message, RunError> {
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
        Ok(last)
    }

    /// A step for each tool request of the interrupted message, by its part index: its pending
    /// output, a respond directive, a restart directive, or the terminal gate. A request none
    /// of them answers is refused.
    fn plan(
        &self,
        last: &Message,
        directives: &Directives<'_>,
    ) -> Result<Vec<(usize, Step)>, RunError> {
        let mut plan = Vec::new();
        for (i, part) in last.content.iter().enumerate() {
            let Some(request) = part.as_tool_request() else {
                continue;
            };
            let same = |name: &str, reference: &Option<String>| {
                name == request.name && *reference == request.reference
            };
            let step = if let Some(pending) = &request.pending {
                let mut response =
                    response_part(&request.name, request.reference.clone(), pending.clone());
                response.set_meta(KEY_SOURCE, Value::String("pending".into()));
                Step::Replay(response)
            } else if let Some((r, p)) = directives
                .responds
                .iter()
                .find(|(r, _)| same(&r.name, &r.reference))
            {
                self.check_response(r)?;
                Step::Respond((*p).clone())
            } else if let Some((r, _)) = directives
                .restarts
                .iter()
                .find(|(r, _)| same(&r.name, &r.reference))
            {
                self.restart_step(request, r)?
            } else if self.is_terminal(&request.name) {
                Step::Terminal
            } else {
                return Err(unhandled(request));
            };
            plan.push((i, step));
        }
        Ok(plan)
    }

    /// A respond directive's output checked against its tool's output schema.
    fn check_response(&self, response: &ToolResponse) -> Result<(), RunError> {
        if let (Some(tool), Some(output)) = (
            self.exec.chain.tools.get(&response.name),
            response.output.as_ref(),
        ) {
            tool.check_output(output).map_err(|problem| {
                invalid(format!(
                    "tool {:?} output validation failed: {problem}",
                    response.name
                ))
            })?;
        }
        Ok(())
    }

    /// The step a restart directive asks for `request`: the terminal gate for the terminal
    /// tool, else the call run again with the directive's delivery.
    fn restart_step(
        &self,
        request: &ToolRequest,
        directive: &ToolRequest,
    ) -> Result<Step, RunError> {
        if self.is_terminal(&directive.name) {
            return Ok(Step::Terminal);
        }
        let interrupt = request
            .interrupt
            .clone()
            .or_else(|| directive.interrupt.clone())
            .unwrap_or_default();
        let delivery = match &directive.restart {
            None => None,
            Some(restart) => Some(self.delivery(&directive.name, restart, interrupt)?),
        };
        let mut run_request = directive.clone();
        run_request.interrupt = None;
        run_request.restart = None;
        Ok(Step::Restart(run_request, delivery))
    }

    /// What a restarted call of `tool` is handed: the resume data (an object; a bare restart
    /// is an empty one), checked against the tool's resume schema when the tool itself raised
    /// the interrupt.
    fn delivery(
        &self,
        tool: &str,
        restart: &Restart,
        interrupt: Interrupt,
    ) -> Result<Delivery, RunError> {
        let resume = match &restart.resume {
            None | Some(Value::Null) | Some(Value::Bool(true)) => JsonObject::new(),
            Some(Value::Object(m)) => m.clone(),
            Some(other) => {
                return Err(invalid(format!(
                    "resume data for tool {tool:?} must be a JSON object (a struct or map), got {}; a bare restart carries true or no payload",
                    JsonType::of(other).as_str()
                )))
            }
        };
        if interrupt.raised_by.is_none() {
            if let Some(checked) = self.exec.chain.tools.get(tool) {
                checked
                    .check_resume(&Value::Object(resume.clone()))
                    .map_err(|problem| {
                        invalid(format!(
                            "resume data for tool {tool:?} does not match its resume schema: {problem}"
                        ))
                    })?;
            }
        }
        Ok(Delivery {
            resume,
            original_input: restart.original_input.clone(),
            legacy: interrupt.raised_by.is_none() && interrupt.released_by.is_empty(),
            raised_by: interrupt.raised_by,
            released_by: interrupt.released_by,
        })
    }

    /// Every directive checked: runs the steps concurrently. The results by part index; a
    /// terminal step has none (it is gated when the round finishes).
    async fn run_steps(&self, plan: Vec<(usize, Step)>) -> HashMap<usize, CallResult> {
        if let Some(stream) = &self.exec.stream {
            stream.begin_resume();
        }
        let exec = &self.exec;
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
        .collect()
    }

    /// The results back when every step resolved. Else the run stops: at the first call that
    /// failed, or, when a restarted call interrupted again, with the revised message (each
    /// completed call's output pending, each new interrupt on its request) as the partial
    /// response.
    fn check_resolved(
        &mut self,
        last: &Message,
        mut results: HashMap<usize, CallResult>,
        history_len: usize,
    ) -> Result<HashMap<usize, CallResult>, RunError> {
        // The first call that failed, its error taken out of the results.
        let failed = (0..last.content.len())
            .find(|i| matches!(results.get(i), Some(CallResult::Failed(_))))
            .and_then(|i| match (last.content.get(i), results.remove(&i)) {
                (Some(p), Some(CallResult::Failed(e))) => Some((p, e)),
                _ => None,
            });
        let reinterrupted = results
            .values()
            .any(|r| matches!(r, CallResult::Interrupted(_)));
        if failed.is_none() && !reinterrupted {
            return Ok(results);
        }
        let mut revised = last.clone();
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
                error: e
                    .context("failed to resolve resumed tool request")
                    .into_cause(),
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
        Err(RunError::with_partial(
            RunErrorKind::InterruptedOnResume,
            partial,
        ))
    }

    /// All resolved: marks the history, runs the terminal calls and appends the tool message
    /// (its metadata `resumed`). `Some` when a terminal call committed.
    async fn finish_resume(
        &mut self,
        mut revised: Message,
        results: HashMap<usize, CallResult>,
        metadata: Option<JsonObject>,
        history_len: usize,
    ) -> Result<Option<Response>, RunError> {
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
        let requests = indexed_requests(&revised);
        let (content, committed) = self
            .finish_round(&revised, &requests, results, false)
            .await?;
        let mut tool_message = Message::new(Role::Tool, content);
        let mut meta = JsonObject::new();
        meta.insert(
            "resumed".into(),
            metadata.map_or(Value::Bool(true), Value::Object),
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

/// The refusal of a tool request that no directive and no pending output answers.
fn unhandled(request: &ToolRequest) -> RunError {
    let held = request
        .interrupt
        .as_ref()
        .and_then(|i| i.raised_by.as_ref())
        .map(|id| format!(" (it is held by the middleware {id:?})"))
        .unwrap_or_default();
    invalid(format!(
        "unresolved tool request \"{}#{}\" was not handled by the resume: supply a respond or restart directive for it, or keep the pending output of a previous call{held}",
        request.name,
        request.reference.as_deref().unwrap_or("")
    ))
}
