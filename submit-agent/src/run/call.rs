//! One tool call: through the hook chain, its error answered to the model or kept, and the
//! seam the executor's gate plugs the terminal tool into.

use std::sync::Arc;

use futures::future::BoxFuture;
use serde_json::{json, Value};
use submit_core::{ParallelEntry, StopReason};

use crate::hook::{Chain, ToolCall};
use crate::message::{Interrupt, Part, PartKind, ToolRequest, ToolResponse, KEY_IS_ERROR};
use crate::model::stream::Stream;
use crate::tool::context::{CallState, Delivery};
use crate::tool::ToolDefinition;
use crate::tool::ToolError;
use crate::tool::ToolOutput;

/// Which tools' own errors are answered to the model instead of stopping the run (by name; an
/// unknown name is asked too). Set by `Agent::soft_tool_errors`; the loop knows only the
/// answer.
pub(crate) type AnswersErrors = Arc<dyn Fn(&str) -> bool + Send + Sync>;

/// The executor's hold on the terminal tool, erased over the response type.
pub(crate) trait TerminalGate: Send + Sync {
    fn name(&self) -> &str;
    fn definition(&self) -> ToolDefinition;
    fn forbid_forcing(&self) -> bool;
    fn gate<'a>(&'a self, request: &'a ToolRequest, turn: GateTurn) -> BoxFuture<'a, GateStep>;
    /// A turn with no tool call, read for a terminal call written as text; `None` when the
    /// text holds none.
    fn gate_text<'a>(&'a self, text: &'a str, turn: GateTurn) -> BoxFuture<'a, Option<GateStep>>;
    /// An entry of a `multi_tool_use.parallel` call naming the terminal tool.
    fn gate_entry<'a>(
        &'a self,
        reference: &'a str,
        entry: &'a ParallelEntry,
        turn: GateTurn,
    ) -> BoxFuture<'a, GateStep>;
}

/// What the loop knows of the turn that carried a terminal call.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct GateTurn {
    /// How the turn ended, as it bears on this call (the output limit only for the turn's
    /// last call).
    pub(crate) end: StopReason,
    /// The turn was the run's last, which forced the submit.
    pub(crate) forced_by_budget: bool,
}

/// What the gate made of one terminal call.
pub(crate) enum GateStep {
    /// Answer the model; the run continues.
    Answer { output: Value, is_error: bool },
    /// Committed; the run ends.
    Commit { output: Value },
    /// A validator failed; the run aborts.
    Abort(crate::run::Cause),
}

/// How one call ended.
#[allow(
    clippy::large_enum_variant,
    reason = "short-lived, one per call; boxing the common case buys nothing"
)]
pub(super) enum CallResult {
    Done(Part),
    Interrupted(Interrupt),
    Failed(ToolError),
}

/// What runs calls: the chain, the stream and which tools' errors the model is told.
pub(super) struct Exec<'a> {
    pub(super) chain: Arc<Chain>,
    pub(super) stream: Option<Arc<Stream>>,
    pub(super) answers_errors: &'a [AnswersErrors],
}

impl Exec<'_> {
    pub(super) async fn call(
        &self,
        mut request: ToolRequest,
        delivery: Option<Delivery>,
    ) -> CallResult {
        let state = CallState::new(
            request.name.clone(),
            request.reference.clone(),
            self.stream.clone(),
            delivery,
        );
        // A call whose arguments arrived as text and were not decoded yet (one resumed from a
        // stored conversation) is decoded here, as the loop decodes a fresh one.
        let input = if request.input.is_null() {
            request.input_value().into_owned()
        } else {
            std::mem::take(&mut request.input)
        };
        let call = ToolCall {
            name: request.name.clone(),
            reference: request.reference.clone(),
            input,
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
        (e.is_tools_own() && self.answers_errors.iter().any(|covers| covers(name)))
            .then(|| e.to_string())
    }
}

pub(super) fn response_part(name: &str, reference: Option<String>, out: ToolOutput) -> Part {
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

pub(super) fn error_part(
    name: &str,
    reference: Option<String>,
    message: String,
    content: Vec<Part>,
) -> Part {
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

/// A completed call's response as the outcome its request keeps while its siblings wait.
pub(super) fn pending_of(part: &Part) -> ToolOutput {
    let response = part.as_tool_response().cloned().unwrap_or_default();
    ToolOutput {
        output: response.output,
        content: response.content,
        metadata: part.metadata.clone(),
    }
}

pub(super) fn with_request(part: &Part, edit: impl FnOnce(&mut ToolRequest)) -> Part {
    let mut part = part.clone();
    if let PartKind::ToolRequest(r) = &mut part.kind {
        edit(r);
    }
    part
}
