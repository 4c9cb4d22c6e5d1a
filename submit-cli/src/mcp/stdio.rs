//! Standard input and output as the server's transport: one JSON-RPC message a line, and an
//! answer for every line that is not one.
//!
//! rmcp's own stdio transport (`AsyncRwTransport`) drops a line past its length limit and a
//! line that is not JSON with a log line and no answer (rmcp 3.11.0,
//! `src/transport/async_rw.rs`, `receive`: the `LineRead::Oversized` arm and the
//! `Category::Syntax | Category::Eof` arm), so the host waits on that call until its own
//! timeout; neither can be configured. This transport reads the lines itself and answers:
//!
//! - a line past [`MAX_MESSAGE`] bytes: held no further than the limit, then read on to its end
//!   for its `id` without being kept; `-32600` naming the limit when the `id` is found, else
//!   `-32700` with `"id": null`;
//! - a line that is not UTF-8: `-32700` naming the first bad byte, with the `id` if one is
//!   found in it;
//! - a line that is not JSON: `-32700` with `"id": null`;
//! - JSON that is not a message: `-32600` with its `id`; a notification (no `id`) is dropped
//!   unanswered, as JSON-RPC asks. Both are answered as an HTTP body that holds no message is
//!   (`super::jsonrpc::not_a_message`).
//!
//! A line that holds a `tools/call` has its argument text cut from it before rmcp reads the
//! rest (`super::envelope`); the text goes beside the message, in the request's extensions.
//!
//! Answering malformed input could loop with a peer that echoes what it is sent back as more
//! malformed input; these answers are well-formed JSON-RPC responses, which such a peer would
//! echo back as responses, and responses get no answer.
//!
//! Lines are read on a thread of their own (standard input blocks); what they hold reaches the
//! session through a channel, and everything written out goes through rmcp's line codec.

use std::borrow::Cow;
use std::io::{BufRead, BufReader, Read};
use std::sync::Arc;

