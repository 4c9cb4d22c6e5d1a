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
                truncated_call: share(self.truncated_call),
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
    /// `truncated_call`.
    pub truncated_call: Share,
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

/// What a row of the summary counts, and so how the chart draws it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowKind {
    /// A count of lines or calls, not an outcome.
    Count,
    /// A total over the rows under it (accepted, rejected, parameter): not a bar.
    Total,
    /// Accepted with no recovery.
    Clean,
    /// Accepted after this recovery (a call counts under each kind that applied).
    Recovered,
    /// Rejected with this cause or class.
    Rejected,
}

/// One row of the summary, the same in the table and the HTML page.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Row {
    /// The name (`stringified_declined`).
    pub label: &'static str,
    /// How deep it sits under the rows above it (0 at the top).
    pub depth: usize,
    /// What it counts.
    pub kind: RowKind,
    /// The count.
    pub count: u64,
    /// Its share of the calls, for an outcome row.
    pub share: Option<f64>,
}

impl Report {
    /// The summary's rows in order; `lines without submit call` only when there were some.
    pub fn rows(&self) -> Vec<Row> {
        let count = |label, count| Row {
            label,
            depth: 0,
            kind: RowKind::Count,
            count,
            share: None,
        };
        let share = |label, depth, kind, share: Share| Row {
            label,
            depth,
            kind,
            count: share.count,
            share: Some(share.share),
        };
        let recovery = &self.recovery;
        let cause = &self.cause;
        let mut rows = vec![
            count("lines", self.lines),
            count("calls", self.calls),
            count("malformed lines", self.malformed.count),
        ];
        if self.without_call > 0 {
            rows.push(count("lines without submit call", self.without_call));
        }
        rows.extend([
            share("accepted", 0, RowKind::Total, self.accepted),
            share("clean", 1, RowKind::Clean, self.clean),
            share("stringified", 1, RowKind::Recovered, recovery.stringified),
            share(
                "reasoning_opener",
                1,
                RowKind::Recovered,
                recovery.reasoning_opener,
            ),
            share(
                "reasoning_member",
                1,
                RowKind::Recovered,
                recovery.reasoning_member,
            ),
            share(
                "trailing_closers",
                1,
                RowKind::Recovered,
                recovery.trailing_closers,
            ),
            share(
                "stringified_arguments",
                1,
                RowKind::Recovered,
                recovery.stringified_arguments,
            ),
            share(
                "fenced_arguments",
                1,
                RowKind::Recovered,
                recovery.fenced_arguments,
            ),
            share(
                "wrapped_arguments",
                1,
                RowKind::Recovered,
                recovery.wrapped_arguments,
            ),
            share(
                "stringified_property",
                1,
                RowKind::Recovered,
                recovery.stringified_property,
            ),
            share(
                "closing_markup",
                1,
                RowKind::Recovered,
                recovery.closing_markup,
            ),
            share("rejected", 0, RowKind::Total, self.rejected),
            share("parameter", 1, RowKind::Total, self.class.parameter),
            share(
                "undecodable_arguments",
                2,
                RowKind::Rejected,
                cause.undecodable_arguments,
            ),
            share(
                "absent_or_mistyped",
                2,
                RowKind::Rejected,
                cause.absent_or_mistyped,
            ),
            share(
                "stringified_declined",
                2,
                RowKind::Rejected,
                cause.stringified_declined,
            ),
            share(
                "reasoning_declined",
                2,
                RowKind::Rejected,
                cause.reasoning_declined,
            ),
            share(
                "swallowed_parameter",
                2,
                RowKind::Rejected,
                cause.swallowed_parameter,
            ),
            share("truncated_call", 2, RowKind::Rejected, cause.truncated_call),
            share("payload", 1, RowKind::Rejected, self.class.payload),
        ]);
        rows
    }

