//! The executor: the loop with a terminal tool, where a run ends with the first call of it
//! that passes the gate.
//!
//! The [`TerminalTool`] (normally a [`SubmitTool`](submit_core::SubmitTool)) reads each call
//! of it; a rejected call is answered to the model, which may call again; an accepted one is
//! checked against the payload's schema and by every [`ResultValidator`], whose [`Finding`]s
//! send it back to the model. The first call that passes commits: the run ends with
//! [`Execution::Committed`], and each call the gate saw is a [`GateRecord`] of it. See
//! [`Executor`] for an example, and the [tool loop rules](crate::rules::tool_loop) for the
//! gate and the run's budget.

mod terminal;
mod validator;

pub use terminal::TerminalTool;
pub use validator::{validator_fn, BoxError, Finding, ResultValidator};

use std::sync::{Arc, Mutex, PoisonError};

use futures::future::{try_join_all, BoxFuture};
use futures::FutureExt;
use serde::Serialize;
use serde_json::json;
use submit_core::{Accepted, Outcome, ParallelEntry, Recovery, RecoveryKind, SubmitError};

use crate::message::{Message, ToolRequest};
use crate::model::{FinishReason, Usage};
use crate::run::{Agent, Cause, GateStep, GateTurn, Resume, TerminalGate};
use crate::run::{Response, RunError, RunErrorKind};
use crate::schema;
use crate::tool::ToolDefinition;
use validator::schema_findings;

/// An executor that cannot be built.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ExecutorError {
    /// A caller tool has the terminal tool's name.
    #[error("a caller tool is named {0:?} like the terminal tool: rename the caller tool or the terminal tool")]
    TerminalNameTaken(String),
}

/// What the gate made of one terminal call, for the engineer reading the run's records.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum GateStatus {
    /// The submit was rejected by the parser; recoverable (the model may resubmit).
    Rejected(SubmitError),
    /// Validators raised findings; recoverable.
    Findings(usize),
    /// A validator failed; the run aborted. The [`Cause`] keeps the validator's error.
    ValidationFailed(Cause),
    /// Committed; the run ended.
    Committed {
        /// Every rule the parser applied to the call, in the order applied (empty for a clean
        /// call): the accepted outcome's `recoveries`.
        recoveries: Vec<Recovery>,
        /// The call answered the request the run's last turn forced (see
        /// [`Committed::forced_by_budget`]).
        forced_by_budget: bool,
    },
}

/// One terminal call the gate saw, in [`Committed::trace`]: its reference and what the gate
/// made of it. (The parser's own record of submit calls is
/// [`submit_core::Trace`]; this one adds what the executor decided.)
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct GateRecord {
    /// The call's reference.
    pub reference: Option<String>,
    /// What happened.
    pub status: GateStatus,
}

impl GateRecord {
    /// Whether the run could go on after this call (rejections and findings).
    pub fn recoverable(&self) -> bool {
        matches!(
            self.status,
            GateStatus::Rejected(_) | GateStatus::Findings(_)
        )
    }
}

impl std::fmt::Display for GateRecord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.status {
            GateStatus::Rejected(e) => f.write_str(&e.trace_text()),
            GateStatus::Findings(n) => {
                write!(f, "result rejected: validation raised {n} finding(s)")
            }
            GateStatus::ValidationFailed(e) => write!(f, "result validation: {e}"),
            GateStatus::Committed {
                forced_by_budget: true,
                ..
            } => f.write_str("result committed on the run's last turn, which forced the submit"),
            GateStatus::Committed { .. } => f.write_str("result committed"),
        }
    }
}

/// A run that committed a result.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Committed<R> {
    /// The typed response.
    pub response: R,
    /// The submit's final reasoning.
    pub reasoning: String,
    /// Every rule the parser applied to the committed call, in the order applied (empty for a
    /// clean call): the same list the accepted outcome carries.
    pub recoveries: Vec<Recovery>,
    /// The result answered the request of the run's last turn, which forced the submit tool
    /// (or, where the provider refuses forcing, asked for it in a user message) because the
    /// run had no turn left after it.
    pub forced_by_budget: bool,
    /// Every terminal call of the run, in order, with what the gate made of it.
    pub trace: Vec<GateRecord>,
    /// The whole conversation, ending with the tool message that answered the submit.
    pub messages: Vec<Message>,
    /// Tokens used.
    pub usage: Usage,
}

