//! The report of a [`Summary`]: shares of the calls, as JSON or as a table for people.

use std::fmt::Write as _;

use serde::Serialize;
use submit_core::ParameterCause;

use super::summary::{MalformedLine, Summary, MALFORMED_KEPT};
use crate::shapes::ShapeCount;

impl Summary {
    /// The report of the counts so far, listing the `top` most common declined shapes.
    pub fn report(&self, top: usize) -> Report {
        let calls = self.calls();
        let share = |count: u64| Share {
            count,
            share: if calls == 0 {
                0.0
            } else {
                count as f64 / calls as f64
            },
        };
        let accepted = self.accepted;
        let parameter = self.parameter;
        Report {
            lines: self.lines,
            calls,
            malformed: Malformed {
                count: self.malformed,
                first: self.malformed_first.clone(),
            },
            without_call: self.without_call,
            failed_entries: self
                .failed_entries
                .iter()
                .map(|(status, count)| FailedEntries {
                    status: status.clone(),
                    count: *count,
                })
                .collect(),
            accepted: share(accepted),
            clean: share(self.clean),
            recovery: Recoveries {
                stringified: share(self.stringified),
                reasoning_opener: share(self.reasoning_opener),
                reasoning_member: share(self.reasoning_member),
                trailing_closers: share(self.trailing_closers),
                stringified_arguments: share(self.stringified_arguments),
                fenced_arguments: share(self.fenced_arguments),
                wrapped_arguments: share(self.wrapped_arguments),
                stringified_property: share(self.stringified_property),
                closing_markup: share(self.closing_markup),
            },
            rejected: share(parameter + self.payload),
            class: Classes {
                parameter: share(parameter),
                payload: share(self.payload),
            },
            cause: Causes {
                undecodable_arguments: share(self.undecodable_arguments),
                absent_or_mistyped: share(self.absent_or_mistyped),
                stringified_declined: share(self.stringified_declined),
                reasoning_declined: share(self.reasoning_declined),
                swallowed_parameter: share(self.swallowed_parameter),
            },
            declined_shapes: self
                .shapes
                .top(top)
                .into_iter()
                .map(
                    |ShapeCount {
                         cause,
                         shape,
                         count,
                     }| DeclinedShape {
                        cause,
                        shape,
                        count,
                        share: share(count).share,
                    },
                )
                .collect(),
            declined_shapes_exact: self.shapes.exact(),
        }
    }
}

/// A count and its share of the calls.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Share {
    /// How many.
    pub count: u64,
    /// `count / calls`, 0 when there were no calls.
    pub share: f64,
}

/// The summary `triage` prints.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    /// Lines read.
    pub lines: u64,
    /// Calls handled (a line may hold none, one, or several).
    pub calls: u64,
    /// Lines that were not calls, batch entries, responses or conversations.
    pub malformed: Malformed,
    /// Lines that held an answer with no call of the submit tool.
    pub without_call: u64,
    /// Batch entries with no answer (errored, canceled, expired, not HTTP 200), by status;
    /// counted apart from the calls.
    pub failed_entries: Vec<FailedEntries>,
    /// Accepted calls, recovered or not.
    pub accepted: Share,
    /// Accepted with no recovery.
    pub clean: Share,
    /// Accepted after each recovery.
    pub recovery: Recoveries,
    /// Rejected calls.
    pub rejected: Share,
    /// Rejections by class.
    pub class: Classes,
    /// Parameter rejections by cause.
    pub cause: Causes,
    /// The most common declined shapes, most common first.
    pub declined_shapes: Vec<DeclinedShape>,
    /// Whether the shape counts are exact (fewer distinct shapes than the counter tracks).
    pub declined_shapes_exact: bool,
}

/// Batch entries of one status.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FailedEntries {
    /// Which batch and why (`anthropic batch: expired`, `openai batch: HTTP 500`).
    pub status: String,
    /// How many.
    pub count: u64,
}

/// Malformed lines.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Malformed {
    /// How many.
    pub count: u64,
    /// The first ones, by line number.
    pub first: Vec<MalformedLine>,
}

/// Accepts by recovery.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Recoveries {
    /// `stringified`.
    pub stringified: Share,
    /// `reasoning_opener`.
    pub reasoning_opener: Share,
    /// `reasoning_member`.
    pub reasoning_member: Share,
    /// `trailing_closers`.
    pub trailing_closers: Share,
    /// `stringified_arguments`.
    pub stringified_arguments: Share,
    /// `fenced_arguments`.
    pub fenced_arguments: Share,
    /// `wrapped_arguments`.
    pub wrapped_arguments: Share,
    /// `stringified_property`.
    pub stringified_property: Share,
    /// `closing_markup`.
    pub closing_markup: Share,
}