    /// The report as a table for people.
    pub fn table(&self) -> String {
        let mut out = String::new();
        for row in self.rows() {
            let label = format!("{:indent$}{}", "", row.label, indent = 2 * row.depth);
            let _ = match row.share {
                Some(share) => writeln!(out, "{label:<26} {:>12} {:>8}", row.count, percent(share)),
                None => writeln!(out, "{label:<26} {:>12}", row.count),
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
            parameter(ParameterCause::TruncatedCall),
            payload(),
        ];
        for outcome in &outcomes {
            summary.lines += 1;
            summary.record(outcome, outcome_shape(outcome));
        }
        summary.lines += 2;
        summary.record_malformed(12, "not JSON");
        summary.record_malformed(13, "empty line");
        let report = summary.report(10);
        assert_eq!(report.lines, 13);
        assert_eq!(report.calls, 11);
        assert_eq!(report.malformed.count, 2);
        assert_eq!(
            report.accepted,
            Share {
                count: 5,
                share: 5.0 / 11.0
            }
        );
        assert_eq!(
            report.clean,
            Share {
                count: 2,
                share: 2.0 / 11.0
            }
        );
        assert_eq!(report.recovery.stringified.count, 1);
        assert_eq!(report.recovery.reasoning_opener.count, 1);
        assert_eq!(report.recovery.reasoning_member.count, 1);
        assert_eq!(
            report.rejected,
            Share {
                count: 6,
                share: 6.0 / 11.0
            }
        );
        assert_eq!(report.class.parameter.count, 5);
        assert_eq!(
            report.class.payload,
            Share {
                count: 1,
                share: 1.0 / 11.0
            }
        );
        assert_eq!(report.cause.undecodable_arguments.count, 1);
        assert_eq!(report.cause.absent_or_mistyped.count, 1);
        assert_eq!(report.cause.stringified_declined.count, 1);
        assert_eq!(report.cause.reasoning_declined.count, 1);
        assert_eq!(report.cause.swallowed_parameter.count, 0);
        assert_eq!(report.cause.truncated_call.count, 1);
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
        assert_eq!(value["cause"]["truncated_call"]["count"], 0);
        assert_eq!(value["class"]["payload"]["count"], 0);
        assert_eq!(value["malformed"]["count"], 0);
        assert_eq!(value["declined_shapes"], json!([]));
    }

    #[test]
    fn every_parameter_cause_has_a_row_and_a_json_key() {
        let mut summary = Summary::default();
        for cause in ParameterCause::ALL {
            summary.record(&parameter(cause), None);
        }
        let report = summary.report(10);
        let rows = report.rows();
        let value = serde_json::to_value(&report).unwrap();
        for cause in ParameterCause::ALL {
            let name = cause.as_str();
            let row = rows.iter().find(|row| row.label == name);
            assert_eq!(
                row.map(|row| (row.depth, row.kind, row.count)),
                Some((2, RowKind::Rejected, 1)),
                "{name}"
            );
            assert_eq!(value["cause"][name]["count"], 1, "{name}");
        }
        let causes = value["cause"].as_object().map_or(0, |causes| causes.len());
        assert_eq!(causes, ParameterCause::ALL.len());
        assert_eq!(
            report.class.parameter.count,
            ParameterCause::ALL.len() as u64
        );
    }

    #[test]
    fn the_table_has_a_truncated_call_row_under_parameter() {
        let mut summary = Summary {
            lines: 4,
            ..Summary::default()
        };
        summary.record(&accepted(None), None);
        for _ in 0..3 {
            summary.record(&parameter(ParameterCause::TruncatedCall), None);
        }
        let table = summary.report(10).table();
        let row = format!("\n{:<26} {:>12} {:>8}\n", "    truncated_call", 3, "75.00%");
        assert!(table.contains(&row), "{table}");
        let parameter_row = table.find("  parameter ").unwrap_or(usize::MAX);
        let truncated_row = table.find("    truncated_call").unwrap_or(0);
        let payload_row = table.find("  payload ").unwrap_or(0);
        assert!(
            parameter_row < truncated_row && truncated_row < payload_row,
            "{table}"
        );
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