use bytes::Bytes;
use futures::SinkExt;
use rmcp::model::{ClientJsonRpcMessage, ErrorCode, ServerJsonRpcMessage};
use rmcp::service::{RoleServer, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::async_rw::{JsonRpcMessageCodec, DEFAULT_MAX_LINE_LENGTH};
use rmcp::transport::Transport;
use serde_json::Value;
use tokio::io::AsyncWrite;
use tokio::sync::{mpsc, Mutex};
use tokio_util::codec::FramedWrite;

use super::envelope;
use super::jsonrpc::{self, error, id_in};

/// The longest message a line may hold, in bytes: rmcp's own limit (16 MiB).
pub const MAX_MESSAGE: usize = DEFAULT_MAX_LINE_LENGTH;

/// How far past [`MAX_MESSAGE`] an oversized line is read for its `id`; the rest of the line
/// is skipped unread (its `id`, if it comes later, is then not found).
const ID_SEARCH: u64 = 4 * MAX_MESSAGE as u64;

/// A buffer grown past this by a long line is given back once the line is handled.
const KEPT_CAPACITY: usize = 1024 * 1024;

/// Where the lines go: standard output, or the writer a program of its own gives.
type Output = Box<dyn AsyncWrite + Send + Unpin>;

/// The server's standard input and output (or any input and output), as an rmcp transport.
pub struct Stdio {
    /// What the reading thread found, line by line.
    incoming: mpsc::Receiver<Incoming>,
    /// The output, shared by the session's messages and the answers written here.
    out: Arc<Mutex<FramedWrite<Output, JsonRpcMessageCodec<Outgoing>>>>,
}

/// What a line held.
#[derive(Debug)]
enum Incoming {
    /// A message for the session.
    Message(Box<ClientJsonRpcMessage>),
    /// No message: the error to answer it with.
    Answer(Value),
}

/// One line written to standard output.
#[derive(serde::Serialize)]
#[serde(untagged)]
enum Outgoing {
    /// A message of the session.
    Message(Box<ServerJsonRpcMessage>),
    /// An answer to a line that held no message.
    Answer(Value),
}

impl Stdio {
    /// Starts reading `input` on a thread of its own (reading may block); the lines written go
    /// to `output`.
    pub fn start(
        input: impl Read + Send + 'static,
        output: impl AsyncWrite + Send + Unpin + 'static,
    ) -> std::io::Result<Self> {
        let (sender, incoming) = mpsc::channel(1);
        std::thread::Builder::new()
            .name("mcp-stdin".into())
            .spawn(move || {
                let input = BufReader::with_capacity(64 * 1024, input);
                read_lines(input, MAX_MESSAGE, &sender);
            })?;
        let output: Output = Box::new(output);
        Ok(Stdio {
            incoming,
            out: Arc::new(Mutex::new(FramedWrite::new(
                output,
                JsonRpcMessageCodec::default(),
            ))),
        })
    }
}

impl Transport<RoleServer> for Stdio {
    type Error = std::io::Error;

    fn name() -> Cow<'static, str> {
        "stdio".into()
    }

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send + 'static {
        let out = Arc::clone(&self.out);
        async move {
            out.lock()
                .await
                .send(Outgoing::Message(Box::new(item)))
                .await
                .map_err(std::io::Error::from)
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            match self.incoming.recv().await? {
                Incoming::Message(message) => return Some(*message),
                Incoming::Answer(answer) => {
                    // Written on a task of its own: `receive` may be dropped at any await
                    // (rmcp polls it in a `select!`), and the answer must not be lost with it.
                    let out = Arc::clone(&self.out);
                    tokio::spawn(async move {
                        if let Err(error) = out.lock().await.send(Outgoing::Answer(answer)).await {
                            tracing::warn!(%error, "cannot write an answer to standard output");
                        }
                    });
                }
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.incoming.close();
        self.out
            .lock()
            .await
            .close()
            .await
            .map_err(std::io::Error::from)
    }
}

/// How a line ended.
enum Line {
    /// Standard input ended before another line began.
    End,
    /// A whole line (without its newline) is in the buffer.
    Whole,
    /// The line ran past the limit; it was read to its end, and this is the `id` it held.
    TooLong(Option<rmcp::model::RequestId>),
}

/// Reads `input` line by line and sends what each line holds, until it ends, fails, or the
/// session stops listening.
fn read_lines(mut input: impl BufRead, limit: usize, sender: &mpsc::Sender<Incoming>) {
    let mut line = Vec::new();
    loop {
        let found = match next_line(&mut input, limit, &mut line) {
            Ok(Line::End) => return,
            Ok(Line::Whole) => read_message(&line),
            Ok(Line::TooLong(id)) => {
                tracing::warn!(
                    limit,
                    found_id = id.is_some(),
                    "a message past the line limit was answered with an error"
                );
                let message = format!(
                    "message too long: a message on standard input may hold at most {limit} \
                     bytes ({} MiB); send a smaller one",
                    limit / (1024 * 1024)
                );
                let code = match id {
                    Some(_) => ErrorCode::INVALID_REQUEST,
                    None => ErrorCode::PARSE_ERROR,
                };
                Some(Incoming::Answer(error(id.as_ref(), code, &message)))
            }
            Err(error) => {
                tracing::error!(%error, "cannot read standard input");
                return;
            }
        };
        line.clear();
        if line.capacity() > KEPT_CAPACITY {
            line.shrink_to(KEPT_CAPACITY);
        }
        if let Some(found) = found {
            if sender.blocking_send(found).is_err() {
                return;
            }
        }
    }
}

/// Reads the next line into `line` (emptied by the caller), holding at most `limit` bytes of
/// it: a longer one is read on to its end for its `id`, without being kept.
fn next_line(input: &mut impl BufRead, limit: usize, line: &mut Vec<u8>) -> std::io::Result<Line> {
    loop {
        let buffer = match input.fill_buf() {
            Ok(buffer) => buffer,
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(error),
        };
        if buffer.is_empty() {
            return Ok(if line.is_empty() {
                Line::End
            } else {
                Line::Whole
            });
        }
        let (length, ends) = match memchr::memchr(b'\n', buffer) {
            Some(at) => (at, true),
            None => (buffer.len(), false),
        };
        if line.len().saturating_add(length) > limit {
            return Ok(Line::TooLong(id_of_long_line(input, std::mem::take(line))));
        }
        line.extend_from_slice(buffer.get(..length).unwrap_or_default());
        input.consume(if ends { length + 1 } else { length });
        if ends {
            return Ok(Line::Whole);
        }
    }
}

/// Reads the rest of a line that ran past the limit (`start` is what was held of it) for its
/// `id`, then skips to its end.
fn id_of_long_line(input: &mut impl BufRead, start: Vec<u8>) -> Option<rmcp::model::RequestId> {
    let mut ended = false;
    let rest = RestOfLine {
        input: &mut *input,
        ended: &mut ended,
    };
    let id = id_in(BufReader::new(
        std::io::Cursor::new(start).chain(rest).take(ID_SEARCH),
    ));
    let mut rest = RestOfLine {
        input,
        ended: &mut ended,
    };
    let _ = std::io::copy(&mut rest, &mut std::io::sink());
    id
}

/// What remains of the current line, read up to (and consuming) its newline.
struct RestOfLine<'a, R> {
    input: &'a mut R,
    /// Whether the newline (or the end of input) was reached.
    ended: &'a mut bool,
}