/// How an executor run ended.
#[derive(Clone, Debug)]
pub enum Execution<R> {
    /// A submit passed the gate.
    Committed(Box<Committed<R>>),
    /// Tool calls paused the run; resume it with [`Executor::resume`].
    Interrupted(Response),
}

impl<R> Committed<R> {
    /// Where the payload came from when it was not the payload parameter's object: the first
    /// of [`recoveries`](Committed::recoveries) whose kind
    /// [locates the payload](RecoveryKind::locates_payload), as
    /// [`Accepted::recovery`](submit_core::Accepted::recovery) answers it.
    pub fn recovery(&self) -> Option<RecoveryKind> {
        self.recoveries
            .iter()
            .map(|rule| rule.kind)
            .find(|kind| kind.locates_payload())
    }
}

impl<R> Execution<R> {
    /// The committed result, if any.
    pub fn committed(self) -> Option<Committed<R>> {
        match self {
            Execution::Committed(c) => Some(*c),
            Execution::Interrupted(_) => None,
        }
    }
}

/// The loop with a terminal tool: the run ends with the first call of it that passes the gate.
///
/// The gate hands each submit call to the terminal in the form it arrived (the argument text
/// as the model sent it, or the provider's arguments object), with how the turn stopped: the
/// last call of a turn cut at the output-token limit is never committed. On the last tool
/// round the agent's `max_turns` allows, the request forces the submit tool (see
/// [`Agent::max_turns`]); a result committed there is marked
/// [`forced_by_budget`](Committed::forced_by_budget).
///
/// The terminal is normally a `SubmitTool<R>`; any [`TerminalTool`] works, as here.
///
/// ```
/// use serde_json::{json, Value};
/// use submit_agent::executor::{Executor, TerminalTool};
/// use submit_agent::prelude::*;
/// use submit_agent::tool::ToolDefinition;
/// use submit_core::{Accepted, Arguments, Outcome, StopReason};
///
/// struct Echo;
/// impl TerminalTool<Value> for Echo {
///     fn name(&self) -> &str { "submit_result" }
///     fn definition(&self) -> ToolDefinition {
///         ToolDefinition::new("submit_result", "Submit.", json!({"type": "object"}))
///     }
///     fn payload_schema(&self) -> Value { json!({"type": "object"}) }
///     fn verdict(&self, arguments: Arguments<'_>, _end: StopReason) -> Outcome<Value> {
///         let Arguments::Value(input) = arguments else { unreachable!("the script sends values") };
///         Outcome::Accepted(Accepted::new(input["result"].clone(), String::new(),
///             json!({"success": true})))
///     }
/// }
///
/// let model = ScriptedModel::new().then_message(vec![Part::tool_request(
///     "submit_result", None, json!({"reasoning": "done", "result": {"answer": 42}}),
/// )]);
/// let executor = Executor::new(Agent::new(model), Echo).unwrap();
/// let done = futures::executor::block_on(executor.run(vec![Message::user("go")]))
///     .unwrap()
///     .committed()
///     .unwrap();
/// assert_eq!(done.response, json!({"answer": 42}));
/// ```
pub struct Executor<R> {
    agent: Agent,
    terminal: Arc<dyn TerminalTool<R>>,
    validators: Vec<Arc<dyn ResultValidator<R>>>,
    schema: Option<Arc<jsonschema::Validator>>,
    forbid_forcing: bool,
}

impl<R> Clone for Executor<R> {
    fn clone(&self) -> Self {
        Executor {
            agent: self.agent.clone(),
            terminal: Arc::clone(&self.terminal),
            validators: self.validators.clone(),
            schema: self.schema.clone(),
            forbid_forcing: self.forbid_forcing,
        }
    }
}

