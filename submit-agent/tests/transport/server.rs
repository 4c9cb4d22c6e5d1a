//! A loopback HTTP server for the transport tests: it answers a fixed list of replies, checks
//! every request with a provider's shape check (a failed check is answered 400 with the
//! problem, as the provider would), records the requests, and stops by itself once the list
//! is used up or after a deadline.

#![allow(dead_code, reason = "each transport test uses part of the helpers")]

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::Value;

/// One canned answer.
#[derive(Clone, Debug)]
pub struct Reply {
    /// How long the server waits before answering.
    pub delay: Duration,
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// Sent chunked in pieces of 1 to 61 bytes cut by this seed, instead of whole.
    pub pieces: Option<u64>,
    /// Sent chunked, and the connection closed after this many body bytes.
    pub cut: Option<usize>,
}

impl Reply {
    /// A JSON answer.
    pub fn json(status: u16, body: impl Into<String>) -> Self {
        Reply {
            delay: Duration::ZERO,
            status,
            headers: vec![("content-type".into(), "application/json".into())],
            body: body.into().into_bytes(),
            pieces: None,
            cut: None,
        }
    }

    /// An event-stream answer.
    pub fn sse(body: impl Into<String>) -> Self {
        Reply {
            delay: Duration::ZERO,
            status: 200,
            headers: vec![("content-type".into(), "text/event-stream".into())],
            body: body.into().into_bytes(),
            pieces: None,
            cut: None,
        }
    }

    /// A scripted answer from `tests/transport/<path>`: `.sse` files stream, others are JSON.
    pub fn scripted(path: &str) -> Self {
        let text = std::fs::read_to_string(scripted_path(path))
            .unwrap_or_else(|e| panic!("read {path}: {e}"));
        if path.ends_with(".sse") {
            Reply::sse(text)
        } else {
            Reply::json(200, text)
        }
    }

    /// Answers after `delay`.
    pub fn after(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }

    /// Sends the body in pieces cut at arbitrary bytes (each piece one HTTP chunk).
    pub fn in_pieces(mut self, seed: u64) -> Self {
        self.pieces = Some(seed);
        self
    }

    /// Sends only the first `bytes` of the body, then drops the connection.
    pub fn cut_at(mut self, bytes: usize) -> Self {
        self.cut = Some(bytes);
        self
    }

    /// Adds a header.
    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }
}

/// The path of a scripted answer.
pub fn scripted_path(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/transport")
        .join(path)
}

/// The JSON of a scripted answer.
pub fn scripted_json(path: &str) -> Value {
    let text = std::fs::read_to_string(scripted_path(path)).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// One request the server received.
#[derive(Clone, Debug)]
pub struct Recorded {
    pub method: String,
    pub path: String,
    /// Header names lowercased.
    pub headers: BTreeMap<String, String>,
    pub body: Value,
}

/// A shape check: `Err` is answered 400 with the message.
pub type Check = fn(&Recorded) -> Result<(), String>;

/// The running server.
pub struct Server {
    pub url: String,
    requests: Arc<Mutex<Vec<Recorded>>>,
    problems: Arc<Mutex<Vec<String>>>,
    thread: Option<JoinHandle<()>>,
}

impl Server {
    /// Serves `replies` in order, one per request, checking each with `check`.
    pub fn start(check: Check, replies: Vec<Reply>) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let requests = Arc::new(Mutex::new(Vec::new()));
        let problems = Arc::new(Mutex::new(Vec::new()));
        let (req, prob) = (Arc::clone(&requests), Arc::clone(&problems));
        let thread = std::thread::spawn(move || {
            let deadline = Instant::now() + Duration::from_secs(30);
            let mut pending: std::collections::VecDeque<Reply> = replies.into();
            while let Some(reply) = pending.front().cloned() {
                if Instant::now() > deadline {
                    break;
                }
                match listener.accept() {
                    Ok((stream, _)) => {
                        if serve(stream, check, reply, &req, &prob) {
                            pending.pop_front();
                        }
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                        std::thread::sleep(Duration::from_millis(2));
                    }
                    Err(_) => break,
                }
            }
        });
        Server {
            url,
            requests,
            problems,
            thread: Some(thread),
        }
    }

    /// Every request received so far.
    pub fn requests(&self) -> Vec<Recorded> {
        self.requests.lock().unwrap().clone()
    }

    /// Shape problems found (each was answered 400).
    pub fn problems(&self) -> Vec<String> {
        self.problems.lock().unwrap().clone()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // The thread ends once its replies are used up or at its deadline; never block here.
        drop(self.thread.take());
    }
}

