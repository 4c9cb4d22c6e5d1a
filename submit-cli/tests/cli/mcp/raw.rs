//! Sessions driven with raw JSON-RPC bytes, the way a client written elsewhere sends them: a
//! message is written as given (no client re-encodes it), over standard input and output as one
//! line, over HTTP as one POST body; the answer is the JSON-RPC message that comes back.

use std::process::Stdio;

use reqwest::StatusCode;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

use super::http_access::{bearer, post, INITIALIZE};
use super::{http_server, HttpServer, BIN, PATIENCE};

/// What `submit-result parse --provider claude` prints for a `tool_use` block whose `input` is
/// `arguments`, spliced in as written (the same argument text an MCP call carries).
pub fn parse_text(options: &[&str], arguments: &str) -> Value {
    let call = format!(
        r#"{{"type":"tool_use","id":"toolu_mcp","name":"submit_result","input":{arguments}}}"#
    );
    let mut child = std::process::Command::new(BIN)
        .args(["parse", "--provider", "claude"])
        .args(options)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(child.stdin.as_mut().unwrap(), call.as_bytes()).unwrap();
    drop(child.stdin.take());
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// A `tools/call` of `name` with request id `id` and `arguments` spliced in as written.
pub fn tools_call(id: u64, name: &str, arguments: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{name}","arguments":{arguments}}}}}"#
    )
}

/// Checks that `answer`, the JSON-RPC answer to a `tools/call`, is the tool result `parse`'s
/// outcome `parsed` gives: a success carrying the tool result as structured content and as
/// its JSON text, or a tool error carrying the message for the model.
pub fn assert_answers_as_parse(answer: &Value, parsed: &Value) {
    let result = &answer["result"];
    assert!(result.is_object(), "not a tool result: {answer}");
    let tool_result = &parsed["tool_result"];
    assert_eq!(result["structuredContent"], *tool_result, "{answer}");
    let text = result["content"][0]["text"].as_str().unwrap_or_default();
    if parsed["accepted"] == true {
        assert_eq!(result["isError"], false, "{answer}");
        assert_eq!(serde_json::from_str::<Value>(text).unwrap(), *tool_result);
    } else {
        assert_eq!(result["isError"], true, "{answer}");
        assert_eq!(text, tool_result["error"], "{answer}");
    }
}

/// Either transport, driven with raw messages.
pub enum Raw {
    Stdio(RawStdio),
    Http(RawHttp),
}

impl Raw {
    /// A server started with `args` over `transport` (`stdio` or `http`), with a session.
    pub async fn start(transport: &str, args: &[&str]) -> Raw {
        match transport {
            "stdio" => Raw::Stdio(RawStdio::start(args).await),
            "http" => Raw::Http(RawHttp::start(args).await),
            _ => panic!("no transport {transport}"),
        }
    }

    /// The answer to `message`.
    pub async fn send(&mut self, message: &str) -> Value {
        match self {
            Raw::Stdio(stdio) => stdio.send(message).await,
            Raw::Http(http) => http.send(message).await,
        }
    }
}

/// A server over standard input and output, initialized.
pub struct RawStdio {
    child: Child,
    stdin: ChildStdin,
    stdout: Lines<BufReader<ChildStdout>>,
}

impl RawStdio {
    pub async fn start(args: &[&str]) -> RawStdio {
        let mut child = Command::new(BIN)
            .arg("mcp")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap()).lines();
        let mut server = RawStdio {
            child,
            stdin,
            stdout,
        };
        let initialized = server.send(INITIALIZE).await;
        assert!(initialized["result"].is_object(), "{initialized}");
        server
            .write(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
            .await;
        server
    }

    async fn write(&mut self, message: &str) {
        assert!(!message.contains('\n'), "one line: {message}");
        self.stdin
            .write_all(format!("{message}\n").as_bytes())
            .await
            .unwrap();
        self.stdin.flush().await.unwrap();
    }

    /// Writes `message` as a line and reads the next line that answers.
    pub async fn send(&mut self, message: &str) -> Value {
        self.write(message).await;
        let line = tokio::time::timeout(PATIENCE, self.stdout.next_line())
            .await
            .expect("an answer in time")
            .unwrap()
            .unwrap_or_else(|| panic!("the server ended: {:?}", self.child.try_wait()));
        serde_json::from_str(&line).unwrap()
    }
}

/// A server over streamable HTTP on loopback, with a session.
pub struct RawHttp {
    pub server: HttpServer,
    session: String,
}

impl RawHttp {
    pub async fn start(args: &[&str]) -> RawHttp {
        let server = http_server(args).await;
        let session = super::http_access::open_session(&server.url).await;
        RawHttp { server, session }
    }

    /// POSTs `message` in the session and reads the JSON-RPC message answered (whatever the
    /// status: a body that is no message is answered 400).
    pub async fn send(&self, message: &str) -> Value {
        let (name, value) = bearer();
        let answer = post(
            &self.server.url,
            &[(name, &value), ("mcp-session-id", &self.session)],
            message,
        )
        .await;
        let expected = match answer.status {
            StatusCode::OK | StatusCode::BAD_REQUEST => answer.message(),
            _ => panic!("{answer:?}"),
        };
        expected
    }
}