impl<R: BufRead> Read for RestOfLine<'_, R> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        if *self.ended {
            return Ok(0);
        }
        let buffer = self.input.fill_buf()?;
        if buffer.is_empty() {
            *self.ended = true;
            return Ok(0);
        }
        let (length, ends) = match memchr::memchr(b'\n', buffer) {
            Some(at) => (at, true),
            None => (buffer.len(), false),
        };
        let copied = length.min(out.len());
        if let (Some(to), Some(from)) = (out.get_mut(..copied), buffer.get(..copied)) {
            to.copy_from_slice(from);
        }
        if ends && copied == length {
            *self.ended = true;
            self.input.consume(copied + 1);
        } else {
            self.input.consume(copied);
        }
        Ok(copied)
    }
}

/// What a whole line holds: a message, an error to answer, or nothing (a blank line, or a
/// notification that is not one of the protocol's).
fn read_message(line: &[u8]) -> Option<Incoming> {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    // RFC 8259 (section 8.1) lets a parser skip a byte order mark, as rmcp does.
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    let text = match std::str::from_utf8(line) {
        Ok(text) => text,
        Err(bad) => return Some(not_utf8(line, bad.valid_up_to())),
    };
    let cut = envelope::cut(text);
    let bytes = cut.message(line);
    let wrong = match serde_json::from_slice::<ClientJsonRpcMessage>(bytes) {
        Ok(mut message) => {
            cut.mark(&mut message, |span| {
                Bytes::copy_from_slice(line.get(span).unwrap_or_default())
            });
            return Some(Incoming::Message(Box::new(message)));
        }
        Err(wrong) => wrong,
    };
    let answer = jsonrpc::not_a_message(bytes, &wrong);
    match &answer {
        Some(_) => {
            tracing::warn!(error = %wrong, "a line that is no JSON-RPC message was answered")
        }
        None => tracing::debug!(error = %wrong, "an unreadable notification was dropped"),
    }
    answer.map(Incoming::Answer)
}

