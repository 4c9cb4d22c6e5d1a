//! The bounded line reader: every line of the input, handled in turn, counted.

use std::io::{BufRead, Write};

use serde_json::Value;

use super::handler::{Entry, Handled};
use super::progress::Progress;
use super::summary::Summary;
use crate::output::OutcomeView;

/// The longest line read as a call (16 MiB); a longer one is counted as malformed and skipped
/// without being held, so memory stays within this and one reader buffer whatever the input.
pub const MAX_LINE_BYTES: usize = 16 << 20;

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

/// Reads every line of `input`, handles each JSON line with `handle` (one call a line, a
/// [`Handled`], or any number, an [`Entry`]), writes each outcome to `out` (when given) as one
/// JSON line tagged with its line number and origin, and returns the counts. A line that is
/// empty, not JSON, refused by `handle`, or longer than [`MAX_LINE_BYTES`] is counted as
/// malformed and skipped; a batch entry with no answer, or a line with no call, is counted
/// apart. Memory stays bounded: one reused line buffer of at most
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
///         outcome: Outcome::Accepted(Accepted::new(
///             response.clone(),
///             String::new(),
///             json!({"success": true}),
///         )),
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
pub fn run<R, H, E>(
    input: Input<R>,
    out: Option<&mut dyn Write>,
    handle: H,
) -> Result<Summary, StreamError>
where
    R: BufRead,
    H: FnMut(&Value) -> Result<E, String>,
    E: Into<Entry>,
{
    run_limited(input, out, handle, MAX_LINE_BYTES)
}

/// [`run`] with another line limit than [`MAX_LINE_BYTES`] (for tests of the limit).
#[doc(hidden)]
pub fn run_limited<R, H, E>(
    mut input: Input<R>,
    mut out: Option<&mut dyn Write>,
    mut handle: H,
    max_line: usize,
) -> Result<Summary, StreamError>
where
    R: BufRead,
    H: FnMut(&Value) -> Result<E, String>,
    E: Into<Entry>,
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
        let entry: Entry = match handle(&value) {
            Ok(entry) => entry.into(),
            Err(reason) => {
                summary.record_malformed(number, &reason);
                continue;
            }
        };
        if let Some(status) = entry.failed {
            summary.record_failed_entry(status);
            continue;
        }
        if entry.calls.is_empty() {
            summary.without_call += 1;
            continue;
        }
        for (message, Handled { outcome, shape }) in entry.calls {
            if let Some(out) = out.as_mut() {
                let view = OutcomeView::new(&outcome, Some(number))
                    .from(entry.custom_id.as_deref(), message);
                serde_json::to_writer(&mut **out, &view)
                    .map_err(|error| StreamError::Write(error.into()))?;
                out.write_all(b"\n").map_err(StreamError::Write)?;
            }
            summary.record(&outcome, shape);
        }
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

#[cfg(test)]
mod tests {
    use super::super::summary::MalformedLine;
    use super::super::test_support::{accepted, outcome_shape, parameter, payload};
    use super::*;
    use submit_core::{ParameterCause, RecoveryKind};

    fn fake(value: &Value) -> Result<Handled, String> {
        let outcome = match value.get("kind").and_then(Value::as_str) {
            Some("clean") => accepted(None),
            Some("stringified") => accepted(Some(RecoveryKind::Stringified)),
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
}