impl<R> std::fmt::Debug for Executor<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Executor")
            .field("terminal", &self.terminal.name())
            .field("validators", &self.validators.len())
            .finish_non_exhaustive()
    }
}

impl<R: Serialize + Send + Sync + 'static> Executor<R> {
    /// Wraps `agent` with `terminal`. Fails when a caller tool has the terminal's name.
    pub fn new(
        agent: Agent,
        terminal: impl TerminalTool<R> + 'static,
    ) -> Result<Self, ExecutorError> {
        if agent.tools().iter().any(|t| t.name() == terminal.name()) {
            return Err(ExecutorError::TerminalNameTaken(terminal.name().to_owned()));
        }
        let mut payload = terminal.payload_schema();
        schema::strip_required(&mut payload);
        let schema = match jsonschema::validator_for(&payload) {
            Ok(v) => Some(Arc::new(v)),
            Err(e) => {
                tracing::warn!(error = %e, "payload schema not compiled; the built-in result validator is off");
                None
            }
        };
        Ok(Executor {
            agent,
            terminal: Arc::new(terminal),
            validators: Vec::new(),
            schema,
            forbid_forcing: false,
        })
    }

    /// Adds a result validator; validators run concurrently, findings in this order.
    pub fn validator(mut self, validator: impl ResultValidator<R> + 'static) -> Self {
        self.validators.push(Arc::new(validator));
        self
    }

    /// Never force the tool choice to the terminal tool (the provider forbids it, e.g.
    /// Anthropic with extended thinking).
    pub fn forbid_forced_tool_choice(mut self, forbid: bool) -> Self {
        self.forbid_forcing = forbid;
        self
    }

    /// Runs until a submit commits, a call interrupts, or an error stops the run.
    pub async fn run(&self, messages: Vec<Message>) -> Result<Execution<R>, RunError> {
        self.execute(messages, None).await
    }

    /// Resumes an interrupted run.
    pub async fn resume(
        &self,
        messages: Vec<Message>,
        resume: Resume,
    ) -> Result<Execution<R>, RunError> {
        self.execute(messages, Some(resume)).await
    }

    async fn execute(
        &self,
        messages: Vec<Message>,
        resume: Option<Resume>,
    ) -> Result<Execution<R>, RunError> {
        let gate = Gate {
            executor: self,
            committed: Mutex::new(None),
            trace: Mutex::new(Vec::new()),
        };
        let response = self.agent.run_with(messages, resume, Some(&gate)).await?;
        let trace = gate
            .trace
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner);
        let committed = gate
            .committed
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner);
        match committed {
            Some((accepted, forced_by_budget)) => {
                let messages = response.history();
                Ok(Execution::Committed(Box::new(Committed {
                    response: accepted.response,
                    reasoning: accepted.reasoning,
                    recoveries: accepted.recoveries,
                    forced_by_budget,
                    trace,
                    messages,
                    usage: response.usage,
                })))
            }
            None if response.finish_reason == FinishReason::Interrupted => {
                Ok(Execution::Interrupted(response))
            }
            None => Err(RunError::with_partial(
                RunErrorKind::NotCommitted {
                    tool: self.terminal.name().to_owned(),
                },
                response,
            )),
        }
    }
}

struct Gate<'e, R> {
    executor: &'e Executor<R>,
    /// The committed submit, and whether the run's last turn forced it.
    committed: Mutex<Option<(Accepted<R>, bool)>>,
    trace: Mutex<Vec<GateRecord>>,
}

impl<R> Gate<'_, R> {
    fn record(&self, reference: Option<&str>, status: GateStatus) {
        self.trace
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(GateRecord {
                reference: reference.map(str::to_owned),
                status,
            });
    }
}

impl<R: Serialize + Send + Sync + 'static> TerminalGate for Gate<'_, R> {
    fn name(&self) -> &str {
        self.executor.terminal.name()
    }

