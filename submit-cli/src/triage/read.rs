//! The bounded line reader: the input read in chunks of lines, each chunk handled on a worker
//! thread (or on the reading one), the results taken back in input order and counted.

use std::collections::BTreeMap;
use std::io::{BufRead, Write};
use std::num::NonZeroUsize;
use std::sync::{mpsc, Mutex};

use submit_core::ParameterCause;

use super::handler::{Entry, Handled};
use super::input::{ReadCount, Source};
use super::progress::Progress;
use super::summary::Summary;
use crate::output::OutcomeView;

/// The longest line read as a call (16 MiB); a longer one is counted as malformed and skipped
/// without being held, so memory stays within this and a few chunks whatever the input.
pub const MAX_LINE_BYTES: usize = 16 << 20;

/// The most threads [`Input::threads`] takes.
pub const MAX_THREADS: usize = 256;

/// The bytes of input lines a chunk gathers before it is handed over, at most: the lines in
/// flight stay within 8 MiB whatever the thread count, each chunk between 16 and 256 KiB.
fn chunk_bytes(chunks: usize) -> usize {
    ((8 << 20) / chunks.max(1)).clamp(16 << 10, 256 << 10)
}

/// What `triage` reads, and how.
pub struct Input<R> {
    reader: R,
    size: Option<u64>,
    count: Option<ReadCount>,
    progress: bool,
    threads: NonZeroUsize,
}

impl<R: BufRead> Input<R> {
    /// The calls in `reader`, one a line, handled on one thread with no progress line.
    ///
    /// ```
    /// use submit_cli::__private::Input;
    ///
    /// let input = Input::new(&b"{}\n"[..]).threads(4).progress(false);
    /// # let _ = input;
    /// ```
    pub fn new(reader: R) -> Self {
        Input {
            reader,
            size: None,
            count: None,
            progress: false,
            threads: NonZeroUsize::MIN,
        }
    }

    /// The total size in bytes, when known (a file), for the progress line.
    pub fn size(mut self, size: Option<u64>) -> Self {
        self.size = size;
        self
    }

    /// Whether to draw a progress line on standard error.
    pub fn progress(mut self, progress: bool) -> Self {
        self.progress = progress;
        self
    }

    /// How many threads handle the lines (at least 1, at most [`MAX_THREADS`]); with more
    /// than one, the reading thread reads and counts while they handle chunks of lines.
    pub fn threads(mut self, threads: usize) -> Self {
        self.threads = NonZeroUsize::new(threads.min(MAX_THREADS)).unwrap_or(NonZeroUsize::MIN);
        self
    }
}

impl Input<Box<dyn BufRead>> {
    /// The JSONL of an opened source, the progress line measured in the bytes read of the
    /// source itself (of the archive, for a compressed one), out of `size`.
    pub fn from_source(source: Source, size: Option<u64>) -> Self {
        let mut input = Input::new(source.reader).size(size);
        input.count = Some(source.count);
        input
    }
}

/// Why a triage stopped: reading or writing failed (malformed lines never stop it).
#[derive(Debug)]
pub enum StreamError {
    /// Reading the calls failed while line `line` was read: the summary counts the lines
    /// before it, every one of them handled, and `--out` holds their outcomes.
    Read {
        /// What the reader said.
        error: std::io::Error,
        /// The line being read (the first not counted).
        line: u64,
        /// The counts of the lines read before it.
        summary: Box<Summary>,
    },
    /// Writing the outcomes failed.
    Write(std::io::Error),
}

