//! The submit tool as a rig tool (feature `rig`): a rig handler that reads the model's raw
//! argument text, answers with the success message or the error to act on, gates accepted
//! submits through result validators, and hands the committed response to a handle the caller
//! keeps.
//!
//! ```
//! use rig_agent::tool::{RegisteredTool, ToolSet};
//! use rig_core::tool::ToolContext;
//! use submit_result::rig::RigSubmitTool;
//! use submit_result::{Options, SubmitTool};
//!
//! let schema = serde_json::json!({"type": "object", "properties": {"summary": {"type": "string"}}});
//! let tool = SubmitTool::<serde_json::Value>::from_json_schema(schema, Options::new())?;
//! let submit = RigSubmitTool::new(tool);
//! let accepted = submit.accepted(); // the caller's handle
//! let mut tools = ToolSet::default();
//! tools.add_registered_tool(RegisteredTool::from_handler(submit)?);
//!
//! // The model JSON-encoded its payload into a string: rig hands over the text, it is recovered.
//! let arguments = r#"{"reasoning": "done", "result": "{\"summary\": \"disk full\"}"}"#;
//! let answer = futures::executor::block_on(
//!     tools.execute("submit_result", arguments, &mut ToolContext::new()),
//! );
//! assert!(answer.is_success());
//! assert_eq!(accepted.take().map(|a| a.response["summary"].clone()), Some("disk full".into()));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! rig's typed `Tool` and its `DynamicTool` decode the arguments with `serde_json` before the
//! tool runs, so a stringified or closer-damaged call would fail there; [`RigSubmitTool`] is a
//! tool-family handler ([`rig_core::serve::Serve`]) instead, which receives the argument text
//! as the model wrote it and reads it as [`SubmitTool::handle`] reads an OpenAI call. Register
//! it with [`rig_agent::tool::RegisteredTool::from_handler`], in a
//! [`ToolSet`](rig_agent::tool::ToolSet) or a
//! [`ToolServer`](rig_agent::tool::server::ToolServer) an agent runs with.
//!
//! The gate is the executor's (see the [tool loop rules](crate::agent::rules::tool_loop)):
//! result validators run concurrently on an accepted submit, any finding rejects it back to the
//! model, and the first that passes commits. A validator that
//! errors ends the gate: the call and every later one are refused, and the handle holds the
//! error ([`RigAccepted::aborted`]). The built-in schema validator of the executor is not part
//! of this gate; a tool built from a JSON Schema document validates fully while parsing.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use futures::future::try_join_all;
use rig_agent::agent::{AgentHook, CompletionCallAction, CompletionCallEvent, HookContext};
use rig_core::effect::{family, tool_key, EffectFamily, EffectKind, FamilyDescriptor};
use rig_core::effect::{HandlerDescriptor, Outcome as EffectOutcome};
use rig_core::error::{ErrorKind, ErrorReport};
use rig_core::serve::{Dispatch, Reply, Serve};
use rig_core::tool::{ToolExecutionError, ToolOutput, ToolResult};
use serde::de::DeserializeOwned;
use serde_json::{json, Value};

use crate::agent::executor::ResultValidator;
use crate::{Accepted, Arguments, Outcome, Provider, SubmitTool};

/// What the model reads once a submit has committed.
const ALREADY_ACCEPTED: &str = "a terminal result was already accepted";

/// What the model reads once a validator has failed (the error itself is the caller's).
const GATE_CLOSED: &str = "result validation failed; the run is over";

/// The gate's state, shared by the handler and the caller's handle.
struct Slot<R> {
    /// A submit committed; later submits are refused.
    committed: bool,
    /// The committed submit, until the caller takes it.
    accepted: Option<Accepted<R>>,
    /// The error of the validator that failed, if one did.
    aborted: Option<String>,
}

fn lock<R>(slot: &Mutex<Slot<R>>) -> MutexGuard<'_, Slot<R>> {
    slot.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The submit tool as a rig tool-family handler.
