//! `tools/call` throughput and latency of `submit-result mcp`: over streamable HTTP with 1, 8
//! and 32 kept-alive clients (each its own connection and session), and over standard input
//! and output with one client; with the server's resident memory (RSS) as it starts, once the
//! sessions are open, and after each of two equal runs of calls, so that memory growing with
//! the calls rather than the sessions shows.
//!
//! Each call is the CLI's sample declined call (`tests/data/claude_stringified_declined.json`,
//! a payload sent as a string with prose after it): read whole by the parser and answered with
//! its hint, so every call costs a parse (an accepted one would end the run, and the calls
//! after it would only be refused). Clients send one call at a time and wait for its answer.
//! The clients run on one thread of this process, the server in its own; on a 2-core machine
//! they share the cores.
//!
//! ```text
//! cargo bench -p submit-cli --bench mcp_serve
//! ```
//!
//! `MCP_BENCH_SECONDS` sets each run's length (default 5); `SUBMIT_RESULT_BIN` runs another
//! build of the server (another checkout's), for a before/after pair on the same machine;
//! `MCP_BENCH_ONLY` (`http1`, `http8`, `http32` or `stdio`) runs one case. The server's CPU
//! time per call (user and system, from `/proc`) is printed beside the wall-clock figures: it
//! moves less with the machine's load.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1::SendRequest;
use hyper_util::rt::TokioIo;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, Command};

/// A run's measured calls: their latencies.
struct Run {
    latencies: Vec<Duration>,
    elapsed: Duration,
}

impl Run {
    fn calls(&self) -> u32 {
        u32::try_from(self.latencies.len()).unwrap_or(u32::MAX)
    }

    fn report(&self) -> String {
        let mut sorted = self.latencies.clone();
        sorted.sort();
        let at = |q: f64| {
            let i = ((sorted.len() as f64 - 1.0) * q).round() as usize;
            sorted.get(i).copied().unwrap_or_default()
        };
        format!(
            "{:>7.0} calls/s  p50 {:>8.3} ms  p99 {:>8.3} ms  ({} calls)",
            sorted.len() as f64 / self.elapsed.as_secs_f64(),
            at(0.5).as_secs_f64() * 1e3,
            at(0.99).as_secs_f64() * 1e3,
            sorted.len()
        )
    }
}

fn main() {
    let bin = std::env::var_os("SUBMIT_RESULT_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_submit-result")));
    let seconds = std::env::var("MCP_BENCH_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(5);
    let run_for = Duration::from_secs(seconds);
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let schema = data.join("schema.json");
    let call: Value = serde_json::from_str(
        &std::fs::read_to_string(data.join("claude_stringified_declined.json")).expect("call"),
    )
    .expect("JSON");
    let message = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"submit_result","arguments":{}}}}}"#,
        call["input"]
    );
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    println!("server: {}", bin.display());
    println!(
        "load average at start: {}",
        std::fs::read_to_string("/proc/loadavg")
            .unwrap_or_default()
            .trim()
    );
    let only = std::env::var("MCP_BENCH_ONLY").unwrap_or_default();
    for clients in [1, 8, 32] {
        if only.is_empty() || only == format!("http{clients}") {
            runtime.block_on(http(&bin, &schema, &message, clients, run_for));
        }
    }
    if only.is_empty() || only == "stdio" {
        runtime.block_on(stdio(&bin, &schema, &message, run_for));
    }
    println!(
        "load average at end: {}",
        std::fs::read_to_string("/proc/loadavg")
            .unwrap_or_default()
            .trim()
    );
}