    fn definition(&self) -> ToolDefinition {
        self.executor.terminal.definition()
    }

    fn forbid_forcing(&self) -> bool {
        self.executor.forbid_forcing
    }

    fn gate<'a>(&'a self, request: &'a ToolRequest, turn: GateTurn) -> BoxFuture<'a, GateStep> {
        let outcome = self
            .executor
            .terminal
            .verdict(request.arguments(), turn.end);
        self.settle(request.reference.as_deref(), outcome, turn)
            .boxed()
    }

    fn gate_text<'a>(&'a self, text: &'a str, turn: GateTurn) -> BoxFuture<'a, Option<GateStep>> {
        async move {
            let outcome = self.executor.terminal.verdict_on_text(text, turn.end)?;
            Some(self.settle(None, outcome, turn).await)
        }
        .boxed()
    }

    fn gate_entry<'a>(
        &'a self,
        reference: &'a str,
        entry: &'a ParallelEntry,
        turn: GateTurn,
    ) -> BoxFuture<'a, GateStep> {
        let outcome = self.executor.terminal.verdict_on_entry(entry, turn.end);
        self.settle(Some(reference), outcome, turn).boxed()
    }
}

impl<R: Serialize + Send + Sync + 'static> Gate<'_, R> {
    /// What the terminal's outcome on one call comes to: a rejection answered; a result checked
    /// by the validators, then answered with their findings or committed.
    async fn settle(
        &self,
        reference: Option<&str>,
        outcome: Outcome<R>,
        turn: GateTurn,
    ) -> GateStep {
        let tool = self.executor.terminal.name();
        let accepted = match outcome {
            Outcome::Rejected(rejected) => {
                tracing::info!(
                    tool,
                    reference = reference.unwrap_or(""),
                    class = rejected.error.class().as_str(),
                    cause = rejected.error.cause().map_or("", |c| c.as_str()),
                    "terminal call rejected; the model is told why"
                );
                self.record(reference, GateStatus::Rejected(rejected.error));
                return GateStep::Answer {
                    output: rejected.tool_result,
                    is_error: true,
                };
            }
            Outcome::Accepted(accepted) => accepted,
        };
        // The parser read the arguments into `R` by their types only; the payload schema's
        // other constraints (enum, bounds, lengths, pattern) are checked here. They are checked
        // on the response as it commits, `R` serialized again: the terminal hands over only the
        // typed response (the arguments' JSON is not kept past the parse), and it is the payload
        // after every recovery, with the values `R` gives fields the model was not shown.
        let mut findings = match (
            &self.executor.schema,
            serde_json::to_value(&accepted.response),
        ) {
            (Some(v), Ok(value)) => schema_findings(v, &value),
            (Some(_), Err(e)) => vec![Finding::new(
                "schema",
                format!("the submitted result could not be re-serialized for validation: {e}"),
            )],
            (None, _) => Vec::new(),
        };
        let checks = self
            .executor
            .validators
            .iter()
            .map(|v| v.validate(&accepted.response, &accepted.reasoning));
        match try_join_all(checks).await {
            Ok(lists) => findings.extend(lists.into_iter().flatten()),
            Err(e) => {
                let cause = Cause::from_boxed(e);
                self.record(reference, GateStatus::ValidationFailed(cause.clone()));
                return GateStep::Abort(cause);
            }
        }
        if !findings.is_empty() {
            self.record(reference, GateStatus::Findings(findings.len()));
            let error = format!(
                "Result rejected: validation raised {} finding(s). Address each finding and call {} again with your corrected, complete result.",
                findings.len(),
                tool
            );
            return GateStep::Answer {
                output: json!({ "error": error, "findings": findings }),
                is_error: true,
            };
        }
        let kinds: Vec<&str> = accepted
            .recoveries
            .iter()
            .map(|r| r.kind.as_str())
            .collect();
        tracing::info!(
            tool,
            reference = reference.unwrap_or(""),
            recoveries = ?kinds,
            forced_by_budget = turn.forced_by_budget,
            "result committed"
        );
        self.record(
            reference,
            GateStatus::Committed {
                recoveries: accepted.recoveries.clone(),
                forced_by_budget: turn.forced_by_budget,
            },
        );
        let output = accepted.tool_result.clone();
        *self
            .committed
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some((accepted, turn.forced_by_budget));
        GateStep::Commit { output }
    }
}