/// Reads every line of `input`, handles each with `handle` (one call a line, a [`Handled`],
/// or any number, an `Entry`), writes each outcome to `out` (when given) as one JSON line
/// tagged with its line number and origin, in input order, and returns the counts. A line that
/// is empty, refused by `handle` (not JSON, not a call), or longer than [`MAX_LINE_BYTES`] is
/// counted as malformed and skipped; a batch entry with no answer, or a line with no call, is
/// counted apart.
///
/// The lines are handled in chunks, on as many threads as [`Input::threads`] says; the counts,
/// `out` and the progress line are the same whatever the number. Memory stays bounded: a few
/// chunks of lines and their outcomes a thread, one line at most [`MAX_LINE_BYTES`].
///
/// ```
/// use serde_json::{json, Value};
/// use submit_cli::__private::{run, Handled, Input};
/// use submit_core::{Accepted, Outcome};
///
/// // A stand-in for a tool's handler: accepts `{"ok": …}`, refuses anything else.
/// let handle = |line: &[u8]| {
///     let call: Value = serde_json::from_slice(line).map_err(|e| format!("not JSON: {e}"))?;
///     match call.get("ok") {
///         Some(response) => Ok(Handled {
///             outcome: Outcome::Accepted(Accepted::new(
///                 response.clone(),
///                 String::new(),
///                 json!({"success": true}),
///             )),
///             shape: None,
///         }),
///         None => Err("not a call".to_owned()),
///     }
/// };
/// let calls = b"{\"ok\": 1}\nnot json\n{\"other\": 2}\n{\"ok\": 3}\n";
/// let mut out = Vec::new();
/// let summary = run(Input::new(&calls[..]).threads(2), Some(&mut out), handle)
///     .map_err(|e| format!("{e:?}"))?;
///
/// assert_eq!((summary.lines, summary.calls(), summary.clean), (4, 2, 2));
/// let malformed: Vec<u64> = summary.malformed_first.iter().map(|m| m.line).collect();
/// assert_eq!(malformed, [2, 3]);
/// let out = String::from_utf8(out).map_err(|e| e.to_string())?;
/// assert!(out.starts_with("{\"line\":1,") && out.lines().count() == 2);
/// # Ok::<(), String>(())
/// ```
pub fn run<R, H, E>(
    input: Input<R>,
    out: Option<&mut dyn Write>,
    handle: H,
) -> Result<Summary, StreamError>
where
    R: BufRead,
    H: Fn(&[u8]) -> Result<E, String> + Sync,
    E: Into<Entry>,
{
    run_limited(input, out, handle, MAX_LINE_BYTES)
}

/// [`run`] with another line limit than [`MAX_LINE_BYTES`] (for tests of the limit).
#[doc(hidden)]
pub fn run_limited<R, H, E>(
    input: Input<R>,
    out: Option<&mut dyn Write>,
    handle: H,
    max_line: usize,
) -> Result<Summary, StreamError>
where
    R: BufRead,
    H: Fn(&[u8]) -> Result<E, String> + Sync,
    E: Into<Entry>,
{
    let threads = input.threads.get();
    let mut merge = Merge {
        summary: Summary::default(),
        progress: Progress::new(input.progress, input.size),
        count: input.count,
        read: 0,
        out,
    };
    let mut reader = Reader {
        reader: input.reader,
        max_line,
        next: 0,
        lines: 0,
        done: false,
    };
    let work = Work {
        handle: &handle,
        max_line,
        out: merge.out.is_some(),
    };
    let ended = if threads == 1 {
        sequential(&mut reader, &work, &mut merge)
    } else {
        parallel(&mut reader, &work, &mut merge, threads)
    };
    merge.progress.finish();
    ended?;
    if let Some(out) = merge.out.as_mut() {
        out.flush().map_err(StreamError::Write)?;
    }
    Ok(merge.summary)
}

/// One chunk: lines read together, handled together, counted together.
#[derive(Default)]
struct Chunk {
    /// Its place in the input, from 0.
    index: u64,
    /// The number of its first line.
    first: u64,
    /// The lines' bytes, one after the other.
    data: Vec<u8>,
    /// Each line's bytes in `data`, `None` for a line past the limit (not kept).
    lines: Vec<Option<(usize, usize)>>,
    /// The bytes of the input the lines took, line ends and skipped lines included.
    bytes: u64,
    /// Why reading stopped in this chunk, after its lines.
    error: Option<std::io::Error>,
    /// The counts of its lines.
    summary: Summary,
    /// The declined shapes of its calls, in order, for the counter (see [`Summary::count`]).
    shapes: Vec<(ParameterCause, String)>,
    /// The outcome lines, when there is an `out`.
    out: Vec<u8>,
    /// Writing an outcome failed.
    failed: Option<serde_json::Error>,
}

impl Chunk {
    /// Empties the chunk for another use, giving back memory a long line took.
    fn clear(&mut self, target: usize) {
        self.data.clear();
        self.lines.clear();
        self.out.clear();
        self.shapes.clear();
        self.summary = Summary::default();
        self.bytes = 0;
        self.error = None;
        self.failed = None;
        if self.data.capacity() > 4 * target {
            self.data.shrink_to(2 * target);
        }
        if self.out.capacity() > 8 * target {
            self.out.shrink_to(4 * target);
        }
    }
}