/// The answer to a line that is not UTF-8 (its first bad byte at `at`).
fn not_utf8(line: &[u8], at: usize) -> Incoming {
    let id = id_in(String::from_utf8_lossy(line).as_bytes());
    tracing::warn!(
        at,
        found_id = id.is_some(),
        "a line that is not UTF-8 was answered"
    );
    let message = format!(
        "parse error: the message is not UTF-8 (invalid byte at offset {at}); send each \
             message as one line of UTF-8 JSON"
    );
    Incoming::Answer(error(id.as_ref(), ErrorCode::PARSE_ERROR, &message))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::RequestId;

    /// Runs the reader over `input` with `limit`, and returns what it found.
    fn read_all(input: &[u8], limit: usize) -> Vec<Incoming> {
        let (sender, mut receiver) = mpsc::channel(1024);
        read_lines(input, limit, &sender);
        drop(sender);
        let mut found = Vec::new();
        while let Ok(item) = receiver.try_recv() {
            found.push(item);
        }
        found
    }

    fn answer(item: &Incoming) -> &Value {
        match item {
            Incoming::Answer(answer) => answer,
            Incoming::Message(message) => panic!("a message: {message:?}"),
        }
    }

    const LIST: &str = r#"{"jsonrpc":"2.0","id":5,"method":"tools/list"}"#;

    #[test]
    fn a_long_line_is_answered_with_its_id_and_the_next_line_is_read() {
        let filler = "x".repeat(100);
        let input = format!(
            "{{\"jsonrpc\":\"2.0\",\"method\":\"tools/call\",\"params\":{{\"t\":\"{filler}\"}},\
             \"id\":42}}\n{LIST}\n"
        );
        let found = read_all(input.as_bytes(), 64);
        assert_eq!(found.len(), 2);
        assert_eq!(answer(&found[0])["id"], 42);
        assert_eq!(answer(&found[0])["error"]["code"], -32600);
        assert!(matches!(found[1], Incoming::Message(_)));
    }

    #[test]
    fn a_long_line_without_an_id_is_a_parse_error_with_a_null_id() {
        let input = format!("{}\n{LIST}", "y".repeat(200));
        let found = read_all(input.as_bytes(), 64);
        assert_eq!(answer(&found[0])["id"], Value::Null);
        assert_eq!(answer(&found[0])["error"]["code"], -32700);
        assert!(matches!(found[1], Incoming::Message(_)));
    }

    #[test]
    fn a_line_at_the_limit_is_read() {
        let found = read_all(format!("{LIST}\n").as_bytes(), LIST.len());
        assert!(matches!(found[0], Incoming::Message(_)));
        let found = read_all(format!("{LIST}\n").as_bytes(), LIST.len() - 1);
        assert!(matches!(found[0], Incoming::Answer(_)));
    }

    #[test]
    fn a_line_that_is_not_utf8_is_answered_with_its_id() {
        let input =
            b"{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"x\",\"params\":{\"t\":\"\xff\"}}\n";
        let found = read_all(input, 1024);
        assert_eq!(answer(&found[0])["id"], "a");
        assert_eq!(answer(&found[0])["error"]["code"], -32700);
        let message = answer(&found[0])["error"]["message"].as_str().unwrap();
        assert!(message.contains("offset 54"), "{message}");
    }

    #[test]
    fn json_that_is_not_a_message_is_an_invalid_request_but_a_notification_is_dropped() {
        let found = read_all(
            b"{\"id\": 3, \"x\": 1}\n{\"method\": 5}\n\n  \nnot json\n",
            1024,
        );
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!(answer(&found[0])["id"], 3);
        assert_eq!(answer(&found[0])["error"]["code"], -32600);
        assert_eq!(answer(&found[1])["id"], Value::Null);
        assert_eq!(answer(&found[1])["error"]["code"], -32700);
    }

    #[test]
    fn a_last_line_without_a_newline_is_read() {
        let found = read_all(LIST.as_bytes(), 1024);
        let Some(Incoming::Message(message)) = found.first() else {
            panic!("{found:?}");
        };
        let ClientJsonRpcMessage::Request(request) = &**message else {
            panic!("{message:?}");
        };
        assert_eq!(request.id, RequestId::Number(5));
    }
}
