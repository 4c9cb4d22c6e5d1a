//! The running counts of a triage: what each outcome and each malformed line adds.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;
use submit_core::{Outcome, ParameterCause, RecoveryKind, TextFormat};

use crate::shapes::ShapeCounter;

/// How many malformed lines are reported by number (the rest are only counted).
pub const MALFORMED_KEPT: usize = 20;

/// A malformed line: its number (from 1) and what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MalformedLine {
    /// The line number, counting from 1.
    pub line: u64,
    /// Why it is not a call: not JSON, or not in the provider's shape.
    pub reason: String,
}

/// The running counts of a triage.
#[derive(Debug, Default)]
pub struct Summary {
    /// Lines read.
    pub lines: u64,
    /// Lines that were not calls.
    pub malformed: u64,
    /// The first [`MALFORMED_KEPT`] malformed lines.
    pub malformed_first: Vec<MalformedLine>,
    /// Accepted, recovered or not.
    pub accepted: u64,
    /// Accepted with no recovery.
    pub clean: u64,
    /// Accepted after the stringified recovery.
    pub stringified: u64,
    /// Accepted after the reasoning opener recovery.
    pub reasoning_opener: u64,
    /// Accepted after the reasoning member recovery.
    pub reasoning_member: u64,
    /// Accepted after dropping closing tokens after the arguments.
    pub trailing_closers: u64,
    /// Accepted after reading arguments JSON-encoded into a string.
    pub stringified_arguments: u64,
    /// Accepted after opening a Markdown fence.
    pub fenced_arguments: u64,
    /// Accepted after unwrapping one wrapper member.
    pub wrapped_arguments: u64,
    /// Accepted after decoding stringified flat properties.
    pub stringified_property: u64,
    /// Accepted after removing tool-call markup from string properties.
    pub closing_markup: u64,
    /// Accepted after reading a call the model wrote as text.
    pub call_in_text: u64,
    /// The calls read from text, by format, in the order of [`TextFormat::ALL`].
    pub call_in_text_format: [u64; TextFormat::ALL.len()],
    /// Accepted after taking the call out of a `multi_tool_use.parallel` wrapper.
    pub parallel_wrapper: u64,
    /// Accepted after unwrapping arguments that were the whole call.
    pub wrapped_call: u64,
    /// Accepted after decoding values below the payload's top that arrived as strings.
    pub stringified_value: u64,
    /// Accepted after matching enum values written in another letter case.
    pub enum_case: u64,
    /// Rejected: payload class.
    pub payload: u64,
    /// Rejected: parameter class, any cause.
    pub parameter: u64,
    /// Rejected: parameter class, undecodable arguments.
    pub undecodable_arguments: u64,
    /// Rejected: parameter class, absent or mistyped.
    pub absent_or_mistyped: u64,
    /// Rejected: parameter class, stringified payload declined.
    pub stringified_declined: u64,
    /// Rejected: parameter class, reasoning recovery declined.
    pub reasoning_declined: u64,
    /// Rejected: parameter class, a string swallowed another parameter.
    pub swallowed_parameter: u64,
    /// Rejected: parameter class, the last call of a turn cut off at the output-token limit.
    pub truncated_call: u64,
    /// The declined shapes.
    pub shapes: ShapeCounter,
    /// Batch entries with no answer, by status (`anthropic batch: expired`): a short fixed
    /// list, so the map stays small.
    pub failed_entries: BTreeMap<String, u64>,
    /// Lines that held an answer with no call of the submit tool.
    pub without_call: u64,
}

impl Summary {
    /// Counts a line that is not a call.
    pub fn record_malformed(&mut self, line: u64, reason: &str) {
        self.malformed += 1;
        if self.malformed_first.len() < MALFORMED_KEPT {
            self.malformed_first.push(MalformedLine {
                line,
                reason: sanitize(reason),
            });
        }
    }

    /// Counts a batch entry with no answer.
    pub fn record_failed_entry(&mut self, status: String) {
        *self.failed_entries.entry(status).or_insert(0) += 1;
    }