/// The reading side: the input cut into chunks of whole lines.
struct Reader<R> {
    reader: R,
    max_line: usize,
    /// The index of the next chunk.
    next: u64,
    /// The lines read so far.
    lines: u64,
    /// Whether the input ended (or reading failed).
    done: bool,
}

impl<R: BufRead> Reader<R> {
    /// Fills `chunk` with the next lines, up to about `target` bytes; `false` when the input
    /// had none left (and reading did not fail).
    fn fill(&mut self, chunk: &mut Chunk, target: usize) -> bool {
        chunk.clear(target);
        chunk.index = self.next;
        chunk.first = self.lines + 1;
        while !self.done && chunk.data.len() < target {
            let start = chunk.data.len();
            match read_line(&mut self.reader, &mut chunk.data, self.max_line) {
                Ok((0, _)) => self.done = true,
                Ok((read, whole)) => {
                    self.lines += 1;
                    chunk.bytes += read;
                    if whole {
                        chunk.lines.push(Some((start, chunk.data.len())));
                    } else {
                        chunk.data.truncate(start);
                        chunk.lines.push(None);
                    }
                }
                Err(error) => {
                    // A line cut short by the error is not one: it is where reading stopped.
                    chunk.data.truncate(start);
                    chunk.error = Some(error);
                    self.done = true;
                }
            }
        }
        self.next += 1;
        !chunk.lines.is_empty() || chunk.error.is_some()
    }
}

/// What a worker needs: the handler, the line limit, whether outcomes are written.
struct Work<'h, H> {
    handle: &'h H,
    max_line: usize,
    out: bool,
}

impl<H, E> Work<'_, H>
where
    H: Fn(&[u8]) -> Result<E, String> + Sync,
    E: Into<Entry>,
{
    /// Handles every line of `chunk`, into its counts, shapes and outcome lines.
    fn chunk(&self, chunk: &mut Chunk) {
        let Chunk {
            first,
            data,
            lines,
            summary,
            shapes,
            out,
            failed,
            ..
        } = chunk;
        for (number, span) in (*first..).zip(lines.iter()) {
            summary.lines += 1;
            let Some(line) = span.and_then(|(start, end)| data.get(start..end)) else {
                summary.record_malformed(
                    number,
                    &format!(
                        "longer than {} bytes, the longest line read as a call",
                        self.max_line
                    ),
                );
                continue;
            };
            let mut line = line.strip_suffix(b"\n").unwrap_or(line);
            line = line.strip_suffix(b"\r").unwrap_or(line);
            if number == 1 {
                // A byte-order mark some editors put at the start of a file is not part of
                // a call.
                line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
            }
            if line.iter().all(u8::is_ascii_whitespace) {
                summary.record_malformed(number, "empty line");
                continue;
            }
            let entry: Entry = match (self.handle)(line) {
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
                if self.out && failed.is_none() {
                    let view = OutcomeView::new(&outcome, Some(number))
                        .from(entry.custom_id.as_deref(), message);
                    match serde_json::to_writer(&mut *out, &view) {
                        Ok(()) => out.push(b'\n'),
                        Err(error) => *failed = Some(error),
                    }
                }
                shapes.extend(summary.count(&outcome, shape));
            }
        }
    }
}

/// The taking side: each chunk's counts and outcome lines, in input order.
struct Merge<'o> {
    summary: Summary,
    progress: Progress,
    count: Option<ReadCount>,
    /// The bytes of the input the lines merged so far took.
    read: u64,
    out: Option<&'o mut dyn Write>,
}

impl Merge<'_> {
    /// Adds a handled chunk, the next in input order; a read error in it ends the triage.
    fn chunk(&mut self, chunk: &mut Chunk) -> Result<(), StreamError> {
        if let Some(error) = chunk.failed.take() {
            return Err(StreamError::Write(error.into()));
        }
        if let Some(out) = self.out.as_mut() {
            out.write_all(&chunk.out).map_err(StreamError::Write)?;
        }
        self.summary.add(std::mem::take(&mut chunk.summary));
        for (cause, shape) in chunk.shapes.drain(..) {
            self.summary.shapes.add(cause, shape);
        }
        self.read += chunk.bytes;
        let position = self.count.as_ref().map_or(self.read, ReadCount::get);
        self.progress.tick(self.summary.lines, position);
        match chunk.error.take() {
            Some(error) => Err(StreamError::Read {
                error,
                line: self.summary.lines + 1,
                summary: Box::new(std::mem::take(&mut self.summary)),
            }),
            None => Ok(()),
        }
    }
}