#[cfg(test)]
mod tests {
    use std::error::Error as _;

    use futures::FutureExt;
    use serde_json::{json, Value};
    use submit_core::{Arguments, StopReason};

    use super::*;
    use crate::hook::{turn_hook_fn, TurnEnd};
    use crate::message::{Message, Part};
    use crate::model::ScriptedModel;
    use crate::run::response::TurnOutcome;

    /// A terminal that accepts every call.
    struct Accepting;

    impl TerminalTool<Value> for Accepting {
        fn name(&self) -> &str {
            "submit_result"
        }
        fn definition(&self) -> ToolDefinition {
            ToolDefinition::new("submit_result", "Submit.", json!({"type": "object"}))
        }
        fn payload_schema(&self) -> Value {
            json!({})
        }
        fn verdict(&self, _: Arguments<'_>, _: StopReason) -> Outcome<Value> {
            Outcome::Accepted(Accepted::new(
                Value::Null,
                String::new(),
                json!({"ok": true}),
            ))
        }
    }

    /// The one way a run ends without an error and without a commit: a turn hook ends it. It
    /// is its own kind, not a failed model call, and no model was called.
    #[test]
    fn a_run_that_never_committed_has_its_own_kind() {
        let model = ScriptedModel::new().then_message(vec![Part::tool_request(
            "submit_result",
            None,
            json!({}),
        )]);
        let agent = Agent::new(model.clone()).turn_hook(turn_hook_fn(|_, _next| {
            async {
                Ok(TurnEnd(TurnOutcome::Done(Response {
                    messages: Vec::new(),
                    message: Some(Message::model(vec![Part::text("done early")])),
                    finish_reason: FinishReason::Stop,
                    finish_message: None,
                    usage: Usage::default(),
                })))
            }
            .boxed()
        }));
        let executor = Executor::new(agent, Accepting).unwrap();
        let error =
            futures::executor::block_on(executor.run(vec![Message::user("go")])).unwrap_err();
        assert_eq!(
            error.kind,
            RunErrorKind::NotCommitted {
                tool: "submit_result".into()
            }
        );
        assert!(error.source().is_none(), "nothing failed under it");
        assert!(
            error
                .to_string()
                .starts_with("the run ended without a committed result"),
            "{error}"
        );
        assert_eq!(model.requests().len(), 0);
        assert_eq!(
            error.partial.map(|p| p.text()).as_deref(),
            Some("done early")
        );
    }

    /// A validator's error is kept whole, in the run's error and in the gate's record.
    #[test]
    fn a_failed_validator_keeps_its_error_as_the_source() {
        #[derive(Debug, thiserror::Error)]
        #[error("the CI server is unreachable")]
        struct Unreachable;

        let model = ScriptedModel::new().then_message(vec![Part::tool_request(
            "submit_result",
            None,
            json!({}),
        )]);
        let executor = Executor::new(Agent::new(model), Accepting)
            .unwrap()
            .validator(validator_fn(|_: &Value, _: &str| {
                Err::<Vec<Finding>, BoxError>(Box::new(Unreachable))
            }));
        let error =
            futures::executor::block_on(executor.run(vec![Message::user("go")])).unwrap_err();
        let RunErrorKind::ResultValidation(cause) = &error.kind else {
            panic!("expected a failed validation, got {error:?}");
        };
        assert!(cause.downcast_ref::<Unreachable>().is_some(), "{cause:?}");
        let source = error.source().and_then(|c| c.source());
        assert!(
            source.is_some_and(|e| e.downcast_ref::<Unreachable>().is_some()),
            "RunError → Cause → the validator's error"
        );
    }
}
