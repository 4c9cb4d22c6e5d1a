//! The MCP server's request handling (`submit-result mcp`), in process over pipes, through the
//! same line transport as its standard input and output (every line answered, a `tools/call`'s
//! arguments cut from the line's bytes). After the handshake, each line of the input goes to
//! the server as one message. Beyond "no panic": everything the server writes is one JSON-RPC
//! message a line, and after the input the server still answers `tools/list` with its one
//! tool.

use std::sync::OnceLock;
use std::time::Duration;

use std::io::Write;

use serde_json::{json, Value};
use submit_cli::__private::SubmitServer;
use submit_result::{Options, SubmitTool};
use tokio::io::{AsyncBufReadExt, BufReader};

fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        match tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        {
            Ok(runtime) => runtime,
            Err(error) => panic!("a runtime starts: {error}"),
        }
    })
}

fn tool() -> SubmitTool<Value> {
    let schema = json!({"type": "object", "properties": {"summary": {"type": "string"}},
                        "required": ["summary"]});
    match SubmitTool::from_json_schema(schema, Options::new()) {
        Ok(tool) => tool,
        Err(error) => panic!("the fuzz tool is valid: {error}"),
    }
}

const HANDSHAKE: &str = concat!(
    r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","#,
    r#""capabilities":{},"clientInfo":{"name":"fuzz","version":"0"}}}"#,
    "\n",
    r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    "\n",
);
const PROBE: &str = r#"{"jsonrpc":"2.0","id":"probe","method":"tools/list"}"#;

pub fn run(data: &[u8]) {
    // A line break inside the input ends a message; the probe goes on a line of its own.
    let mut input = HANDSHAKE.as_bytes().to_vec();
    input.extend_from_slice(data);
    input.push(b'\n');
    input.extend_from_slice(PROBE.as_bytes());
    input.push(b'\n');
    runtime().block_on(async move {
        let (server_input, mut client_write) = match std::io::pipe() {
            Ok(pipe) => pipe,
            Err(error) => panic!("a pipe opens: {error}"),
        };
        let (server_write, client_read) = tokio::io::duplex(64 * 1024);
        let serving = tokio::spawn(async move {
            let _ = SubmitServer::unrecorded(tool())
                .serve_lines(server_input, server_write)
                .await;
        });
        // Written on a thread of its own (a pipe's writer blocks when the pipe is full); the
        // writer is handed back, still open, so the session lasts until the probe is answered.
        let writing = std::thread::spawn(move || {
            let _ = client_write.write_all(&input);
            let _ = client_write.flush();
            client_write
        });
        let mut lines = BufReader::new(client_read).lines();
        let mut answered = None;
        let deadline = tokio::time::sleep(Duration::from_secs(10));
        tokio::pin!(deadline);
        while answered.is_none() {
            let line = tokio::select! {
                line = lines.next_line() => line,
                () = &mut deadline => panic!("the server did not answer the probe in 10 s"),
            };
            let line = match line {
                Ok(Some(line)) => line,
                Ok(None) => panic!("the server stopped serving before the probe"),
                Err(error) => panic!("the server's output is not text: {error}"),
            };
            let message: Value = serde_json::from_str(&line).unwrap_or_else(|error| {
                panic!("the server wrote a line that is not JSON ({error}): {line:?}")
            });
            assert_eq!(message["jsonrpc"], "2.0", "{line}");
            if message["id"] == "probe" {
                answered = Some(message);
            }
        }
        let probe = answered.unwrap_or_default();
        let names: Vec<&str> = probe["result"]["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|tool| tool["name"].as_str())
            .collect();
        assert_eq!(names, ["submit_result"], "{probe}");
        drop(writing.join());
        drop(lines);
        serving.abort();
        let _ = serving.await;
    });
}
