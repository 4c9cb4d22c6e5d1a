//! Hooks: code wrapped around each tool call ([`ToolHook`]), each turn ([`TurnHook`]) and
//! each model call ([`ModelHook`]), in the order they were added, the first outermost.
//!
//! A tool hook receives the call, its [`ToolContext`] and [`Next`], the rest of the chain: it
//! may run `next` zero or more times, rewrite the input or the output, turn errors into
//! answers, attach parts, fail, or interrupt. [`ToolApproval`] is one, shipped: it holds calls
//! of tools outside an allowlist until the caller approves them.
//!
//! ```
//! use futures::FutureExt;
//! use submit_agent::hook::tool_hook_fn;
//! use submit_agent::prelude::*;
//!
//! let upper = tool_hook_fn("upper", |_ctx, call, next| {
//!     async move {
//!         let mut out = next.run(call).await?;
//!         out.output = out.output.map(|v| v.as_str().unwrap_or_default().to_uppercase().into());
//!         Ok(out)
//!     }
//!     .boxed()
//! });
//! let echo = Tool::new("echo", "Echoes.", |_ctx: ToolContext, text: String| async move {
//!     Ok::<_, ToolError>(text)
//! });
//! let model = ScriptedModel::new()
//!     .then_message(vec![Part::tool_request("echo", None, serde_json::json!("hi"))])
//!     .then_text("done");
//! let agent = Agent::new(model.clone()).tool(echo).hook(upper);
//! futures::executor::block_on(agent.generate(vec![Message::user("go")])).unwrap();
//! let answer = &model.requests()[1].messages[2].content[0];
//! assert_eq!(answer.as_tool_response().unwrap().output, Some(serde_json::json!("HI")));
//! ```

mod approval;

pub use approval::{ToolApproval, ToolCallDecision, TOOL_APPROVAL};

use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use futures::future::BoxFuture;
use futures::FutureExt;
use serde_json::Value;

use crate::model::stream::ModelStream;
use crate::model::{Model, ModelError, ModelRequest, ModelResponse};
use crate::run::RunError;
use crate::tool::context::{CallState, Stage, ToolContext};
use crate::tool::ToolError;
use crate::tool::{Tool, ToolOutput};

/// A tool call as a hook sees it.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct ToolCall {
    /// The tool's name.
    pub name: String,
    /// The call's reference.
    pub reference: Option<String>,
    /// The input; a hook may rewrite it before calling `next`.
    pub input: Value,
}

/// Wraps every tool call: receives the call, its context and `next`; may run `next` zero or
/// more times, rewrite the output, convert errors, attach parts, fail, or interrupt.
pub trait ToolHook: Send + Sync {
    /// The hook's name; its id is the name, then `name#2`, `name#3` … for repeats.
    fn name(&self) -> &str;

    /// Wraps one call.
    fn wrap_tool<'a>(
        &'a self,
        ctx: ToolContext,
        call: ToolCall,
        next: Next,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>>;
}

/// A tool hook from a name and a closure.
///
/// ```
/// use futures::FutureExt;
/// use submit_agent::hook::{tool_hook_fn, ToolHook};
///
/// let log = tool_hook_fn("log", |_ctx, call, next| {
///     async move { next.run(call).await }.boxed()
/// });
/// assert_eq!(log.name(), "log");
/// ```
pub fn tool_hook_fn<F>(name: impl Into<String>, function: F) -> impl ToolHook
where
    F: Fn(ToolContext, ToolCall, Next) -> BoxFuture<'static, Result<ToolOutput, ToolError>>
        + Send
        + Sync,
{
    struct FnHook<F> {
        name: String,
        function: F,
    }
    impl<F> ToolHook for FnHook<F>
    where
        F: Fn(ToolContext, ToolCall, Next) -> BoxFuture<'static, Result<ToolOutput, ToolError>>
            + Send
            + Sync,
    {
        fn name(&self) -> &str {
            &self.name
        }
        fn wrap_tool<'a>(
            &'a self,
            ctx: ToolContext,
            call: ToolCall,
            next: Next,
        ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
            (self.function)(ctx, call, next)
        }
    }
    FnHook {
        name: name.into(),
        function,
    }
}

/// The tools and hooks of one run.
pub(crate) struct Chain {
    pub(crate) hooks: Vec<(String, Arc<dyn ToolHook>)>,
    pub(crate) tools: HashMap<String, Tool>,
}

impl Chain {
    pub(crate) fn new(hooks: &[Arc<dyn ToolHook>], tools: HashMap<String, Tool>) -> Arc<Self> {
        let mut seen: HashMap<String, usize> = HashMap::new();
        let hooks = hooks
            .iter()
            .map(|h| {
                let n = seen.entry(h.name().to_owned()).or_insert(0);
                *n += 1;
                let id = if *n == 1 {
                    h.name().to_owned()
                } else {
                    format!("{}#{}", h.name(), n)
                };
                (id, Arc::clone(h))
            })
            .collect();
        Arc::new(Chain { hooks, tools })
    }