///
/// Clones share the tool, its validators as they were when cloned, and the gate's state.
pub struct RigSubmitTool<R> {
    tool: Arc<SubmitTool<R>>,
    validators: Vec<Arc<dyn ResultValidator<R>>>,
    slot: Arc<Mutex<Slot<R>>>,
}

impl<R> Clone for RigSubmitTool<R> {
    fn clone(&self) -> Self {
        RigSubmitTool {
            tool: Arc::clone(&self.tool),
            validators: self.validators.clone(),
            slot: Arc::clone(&self.slot),
        }
    }
}

impl<R: DeserializeOwned> std::fmt::Debug for RigSubmitTool<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RigSubmitTool")
            .field("name", &self.tool.name())
            .field("validators", &self.validators.len())
            .finish_non_exhaustive()
    }
}

/// The caller's handle on a [`RigSubmitTool`]: the committed submit, once there is one.
pub struct RigAccepted<R> {
    slot: Arc<Mutex<Slot<R>>>,
}

impl<R> Clone for RigAccepted<R> {
    fn clone(&self) -> Self {
        RigAccepted {
            slot: Arc::clone(&self.slot),
        }
    }
}

impl<R> std::fmt::Debug for RigAccepted<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let slot = lock(&self.slot);
        f.debug_struct("RigAccepted")
            .field("committed", &slot.committed)
            .field("aborted", &slot.aborted.is_some())
            .finish()
    }
}

impl<R> RigAccepted<R> {
    /// The committed submit, taken out of the handle (`None` before a submit commits, and
    /// after it was taken).
    pub fn take(&self) -> Option<Accepted<R>> {
        lock(&self.slot).accepted.take()
    }

    /// Whether a submit has committed (taken or not).
    pub fn is_committed(&self) -> bool {
        lock(&self.slot).committed
    }

    /// The error of the result validator that failed, if one did; no submit commits after it.
    pub fn aborted(&self) -> Option<String> {
        lock(&self.slot).aborted.clone()
    }
}

/// What ends the run once a submit has committed.
const RUN_OVER: &str = "the terminal result was accepted";

/// As an agent hook, the handle ends the run before the next model call once a submit has
/// committed (or a validator failed), so no model turn is spent after the answer is in: the
/// run then returns rig's cancellation error, and the caller takes the committed submit from
/// the handle.
impl<R: Send> AgentHook for RigAccepted<R> {
    fn name(&self) -> Option<String> {
        Some("submit_result::rig::RigAccepted".to_owned())
    }

    async fn on_completion_call(
        &self,
        _ctx: &HookContext,
        _event: CompletionCallEvent<'_>,
    ) -> CompletionCallAction {
        let slot = lock(&self.slot);
        if slot.committed {
            CompletionCallAction::stop(RUN_OVER)
        } else if slot.aborted.is_some() {
            CompletionCallAction::stop(GATE_CLOSED)
        } else {
            CompletionCallAction::Continue
        }
    }
}

impl<R> RigSubmitTool<R> {
    /// Wraps `tool`, with no result validators.
    pub fn new(tool: SubmitTool<R>) -> Self {
        RigSubmitTool {
            tool: Arc::new(tool),
            validators: Vec::new(),
            slot: Arc::new(Mutex::new(Slot {
                committed: false,
                accepted: None,
                aborted: None,
            })),
        }
    }

    /// Adds a result validator; validators run concurrently, findings in this order.
    pub fn validator(mut self, validator: impl ResultValidator<R> + 'static) -> Self {
        self.validators.push(Arc::new(validator));
        self
    }

    /// A handle on this tool's gate, to take the committed submit from.
    pub fn accepted(&self) -> RigAccepted<R> {
        RigAccepted {
            slot: Arc::clone(&self.slot),
        }
    }

    /// The submit tool.
    pub fn tool(&self) -> &SubmitTool<R> {
        &self.tool
    }
}

/// A failed tool result the model reads as `answer`; `message` is for the operator.
fn failed(error: ToolExecutionError, answer: &Value) -> ToolResult {
    ToolResult::failed(error.with_model_output(ToolOutput::json(answer.clone())))
}

