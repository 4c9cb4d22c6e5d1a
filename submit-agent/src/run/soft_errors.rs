//! Soft tool errors: an agent option that answers the covered tools' own errors to the model
//! instead of stopping the run.

use std::collections::HashSet;

use super::Agent;

/// Answers errors of the covered tools (and unknown tool names) to the model as
/// `{"error": <message>}` instead of stopping the run. Interrupts are never softened, and an
/// error a hook made in place of the tool's own stays hard.
///
/// ```
/// use submit_agent::run::SoftToolErrors;
///
/// assert!(SoftToolErrors::all().covers("anything"));
/// assert!(!SoftToolErrors::only(["search"]).covers("delete"));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SoftToolErrors {
    tools: Option<HashSet<String>>,
}

impl SoftToolErrors {
    /// Covers every tool and every unknown tool name.
    pub fn all() -> Self {
        SoftToolErrors { tools: None }
    }

    /// Covers the named tools only (an empty list covers every tool).
    pub fn only<I, S>(tools: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let tools: HashSet<String> = tools.into_iter().map(Into::into).collect();
        SoftToolErrors {
            tools: (!tools.is_empty()).then_some(tools),
        }
    }

    /// Whether errors of `tool` are answered to the model.
    pub fn covers(&self, tool: &str) -> bool {
        self.tools.as_ref().is_none_or(|t| t.contains(tool))
    }
}

impl Agent {
    /// Answers errors of the covered tools to the model (instances combine).
    pub fn soft_tool_errors(self, policy: SoftToolErrors) -> Self {
        self.answer_errors_of(move |tool| policy.covers(tool))
    }
}