/// One thread: read a chunk, handle it, count it, and again.
fn sequential<R, H, E>(
    reader: &mut Reader<R>,
    work: &Work<'_, H>,
    merge: &mut Merge<'_>,
) -> Result<(), StreamError>
where
    R: BufRead,
    H: Fn(&[u8]) -> Result<E, String> + Sync,
    E: Into<Entry>,
{
    let target = chunk_bytes(1);
    let mut chunk = Chunk::default();
    while reader.fill(&mut chunk, target) {
        work.chunk(&mut chunk);
        merge.chunk(&mut chunk)?;
    }
    Ok(())
}

/// `threads` workers handle chunks while this thread reads the next ones and takes the
/// handled ones back in order. Twice as many chunks as workers exist, reused: the reader waits
/// for one to come back before it reads more, so memory stays bounded however far a slow chunk
/// holds up the ones after it.
fn parallel<R, H, E>(
    reader: &mut Reader<R>,
    work: &Work<'_, H>,
    merge: &mut Merge<'_>,
    threads: usize,
) -> Result<(), StreamError>
where
    R: BufRead,
    H: Fn(&[u8]) -> Result<E, String> + Sync,
    E: Into<Entry>,
{
    let chunks = 2 * threads;
    let target = chunk_bytes(chunks);
    let (to_work, for_work) = mpsc::channel::<Chunk>();
    let for_work = Mutex::new(for_work);
    // A handled chunk, or what a handler panicked with (the panic goes on on this thread).
    let (to_merge, for_merge) = mpsc::channel::<std::thread::Result<Chunk>>();
    std::thread::scope(|scope| {
        for _ in 0..threads {
            let to_merge = to_merge.clone();
            let for_work = &for_work;
            scope.spawn(move || loop {
                // One worker waits for the next chunk while holding the lock; the others wait
                // for the lock. Every sender gone ends the worker.
                let next = match for_work.lock() {
                    Ok(queue) => queue.recv(),
                    Err(_) => return,
                };
                let Ok(mut chunk) = next else { return };
                let handled = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    work.chunk(&mut chunk);
                }));
                if to_merge.send(handled.map(|()| chunk)).is_err() {
                    return;
                }
            });
        }
        drop(to_merge);
        // Dropping `to_work` on return (also on an error) ends the workers.
        let to_work = to_work;
        let mut free: Vec<Chunk> = (0..chunks).map(|_| Chunk::default()).collect();
        let mut waiting: BTreeMap<u64, Chunk> = BTreeMap::new();
        let mut next_merge = 0u64;
        loop {
            while !reader.done {
                let Some(mut chunk) = free.pop() else { break };
                if !reader.fill(&mut chunk, target) {
                    free.push(chunk);
                    break;
                }
                if to_work.send(chunk).is_err() {
                    return Err(stopped(merge));
                }
            }
            // Every chunk back: the input is read and counted.
            if free.len() == chunks {
                return Ok(());
            }
            let chunk = match for_merge.recv() {
                Ok(Ok(chunk)) => chunk,
                Ok(Err(panic)) => std::panic::resume_unwind(panic),
                Err(_) => return Err(stopped(merge)),
            };
            waiting.insert(chunk.index, chunk);
            while let Some(mut chunk) = waiting.remove(&next_merge) {
                next_merge += 1;
                merge.chunk(&mut chunk)?;
                free.push(chunk);
            }
        }
    })
}

/// The error of a triage whose workers all ended before the input did (which only a poisoned
/// lock can do: a worker never holds it while handling lines).
fn stopped(merge: &mut Merge<'_>) -> StreamError {
    StreamError::Read {
        error: std::io::Error::other("the threads handling lines stopped"),
        line: merge.summary.lines + 1,
        summary: Box::new(std::mem::take(&mut merge.summary)),
    }
}

