//! The report of a [`Summary`]: shares of the calls, as JSON or as a table for people.

use std::fmt::Write as _;

use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;
use submit_core::{ParameterCause, TextFormat};

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
                call_in_text: share(self.call_in_text),
                parallel_wrapper: share(self.parallel_wrapper),
                wrapped_call: share(self.wrapped_call),
                stringified_value: share(self.stringified_value),
                enum_case: share(self.enum_case),
            },
            call_in_text_format: TextFormats(self.call_in_text_format.map(share)),
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
    /// Accepted after `call_in_text`, by the format the call was written in.
    pub call_in_text_format: TextFormats,
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
    /// `call_in_text`.
    pub call_in_text: Share,
    /// `parallel_wrapper`.
    pub parallel_wrapper: Share,
    /// `wrapped_call`.
    pub wrapped_call: Share,
    /// `stringified_value`.
    pub stringified_value: Share,
    /// `enum_case`.
    pub enum_case: Share,
}

/// Calls read from text, by format: one share per format, in the order of
/// [`TextFormat::ALL`]. Serializes as an object keyed by the format's name (`hermes`, …), every
/// format present.
#[derive(Clone, Debug, PartialEq)]
pub struct TextFormats(pub [Share; TextFormat::ALL.len()]);

impl Serialize for TextFormats {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (format, share) in TextFormat::ALL.iter().zip(&self.0) {
            map.serialize_entry(format.as_str(), share)?;
        }
        map.end()
    }
}