    /// Counts an outcome, and `shape`, the declined shape of a declined recovery.
    pub fn record(&mut self, outcome: &Outcome<Value>, shape: Option<String>) {
        if let Some((cause, shape)) = self.count(outcome, shape) {
            self.shapes.add(cause, shape);
        }
    }

    /// Counts an outcome like [`Summary::record`], except its declined shape, which it returns
    /// with its cause for the shape counter instead: the counter's estimate depends on the
    /// order of the shapes once it is full, so the shapes of lines counted apart are added to
    /// it in input order after [`Summary::add`].
    pub fn count(
        &mut self,
        outcome: &Outcome<Value>,
        shape: Option<String>,
    ) -> Option<(ParameterCause, String)> {
        match outcome {
            Outcome::Accepted(accepted) => {
                self.accepted += 1;
                if accepted.recoveries.is_empty() {
                    self.clean += 1;
                }
                // Each kind that applied counts once for the call.
                let mut kinds: Vec<RecoveryKind> = Vec::new();
                for rule in &accepted.recoveries {
                    if !kinds.contains(&rule.kind) {
                        kinds.push(rule.kind);
                    }
                }
                for kind in kinds {
                    if let Some(count) = self.kind_count(kind) {
                        *count += 1;
                    }
                }
                let format = accepted
                    .recoveries
                    .iter()
                    .find(|rule| rule.kind == RecoveryKind::CallInText)
                    .and_then(|rule| rule.format);
                let at =
                    format.and_then(|format| TextFormat::ALL.iter().position(|f| *f == format));
                if let Some(at) = at {
                    self.call_in_text_format[at] += 1;
                }
            }
            Outcome::Rejected(rejected) => match rejected.error.cause() {
                None => self.payload += 1,
                Some(cause) => {
                    self.parameter += 1;
                    match cause {
                        ParameterCause::UndecodableArguments => self.undecodable_arguments += 1,
                        ParameterCause::AbsentOrMistyped => self.absent_or_mistyped += 1,
                        ParameterCause::StringifiedDeclined => self.stringified_declined += 1,
                        ParameterCause::ReasoningDeclined => self.reasoning_declined += 1,
                        ParameterCause::SwallowedParameter => self.swallowed_parameter += 1,
                        ParameterCause::TruncatedCall => self.truncated_call += 1,
                        _ => {}
                    }
                    if matches!(
                        cause,
                        ParameterCause::StringifiedDeclined | ParameterCause::ReasoningDeclined
                    ) {
                        return shape.map(|shape| (cause, shape));
                    }
                }
            },
        }
        None
    }

    /// Adds the counts of `later`, lines counted apart that come after these, as if they had
    /// been counted here.
    ///
    /// Every count is summed, the malformed lines kept by number as far as [`MALFORMED_KEPT`]
    /// goes. Declined shapes are not added: `later` counts them with [`Summary::count`], which
    /// leaves them to the caller.
    pub fn add(&mut self, later: Summary) {
        // Every field named, so a count added to the summary cannot be forgotten here.
        let Summary {
            lines,
            malformed,
            malformed_first,
            accepted,
            clean,
            stringified,
            reasoning_opener,
            reasoning_member,
            trailing_closers,
            stringified_arguments,
            fenced_arguments,
            wrapped_arguments,
            stringified_property,
            closing_markup,
            call_in_text,
            call_in_text_format,
            parallel_wrapper,
            wrapped_call,
            stringified_value,
            enum_case,
            payload,
            parameter,
            undecodable_arguments,
            absent_or_mistyped,
            stringified_declined,
            reasoning_declined,
            swallowed_parameter,
            truncated_call,
            shapes: _,
            failed_entries,
            without_call,
        } = later;
        self.lines += lines;
        self.malformed += malformed;
        let room = MALFORMED_KEPT.saturating_sub(self.malformed_first.len());
        self.malformed_first
            .extend(malformed_first.into_iter().take(room));
        self.accepted += accepted;
        self.clean += clean;
        self.stringified += stringified;
        self.reasoning_opener += reasoning_opener;
        self.reasoning_member += reasoning_member;
        self.trailing_closers += trailing_closers;
        self.stringified_arguments += stringified_arguments;
        self.fenced_arguments += fenced_arguments;
        self.wrapped_arguments += wrapped_arguments;
        self.stringified_property += stringified_property;
        self.closing_markup += closing_markup;
        self.call_in_text += call_in_text;
        for (total, count) in self.call_in_text_format.iter_mut().zip(call_in_text_format) {
            *total += count;
        }
        self.parallel_wrapper += parallel_wrapper;
        self.wrapped_call += wrapped_call;
        self.stringified_value += stringified_value;
        self.enum_case += enum_case;
        self.payload += payload;
        self.parameter += parameter;
        self.undecodable_arguments += undecodable_arguments;
        self.absent_or_mistyped += absent_or_mistyped;
        self.stringified_declined += stringified_declined;
        self.reasoning_declined += reasoning_declined;
        self.swallowed_parameter += swallowed_parameter;
        self.truncated_call += truncated_call;
        for (status, count) in failed_entries {
            *self.failed_entries.entry(status).or_insert(0) += count;
        }
        self.without_call += without_call;
    }

