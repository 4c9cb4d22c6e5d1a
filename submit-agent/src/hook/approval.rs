//! Tool approval: a tool hook that holds calls of tools outside an allowlist until the caller
//! approves or denies them.

use std::collections::HashSet;

use futures::future::BoxFuture;
use futures::FutureExt;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::{Next, ToolCall, ToolHook};
use crate::tool::{ToolContext, ToolError, ToolOutput};

/// A caller's decision on a held call, the resume data of a [`ToolApproval`] hold.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct ToolCallDecision {
    /// Whether the call may run.
    #[serde(rename = "toolApproved", default)]
    pub tool_approved: bool,
    /// Why, shown to the model on a denial.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl ToolCallDecision {
    /// An approval.
    pub fn approve() -> Self {
        ToolCallDecision {
            tool_approved: true,
            reason: None,
        }
    }

    /// A denial with a reason for the model.
    pub fn deny(reason: impl Into<String>) -> Self {
        ToolCallDecision {
            tool_approved: false,
            reason: Some(reason.into()),
        }
    }
}

/// The id of the tool-approval hook.
pub const TOOL_APPROVAL: &str = "tool_approval";

/// Holds every call of a tool outside the allowlist with an interrupt
/// (`{"message": "Tool not in approved list: <name>"}`). A restart carrying an approving
/// [`ToolCallDecision`] runs the tool; any other restart answers the model with a denial.
/// A released call passes through.
#[derive(Clone, Debug, Default)]
pub struct ToolApproval {
    allowed: HashSet<String>,
}

impl ToolApproval {
    /// Holds every tool not in `allowed` (an empty list holds everything).
    pub fn new<I, S>(allowed: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        ToolApproval {
            allowed: allowed.into_iter().map(Into::into).collect(),
        }
    }
}

impl ToolHook for ToolApproval {
    fn name(&self) -> &str {
        TOOL_APPROVAL
    }

    fn wrap_tool<'a>(
        &'a self,
        ctx: ToolContext,
        call: ToolCall,
        next: Next,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        if self.allowed.contains(&call.name) || ctx.released() {
            return next.run(call);
        }
        if let Some(decision) = ctx.resume_data::<ToolCallDecision>() {
            if decision.tool_approved {
                return next.run(call);
            }
            let mut message = "the tool call was denied; do not retry it or work around the denial, continue without it or tell the user it was refused".to_owned();
            if let Some(reason) = decision.reason.filter(|r| !r.is_empty()) {
                message.push_str(". Reason: ");
                message.push_str(&reason);
            }
            return futures::future::ready(Err(ctx.fail_message(message))).boxed();
        }
        let data = json!({ "message": format!("Tool not in approved list: {}", call.name) });
        futures::future::ready(Err(ctx.interrupt(data))).boxed()
    }
}