/// The label of the row of calls read from text in each format, in the order of
/// [`TextFormat::ALL`] (a format added there fails to build until it has its label here).
const FORMAT_LABELS: [&str; TextFormat::ALL.len()] = [
    "call_in_text (hermes)",
    "call_in_text (xml_function)",
    "call_in_text (glm)",
    "call_in_text (mistral)",
    "call_in_text (llama_json)",
    "call_in_text (deepseek)",
    "call_in_text (kimi)",
    "call_in_text (harmony)",
    "call_in_text (pythonic)",
];

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
    /// A part of the recovery row above it (`call_in_text` in one format): not a bar.
    Part,
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
    /// The summary's rows in order; `lines without submit call` only when there were some, and
    /// a `call_in_text (<format>)` row under `call_in_text` for each format that had calls.
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
        let recovered = |label, of: Share| share(label, 1, RowKind::Recovered, of);
        let rejected = |label, of: Share| share(label, 2, RowKind::Rejected, of);
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
            recovered("stringified", recovery.stringified),
            recovered("reasoning_opener", recovery.reasoning_opener),
            recovered("reasoning_member", recovery.reasoning_member),
            recovered("trailing_closers", recovery.trailing_closers),
            recovered("stringified_arguments", recovery.stringified_arguments),
            recovered("fenced_arguments", recovery.fenced_arguments),
            recovered("wrapped_arguments", recovery.wrapped_arguments),
            recovered("stringified_property", recovery.stringified_property),
            recovered("closing_markup", recovery.closing_markup),
            recovered("call_in_text", recovery.call_in_text),
        ]);
        rows.extend(
            FORMAT_LABELS
                .iter()
                .zip(&self.call_in_text_format.0)
                .filter(|(_, format)| format.count > 0)
                .map(|(label, format)| share(label, 2, RowKind::Part, *format)),
        );
        rows.extend([
            recovered("parallel_wrapper", recovery.parallel_wrapper),
            recovered("wrapped_call", recovery.wrapped_call),
            recovered("stringified_value", recovery.stringified_value),
            recovered("enum_case", recovery.enum_case),
            share("rejected", 0, RowKind::Total, self.rejected),
            share("parameter", 1, RowKind::Total, self.class.parameter),
            rejected("undecodable_arguments", cause.undecodable_arguments),
            rejected("absent_or_mistyped", cause.absent_or_mistyped),
            rejected("stringified_declined", cause.stringified_declined),
            rejected("reasoning_declined", cause.reasoning_declined),
            rejected("swallowed_parameter", cause.swallowed_parameter),
            rejected("truncated_call", cause.truncated_call),
            share("payload", 1, RowKind::Rejected, self.class.payload),
        ]);
        rows
    }

    /// The report as a table for people.
    pub fn table(&self) -> String {
        let mut out = String::new();
        let rows = self.rows();
        // 26 columns, wider when a row's label is longer (`call_in_text (xml_function)`).
        let width = rows
            .iter()
            .map(|row| 2 * row.depth + row.label.chars().count())
            .fold(26, usize::max);
        for row in rows {
            let label = format!("{:indent$}{}", "", row.label, indent = 2 * row.depth);
            let _ = match row.share {
                Some(share) => writeln!(
                    out,
                    "{label:<width$} {:>12} {:>8}",
                    row.count,
                    percent(share)
                ),
                None => writeln!(out, "{label:<width$} {:>12}", row.count),
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
    use super::super::test_support::{accepted, outcome_shape, parameter, payload, recovered};
    use super::*;
    use serde_json::json;
    use submit_core::{Recovery, RecoveryKind};

    #[test]
    fn summary_aggregates_counts_and_shares() {
        let mut summary = Summary::default();
        let outcomes = [
            accepted(None),
            accepted(None),
            accepted(Some(RecoveryKind::Stringified)),
            accepted(Some(RecoveryKind::ReasoningOpener)),
            accepted(Some(RecoveryKind::ReasoningMember)),
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
    fn every_recovery_kind_has_a_row_and_a_json_key() {
        let mut summary = Summary::default();
        for kind in RecoveryKind::ALL {
            summary.record(&recovered(vec![Recovery::new(kind)]), None);
        }
        let report = summary.report(10);
        let rows = report.rows();
        let value = serde_json::to_value(&report).unwrap();
        for kind in RecoveryKind::ALL {
            let name = kind.as_str();
            let row = rows.iter().find(|row| row.label == name);
            assert_eq!(
                row.map(|row| (row.depth, row.kind, row.count)),
                Some((1, RowKind::Recovered, 1)),
                "{name}"
            );
            assert_eq!(value["recovery"][name]["count"], 1, "{name}");
        }
        let kinds = value["recovery"].as_object().map_or(0, |kinds| kinds.len());
        assert_eq!(kinds, RecoveryKind::ALL.len());
        assert_eq!(report.accepted.count, RecoveryKind::ALL.len() as u64);
        assert_eq!(report.clean.count, 0);
    }

    #[test]
    fn every_text_format_has_a_row_under_call_in_text_and_a_json_key() {
        let mut summary = Summary::default();
        for format in TextFormat::ALL {
            summary.record(&recovered(vec![Recovery::call_in_text(format)]), None);
        }
        let report = summary.report(10);
        assert_eq!(
            report.recovery.call_in_text.count,
            TextFormat::ALL.len() as u64
        );
        let rows = report.rows();
        let value = serde_json::to_value(&report).unwrap();
        let under = rows
            .iter()
            .position(|row| row.label == "call_in_text")
            .unwrap_or(usize::MAX);
        for (at, format) in TextFormat::ALL.into_iter().enumerate() {
            let name = format.as_str();
            let label = format!("call_in_text ({name})");
            let row = rows.get(under.wrapping_add(1 + at));
            assert_eq!(
                row.map(|row| (row.label, row.depth, row.kind, row.count)),
                Some((label.as_str(), 2, RowKind::Part, 1)),
                "{name}"
            );
            assert_eq!(value["call_in_text_format"][name]["count"], 1, "{name}");
            assert_eq!(
                report.call_in_text_format.0.get(at).map(|s| s.count),
                Some(1)
            );
        }
        let formats = value["call_in_text_format"]
            .as_object()
            .map_or(0, |formats| formats.len());
        assert_eq!(formats, TextFormat::ALL.len());
    }

    #[test]
    fn only_formats_with_calls_have_a_row_and_every_format_a_json_key() {
        let mut summary = Summary {
            lines: 4,
            ..Summary::default()
        };
        let in_text = |format| Recovery::call_in_text(format);
        summary.record(&recovered(vec![in_text(TextFormat::Hermes)]), None);
        // Each kind counts once for a call, whatever else applied after it.
        summary.record(
            &recovered(vec![
                in_text(TextFormat::XmlFunction),
                Recovery::new(RecoveryKind::StringifiedArguments),
            ]),
            None,
        );
        summary.record(&accepted(None), None);
        summary.record(&parameter(ParameterCause::UndecodableArguments), None);
        let report = summary.report(10);
        let labels: Vec<&str> = report
            .rows()
            .iter()
            .filter(|row| row.label.starts_with("call_in_text"))
            .map(|row| row.label)
            .collect();
        assert_eq!(
            labels,
            [
                "call_in_text",
                "call_in_text (hermes)",
                "call_in_text (xml_function)"
            ]
        );
        let value = serde_json::to_value(&report).unwrap();
        assert_eq!(value["recovery"]["call_in_text"]["count"], 2);
        assert_eq!(value["recovery"]["stringified_arguments"]["count"], 1);
        assert_eq!(value["call_in_text_format"]["pythonic"]["count"], 0);
        assert_eq!(value["call_in_text_format"]["hermes"]["share"], 0.25);
        // The longest label widens the label column; every count stays in one column.
        let table = report.table();
        let row = format!(
            "\n{:<31} {:>12} {:>8}\n",
            "    call_in_text (xml_function)", 1, "25.00%"
        );
        assert!(table.contains(&row), "{table}");
        let clean = format!("\n{:<31} {:>12} {:>8}\n", "  clean", 1, "25.00%");
        assert!(table.contains(&clean), "{table}");
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