/// Serves one connection; `true` when a request was read and answered.
fn serve(
    stream: TcpStream,
    check: Check,
    reply: Reply,
    requests: &Mutex<Vec<Recorded>>,
    problems: &Mutex<Vec<String>>,
) -> bool {
    stream.set_nonblocking(false).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut line = String::new();
    if reader.read_line(&mut line).unwrap_or(0) == 0 {
        return false;
    }
    let mut words = line.split_whitespace();
    let method = words.next().unwrap_or("").to_owned();
    let path = words.next().unwrap_or("").to_owned();
    let mut headers = BTreeMap::new();
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).unwrap_or(0) == 0 {
            break;
        }
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        if let Some((name, value)) = h.split_once(':') {
            headers.insert(name.trim().to_ascii_lowercase(), value.trim().to_owned());
        }
    }
    let length: usize = headers
        .get("content-length")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; length];
    reader.read_exact(&mut body).unwrap();
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let recorded = Recorded {
        method,
        path,
        headers,
        body,
    };
    let reply = match check(&recorded) {
        Ok(()) => reply,
        Err(problem) => {
            problems.lock().unwrap().push(problem.clone());
            Reply::json(
                400,
                serde_json::json!({"error": {"message": format!("shape check: {problem}")}})
                    .to_string(),
            )
        }
    };
    requests.lock().unwrap().push(recorded);
    std::thread::sleep(reply.delay);
    let mut out = stream;
    let _ = out.set_nodelay(true);
    let chunked = reply.pieces.is_some() || reply.cut.is_some();
    let mut head = format!("HTTP/1.1 {} X\r\nconnection: close\r\n", reply.status);
    if chunked {
        head.push_str("transfer-encoding: chunked\r\n");
    } else {
        head.push_str(&format!("content-length: {}\r\n", reply.body.len()));
    }
    for (name, value) in &reply.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    let _ = out.write_all(head.as_bytes());
    if !chunked {
        let _ = out.write_all(&reply.body);
        let _ = out.flush();
        return true;
    }
    let end = reply.cut.unwrap_or(reply.body.len()).min(reply.body.len());
    let mut seed = reply.pieces.unwrap_or(0x9e37_79b9_7f4a_7c15) | 1;
    let mut at = 0;
    while at < end {
        // xorshift: piece sizes 1..=61, so every byte position is a possible cut.
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let size = if reply.pieces.is_some() {
            1 + (seed % 61) as usize
        } else {
            end - at
        };
        let piece = &reply.body[at..(at + size).min(end)];
        let _ = out.write_all(format!("{:x}\r\n", piece.len()).as_bytes());
        let _ = out.write_all(piece);
        let _ = out.write_all(b"\r\n");
        let _ = out.flush();
        at += piece.len();
    }
    if reply.cut.is_none() {
        let _ = out.write_all(b"0\r\n\r\n");
    }
    let _ = out.flush();
    let _ = out.shutdown(std::net::Shutdown::Both);
    true
}

/// A failed shape check.
pub fn fail(what: impl Into<String>) -> Result<(), String> {
    Err(what.into())
}

/// Checks `cond`, else fails with `what`.
pub fn ensure(cond: bool, what: &str) -> Result<(), String> {
    if cond {
        Ok(())
    } else {
        fail(what)
    }
}

/// The body's field as a string.
pub fn str_at<'a>(v: &'a Value, key: &str) -> Result<&'a str, String> {
    v.get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| format!("`{key}` must be a string in {v}"))
}

/// The body's field as an array.
pub fn array_at<'a>(v: &'a Value, key: &str) -> Result<&'a Vec<Value>, String> {
    v.get(key)
        .and_then(Value::as_array)
        .ok_or_else(|| format!("`{key}` must be an array in {v}"))
}
