//! The invented `multi_tool_use.parallel` call: models write it to call several tools at once.
//! Its entries run as the turn's calls (the terminal tool's after the others), and the
//! wrapper's own call id, the only one the provider knows, is answered once with the entries'
//! results in entry order. The loop's records name an entry `<wrapper id>#<index>`.

use futures::future::join_all;
use futures::FutureExt;
use serde_json::{json, Value};
use submit_core::{parallel_entries, ParallelEntry, StopReason, PARALLEL_WRAPPER};

use super::call::{error_part, response_part, CallResult, Exec, GateStep, GateTurn, TerminalGate};
use crate::message::{Part, ToolRequest, KEY_IS_ERROR};
use crate::tool::ToolError;
use crate::tool::ToolOutput;

/// One wrapper call of a turn, and what became of its entries.
pub(super) struct Wrapper {
    /// The wrapper's position among the message's parts.
    pub(super) index: usize,
    name: String,
    reference: Option<String>,
    /// The entries, or the message declining the wrapper as a whole.
    entries: Result<Vec<ParallelEntry>, String>,
    /// Each entry's answer, once it has one.
    answers: Vec<Option<Part>>,
    /// The wrapper is the turn's last call and the turn stopped at the output-token limit.
    cut: bool,
}

/// The wrappers among a message's requests; `cut` is the part index of the call the
/// output-token limit cut, if any.
pub(super) fn wrappers(
    requests: &[(usize, &ToolRequest)],
    cut: Option<usize>,
    terminal: &str,
) -> Vec<Wrapper> {
    requests
        .iter()
        .filter(|(_, r)| r.name == PARALLEL_WRAPPER)
        .map(|(i, r)| {
            let entries = parallel_entries(r.arguments(), terminal);
            let count = entries.as_ref().map_or(0, Vec::len);
            Wrapper {
                index: *i,
                name: r.name.clone(),
                reference: r.reference.clone(),
                entries,
                answers: vec![None; count],
                cut: cut == Some(*i),
            }
        })
        .collect()
}

impl Wrapper {
    fn entry_reference(&self, n: usize) -> String {
        format!("{}#{n}", self.reference.as_deref().unwrap_or(""))
    }

    /// Runs the entries of tools other than the terminal one, concurrently; a tool's own hard
    /// failure is returned with the tool's name, as a direct call's would stop the run.
    pub(super) async fn run_calls(
        &mut self,
        exec: &Exec<'_>,
        is_terminal: impl Fn(&str) -> bool,
    ) -> Result<(), (String, ToolError)> {
        let Ok(entries) = &self.entries else {
            return Ok(());
        };
        let calls = entries
            .iter()
            .enumerate()
            .filter(|(_, e)| !is_terminal(&e.name))
            .map(|(n, e)| {
                let request = ToolRequest {
                    name: e.name.clone(),
                    reference: Some(self.entry_reference(n)),
                    input: e.parameters.clone(),
                    ..ToolRequest::default()
                };
                exec.call(request, None).map(move |result| (n, result))
            });
        for (n, result) in join_all(calls).await {
            let name = entries.get(n).map(|e| e.name.clone()).unwrap_or_default();
            let answer = match result {
                CallResult::Done(part) => part,
                // An entry cannot pause the run: the provider knows no call to resume it by.
                CallResult::Interrupted(_) => error_part(
                    &name,
                    Some(self.entry_reference(n)),
                    format!(
                        "{name} cannot pause the run from inside {PARALLEL_WRAPPER}; call {name} directly"
                    ),
                    Vec::new(),
                ),
                CallResult::Failed(error) => return Err((name, error)),
            };
            if let Some(slot) = self.answers.get_mut(n) {
                *slot = Some(answer);
            }
        }
        Ok(())
    }

    /// Gates the entries of the terminal tool, in entry order, after every other call of the
    /// turn; `committed` says whether a terminal call of the turn already committed. Returns
    /// whether one committed now, or the message of a validator that failed.
    pub(super) async fn run_terminal_entries(
        &mut self,
        gate: &dyn TerminalGate,
        forced_by_budget: bool,
        mut committed: bool,
    ) -> Result<bool, String> {
        let Ok(entries) = &self.entries else {
            return Ok(committed);
        };
        let last = entries.len().saturating_sub(1);
        let mut answers = Vec::new();
        for (n, entry) in entries.iter().enumerate() {
            if entry.name != gate.name() {
                continue;
            }
            let reference = self.entry_reference(n);
            let answer = if committed {
                already_accepted(&entry.name, Some(reference))
            } else {
                let end = if self.cut && n == last {
                    StopReason::OutputLimit
                } else {
                    StopReason::Complete
                };
                let turn = GateTurn {
                    end,
                    forced_by_budget,
                };
                match gate.gate_entry(&reference, entry, turn).await {
                    GateStep::Answer { output, is_error } => {
                        answer_part(&entry.name, Some(reference), output, is_error)
                    }
                    GateStep::Commit { output } => {
                        committed = true;
                        answer_part(&entry.name, Some(reference), output, false)
                    }
                    GateStep::Abort(message) => return Err(message),
                }
            };
            answers.push((n, answer));
        }
        for (n, answer) in answers {
            if let Some(slot) = self.answers.get_mut(n) {
                *slot = Some(answer);
            }
        }
        Ok(committed)
    }

    /// The wrapper's one answer: the entries' results in entry order (each the tool result the
    /// entry would have had), or the message declining it; the entries' attached parts follow.
    pub(super) fn into_part(self) -> Part {
        let answers = match self.entries {
            Err(message) => {
                return error_part(&self.name, self.reference, message, Vec::new());
            }
            Ok(_) => self.answers,
        };
        let mut outputs = Vec::with_capacity(answers.len());
        let mut content = Vec::new();
        for answer in answers {
            match answer.and_then(|p| p.as_tool_response().cloned()) {
                Some(response) => {
                    outputs.push(response.output.unwrap_or(Value::Null));
                    content.extend(response.content);
                }
                None => outputs.push(json!({"error": "this entry was not run"})),
            }
        }
        response_part(
            &self.name,
            self.reference,
            ToolOutput {
                output: Some(Value::Array(outputs)),
                content,
                metadata: None,
            },
        )
    }
}

/// A terminal call's answer, marked as an error where the gate said so.
pub(super) fn answer_part(
    name: &str,
    reference: Option<String>,
    output: Value,
    is_error: bool,
) -> Part {
    let mut part = response_part(name, reference, ToolOutput::value(output));
    if is_error {
        part.set_meta(KEY_IS_ERROR, Value::Bool(true));
    }
    part
}

/// The answer to a terminal call after one already committed.
pub(super) fn already_accepted(name: &str, reference: Option<String>) -> Part {
    answer_part(
        name,
        reference,
        json!({"error": "a terminal result was already accepted"}),
        true,
    )
}
