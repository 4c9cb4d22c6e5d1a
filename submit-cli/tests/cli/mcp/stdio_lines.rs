//! Lines on the server's standard input that hold no message: each gets a JSON-RPC answer,
//! and the server keeps serving.

use std::process::Stdio;

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

use super::{schema, BIN, PATIENCE};

/// The stdio line limit: rmcp's, 16 MiB.
const LIMIT: usize = 16 * 1024 * 1024;

/// A server over standard input and output, spoken to line by line.
struct Raw {
    _child: Child,
    stdin: ChildStdin,
    stdout: Lines<BufReader<ChildStdout>>,
}

impl Raw {
    /// Starts the server and goes through the handshake.
    async fn start() -> Raw {
        let mut child = Command::new(BIN)
            .args(["mcp", "--schema", &schema()])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let mut raw = Raw {
            stdin: child.stdin.take().unwrap(),
            stdout: BufReader::new(child.stdout.take().unwrap()).lines(),
            _child: child,
        };
        raw.send(
            br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"0"}}}"#,
        )
        .await;
        assert_eq!(raw.answer().await["id"], 0);
        raw.send(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
            .await;
        raw
    }

    /// Writes `line` and a newline.
    async fn send(&mut self, line: &[u8]) {
        self.stdin.write_all(line).await.unwrap();
        self.stdin.write_all(b"\n").await.unwrap();
        self.stdin.flush().await.unwrap();
    }

    /// The next message the server writes.
    async fn answer(&mut self) -> Value {
        let line = tokio::time::timeout(PATIENCE, self.stdout.next_line())
            .await
            .expect("an answer in time")
            .unwrap()
            .expect("a line before the end");
        serde_json::from_str(&line).unwrap()
    }

    /// Checks the server still answers `tools/list`.
    async fn still_serves(&mut self) {
        self.send(br#"{"jsonrpc":"2.0","id":"after","method":"tools/list"}"#)
            .await;
        let answer = self.answer().await;
        assert_eq!(answer["id"], "after", "{answer}");
        assert_eq!(answer["result"]["tools"][0]["name"], "submit_result");
    }
}

/// A `tools/call` line of more than `LIMIT` bytes; the id goes first or last, or nowhere.
fn long_call(id: Option<&str>, id_last: bool) -> Vec<u8> {
    let text = "a".repeat(LIMIT);
    let mut call = json!({"jsonrpc": "2.0", "method": "tools/call",
                          "params": {"name": "submit_result",
                                     "arguments": {"reasoning": text, "result": {"summary": "s"}}}});
    let mut line = Vec::new();
    match (id, id_last) {
        (Some(id), true) => {
            call["id"] = json!(id);
            line = call.to_string().into_bytes();
        }
        (Some(id), false) => {
            line.extend_from_slice(format!(r#"{{"id":"{id}","#).as_bytes());
            let rest = call.to_string();
            line.extend_from_slice(rest.get(1..).unwrap().as_bytes());
        }
        (None, _) => line = call.to_string().into_bytes(),
    }
    assert!(line.len() > LIMIT);
    line
}

fn assert_error(answer: &Value, id: Value, code: i64, says: &str) {
    assert_eq!(answer["jsonrpc"], "2.0", "{answer}");
    assert_eq!(answer["id"], id, "{answer}");
    assert_eq!(answer["error"]["code"], code, "{answer}");
    let message = answer["error"]["message"].as_str().unwrap();
    assert!(message.contains(says), "{message}");
}

#[tokio::test]
async fn stdio_a_message_past_16_mib_with_an_id_gets_an_error_naming_the_limit() {
    let mut server = Raw::start().await;
    // The id first, as rmcp's client writes it, and last, as the TypeScript SDK's does.
    for (id, last) in [("first", false), ("last", true)] {
        server.send(&long_call(Some(id), last)).await;
        assert_error(
            &server.answer().await,
            json!(id),
            -32600,
            "at most 16777216 bytes (16 MiB)",
        );
    }
    server.still_serves().await;
}

#[tokio::test]
async fn stdio_a_message_past_16_mib_without_an_id_gets_a_parse_error_with_a_null_id() {
    let mut server = Raw::start().await;
    server.send(&long_call(None, false)).await;
    assert_error(
        &server.answer().await,
        Value::Null,
        -32700,
        "at most 16777216 bytes (16 MiB)",
    );
    // Not JSON at all, and longer than the limit.
    server.send(&vec![b'{'; LIMIT + 10]).await;
    assert_error(&server.answer().await, Value::Null, -32700, "16 MiB");
    server.still_serves().await;
}

#[tokio::test]
async fn stdio_a_line_that_is_not_utf8_gets_an_error_with_its_id() {
    let mut server = Raw::start().await;
    let mut line = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"submit_result","arguments":{"reasoning":""#.to_vec();
    let at = line.len();
    line.extend_from_slice(b"\xff\xfe\", \"result\": {\"summary\": \"s\"}}}}");
    server.send(&line).await;
    assert_error(
        &server.answer().await,
        json!(7),
        -32700,
        &format!("not UTF-8 (invalid byte at offset {at})"),
    );
    server.still_serves().await;
}

#[tokio::test]
async fn stdio_a_line_that_is_not_utf8_without_an_id_gets_a_parse_error_with_a_null_id() {
    let mut server = Raw::start().await;
    server.send(b"\xc3\x28 garbage").await;
    assert_error(&server.answer().await, Value::Null, -32700, "not UTF-8");
    server.still_serves().await;
}

#[tokio::test]
async fn stdio_a_line_that_is_not_json_gets_a_parse_error_and_json_that_is_no_message_an_invalid_request(
) {
    let mut server = Raw::start().await;
    server.send(b"{\"jsonrpc\": \"2.0\", \"id\": 1, ").await;
    assert_error(&server.answer().await, Value::Null, -32700, "parse error");
    server
        .send(br#"{"jsonrpc": "2.0", "id": 4, "params": []}"#)
        .await;
    assert_error(&server.answer().await, json!(4), -32600, "invalid request");
    server.still_serves().await;
}
