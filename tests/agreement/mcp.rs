//! The MCP server: `submit-result mcp`, over standard input and output and over streamable
//! HTTP, driven with raw JSON-RPC bytes: each call is a `tools/call` message written here with
//! the case's arguments spliced in as the call carries them (a Claude `input` or Gemini `args`
//! as its JSON text, an OpenAI argument text verbatim), one line on standard input or one POST
//! body. No MCP client re-encodes the message, so a member written twice reaches the server
//! as written.
//!
//! A server accepts one result and refuses every later submit, so a batch of calls sharing a
//! tool runs through as many servers as it has accepted calls (plus one): each server takes
//! calls until one is accepted, and the next call goes to a new server.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, OnceLock};
use std::time::Duration;

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::client::conn::http1::SendRequest;
use hyper_util::rt::TokioIo;
use serde_json::{json, Value};
use submit_result::Provider;

use super::cli::{binary, workdir};

/// How many servers of one batch run at once.
const LANES: usize = 3;

/// How long one exchange with a server may take.
const PATIENCE: Duration = Duration::from_secs(30);

/// The transports, as the entry points name them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Transport {
    /// Standard input and output: a message a line.
    Stdio,
    /// Streamable HTTP on loopback: a message a POST.
    Http,
}

impl Transport {
    /// Both.
    pub const ALL: [Transport; 2] = [Transport::Stdio, Transport::Http];

    /// The entry point's name.
    pub fn entry(self) -> &'static str {
        match self {
            Transport::Stdio => "mcp_stdio",
            Transport::Http => "mcp_http",
        }
    }
}

/// The JSON text of a case's arguments as an MCP `arguments` value: `Ok(None)` when the call
/// has none (the message then has no `arguments` member), `Err` when they cannot be one (an
/// OpenAI argument text that is not one JSON value cannot stand in a JSON-RPC message).
pub fn arguments(provider: Provider, call: &Value) -> Result<Option<String>, ()> {
    let member = match provider {
        Provider::Claude => call.get("input"),
        Provider::Gemini => call.get("functionCall").unwrap_or(call).get("args"),
        Provider::OpenAiChat => call.get("function").and_then(|f| f.get("arguments")),
        Provider::OpenAiResponses => call.get("arguments"),
    };
    match (provider, member) {
        (_, None) => Ok(None),
        (Provider::OpenAiChat | Provider::OpenAiResponses, Some(Value::String(text))) => {
            match serde_json::from_str::<&serde_json::value::RawValue>(text) {
                Ok(_) => Ok(Some(text.clone())),
                Err(_) => Err(()),
            }
        }
        (_, Some(value)) => Ok(Some(value.to_string())),
    }
}

/// What the server answered one call.
#[derive(Clone, Debug)]
pub enum Answered {
    /// A success result: its structured content, and the line the server wrote to `--out`.
    Accepted { structured: Value, written: Value },
    /// A tool error (`isError: true`): its text.
    Rejected(String),
}

/// Calls that share a tool (schema and flags) and a transport, each sent as one `tools/call`.
pub struct McpBatch {
    /// The transport.
    pub transport: Transport,
    /// The schema file.
    pub schema: PathBuf,
    /// The tool's flags.
    pub flags: Vec<String>,
    /// The tool's name.
    pub name: String,
    /// The calls' argument texts (`None`: no arguments member).
    pub calls: Vec<Option<String>>,
    /// What each call was answered, read once.
    result: OnceLock<Vec<Result<Answered, String>>>,
}

impl McpBatch {
    /// A batch with no calls yet.
    pub fn new(transport: Transport, schema: PathBuf, flags: Vec<String>, name: &str) -> Self {
        McpBatch {
            transport,
            schema,
            flags,
            name: name.to_owned(),
            calls: Vec::new(),
            result: OnceLock::new(),
        }
    }

    /// What call `index` was answered, running the batch the first time.
    pub fn answer(&self, index: usize) -> Result<Answered, String> {
        let answers = self.result.get_or_init(|| self.run());
        answers
            .get(index)
            .cloned()
            .unwrap_or_else(|| Err(format!("no answer for call {index}")))
    }

    fn run(&self) -> Vec<Result<Answered, String>> {
        let indices: Vec<usize> = (0..self.calls.len()).collect();
        let lane = indices.len().div_ceil(LANES).max(1);
        std::thread::scope(|scope| {
            let lanes: Vec<_> = indices
                .chunks(lane)
                .map(|chunk| scope.spawn(move || self.run_lane(chunk)))
                .collect();
            lanes
                .into_iter()
                .flat_map(|lane| {
                    lane.join()
                        .unwrap_or_else(|_| vec![Err("an MCP lane panicked".to_owned())])
                })
                .collect()
        })
    }

