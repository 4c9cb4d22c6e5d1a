//! `triage`: one call a line, streamed in constant memory, summarized.

use std::fmt::Write as _;
use std::io::{BufRead, Write};
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::Value;
use submit_core::{Outcome, ParameterCause, Provider, RecoveryKind, SubmitTool};

use crate::output::OutcomeView;
use crate::shapes::{declined_shape, ShapeCount, ShapeCounter};

/// How many malformed lines are reported by number (the rest are only counted).
pub const MALFORMED_KEPT: usize = 20;

/// The longest line read as a call (16 MiB); a longer one is counted as malformed and skipped
/// without being held, so memory stays within this and one reader buffer whatever the input.
pub const MAX_LINE_BYTES: usize = 16 << 20;

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
    /// The declined shapes.
    pub shapes: ShapeCounter,
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

    /// Counts an outcome, and `shape`, the declined shape of a declined recovery.
    pub fn record(&mut self, outcome: &Outcome<Value>, shape: Option<String>) {
        match outcome {
            Outcome::Accepted(accepted) => {
                self.accepted += 1;
                if accepted.recoveries.is_empty() && accepted.recovery.is_none() {
                    self.clean += 1;
                }
                // Each kind that applied counts once for the call.
                let mut kinds: Vec<RecoveryKind> = Vec::new();
                for rule in &accepted.recoveries {
                    if !kinds.contains(&rule.kind) {
                        kinds.push(rule.kind);
                    }
                }
                if kinds.is_empty() {
                    kinds.extend(accepted.recovery.map(RecoveryKind::from));
                }
                for kind in kinds {
                    if let Some(count) = self.kind_count(kind) {
                        *count += 1;
                    }
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
                        _ => {}
                    }
                    if matches!(
                        cause,
                        ParameterCause::StringifiedDeclined | ParameterCause::ReasoningDeclined
                    ) {
                        if let Some(shape) = shape {
                            self.shapes.add(cause, shape);
                        }
                    }
                }
            },
        }
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
            _ => return None,
        })
    }

    /// Calls read (lines that were not malformed).
    pub fn calls(&self) -> u64 {
        self.lines - self.malformed.min(self.lines)
    }

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
    /// Lines that were calls.
    pub calls: u64,
    /// Lines that were not.
    pub malformed: Malformed,
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
        let rows: [(&str, Option<Share>); 22] = [
            ("lines", None),
            ("calls", None),
            ("malformed lines", None),
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
                (_, Some(share)) => writeln!(
                    out,
                    "{label:<26} {:>12} {:>8}",
                    share.count,
                    percent(share.share)
                ),
                (_, None) => Ok(()),
            };
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

/// Where `triage` reads from, for the progress display.
pub struct Input<R> {
    /// The calls, one a line.
    pub reader: R,
    /// The total size in bytes, when known (a file).
    pub size: Option<u64>,
    /// Whether to draw a progress line on standard error.
    pub progress: bool,
}

/// Why a triage stopped: reading or writing failed (malformed lines never stop it).
#[derive(Debug)]
pub enum StreamError {
    /// Reading the calls failed.
    Read(std::io::Error),
    /// Writing the outcomes failed.
    Write(std::io::Error),
}

/// A call handled: its outcome and, for a declined recovery, the declined shape.
#[derive(Debug)]
pub struct Handled {
    /// The outcome.
    pub outcome: Outcome<Value>,
    /// What followed the payload object, when a recovery declined.
    pub shape: Option<String>,
}

/// Handles lines with `tool`: a line not in `provider`'s shape is an `Err` naming why.
pub fn handler(
    tool: &SubmitTool<Value>,
    provider: Provider,
) -> impl FnMut(&Value) -> Result<Handled, String> + '_ {
    move |value| {
        let call = provider
            .read_call(value)
            .map_err(|error| error.to_string())?;
        let outcome = tool.handle(provider, value);
        let shape = match &outcome {
            Outcome::Rejected(rejected) => match rejected.error.cause() {
                Some(
                    cause @ (ParameterCause::StringifiedDeclined
                    | ParameterCause::ReasoningDeclined),
                ) => declined_shape(call.arguments, tool.payload_field(), cause),
                _ => None,
            },
            Outcome::Accepted(_) => None,
        };
        Ok(Handled { outcome, shape })
    }
}