/// A call refused by the gate's state: the model and the operator read the same `message`.
fn refused(message: &str) -> ToolResult {
    failed(
        ToolExecutionError::other(message),
        &json!({ "error": message }),
    )
}

impl<R> RigSubmitTool<R>
where
    R: DeserializeOwned + Send + Sync + 'static,
{
    /// Handles one call's argument text through the parser and the gate.
    async fn call(&self, arguments: &str) -> ToolResult {
        {
            let slot = lock(&self.slot);
            if slot.aborted.is_some() {
                return refused(GATE_CLOSED);
            }
            if slot.committed {
                return refused(ALREADY_ACCEPTED);
            }
        }
        let accepted = match self.tool.handle_arguments(Arguments::Text(arguments)) {
            Outcome::Rejected(rejected) => {
                return failed(
                    ToolExecutionError::invalid_args(rejected.error.to_string()),
                    &rejected.tool_result,
                );
            }
            Outcome::Accepted(accepted) => accepted,
        };
        let checks = self
            .validators
            .iter()
            .map(|v| v.validate(&accepted.response, &accepted.reasoning));
        let findings: Vec<_> = match try_join_all(checks).await {
            Ok(lists) => lists.into_iter().flatten().collect(),
            Err(e) => {
                let message = format!("result validation: {e}");
                lock(&self.slot).aborted = Some(message.clone());
                return failed(
                    ToolExecutionError::other(message),
                    &json!({ "error": GATE_CLOSED }),
                );
            }
        };
        if !findings.is_empty() {
            let error = format!(
                "Result rejected: validation raised {} finding(s). Address each finding and call {} again with your corrected, complete result.",
                findings.len(),
                self.tool.name()
            );
            return failed(
                ToolExecutionError::invalid_args(format!(
                    "result rejected: validation raised {} finding(s)",
                    findings.len()
                )),
                &json!({ "error": error, "findings": findings }),
            );
        }
        let mut slot = lock(&self.slot);
        if slot.committed || slot.aborted.is_some() {
            // Another call of the turn committed or failed while this one was validated.
            return refused(ALREADY_ACCEPTED);
        }
        let answer = ToolOutput::json(accepted.tool_result.clone());
        slot.committed = true;
        slot.accepted = Some(accepted);
        ToolResult::success(answer)
    }
}

impl<R> Serve for RigSubmitTool<R>
where
    R: DeserializeOwned + Send + Sync + 'static,
    SubmitTool<R>: Send + Sync,
{
    type Family = family::Tool;

    fn descriptor(&self) -> HandlerDescriptor {
        let definition = self.tool.definition(Provider::Claude);
        HandlerDescriptor {
            key: tool_key(self.tool.name()),
            family: FamilyDescriptor::Tool {
                name: self.tool.name().to_owned(),
                description: definition
                    .get("description")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned(),
                parameters: definition
                    .get("input_schema")
                    .cloned()
                    .unwrap_or_else(|| json!({"type": "object"})),
                embedding: None,
            },
            layers: Vec::new(),
        }
    }

    async fn serve(&self, kind: EffectKind, _dispatch: Dispatch) -> Reply {
        match kind {
            EffectKind::ToolCall { name, args } if name == self.tool.name() => {
                let result = self.call(&args).await;
                Reply::Outcome(Ok(EffectOutcome::ToolResult { result }))
            }
            EffectKind::ToolCall { name, .. } => Reply::Outcome(Err(ErrorReport::new(
                ErrorKind::Internal,
                format!(
                    "the {} handler was asked to run `{name}`: register each tool under its own name",
                    self.tool.name()
                ),
            ))),
            other => Reply::Outcome(Err(ErrorReport::new(
                ErrorKind::HandlerUnavailable,
                format!(
                    "the {} handler serves {} effects, not `{}`",
                    self.tool.name(),
                    EffectFamily::Tool,
                    other.name()
                ),
            ))),
        }
    }
}