    /// Runs one call through every hook and the tool; a panic anywhere is a tool error.
    pub(crate) async fn execute(
        self: &Arc<Self>,
        call: ToolCall,
        state: Arc<CallState>,
    ) -> Result<ToolOutput, ToolError> {
        let span = tracing::info_span!("tool", name = %call.name);
        let next = Next {
            chain: Arc::clone(self),
            index: 0,
            state,
        };
        let run = AssertUnwindSafe(next.run(call)).catch_unwind();
        match tracing::Instrument::instrument(run, span).await {
            Ok(result) => result,
            Err(panic) => {
                let message = panic
                    .downcast_ref::<&str>()
                    .map(|s| (*s).to_owned())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "non-string panic payload".to_owned());
                Err(ToolError::msg(format!("tool panicked: {message}")).mark_from_tool())
            }
        }
    }
}

/// The rest of the chain after a hook: the next hook, or the tool.
#[derive(Clone)]
pub struct Next {
    chain: Arc<Chain>,
    index: usize,
    state: Arc<CallState>,
}

impl std::fmt::Debug for Next {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Next").field("index", &self.index).finish()
    }
}

impl Next {
    /// Runs the rest of the chain on `call`.
    pub fn run(&self, call: ToolCall) -> BoxFuture<'static, Result<ToolOutput, ToolError>> {
        if let Some((id, _)) = self
            .index
            .checked_sub(1)
            .and_then(|i| self.chain.hooks.get(i))
        {
            self.state.record_passed(id);
        }
        let this = self.clone();
        async move {
            match this.chain.hooks.get(this.index) {
                Some((id, hook)) => {
                    let ctx =
                        ToolContext::for_stage(Arc::clone(&this.state), Stage::Hook(id.clone()));
                    let next = Next {
                        chain: Arc::clone(&this.chain),
                        index: this.index + 1,
                        state: Arc::clone(&this.state),
                    };
                    hook.wrap_tool(ctx, call, next).await
                }
                None => {
                    let Some(tool) = this.chain.tools.get(&call.name) else {
                        return Err(ToolError::msg(format!("tool {:?} not found", call.name))
                            .mark_from_tool());
                    };
                    let ctx = ToolContext::for_stage(Arc::clone(&this.state), Stage::Tool);
                    tool.run(ctx, call.input)
                        .await
                        .map_err(ToolError::mark_from_tool)
                }
            }
        }
        .boxed()
    }
}

/// Where a turn stands, as a turn hook sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct TurnInfo {
    /// The turn, from 0 (after a resume, the first model call is turn 1).
    pub turn: usize,
    /// The index of the turn's model message in the response stream.
    pub message_index: usize,
}

/// The opaque end of a turn; a turn hook returns what `next` gave it.
#[derive(Debug)]
pub struct TurnEnd(pub(crate) crate::run::response::TurnOutcome);

/// Wraps each turn (a model call and the tool round after it). N tool rounds make N + 1 turns.
pub trait TurnHook: Send + Sync {
    /// Wraps one turn; `next` runs it.
    fn wrap_turn<'a>(
        &'a self,
        info: TurnInfo,
        next: BoxFuture<'a, Result<TurnEnd, RunError>>,
    ) -> BoxFuture<'a, Result<TurnEnd, RunError>>;
}

/// Wraps each model call.
pub trait ModelHook: Send + Sync {
    /// Wraps one call; `next` runs the rest of the chain and the model.
    fn wrap_model<'a>(
        &'a self,
        request: ModelRequest,
        next: ModelNext<'a>,
    ) -> BoxFuture<'a, Result<ModelResponse, ModelError>>;
}

/// The rest of the model chain.
#[derive(Clone)]
pub struct ModelNext<'a> {
    pub(crate) hooks: &'a [Arc<dyn ModelHook>],
    pub(crate) model: &'a dyn Model,
    pub(crate) stream: Option<ModelStream>,
}

impl<'a> ModelNext<'a> {
    /// Runs the rest of the chain on `request`.
    pub fn run(self, request: ModelRequest) -> BoxFuture<'a, Result<ModelResponse, ModelError>> {
        match self.hooks.split_first() {
            Some((hook, rest)) => hook.wrap_model(
                request,
                ModelNext {
                    hooks: rest,
                    model: self.model,
                    stream: self.stream,
                },
            ),
            None => self.model.generate(request, self.stream),
        }
    }
}

/// A turn hook from a closure over the turn info and `next`.
pub fn turn_hook_fn<F>(function: F) -> impl TurnHook
where
    F: for<'a> Fn(
            TurnInfo,
            BoxFuture<'a, Result<TurnEnd, RunError>>,
        ) -> BoxFuture<'a, Result<TurnEnd, RunError>>
        + Send
        + Sync,
{
    struct FnTurn<F>(F);
    impl<F> TurnHook for FnTurn<F>
    where
        F: for<'a> Fn(
                TurnInfo,
                BoxFuture<'a, Result<TurnEnd, RunError>>,
            ) -> BoxFuture<'a, Result<TurnEnd, RunError>>
            + Send
            + Sync,
    {
        fn wrap_turn<'a>(
            &'a self,
            info: TurnInfo,
            next: BoxFuture<'a, Result<TurnEnd, RunError>>,
        ) -> BoxFuture<'a, Result<TurnEnd, RunError>> {
            (self.0)(info, next)
        }
    }
    FnTurn(function)
}