/// Rejections by class.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Classes {
    /// `parameter`.
    pub parameter: Share,
    /// `payload`.
    pub payload: Share,
}

/// Parameter rejections by cause.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Causes {
    /// `undecodable_arguments`.
    pub undecodable_arguments: Share,
    /// `absent_or_mistyped`.
    pub absent_or_mistyped: Share,
    /// `stringified_declined`.
    pub stringified_declined: Share,
    /// `reasoning_declined`.
    pub reasoning_declined: Share,
    /// `swallowed_parameter`.
    pub swallowed_parameter: Share,
}

/// A declined shape with its count and share of the calls.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DeclinedShape {
    /// The cause that declined.
    pub cause: ParameterCause,
    /// What followed the object, truncated and escaped.
    pub shape: String,
    /// How many calls had it.
    pub count: u64,
    /// `count / calls`.
    pub share: f64,
}

fn percent(share: f64) -> String {
    format!("{:.2}%", share * 100.0)
}

impl Report {
    /// The report as a table for people.
    pub fn table(&self) -> String {
        let mut out = String::new();
        let rows: [(&str, Option<Share>); 23] = [
            ("lines", None),
            ("calls", None),
            ("malformed lines", None),
            ("lines without submit call", None),
            ("accepted", Some(self.accepted)),
            ("  clean", Some(self.clean)),
            ("  stringified", Some(self.recovery.stringified)),
            ("  reasoning_opener", Some(self.recovery.reasoning_opener)),
            ("  reasoning_member", Some(self.recovery.reasoning_member)),
            ("  trailing_closers", Some(self.recovery.trailing_closers)),
            (
                "  stringified_arguments",
                Some(self.recovery.stringified_arguments),
            ),
            ("  fenced_arguments", Some(self.recovery.fenced_arguments)),
            ("  wrapped_arguments", Some(self.recovery.wrapped_arguments)),
            (
                "  stringified_property",
                Some(self.recovery.stringified_property),
            ),
            ("  closing_markup", Some(self.recovery.closing_markup)),
            ("rejected", Some(self.rejected)),
            ("  parameter", Some(self.class.parameter)),
            (
                "    undecodable_arguments",
                Some(self.cause.undecodable_arguments),
            ),
            (
                "    absent_or_mistyped",
                Some(self.cause.absent_or_mistyped),
            ),
            (
                "    stringified_declined",
                Some(self.cause.stringified_declined),
            ),
            (
                "    reasoning_declined",
                Some(self.cause.reasoning_declined),
            ),
            (
                "    swallowed_parameter",
                Some(self.cause.swallowed_parameter),
            ),
            ("  payload", Some(self.class.payload)),
        ];
        for (label, share) in rows {
            let _ = match (label, share) {
                ("lines", _) => writeln!(out, "{label:<26} {:>12}", self.lines),
                ("calls", _) => writeln!(out, "{label:<26} {:>12}", self.calls),
                ("malformed lines", _) => {
                    writeln!(out, "{label:<26} {:>12}", self.malformed.count)
                }
                ("lines without submit call", _) if self.without_call > 0 => {
                    writeln!(out, "{label:<26} {:>12}", self.without_call)
                }
                (_, Some(share)) => writeln!(
                    out,
                    "{label:<26} {:>12} {:>8}",
                    share.count,
                    percent(share.share)
                ),
                (_, None) => Ok(()),
            };
        }
        if !self.failed_entries.is_empty() {
            let _ = writeln!(
                out,
                "\nbatch entries with no answer (not counted as calls):"
            );
            for entry in &self.failed_entries {
                let _ = writeln!(out, "  {:<24} {:>12}", entry.status, entry.count);
            }
        }
        if !self.malformed.first.is_empty() {
            let _ = writeln!(out, "\nmalformed lines (first {MALFORMED_KEPT}):");
        }
        for malformed in &self.malformed.first {
            let _ = writeln!(out, "  line {}: {}", malformed.line, malformed.reason);
        }
        if self.malformed.count > self.malformed.first.len() as u64 {
            let _ = writeln!(
                out,
                "  … and {} more",
                self.malformed.count - self.malformed.first.len() as u64
            );
        }
        if !self.declined_shapes.is_empty() {
            let _ = writeln!(
                out,
                "\nmost common declined shapes (what followed the object){}:",
                if self.declined_shapes_exact {
                    ""
                } else {
                    ", estimated counts"
                }
            );
            for shape in &self.declined_shapes {
                let cause = serde_json::to_value(shape.cause)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_default();
                let _ = writeln!(
                    out,
                    "{:>12} {:>8}  {cause:<22} {}",
                    shape.count,
                    percent(shape.share),
                    shape.shape
                );
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{accepted, outcome_shape, parameter, payload};
    use super::*;
    use serde_json::json;
    use submit_core::Recovery;

    #[test]
    fn summary_aggregates_counts_and_shares() {
        let mut summary = Summary::default();
        let outcomes = [
            accepted(None),
            accepted(None),
            accepted(Some(Recovery::Stringified)),
            accepted(Some(Recovery::ReasoningOpener)),
            accepted(Some(Recovery::ReasoningMember)),
            parameter(ParameterCause::UndecodableArguments),
            parameter(ParameterCause::AbsentOrMistyped),
            parameter(ParameterCause::StringifiedDeclined),
            parameter(ParameterCause::ReasoningDeclined),
            payload(),
        ];
        for outcome in &outcomes {
            summary.lines += 1;
            summary.record(outcome, outcome_shape(outcome));
        }
        summary.lines += 2;
        summary.record_malformed(11, "not JSON");
        summary.record_malformed(12, "empty line");
        let report = summary.report(10);
        assert_eq!(report.lines, 12);
        assert_eq!(report.calls, 10);
        assert_eq!(report.malformed.count, 2);
        assert_eq!(
            report.accepted,
            Share {
                count: 5,
                share: 0.5
            }
        );
        assert_eq!(
            report.clean,
            Share {
                count: 2,
                share: 0.2
            }
        );
        assert_eq!(report.recovery.stringified.count, 1);
        assert_eq!(report.recovery.reasoning_opener.count, 1);
        assert_eq!(report.recovery.reasoning_member.count, 1);
        assert_eq!(
            report.rejected,
            Share {
                count: 5,
                share: 0.5
            }
        );
        assert_eq!(report.class.parameter.count, 4);
        assert_eq!(
            report.class.payload,
            Share {
                count: 1,
                share: 0.1
            }
        );
        assert_eq!(report.cause.undecodable_arguments.count, 1);
        assert_eq!(report.cause.absent_or_mistyped.count, 1);
        assert_eq!(report.cause.stringified_declined.count, 1);
        assert_eq!(report.cause.reasoning_declined.count, 1);
        // Only the two declined causes contribute shapes.
        let shapes: Vec<&str> = report
            .declined_shapes
            .iter()
            .map(|s| s.shape.as_str())
            .collect();
        assert_eq!(shapes, ["StringifiedDeclined", "ReasoningDeclined"]);
        assert!(report.declined_shapes_exact);
    }

    #[test]
    fn shares_are_zero_without_calls() {
        let mut summary = Summary {
            lines: 1,
            ..Summary::default()
        };
        summary.record_malformed(1, "x");
        let report = summary.report(10);
        assert_eq!(report.calls, 0);
        assert_eq!(report.accepted.share, 0.0);
    }
    #[test]
    fn report_json_has_the_documented_keys() {
        let mut summary = Summary {
            lines: 1,
            ..Summary::default()
        };
        summary.record(&accepted(None), None);
        let value = serde_json::to_value(summary.report(10)).unwrap();
        assert_eq!(value["lines"], 1);
        assert_eq!(value["calls"], 1);
        assert_eq!(value["clean"]["count"], 1);
        assert_eq!(value["clean"]["share"], 1.0);
        assert_eq!(value["recovery"]["reasoning_member"]["count"], 0);
        assert_eq!(value["cause"]["stringified_declined"]["count"], 0);
        assert_eq!(value["class"]["payload"]["count"], 0);
        assert_eq!(value["malformed"]["count"], 0);
        assert_eq!(value["declined_shapes"], json!([]));
    }

    #[test]
    fn table_lists_counts_malformed_lines_and_shapes() {
        let mut summary = Summary {
            lines: 3,
            ..Summary::default()
        };
        summary.record(&accepted(None), None);
        summary.record(
            &parameter(ParameterCause::StringifiedDeclined),
            Some("\" tail\"".to_owned()),
        );
        summary.record_malformed(3, "not JSON: expected value");
        let table = summary.report(10).table();
        assert!(
            table.contains("  clean                               1   50.00%"),
            "{table}"
        );
        assert!(
            table.contains("  line 3: not JSON: expected value"),
            "{table}"
        );
        assert!(
            table.contains("stringified_declined   \" tail\""),
            "{table}"
        );
    }
}