/// Reads one line (up to and including its `\n`) onto the end of `buffer`, keeping at most
/// `max` bytes of it: the rest of a longer line is read and dropped. Returns the bytes read
/// and whether the line was kept whole.
fn read_line<R: BufRead>(
    reader: &mut R,
    buffer: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<(u64, bool)> {
    let start = buffer.len();
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
            if buffer.len() - start + taken <= max.saturating_add(2) {
                buffer.extend_from_slice(available.get(..taken).unwrap_or_default());
            } else {
                whole = false;
                buffer.truncate(start);
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
    use serde_json::Value;
    use submit_core::RecoveryKind;

    fn fake(line: &[u8]) -> Result<Handled, String> {
        let value: Value =
            serde_json::from_slice(line).map_err(|error| format!("not JSON: {error}"))?;
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
        match run(Input::new(input), out, fake) {
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
        for threads in [1, 3] {
            let reader = std::io::BufReader::with_capacity(7, input.as_bytes());
            let input = Input::new(reader).threads(threads);
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
    }

    #[test]
    fn empty_input_is_an_empty_summary() {
        for threads in [1, 2] {
            let summary = run(Input::new(&b""[..]).threads(threads), None, fake).unwrap();
            assert_eq!((summary.lines, summary.malformed), (0, 0));
        }
    }

    /// `n` lines of every kind, malformed ones among them, with more than one chunk of each.
    fn mixed(n: usize) -> Vec<u8> {
        let kinds = [
            "{\"kind\":\"clean\"}",
            "{\"kind\":\"stringified\"}",
            "not json",
            "{\"kind\":\"declined\"}",
            "",
            "{\"kind\":\"payload\"}",
            "{\"other\":1}",
        ];
        let mut text = Vec::new();
        for i in 0..n {
            text.extend_from_slice(kinds[i % kinds.len()].as_bytes());
            text.extend_from_slice(format!("{}\n", " ".repeat(i % 97)).as_bytes());
        }
        text
    }

    #[test]
    fn every_thread_count_gives_the_counts_and_outcomes_of_one() {
        let input = mixed(40_000);
        let one = |threads: usize| {
            let mut out = Vec::new();
            let summary = run(
                Input::new(&input[..]).threads(threads),
                Some(&mut out),
                fake,
            )
            .unwrap_or_else(|e| panic!("{e:?}"));
            (format!("{:?}", summary.report(10)), out)
        };
        let (report, out) = one(1);
        assert!(out.len() > 1 << 20, "more than one chunk of outcomes");
        for threads in [2, 3, 8] {
            let (other_report, other_out) = one(threads);
            assert_eq!(other_report, report, "{threads} threads");
            assert!(other_out == out, "{threads} threads: another --out");
        }
    }

    /// Hands over `good`, then fails.
    struct Failing(Vec<u8>, usize);

    impl std::io::Read for Failing {
        fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
            let rest = self.0.get(self.1..).unwrap_or_default();
            if rest.is_empty() {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::UnexpectedEof,
                    "cut",
                ));
            }
            let n = rest.len().min(out.len()).min(1000);
            out[..n].copy_from_slice(&rest[..n]);
            self.1 += n;
            Ok(n)
        }
    }

    #[test]
    fn a_read_error_keeps_the_counts_and_outcomes_of_the_lines_before_it() {
        // 30,000 whole lines, then half a line, then the error.
        let mut input = mixed(30_000);
        input.extend_from_slice(b"{\"kind\":\"cle");
        for threads in [1, 4] {
            let reader = std::io::BufReader::new(Failing(input.clone(), 0));
            let mut out = Vec::new();
            let error = run(Input::new(reader).threads(threads), Some(&mut out), fake);
            let Err(StreamError::Read {
                error,
                line,
                summary,
            }) = error
            else {
                panic!("{threads} threads: no read error");
            };
            assert_eq!(error.to_string(), "cut");
            assert_eq!((line, summary.lines), (30_001, 30_000), "{threads} threads");
            let whole = triage(&mixed(30_000), None);
            assert_eq!(
                format!("{:?}", summary.report(10)),
                format!("{:?}", whole.report(10))
            );
            let last: Value =
                serde_json::from_slice(out.split(|b| *b == b'\n').rev().nth(1).unwrap_or_default())
                    .unwrap();
            assert_eq!(last["line"], 29_999, "{threads} threads");
        }
    }
}