/// Reads every line of `input`, handles each JSON line with `handle`, writes each outcome to
/// `out` (when given) as one JSON line tagged with its line number, and returns the counts.
/// A line that is empty, not JSON, refused by `handle`, or longer than [`MAX_LINE_BYTES`] is
/// counted as malformed and skipped. Memory stays bounded: one reused line buffer of at most
/// [`MAX_LINE_BYTES`], bounded malformed and shape lists.
///
/// ```
/// use serde_json::{json, Value};
/// use submit_cli::triage::{run, Handled, Input};
/// use submit_core::{Accepted, Outcome};
///
/// // A stand-in for a tool's handler: accepts `{"ok": …}`, refuses anything else.
/// let handle = |call: &Value| match call.get("ok") {
///     Some(response) => Ok(Handled {
///         outcome: Outcome::Accepted(Accepted {
///             response: response.clone(),
///             reasoning: String::new(),
///             recovery: None,
///             recoveries: Vec::new(),
///             tool_result: json!({"success": true}),
///         }),
///         shape: None,
///     }),
///     None => Err("not a call".to_owned()),
/// };
/// let calls = b"{\"ok\": 1}\nnot json\n{\"other\": 2}\n{\"ok\": 3}\n";
/// let input = Input { reader: &calls[..], size: None, progress: false };
/// let mut out = Vec::new();
/// let summary = run(input, Some(&mut out), handle).map_err(|e| format!("{e:?}"))?;
///
/// assert_eq!((summary.lines, summary.calls(), summary.clean), (4, 2, 2));
/// let malformed: Vec<u64> = summary.malformed_first.iter().map(|m| m.line).collect();
/// assert_eq!(malformed, [2, 3]);
/// assert_eq!(String::from_utf8(out).map_err(|e| e.to_string())?.lines().count(), 2);
/// # Ok::<(), String>(())
/// ```
pub fn run<R, H>(
    input: Input<R>,
    out: Option<&mut dyn Write>,
    handle: H,
) -> Result<Summary, StreamError>
where
    R: BufRead,
    H: FnMut(&Value) -> Result<Handled, String>,
{
    run_limited(input, out, handle, MAX_LINE_BYTES)
}

/// [`run`] with another line limit than [`MAX_LINE_BYTES`] (for tests of the limit).
#[doc(hidden)]
pub fn run_limited<R, H>(
    mut input: Input<R>,
    mut out: Option<&mut dyn Write>,
    mut handle: H,
    max_line: usize,
) -> Result<Summary, StreamError>
where
    R: BufRead,
    H: FnMut(&Value) -> Result<Handled, String>,
{
    let mut summary = Summary::default();
    let mut buffer: Vec<u8> = Vec::with_capacity(64 * 1024);
    let mut progress = Progress::new(input.progress, input.size);
    loop {
        buffer.clear();
        let (read, whole) =
            read_line(&mut input.reader, &mut buffer, max_line).map_err(StreamError::Read)?;
        if read == 0 {
            break;
        }
        summary.lines += 1;
        let number = summary.lines;
        progress.tick(number, read);
        if !whole {
            summary.record_malformed(
                number,
                &format!("longer than {max_line} bytes, the longest line read as a call"),
            );
            continue;
        }
        let mut line = buffer.as_slice();
        line = line.strip_suffix(b"\n").unwrap_or(line);
        line = line.strip_suffix(b"\r").unwrap_or(line);
        if number == 1 {
            // A byte-order mark some editors put at the start of a file is not part of a call.
            line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            summary.record_malformed(number, "empty line");
            continue;
        }
        let value: Value = match serde_json::from_slice(line) {
            Ok(value) => value,
            Err(error) => {
                summary.record_malformed(number, &format!("not JSON: {error}"));
                continue;
            }
        };
        let Handled { outcome, shape } = match handle(&value) {
            Ok(handled) => handled,
            Err(reason) => {
                summary.record_malformed(number, &reason);
                continue;
            }
        };
        if let Some(out) = out.as_mut() {
            serde_json::to_writer(&mut **out, &OutcomeView::new(&outcome, Some(number)))
                .map_err(|error| StreamError::Write(error.into()))?;
            out.write_all(b"\n").map_err(StreamError::Write)?;
        }
        summary.record(&outcome, shape);
    }
    progress.finish();
    if let Some(out) = out.as_mut() {
        out.flush().map_err(StreamError::Write)?;
    }
    Ok(summary)
}