    /// The counter of a recovery kind.
    fn kind_count(&mut self, kind: RecoveryKind) -> Option<&mut u64> {
        Some(match kind {
            RecoveryKind::Stringified => &mut self.stringified,
            RecoveryKind::ReasoningOpener => &mut self.reasoning_opener,
            RecoveryKind::ReasoningMember => &mut self.reasoning_member,
            RecoveryKind::TrailingClosers => &mut self.trailing_closers,
            RecoveryKind::StringifiedArguments => &mut self.stringified_arguments,
            RecoveryKind::FencedArguments => &mut self.fenced_arguments,
            RecoveryKind::WrappedArguments => &mut self.wrapped_arguments,
            RecoveryKind::StringifiedProperty => &mut self.stringified_property,
            RecoveryKind::ClosingMarkup => &mut self.closing_markup,
            RecoveryKind::CallInText => &mut self.call_in_text,
            RecoveryKind::ParallelWrapper => &mut self.parallel_wrapper,
            RecoveryKind::WrappedCall => &mut self.wrapped_call,
            RecoveryKind::StringifiedValue => &mut self.stringified_value,
            RecoveryKind::EnumCase => &mut self.enum_case,
            // A kind added to the core after these: counted among the accepted only.
            _ => return None,
        })
    }

    /// Calls handled: accepted or rejected (a line may hold none, one, or several).
    pub fn calls(&self) -> u64 {
        self.accepted + self.payload + self.parameter
    }
}

/// Escapes control characters so a reason quoting model text cannot drive a terminal.
fn sanitize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() {
            out.extend(c.escape_debug());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use submit_core::Accepted;

    #[test]
    fn a_later_summary_adds_its_counts_and_malformed_lines_after_these() {
        let accepted = Outcome::Accepted(Accepted::new(json!({}), String::new(), json!({})));
        let mut first = Summary {
            lines: 2,
            ..Summary::default()
        };
        first.record_malformed(1, "empty line");
        first.record(&accepted, None);
        let mut later = Summary {
            lines: 1,
            ..Summary::default()
        };
        later.record_malformed(3, "empty line");
        first.add(later);
        assert_eq!((first.lines, first.malformed, first.clean), (3, 2, 1));
        let lines: Vec<u64> = first.malformed_first.iter().map(|m| m.line).collect();
        assert_eq!(lines, [1, 3]);
    }

    #[test]
    fn malformed_lines_keep_the_first_numbers_only() {
        let mut summary = Summary::default();
        for line in 1..=100 {
            summary.record_malformed(line, "bad\u{1b}[2J");
        }
        assert_eq!(summary.malformed, 100);
        let lines: Vec<u64> = summary.malformed_first.iter().map(|m| m.line).collect();
        assert_eq!(lines, (1..=MALFORMED_KEPT as u64).collect::<Vec<_>>());
        assert_eq!(summary.malformed_first[0].reason, "bad\\u{1b}[2J");
    }
}