    /// Sends the calls of `indices` in order, starting a new server after each accepted call.
    fn run_lane(&self, indices: &[usize]) -> Vec<Result<Answered, String>> {
        let runtime = match tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        {
            Ok(runtime) => runtime,
            Err(error) => return vec![Err(format!("no runtime: {error}")); indices.len()],
        };
        let mut answers = Vec::with_capacity(indices.len());
        let mut server: Option<Server> = None;
        for (n, &index) in indices.iter().enumerate() {
            let mut running = match server.take() {
                Some(running) => running,
                None => match runtime.block_on(self.start()) {
                    Ok(started) => started,
                    Err(error) => {
                        answers.push(Err(error));
                        continue;
                    }
                },
            };
            let message = tools_call(n, &self.name, self.calls[index].as_deref());
            let answer = runtime.block_on(running.send(&message));
            match answer.and_then(|answer| read_answer(&answer)) {
                Ok(Some(text)) => {
                    answers.push(Ok(Answered::Rejected(text)));
                    server = Some(running);
                }
                // The server is spent: it is dropped (and stopped), the next call goes to a
                // new one.
                Ok(None) => answers.push(running.accepted_with()),
                Err(error) => answers.push(Err(error)),
            }
        }
        answers
    }

    /// Starts `submit-result mcp --schema FILE <flags> --out OUT`, over the batch's transport,
    /// and opens a session.
    async fn start(&self) -> Result<Server, String> {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let dir = workdir();
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let out = dir.join(format!(
            "mcp-{}.jsonl",
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let mut command = Command::new(binary()?);
        command
            .args(["mcp", "--schema"])
            .arg(&self.schema)
            .args(&self.flags)
            .arg("--out")
            .arg(&out)
            .env("RUST_LOG", "error");
        let link = match self.transport {
            Transport::Stdio => Link::Stdio(StdioLink::start(command)?),
            Transport::Http => Link::Http(HttpLink::start(command).await?),
        };
        let mut server = Server { link, out };
        let initialized = server
            .send(r#"{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"agreement","version":"0"}}}"#)
            .await?;
        if !initialized["result"].is_object() {
            return Err(format!("initialize was answered {initialized}"));
        }
        server
            .notify(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
            .await?;
        Ok(server)
    }
}

/// A `tools/call` of `name` with request id `id`, and `arguments` spliced in as written.
fn tools_call(id: usize, name: &str, arguments: Option<&str>) -> String {
    let name = Value::from(name);
    match arguments {
        Some(arguments) => format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":{name},"arguments":{arguments}}}}}"#
        ),
        None => format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":{name}}}}}"#
        ),
    }
}

/// The tool result in `answer`: `None` when it is a success, the text when it is a tool
/// error; an error for anything else (a JSON-RPC error: the call was not taken as one).
fn read_answer(answer: &Value) -> Result<Option<String>, String> {
    let result = &answer["result"];
    match result["isError"].as_bool() {
        Some(false) => Ok(None),
        Some(true) => result["content"][0]["text"]
            .as_str()
            .map(|text| Some(text.to_owned()))
            .ok_or_else(|| format!("a tool error without text: {answer}")),
        None => Err(format!("not a tool result: {answer}")),
    }
}

/// A running server with a session.
struct Server {
    link: Link,
    /// Its `--out` file.
    out: PathBuf,
}

impl Server {
    /// The answer to the request `message`.
    async fn send(&mut self, message: &str) -> Result<Value, String> {
        match &mut self.link {
            Link::Stdio(link) => link.send(message),
            Link::Http(link) => link.send(message).await,
        }
    }

    /// Sends the notification `message`.
    async fn notify(&mut self, message: &str) -> Result<(), String> {
        match &mut self.link {
            Link::Stdio(link) => link.write(message),
            Link::Http(link) => link.post(message).await.map(drop),
        }
    }

    /// The call just answered with a success: its structured content, and what the server
    /// wrote to `--out`.
    fn accepted_with(self) -> Result<Answered, String> {
        let Server { link, out } = self;
        let structured = link.last_structured();
        drop(link);
        let written = read_written(&out)?;
        Ok(Answered::Accepted {
            structured,
            written,
        })
    }
}

/// The `--out` line at `out`.
fn read_written(out: &Path) -> Result<Value, String> {
    let text =
        std::fs::read_to_string(out).map_err(|e| format!("cannot read {}: {e}", out.display()))?;
    serde_json::from_str(text.trim())
        .map_err(|e| format!("the server's --out line is not JSON ({e}): {text}"))
}

/// How the test talks to a server.
enum Link {
    Stdio(StdioLink),
    Http(HttpLink),
}

impl Link {
    /// The structured content of the last answer.
    fn last_structured(&self) -> Value {
        let last = match self {
            Link::Stdio(link) => &link.last,
            Link::Http(link) => &link.last,
        };
        last["result"]["structuredContent"].clone()
    }
}

/// A server over standard input and output; its lines are read on a thread of their own, so
/// that a server that stops answering fails the trial instead of hanging it.
struct StdioLink {
    child: Child,
    stdin: ChildStdin,
    lines: mpsc::Receiver<String>,
    last: Value,
}

impl StdioLink {
    fn start(mut command: Command) -> Result<StdioLink, String> {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start submit-result mcp: {e}"))?;
        let (stdin, stdout) = match (child.stdin.take(), child.stdout.take()) {
            (Some(stdin), Some(stdout)) => (stdin, stdout),
            _ => return Err("no pipes to the server".to_owned()),
        };
        let (sender, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        Ok(StdioLink {
            child,
            stdin,
            lines,
            last: Value::Null,
        })
    }

    fn write(&mut self, message: &str) -> Result<(), String> {
        writeln!(self.stdin, "{message}")
            .and_then(|()| self.stdin.flush())
            .map_err(|e| format!("cannot write to the server: {e}"))
    }

    fn send(&mut self, message: &str) -> Result<Value, String> {
        self.write(message)?;
        let line = self
            .lines
            .recv_timeout(PATIENCE)
            .map_err(|e| format!("no answer from the server: {e}"))?;
        self.last = serde_json::from_str(&line)
            .map_err(|e| format!("the server wrote a line that is not JSON ({e}): {line}"))?;
        Ok(self.last.clone())
    }
}

impl Drop for StdioLink {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A server over streamable HTTP on loopback (without a token), one kept-alive connection to
/// it, and a session.
struct HttpLink {
    child: Child,
    sender: SendRequest<Full<Bytes>>,
    authority: String,
    session: Option<String>,
    last: Value,
}

impl HttpLink {
    async fn start(mut command: Command) -> Result<HttpLink, String> {
        let mut child = command
            .args(["--listen", "127.0.0.1:0", "--no-auth"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start submit-result mcp --listen: {e}"))?;
        let stderr = child.stderr.take().ok_or("no pipe from the server")?;
        // The address is on the line saying where it serves; the rest is left unread.
        let (sender, listening) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if let Some(url) = line.strip_prefix("submit-result: serving MCP at ") {
                    let _ = sender.send(url.to_owned());
                }
            }
        });
        let url = listening
            .recv_timeout(PATIENCE)
            .map_err(|e| format!("the server did not say where it listens: {e}"))?;
        let authority = url
            .trim_start_matches("http://")
            .trim_end_matches("/mcp")
            .to_owned();
        let stream = tokio::net::TcpStream::connect(&authority)
            .await
            .map_err(|e| format!("cannot connect to {authority}: {e}"))?;
        let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .map_err(|e| format!("no HTTP connection: {e}"))?;
        tokio::spawn(connection);
        Ok(HttpLink {
            child,
            sender,
            authority,
            session: None,
            last: Value::Null,
        })
    }

    /// POSTs `message`; the status, the session header and the body.
    async fn post(&mut self, message: &str) -> Result<(u16, Option<String>, String), String> {
        let mut request = hyper::Request::post("/mcp")
            .header("host", &self.authority)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
        if let Some(session) = &self.session {
            request = request.header("mcp-session-id", session);
        }
        let request = request
            .body(Full::new(Bytes::from(message.to_owned())))
            .map_err(|e| format!("no request: {e}"))?;
        let exchange = async {
            let response = self
                .sender
                .send_request(request)
                .await
                .map_err(|e| format!("the request failed: {e}"))?;
            let status = response.status().as_u16();
            let session = response
                .headers()
                .get("mcp-session-id")
                .and_then(|value| value.to_str().ok())
                .map(str::to_owned);
            let body = response
                .into_body()
                .collect()
                .await
                .map_err(|e| format!("the body broke off: {e}"))?
                .to_bytes();
            Ok((status, session, String::from_utf8_lossy(&body).into_owned()))
        };
        tokio::time::timeout(PATIENCE, exchange)
            .await
            .map_err(|_| "no answer from the server in time".to_owned())?
    }

    /// The JSON-RPC message answering `message` (the data of the SSE event that carries one).
    async fn send(&mut self, message: &str) -> Result<Value, String> {
        let (status, session, body) = self.post(message).await?;
        if self.session.is_none() {
            self.session = session;
        }
        let data = body
            .lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .map(str::trim)
            .find(|data| !data.is_empty())
            .unwrap_or(&body);
        self.last = serde_json::from_str(data)
            .map_err(|e| format!("answered {status} with no JSON-RPC message ({e}): {body}"))?;
        Ok(self.last.clone())
    }
}

impl Drop for HttpLink {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What an MCP answer exposes, in the outcome's fields: whether it was accepted, the tool
/// result the model reads (the structured content of a success, the text of a tool error),
/// and, for an accepted call, the outcome the server wrote out.
pub fn observed(answer: &Answered) -> Result<Value, String> {
    Ok(match answer {
        Answered::Accepted {
            structured,
            written,
        } => {
            if written["tool_result"] != *structured {
                return Err(format!(
                    "the structured content {structured} is not the written tool_result {}",
                    written["tool_result"]
                ));
            }
            written.clone()
        }
        Answered::Rejected(text) => json!({"accepted": false, "tool_result": {"error": text}}),
    })
}