/// Reads one line (up to and including its `\n`) into `buffer`, keeping at most `max`
/// bytes of it: the rest of a longer line is read and dropped. Returns the bytes read and
/// whether the line was kept whole.
fn read_line<R: BufRead>(
    reader: &mut R,
    buffer: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<(u64, bool)> {
    let mut read = 0u64;
    let mut whole = true;
    loop {
        let available = match reader.fill_buf() {
            Ok(available) => available,
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(error),
        };
        if available.is_empty() {
            return Ok((read, whole));
        }
        let (taken, done) = match memchr::memchr(b'\n', available) {
            Some(end) => (end + 1, true),
            None => (available.len(), false),
        };
        if whole {
            if buffer.len() + taken <= max.saturating_add(2) {
                buffer.extend_from_slice(&available[..taken]);
            } else {
                whole = false;
                buffer.clear();
            }
        }
        reader.consume(taken);
        read += taken as u64;
        if done {
            return Ok((read, whole));
        }
    }
}

/// A one-line progress display on standard error, redrawn at most ten times a second.
struct Progress {
    enabled: bool,
    size: Option<u64>,
    bytes: u64,
    last: Instant,
    drawn: bool,
}

impl Progress {
    const EVERY: Duration = Duration::from_millis(100);

    fn new(enabled: bool, size: Option<u64>) -> Self {
        Progress {
            enabled,
            size,
            bytes: 0,
            last: Instant::now(),
            drawn: false,
        }
    }

    fn tick(&mut self, lines: u64, bytes: u64) {
        if !self.enabled {
            return;
        }
        self.bytes += bytes;
        if !lines.is_multiple_of(1024) || self.last.elapsed() < Self::EVERY {
            return;
        }
        self.last = Instant::now();
        self.drawn = true;
        let mut stderr = std::io::stderr().lock();
        let _ = match self.size.filter(|size| *size > 0) {
            Some(size) => {
                let done = self.bytes.min(size);
                let width = 30u64;
                let filled = done * width / size;
                write!(
                    stderr,
                    "\r[{}{}] {:>5.1}%  {lines} lines",
                    "#".repeat(filled as usize),
                    "-".repeat((width - filled) as usize),
                    done as f64 * 100.0 / size as f64
                )
            }
            None => write!(stderr, "\r{lines} lines"),
        };
        let _ = stderr.flush();
    }

    fn finish(&mut self) {
        if self.drawn {
            let mut stderr = std::io::stderr().lock();
            let _ = write!(stderr, "\r\x1b[2K");
            let _ = stderr.flush();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use submit_core::Recovery;
    use submit_core::{Accepted, Rejected, SubmitError};

    fn accepted(recovery: Option<Recovery>) -> Outcome<Value> {
        Outcome::Accepted(Accepted {
            response: json!({}),
            reasoning: String::new(),
            recovery,
            recoveries: Vec::new(),
            tool_result: json!({"success": true}),
        })
    }

    fn parameter(cause: ParameterCause) -> Outcome<Value> {
        Outcome::Rejected(Rejected {
            error: SubmitError::Parameter {
                cause,
                message: "m".to_owned(),
                echo: None,
            },
            tool_result: json!({"error": "m"}),
        })
    }

    fn payload() -> Outcome<Value> {
        Outcome::Rejected(Rejected {
            error: SubmitError::Payload {
                message: "m".to_owned(),
            },
            tool_result: json!({"error": "m"}),
        })
    }

    fn outcome_shape(outcome: &Outcome<Value>) -> Option<String> {
        match outcome {
            Outcome::Rejected(rejected) => rejected.error.cause().map(|c| format!("{c:?}")),
            Outcome::Accepted(_) => None,
        }
    }

    /// A stand-in for the tool: `{"kind": …}` picks the outcome, anything else is refused.
    fn fake(value: &Value) -> Result<Handled, String> {
        let outcome = match value.get("kind").and_then(Value::as_str) {
            Some("clean") => accepted(None),
            Some("stringified") => accepted(Some(Recovery::Stringified)),
            Some("declined") => parameter(ParameterCause::StringifiedDeclined),
            Some("payload") => payload(),
            _ => return Err("not a test call".to_owned()),
        };
        let shape = outcome_shape(&outcome).map(|_| "\"</x> tail\"".to_owned());
        Ok(Handled { outcome, shape })
    }

    fn triage(input: &[u8], out: Option<&mut dyn Write>) -> Summary {
        let input = Input {
            reader: input,
            size: None,
            progress: false,
        };
        match run(input, out, fake) {
            Ok(summary) => summary,
            Err(error) => panic!("{error:?}"),
        }
    }

    #[test]
    fn streaming_counts_each_line_and_malformed_line_numbers() {
        let input = b"{\"kind\":\"clean\"}\n\
not json\n\
\n\
{\"kind\":\"stringified\"}\r\n\
{\"other\":1}\n\
{\"kind\":\"declined\"}\n\
{\"kind\":\"bad\xff\"}\n\
{\"kind\":\"payload\"}";
        let summary = triage(input, None);
        assert_eq!(summary.lines, 8);
        assert_eq!(summary.malformed, 4);
        assert_eq!(summary.calls(), 4);
        assert_eq!(summary.clean, 1);
        assert_eq!(summary.stringified, 1);
        assert_eq!(summary.stringified_declined, 1);
        assert_eq!(summary.payload, 1);
        let lines: Vec<u64> = summary.malformed_first.iter().map(|m| m.line).collect();
        assert_eq!(lines, [2, 3, 5, 7]);
        assert!(summary.malformed_first[0].reason.starts_with("not JSON: "));
        assert_eq!(summary.malformed_first[1].reason, "empty line");
        assert_eq!(summary.malformed_first[2].reason, "not a test call");
        assert!(summary.malformed_first[3].reason.starts_with("not JSON: "));
        let report = summary.report(5);
        assert_eq!(report.declined_shapes.len(), 1);
        assert_eq!(report.declined_shapes[0].shape, "\"</x> tail\"");
        assert_eq!(report.declined_shapes[0].count, 1);
    }

    #[test]
    fn out_has_one_outcome_line_per_call_tagged_with_its_line() {
        let input = b"{\"kind\":\"clean\"}\n[\n{\"kind\":\"payload\"}\n";
        let mut out: Vec<u8> = Vec::new();
        let summary = triage(input, Some(&mut out));
        assert_eq!(summary.calls(), 2);
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<Value> = text
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0]["line"], 1);
        assert_eq!(lines[0]["accepted"], true);
        assert_eq!(lines[1]["line"], 3);
        assert_eq!(lines[1]["class"], "payload");
        assert_eq!(lines[1]["cause"], Value::Null);
    }

    #[test]
    fn byte_order_mark_is_skipped_on_the_first_line_only() {
        let summary = triage(
            b"\xEF\xBB\xBF{\"kind\":\"clean\"}\n\xEF\xBB\xBF{\"kind\":\"clean\"}\n",
            None,
        );
        assert_eq!(summary.clean, 1);
        let lines: Vec<u64> = summary.malformed_first.iter().map(|m| m.line).collect();
        assert_eq!(lines, [2]);
    }

    #[test]
    fn a_line_past_the_limit_is_counted_malformed_and_the_next_is_read() {
        let long = "x".repeat(100);
        let input = format!(
            "{{\"kind\":\"clean\"}}\n{long}\n{{\"kind\":\"clean\"}}\r\n{{\"kind\":\"payload\"}}"
        );
        let reader = std::io::BufReader::with_capacity(7, input.as_bytes());
        let input = Input {
            reader,
            size: None,
            progress: false,
        };
        let summary = run_limited(input, None, fake, 50).unwrap();
        assert_eq!(
            (summary.lines, summary.calls(), summary.malformed),
            (4, 3, 1)
        );
        assert_eq!(
            summary.malformed_first,
            [MalformedLine {
                line: 2,
                reason: "longer than 50 bytes, the longest line read as a call".into()
            }]
        );
    }

    #[test]
    fn empty_input_is_an_empty_summary() {
        let summary = triage(b"", None);
        assert_eq!((summary.lines, summary.malformed), (0, 0));
    }

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