/// The resident memory of process `pid`, in KiB.
fn rss(pid: Option<u32>) -> u64 {
    let status =
        std::fs::read_to_string(format!("/proc/{}/status", pid.unwrap_or(0))).unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

/// One client: a kept-alive connection with a session.
struct Client {
    sender: SendRequest<Full<Bytes>>,
    authority: String,
    session: Option<String>,
}

impl Client {
    async fn connect(authority: &str) -> Client {
        let stream = tokio::net::TcpStream::connect(authority)
            .await
            .expect("connect");
        let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .expect("handshake");
        tokio::spawn(connection);
        let mut client = Client {
            sender,
            authority: authority.to_owned(),
            session: None,
        };
        let initialized = client.post(r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"0"}}}"#).await;
        assert!(initialized.contains("\"result\""), "{initialized}");
        client
            .post(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
            .await;
        client
    }

    /// POSTs `message` and reads the whole answer.
    async fn post(&mut self, message: &str) -> String {
        let mut request = hyper::Request::post("/mcp")
            .header("host", &self.authority)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
        if let Some(session) = &self.session {
            request = request.header("mcp-session-id", session);
        }
        let request = request
            .body(Full::new(Bytes::from(message.to_owned())))
            .expect("request");
        let response = self.sender.send_request(request).await.expect("answer");
        if self.session.is_none() {
            self.session = response
                .headers()
                .get("mcp-session-id")
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned);
        }
        let body = response
            .into_body()
            .collect()
            .await
            .expect("body")
            .to_bytes();
        String::from_utf8_lossy(&body).into_owned()
    }

    /// Calls until `until`, and the latency of each call answered after `from`; the client is
    /// handed back for the next run.
    async fn calls(
        mut self,
        message: String,
        from: Instant,
        until: Instant,
    ) -> (Client, Vec<Duration>) {
        let mut latencies = Vec::new();
        while Instant::now() < until {
            let sent = Instant::now();
            let answer = self.post(&message).await;
            assert!(answer.contains(r#""isError":true"#), "{answer}");
            if sent >= from {
                latencies.push(sent.elapsed());
            }
        }
        (self, latencies)
    }
}

/// Starts the server over HTTP on a free loopback port; it and the address it serves. Its
/// standard error (the default logs, two lines a call) goes to `/dev/null`, as written as a
/// host would keep it but not read back here.
async fn start_http(bin: &Path, schema: &Path) -> (Child, String) {
    let free = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    let authority = free.local_addr().expect("its address").to_string();
    drop(free);
    let child = Command::new(bin)
        .args(["mcp", "--schema"])
        .arg(schema)
        .args(["--listen", &authority, "--no-auth", "--max-sessions", "64"])
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("the server starts");
    let deadline = Instant::now() + Duration::from_secs(30);
    while tokio::net::TcpStream::connect(&authority).await.is_err() {
        assert!(Instant::now() < deadline, "the server listens in time");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    (child, authority)
}

/// Runs `clients` clients, each calling until `until` and measuring from `from`; the clients
/// are handed back.
async fn round(
    clients: Vec<Client>,
    message: &str,
    from: Instant,
    until: Instant,
) -> (Vec<Client>, Run) {
    let started = Instant::now();
    let tasks: Vec<_> = clients
        .into_iter()
        .map(|client| tokio::spawn(client.calls(message.to_owned(), from, until)))
        .collect();
    let mut latencies = Vec::new();
    let mut clients = Vec::new();
    for task in tasks {
        let (client, measured) = task.await.expect("a client");
        clients.push(client);
        latencies.extend(measured);
    }
    let run = Run {
        latencies,
        elapsed: until.saturating_duration_since(from.max(started)),
    };
    (clients, run)
}

/// The CPU time process `pid` has used (user and system), from `/proc/<pid>/stat`.
fn cpu(pid: Option<u32>) -> Duration {
    let stat =
        std::fs::read_to_string(format!("/proc/{}/stat", pid.unwrap_or(0))).unwrap_or_default();
    // The fields after the command name (which ends the first `)`): utime and stime are the
    // 12th and 13th of them, in clock ticks (100 a second on Linux).
    let ticks: u64 = stat
        .rsplit_once(')')
        .map(|(_, rest)| {
            rest.split_whitespace()
                .skip(11)
                .take(2)
                .filter_map(|n| n.parse::<u64>().ok())
                .sum()
        })
        .unwrap_or(0);
    Duration::from_millis(ticks * 10)
}

async fn http(bin: &Path, schema: &Path, message: &str, clients: usize, run_for: Duration) {
    let (child, authority) = start_http(bin, schema).await;
    let pid = child.id();
    let started = rss(pid);
    let mut open = Vec::new();
    for _ in 0..clients {
        open.push(Client::connect(&authority).await);
    }
    let with_sessions = rss(pid);
    // A second's warm-up, then the measured run, then as long again on the same sessions.
    let warm = Instant::now() + Duration::from_secs(1);
    let (open, _) = round(open, message, Instant::now(), warm).await;
    let (cpu_before, own_before) = (cpu(pid), cpu(Some(std::process::id())));
    let now = Instant::now();
    let (open, first) = round(open, message, now, now + run_for).await;
    let cpu_per_call = cpu(pid).saturating_sub(cpu_before) / first.calls().max(1);
    let own_per_call =
        cpu(Some(std::process::id())).saturating_sub(own_before) / first.calls().max(1);
    let after_first = rss(pid);
    let now = Instant::now();
    let (open, second) = round(open, message, now, now + run_for).await;
    let after_second = rss(pid);
    println!(
        "http, {clients:>2} kept-alive clients: {}  server CPU {:.0} us a call (clients {:.0} us)",
        first.report(),
        cpu_per_call.as_secs_f64() * 1e6,
        own_per_call.as_secs_f64() * 1e6
    );
    println!(
        "  server RSS: {started} KiB at start, {with_sessions} KiB with {clients} sessions, \
         {after_first} KiB after {} calls, {after_second} KiB after {} more",
        first.calls(),
        second.calls(),
    );
    drop(open);
    drop(child);
}

async fn stdio(bin: &Path, schema: &Path, message: &str, run_for: Duration) {
    let mut child = Command::new(bin)
        .args(["mcp", "--schema"])
        .arg(schema)
        .env_remove("RUST_LOG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("the server starts");
    let pid = child.id();
    let mut stdin = child.stdin.take().expect("stdin");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let initialize = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"0"}}}"#;
    stdin
        .write_all(format!("{initialize}\n").as_bytes())
        .await
        .expect("write");
    lines.next_line().await.expect("read").expect("a line");
    stdin
        .write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n")
        .await
        .expect("write");
    let started = rss(pid);
    let line = format!("{message}\n");
    let warm = Instant::now() + Duration::from_secs(1);
    stdio_calls(&mut stdin, &mut lines, &line, Instant::now(), warm).await;
    let cpu_before = cpu(pid);
    let now = Instant::now();
    let first = stdio_calls(&mut stdin, &mut lines, &line, now, now + run_for).await;
    let cpu_per_call = cpu(pid).saturating_sub(cpu_before) / first.calls().max(1);
    let after_first = rss(pid);
    let now = Instant::now();
    let second = stdio_calls(&mut stdin, &mut lines, &line, now, now + run_for).await;
    let after_second = rss(pid);
    println!(
        "stdio, one client:              {}  server CPU {:.0} us a call",
        first.report(),
        cpu_per_call.as_secs_f64() * 1e6
    );
    println!(
        "  server RSS: {started} KiB at start, {after_first} KiB after {} calls, \
         {after_second} KiB after {} more",
        first.calls(),
        second.calls()
    );
}

/// Calls over standard input and output until `until`, measuring those sent after `from`.
async fn stdio_calls(
    stdin: &mut tokio::process::ChildStdin,
    lines: &mut tokio::io::Lines<BufReader<tokio::process::ChildStdout>>,
    line: &str,
    from: Instant,
    until: Instant,
) -> Run {
    let mut latencies = Vec::new();
    while Instant::now() < until {
        let sent = Instant::now();
        stdin.write_all(line.as_bytes()).await.expect("write");
        let answer = lines.next_line().await.expect("read").expect("a line");
        assert!(answer.contains(r#""isError":true"#), "{answer}");
        if sent >= from {
            latencies.push(sent.elapsed());
        }
    }
    Run {
        latencies,
        elapsed: until.saturating_duration_since(from),
    }
}
