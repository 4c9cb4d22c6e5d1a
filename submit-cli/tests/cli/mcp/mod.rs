//! `submit-result mcp`, started as a child process and driven with rmcp's client, over
//! standard input and output and over streamable HTTP on loopback.
//!
//! Each outcome is checked against what `submit-result parse --provider claude` prints for a
//! `tool_use` block holding the same arguments: an MCP call is parsed exactly as `parse`
//! parses one. `from_bytes` sends raw JSON-RPC messages (`raw`) whose arguments rmcp's client
//! could not send (a member twice, a string, any value, deep nesting) over both transports;
//! the other modules probe what no well-behaved client sends: lines that hold no message
//! (`stdio_lines`), requests from foreign origins or without the token (`http_access`), each
//! limit of the HTTP server (`http_limits`) and the faults of issue 31 beside the arguments
//! (`faults`); `fidelity` checks the listed schema and the accepted result against the MCP
//! specification.

mod faults;
mod fidelity;
mod from_bytes;
mod http_access;
mod http_limits;
mod raw;
mod stdio_lines;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{CallToolRequestParams, CallToolResult, ClientRequest, CustomRequest, ErrorCode};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{ConfigureCommandExt, StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ServiceError, ServiceExt};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, BufReader};
use tokio::process::{Child, ChildStdout, Command};

const BIN: &str = env!("CARGO_BIN_EXE_submit-result");

/// How long any one exchange may take before the test fails instead of hanging.
const PATIENCE: Duration = Duration::from_secs(30);

/// The bearer token the HTTP servers of these tests are given.
const TOKEN: &str = "test-token-0123456789";

type Client = RunningService<RoleClient, ()>;

fn data(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
        .display()
        .to_string()
}

/// The CLI's sample schema: `{"summary": string}`, required.
fn schema() -> String {
    data("schema.json")
}

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("mcp-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The `input` of a tool_use block in one of the CLI's sample calls.
fn sample_input(name: &str) -> Value {
    let call: Value = serde_json::from_str(&std::fs::read_to_string(data(name)).unwrap()).unwrap();
    call["input"].clone()
}

/// What `submit-result parse --provider claude` prints for a tool_use block holding
/// `arguments`, with the tool options `options`.
fn parse_output(options: &[&str], arguments: &Value) -> Value {
    let call = json!({"type": "tool_use", "id": "toolu_mcp", "name": "submit_result",
                      "input": arguments});
    let mut child = std::process::Command::new(BIN)
        .args(["parse", "--provider", "claude"])
        .args(options)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(child.stdin.as_mut().unwrap(), call.to_string().as_bytes()).unwrap();
    drop(child.stdin.take());
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// What `submit-result definition --provider claude` prints.
fn claude_definition(options: &[&str]) -> Value {
    let out = std::process::Command::new(BIN)
        .args(["definition", "--provider", "claude"])
        .args(options)
        .output()
        .unwrap();
    assert!(out.status.success());
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Reads all of `reader` into a string shared with the test, in the background.
fn collect(reader: impl AsyncRead + Unpin + Send + 'static) -> Arc<Mutex<String>> {
    let text = Arc::new(Mutex::new(String::new()));
    let sink = Arc::clone(&text);
    tokio::spawn(async move {
        let mut lines = BufReader::new(reader).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let mut text = sink.lock().unwrap();
            text.push_str(&line);
            text.push('\n');
        }
    });
    text
}

/// A server over standard input and output, connected.
struct StdioServer {
    client: Client,
    stderr: Arc<Mutex<String>>,
}

async fn stdio_server(args: &[&str]) -> StdioServer {
    let command = Command::new(BIN).configure(|command| {
        command.arg("mcp").args(args);
    });
    let (transport, stderr) = TokioChildProcess::builder(command)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let client = tokio::time::timeout(PATIENCE, ().serve(transport))
        .await
        .expect("the server initializes in time")
        .unwrap();
    StdioServer {
        client,
        stderr: collect(stderr.unwrap()),
    }
}

impl StdioServer {
    /// Closes the session and returns what the server wrote to standard error.
    async fn close(self) -> String {
        let _ = self.client.cancel().await;
        // The server exits on the end of its input; its standard error then ends.
        tokio::time::sleep(Duration::from_millis(300)).await;
        self.stderr.lock().unwrap().clone()
    }
}

/// A server over streamable HTTP on loopback; the child dies with the test.
struct HttpServer {
    child: Child,
    url: String,
    stdout: BufReader<ChildStdout>,
    stderr: Arc<Mutex<String>>,
    /// What it wrote to standard error up to the line saying where it listens.
    started: String,
}

/// A server over streamable HTTP on loopback whose token is [`TOKEN`].
async fn http_server(args: &[&str]) -> HttpServer {
    let mut command = Command::new(BIN);
    command.env("SUBMIT_RESULT_MCP_TOKEN", TOKEN);
    start_http(command, args).await
}

/// Starts `command` (the binary, or a shell around it) with `mcp`, `args` and a loopback
/// `--listen`, and waits for the address it serves.
async fn start_http(mut command: Command, args: &[&str]) -> HttpServer {
    let mut child = command
        .arg("mcp")
        .args(args)
        .args(["--listen", "127.0.0.1:0"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut url = None;
    let mut seen = String::new();
    while url.is_none() {
        let mut line = String::new();
        let read = tokio::time::timeout(PATIENCE, stderr.read_line(&mut line))
            .await
            .expect("the server says where it listens in time")
            .unwrap();
        assert!(read > 0, "the server ended before listening: {seen}");
        url = line
            .trim()
            .strip_prefix("submit-result: serving MCP at ")
            .map(str::to_owned);
        seen.push_str(&line);
    }
    HttpServer {
        stdout: BufReader::new(child.stdout.take().unwrap()),
        stderr: collect(stderr),
        url: url.unwrap(),
        started: seen,
        child,
    }
}

impl HttpServer {
    /// A client with the token, initialized.
    async fn connect(&self) -> Client {
        self.connect_with(Some(TOKEN)).await
    }

    /// A client sending `token` (none when `None`), initialized.
    async fn connect_with(&self, token: Option<&str>) -> Client {
        let config = StreamableHttpClientTransportConfig::with_uri(self.url.clone());
        let config = match token {
            Some(token) => config.auth_header(token),
            None => config,
        };
        let transport = StreamableHttpClientTransport::from_config(config);
        tokio::time::timeout(PATIENCE, ().serve(transport))
            .await
            .expect("the server initializes in time")
            .unwrap()
    }

    /// The next line the server writes to standard output.
    async fn stdout_line(&mut self) -> String {
        let mut line = String::new();
        tokio::time::timeout(PATIENCE, self.stdout.read_line(&mut line))
            .await
            .expect("a line in time")
            .unwrap();
        line
    }

    /// Stops the server and returns what it wrote to standard error.
    async fn stop(mut self) -> String {
        let _ = self.child.start_kill();
        let _ = tokio::time::timeout(PATIENCE, self.child.wait()).await;
        tokio::time::sleep(Duration::from_millis(100)).await;
        let rest = self.stderr.lock().unwrap().clone();
        format!("{}{rest}", self.started)
    }
}

/// Calls `name` with `arguments`.
async fn call(
    client: &Client,
    name: &str,
    arguments: Value,
) -> Result<CallToolResult, ServiceError> {
    let Value::Object(arguments) = arguments else {
        panic!("arguments must be an object");
    };
    let params = CallToolRequestParams::new(name.to_owned()).with_arguments(arguments);
    tokio::time::timeout(PATIENCE, client.call_tool(params))
        .await
        .expect("an answer in time")
}

/// Calls the submit tool and expects a tool result (not a JSON-RPC error).
async fn submit(client: &Client, arguments: Value) -> CallToolResult {
    call(client, "submit_result", arguments).await.unwrap()
}

/// The text of a tool result's only content block.
fn text(result: &CallToolResult) -> &str {
    assert_eq!(result.content.len(), 1, "{result:?}");
    &result.content[0].as_text().expect("text content").text
}

fn clean_arguments() -> Value {
    sample_input("claude_clean.json")
}

/// The schema and the arguments of a stringified payload from a real report: Claude Code sent
/// an MCP tool's object parameter `parameters` as a JSON string (anthropics/claude-code issue
/// 32662, "MCP tool argument object serialized as string causing schema validation failure").
/// The string is the report's, verbatim; the schema is written from the report's description
/// of the tool (`parameters: type: object`, with a title and a status), and the reasoning is
/// added here, since the submit tool asks for one.
fn reported_stringified(dir: &Path) -> (Vec<String>, Value) {
    let schema = dir.join("post.json");
    std::fs::write(
        &schema,
        json!({"type": "object",
               "properties": {"title": {"type": "string"}, "status": {"type": "string"}},
               "required": ["title", "status"]})
        .to_string(),
    )
    .unwrap();
    let options = vec![
        "--schema".to_owned(),
        schema.display().to_string(),
        "--payload".to_owned(),
        "parameters".to_owned(),
    ];
    let arguments = json!({
        "reasoning": "The draft post is ready.",
        "parameters": "{\"title\":\"MCP TEST\",\"status\":\"draft\"}"
    });
    (options, arguments)
}

// ------------------------------------------------------------------------------------------
// listing
// ------------------------------------------------------------------------------------------

async fn assert_lists_the_submit_tool(client: &Client, options: &[&str]) {
    let tools = client.list_all_tools().await.unwrap();
    assert_eq!(tools.len(), 1, "{tools:?}");
    let definition = claude_definition(options);
    assert_eq!(tools[0].name, "submit_result");
    assert_eq!(
        tools[0].description.as_deref(),
        definition["description"].as_str()
    );
    assert_eq!(
        Value::Object((*tools[0].input_schema).clone()),
        definition["input_schema"]
    );
    let info = client.peer_info().unwrap();
    assert_eq!(info.server_info.as_ref().unwrap().name, "submit-result");
    assert!(info.capabilities.tools.is_some());
}

#[tokio::test]
async fn lists_the_submit_tool_over_stdio() {
    let server = stdio_server(&["--schema", &schema()]).await;
    assert_lists_the_submit_tool(&server.client, &["--schema", &schema()]).await;
    server.close().await;
}

#[tokio::test]
async fn lists_the_submit_tool_over_http() {
    let server = http_server(&["--schema", &schema()]).await;
    let client = server.connect().await;
    assert_lists_the_submit_tool(&client, &["--schema", &schema()]).await;
}

#[tokio::test]
async fn listed_tool_follows_the_options() {
    let options = [
        "--schema",
        &schema(),
        "--name",
        "submit_summary",
        "--flat",
        "--omit-reasoning",
        "--description",
        "Send the summary.",
    ];
    let server = stdio_server(&options).await;
    let tools = server.client.list_all_tools().await.unwrap();
    assert_eq!(tools[0].name, "submit_summary");
    assert_eq!(tools[0].description.as_deref(), Some("Send the summary."));
    assert_eq!(
        Value::Object((*tools[0].input_schema).clone()),
        json!({"type": "object", "properties": {"summary": {"type": "string"}},
               "required": ["summary"]})
    );
    server.close().await;
}

// ------------------------------------------------------------------------------------------
// a clean submit
// ------------------------------------------------------------------------------------------

#[tokio::test]
async fn clean_submit_is_accepted_and_written_over_stdio() {
    let dir = scratch("clean-stdio");
    let out = dir.join("result.json");
    let out_arg = out.display().to_string();
    let server = stdio_server(&["--schema", &schema(), "--out", &out_arg]).await;
    // The file is there from the start, empty until a result is accepted.
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "");
    let result = submit(&server.client, clean_arguments()).await;
    assert_eq!(result.is_error, Some(false));
    let structured = json!({"success": true, "message": "Result submitted successfully."});
    assert_eq!(result.structured_content, Some(structured.clone()));
    assert_eq!(
        serde_json::from_str::<Value>(text(&result)).unwrap(),
        structured
    );
    let written = std::fs::read_to_string(&out).unwrap();
    assert_eq!(written.lines().count(), 1, "{written}");
    let line: Value = serde_json::from_str(&written).unwrap();
    assert_eq!(
        line,
        parse_output(&["--schema", &schema()], &clean_arguments())
    );
    assert_eq!(line["response"], json!({"summary": "disk full"}));
    assert_eq!(
        line["reasoning"],
        "The logs show the disk filled up at 03:12."
    );
    assert_eq!(line["recovery"], Value::Null);
    server.close().await;
}

#[tokio::test]
async fn clean_submit_is_accepted_and_written_over_http() {
    let mut server = http_server(&["--schema", &schema()]).await;
    let client = server.connect().await;
    let result = submit(&client, clean_arguments()).await;
    assert_eq!(result.is_error, Some(false));
    assert_eq!(
        text(&result),
        r#"{"success":true,"message":"Result submitted successfully."}"#
    );
    // Serving HTTP without --out, the result is one JSON line on standard output.
    let line = server.stdout_line().await;
    assert!(line.ends_with('\n') && !line.trim_end().contains('\n'));
    let line: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(
        line,
        parse_output(&["--schema", &schema()], &clean_arguments())
    );
}

#[tokio::test]
async fn http_writes_to_out_when_given() {
    let dir = scratch("http-out");
    let out = dir.join("result.json");
    let out_arg = out.display().to_string();
    let server = http_server(&["--schema", &schema(), "--out", &out_arg]).await;
    let client = server.connect().await;
    submit(&client, clean_arguments()).await;
    let line: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(line["response"], json!({"summary": "disk full"}));
}

// ------------------------------------------------------------------------------------------
// a stringified payload
// ------------------------------------------------------------------------------------------

#[tokio::test]
async fn stringified_payload_is_recovered_over_stdio() {
    let dir = scratch("stringified-stdio");
    let (options, arguments) = reported_stringified(&dir);
    let out = dir.join("result.json").display().to_string();
    let mut args: Vec<&str> = options.iter().map(String::as_str).collect();
    args.extend(["--out", &out]);
    let server = stdio_server(&args).await;
    let result = submit(&server.client, arguments.clone()).await;
    assert_eq!(result.is_error, Some(false), "{result:?}");
    let line: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let options: Vec<&str> = options.iter().map(String::as_str).collect();
    assert_eq!(line, parse_output(&options, &arguments));
    assert_eq!(
        line["response"],
        json!({"title": "MCP TEST", "status": "draft"})
    );
    assert_eq!(line["recovery"], "stringified");
    server.close().await;
}

#[tokio::test]
async fn stringified_payload_is_recovered_over_http() {
    let dir = scratch("stringified-http");
    let (options, arguments) = reported_stringified(&dir);
    let args: Vec<&str> = options.iter().map(String::as_str).collect();
    let mut server = http_server(&args).await;
    let client = server.connect().await;
    let result = submit(&client, arguments.clone()).await;
    assert_eq!(result.is_error, Some(false), "{result:?}");
    let line: Value = serde_json::from_str(&server.stdout_line().await).unwrap();
    assert_eq!(line, parse_output(&args, &arguments));
    assert_eq!(line["recovery"], "stringified");
}

// ------------------------------------------------------------------------------------------
// a declined submit
// ------------------------------------------------------------------------------------------

async fn assert_declined_is_a_tool_error_with_the_hint(client: &Client) {
    let arguments = sample_input("claude_stringified_declined.json");
    let expected = parse_output(&["--schema", &schema()], &arguments);
    assert_eq!(expected["accepted"], false);
    let result = submit(client, arguments).await;
    assert_eq!(result.is_error, Some(true));
    let hint = expected["tool_result"]["error"].as_str().unwrap();
    assert!(
        hint.contains("pass result as a nested JSON object"),
        "{hint}"
    );
    assert_eq!(text(&result), hint);
    assert_eq!(
        result.structured_content.as_ref(),
        Some(&expected["tool_result"])
    );
}

#[tokio::test]
async fn declined_submit_is_a_tool_error_with_the_hint_over_stdio() {
    let dir = scratch("declined-stdio");
    let out = dir.join("result.json");
    let out_arg = out.display().to_string();
    let server = stdio_server(&["--schema", &schema(), "--out", &out_arg]).await;
    assert_declined_is_a_tool_error_with_the_hint(&server.client).await;
    // Nothing was committed: the file is still empty, and a corrected submit is accepted.
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "");
    let result = submit(&server.client, clean_arguments()).await;
    assert_eq!(result.is_error, Some(false));
    assert!(!std::fs::read_to_string(&out).unwrap().is_empty());
    server.close().await;
}

#[tokio::test]
async fn declined_submit_is_a_tool_error_with_the_hint_over_http() {
    let server = http_server(&["--schema", &schema()]).await;
    let client = server.connect().await;
    assert_declined_is_a_tool_error_with_the_hint(&client).await;
}

#[tokio::test]
async fn missing_arguments_read_as_empty_and_are_declined() {
    let server = stdio_server(&["--schema", &schema()]).await;
    let params = CallToolRequestParams::new("submit_result");
    let result = server.client.call_tool(params).await.unwrap();
    assert_eq!(result.is_error, Some(true));
    assert_eq!(text(&result), "reasoning parameter is required");
    server.close().await;
}

// ------------------------------------------------------------------------------------------
// a second submit
// ------------------------------------------------------------------------------------------

async fn assert_second_submit_is_refused(first: &Client, second: &Client) {
    assert_eq!(submit(first, clean_arguments()).await.is_error, Some(false));
    let mut other = clean_arguments();
    other["result"]["summary"] = json!("something else");
    let refused = submit(second, other).await;
    assert_eq!(refused.is_error, Some(true));
    assert_eq!(text(&refused), "a terminal result was already accepted");
}

#[tokio::test]
async fn second_submit_after_acceptance_is_refused_over_stdio() {
    let dir = scratch("second-stdio");
    let out = dir.join("result.json");
    let out_arg = out.display().to_string();
    let server = stdio_server(&["--schema", &schema(), "--out", &out_arg]).await;
    assert_second_submit_is_refused(&server.client, &server.client).await;
    // The first result stays the one written.
    let written = std::fs::read_to_string(&out).unwrap();
    assert_eq!(written.lines().count(), 1);
    assert!(written.contains("disk full"), "{written}");
    server.close().await;
}

#[tokio::test]
async fn second_submit_after_acceptance_is_refused_over_http_even_from_another_session() {
    let mut server = http_server(&["--schema", &schema()]).await;
    let first = server.connect().await;
    let second = server.connect().await;
    assert_second_submit_is_refused(&first, &second).await;
    assert_second_submit_is_refused_again(&first).await;
    let line: Value = serde_json::from_str(&server.stdout_line().await).unwrap();
    assert_eq!(line["response"], json!({"summary": "disk full"}));
}

async fn assert_second_submit_is_refused_again(client: &Client) {
    let refused = submit(client, clean_arguments()).await;
    assert_eq!(text(&refused), "a terminal result was already accepted");
}

// ------------------------------------------------------------------------------------------
// malformed requests
// ------------------------------------------------------------------------------------------

/// Sends requests the server cannot take, checks each gets a JSON-RPC error, then checks the
/// server still serves.
async fn assert_malformed_requests_get_errors(client: &Client) {
    // A tools/call whose params are not those of a call (no tool named): not a request of
    // the protocol.
    let request = ClientRequest::CustomRequest(CustomRequest::new(
        "tools/call",
        Some(json!({"arguments": {"reasoning": "r"}})),
    ));
    let error = tokio::time::timeout(PATIENCE, client.send_request(request))
        .await
        .expect("an answer in time")
        .unwrap_err();
    let ServiceError::McpError(error) = error else {
        panic!("not a JSON-RPC error: {error:?}");
    };
    assert_eq!(error.code, ErrorCode::INVALID_PARAMS, "{error:?}");
    assert_eq!(
        error.message, "malformed tools/call params: missing field `name`",
        "{error:?}"
    );
    // A method the protocol does not have.
    let request = ClientRequest::CustomRequest(CustomRequest::new("submit/now", None));
    let error = client.send_request(request).await.unwrap_err();
    let ServiceError::McpError(error) = error else {
        panic!("not a JSON-RPC error: {error:?}");
    };
    assert_eq!(error.code, ErrorCode::METHOD_NOT_FOUND, "{error:?}");
    assert_eq!(
        error.message,
        "method `submit/now` is not served here: this server serves tools/list and tools/call"
    );
    // A tool the server does not have.
    let error = call(client, "submit_results", clean_arguments())
        .await
        .unwrap_err();
    let ServiceError::McpError(error) = error else {
        panic!("not a JSON-RPC error: {error:?}");
    };
    assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
    assert_eq!(
        error.message,
        "unknown tool `submit_results`: this server has one tool, `submit_result`"
    );
    // Still serving: listing and a submit work.
    assert_eq!(client.list_all_tools().await.unwrap().len(), 1);
    let result = submit(client, clean_arguments()).await;
    assert_eq!(result.is_error, Some(false));
}

#[tokio::test]
async fn malformed_request_is_a_json_rpc_error_and_the_server_keeps_serving_over_stdio() {
    let server = stdio_server(&["--schema", &schema()]).await;
    assert_malformed_requests_get_errors(&server.client).await;
    server.close().await;
}

#[tokio::test]
async fn malformed_request_is_a_json_rpc_error_and_the_server_keeps_serving_over_http() {
    let server = http_server(&["--schema", &schema()]).await;
    let client = server.connect().await;
    assert_malformed_requests_get_errors(&client).await;
}

// ------------------------------------------------------------------------------------------
// --validate
// ------------------------------------------------------------------------------------------

/// A validator in shell: a summary of `todo` is a placeholder, anything else passes.
const VALIDATOR: &str = r#"if grep -q '"summary":"todo"'; then echo '["the summary is a placeholder: write the real one", {"identifier": "length", "details": "too short"}]'; else echo '[]'; fi"#;

#[tokio::test]
async fn validate_findings_reject_the_submit_back_to_the_model() {
    let dir = scratch("validate");
    let out = dir.join("result.json");
    let out_arg = out.display().to_string();
    let server = stdio_server(&[
        "--schema",
        &schema(),
        "--out",
        &out_arg,
        "--validate",
        VALIDATOR,
    ])
    .await;
    let mut placeholder = clean_arguments();
    placeholder["result"]["summary"] = json!("todo");
    let rejected = submit(&server.client, placeholder).await;
    assert_eq!(rejected.is_error, Some(true));
    let error = "Result rejected: validation raised 2 finding(s). Address each finding and \
                 call submit_result again with your corrected, complete result.";
    let findings = json!([
        {"identifier": "validate", "details": "the summary is a placeholder: write the real one"},
        {"identifier": "length", "details": "too short"}
    ]);
    assert_eq!(
        rejected.structured_content,
        Some(json!({"error": error, "findings": findings}))
    );
    assert_eq!(text(&rejected), format!("{error}\nFindings: {findings}"));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "");
    // The corrected result passes the validator and commits.
    let accepted = submit(&server.client, clean_arguments()).await;
    assert_eq!(accepted.is_error, Some(false));
    let line: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(line["response"], json!({"summary": "disk full"}));
    server.close().await;
}

#[tokio::test]
async fn validate_gets_the_payload_as_json_on_stdin() {
    let dir = scratch("validate-stdin");
    let seen = dir.join("seen.json");
    let command = format!("cat > '{}'; echo '[]'", seen.display());
    let server = stdio_server(&["--schema", &schema(), "--validate", &command]).await;
    submit(&server.client, clean_arguments()).await;
    let payload: Value = serde_json::from_str(&std::fs::read_to_string(&seen).unwrap()).unwrap();
    assert_eq!(payload, json!({"summary": "disk full"}));
    server.close().await;
}

#[tokio::test]
async fn failing_validator_fails_the_call_and_commits_nothing() {
    let dir = scratch("validate-fails");
    let out = dir.join("result.json");
    let out_arg = out.display().to_string();
    for (command, message) in [
        (
            "exit 3",
            "result validation: `exit 3` exited with exit status: 3",
        ),
        (
            "echo 'all good'",
            "result validation: `echo 'all good'` printed no JSON array of findings",
        ),
    ] {
        let server = stdio_server(&[
            "--schema",
            &schema(),
            "--out",
            &out_arg,
            "--validate",
            command,
        ])
        .await;
        let error = call(&server.client, "submit_result", clean_arguments())
            .await
            .unwrap_err();
        let ServiceError::McpError(error) = error else {
            panic!("not a JSON-RPC error: {error:?}");
        };
        assert_eq!(error.code, ErrorCode::INTERNAL_ERROR);
        assert!(error.message.starts_with(message), "{}", error.message);
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "");
        // Still serving.
        assert_eq!(server.client.list_all_tools().await.unwrap().len(), 1);
        let stderr = server.close().await;
        assert!(stderr.contains("result validation failed"), "{stderr}");
    }
}

#[tokio::test]
async fn hanging_validator_is_killed_at_its_timeout_and_the_call_fails() {
    let dir = scratch("validate-hangs");
    let out = dir.join("result.json");
    let out_arg = out.display().to_string();
    let server = stdio_server(&[
        "--schema",
        &schema(),
        "--out",
        &out_arg,
        "--validate",
        "sleep 600",
        "--validate-timeout",
        "1",
    ])
    .await;
    let started = std::time::Instant::now();
    let error = call(&server.client, "submit_result", clean_arguments())
        .await
        .unwrap_err();
    // Well under the command's 600 s: the limit of 1 s ended it.
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "{:?}",
        started.elapsed()
    );
    let ServiceError::McpError(error) = error else {
        panic!("not a JSON-RPC error: {error:?}");
    };
    assert_eq!(error.code, ErrorCode::INTERNAL_ERROR);
    assert_eq!(
        error.message,
        "result validation: `sleep 600` ran past 1 s and was killed: make it faster or raise \
         --validate-timeout"
    );
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "");
    // Nothing was committed, and the server still serves.
    assert_eq!(server.client.list_all_tools().await.unwrap().len(), 1);
    server.close().await;
}

// ------------------------------------------------------------------------------------------
// the loop's MCP client (submit-agent, feature `mcp`) over streamable HTTP
// ------------------------------------------------------------------------------------------

/// The other half of the MCP work, on loopback: the agent loop registers this server's tool
/// through `McpServer::http` and a scripted model submits through it, declined first, then
/// clean. The rmcp client above checks the server; this checks the loop's client over HTTP.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_loops_mcp_client_lists_and_calls_this_server_over_http() {
    use submit_agent::mcp::McpServer;
    use submit_agent::{
        message::{Message, Part},
        model::ScriptedModel,
        run::Agent,
    };

    // The loop's client sends no token: the server is started without one, on loopback.
    let mut server = http_server(&["--schema", &schema(), "--no-auth"]).await;
    let mcp = tokio::time::timeout(PATIENCE, McpServer::http(server.url.clone()).connect())
        .await
        .expect("the loop's client connects in time")
        .unwrap();
    let tools = mcp.tools();
    assert_eq!(tools.len(), 1);
    let listed = server.connect().await.list_all_tools().await.unwrap();
    let definition = tools[0].definition();
    assert_eq!(definition.name, "submit_result");
    assert_eq!(
        definition.description,
        listed[0].description.as_deref().unwrap()
    );
    assert_eq!(
        definition.input_schema,
        Value::Object((*listed[0].input_schema).clone())
    );

    let declined = sample_input("claude_stringified_declined.json");
    let model = ScriptedModel::new()
        .then_message(vec![Part::tool_request("submit_result", None, declined)])
        .then_message(vec![Part::tool_request(
            "submit_result",
            None,
            clean_arguments(),
        )])
        .then_text("Submitted.");
    let agent = tools
        .into_iter()
        .fold(Agent::new(model), |agent, tool| agent.tool(tool));
    let response = tokio::time::timeout(PATIENCE, agent.generate(vec![Message::user("Triage.")]))
        .await
        .expect("the run ends in time")
        .unwrap();
    assert_eq!(response.text(), "Submitted.");
    let answers: Vec<&Part> = response
        .messages
        .iter()
        .flat_map(|m| m.content.iter())
        .filter(|p| p.as_tool_response().is_some())
        .collect();
    assert_eq!(answers.len(), 2);
    // The declined submit came back as a fail the model can act on, with the server's hint.
    assert!(answers[0].is_tool_error());
    let hint = answers[0]
        .as_tool_response()
        .unwrap()
        .output
        .clone()
        .unwrap();
    let expected_hint = parse_output(
        &["--schema", &schema()],
        &sample_input("claude_stringified_declined.json"),
    );
    assert_eq!(
        hint,
        json!({"error": expected_hint["tool_result"]["error"]})
    );
    // The clean one was accepted and written.
    assert!(!answers[1].is_tool_error());
    let line: Value = serde_json::from_str(&server.stdout_line().await).unwrap();
    assert_eq!(
        line,
        parse_output(&["--schema", &schema()], &clean_arguments())
    );
}

// ------------------------------------------------------------------------------------------
// logs
// ------------------------------------------------------------------------------------------

#[tokio::test]
async fn logs_go_to_stderr_and_never_carry_the_reasoning() {
    let marker = "reasoning-that-must-not-be-logged";
    let server = stdio_server(&["--schema", &schema()]).await;
    let mut declined = sample_input("claude_stringified_declined.json");
    declined["reasoning"] = json!(marker);
    submit(&server.client, declined).await;
    let mut accepted = clean_arguments();
    accepted["reasoning"] = json!(marker);
    submit(&server.client, accepted).await;
    let stderr = server.close().await;
    assert!(stderr.contains("submit rejected"), "{stderr}");
    assert!(stderr.contains("submit accepted"), "{stderr}");
    assert!(
        stderr.contains(&format!("reasoning_bytes={}", marker.len())),
        "{stderr}"
    );
    assert!(!stderr.contains(marker), "{stderr}");
}

#[tokio::test]
async fn http_stdout_holds_only_the_result_line() {
    let mut server = http_server(&["--schema", &schema()]).await;
    let client = server.connect().await;
    submit(&client, sample_input("claude_stringified_declined.json")).await;
    submit(&client, clean_arguments()).await;
    submit(&client, clean_arguments()).await;
    drop(client);
    server.child.start_kill().unwrap();
    let _ = server.child.wait().await;
    let mut rest = String::new();
    server.stdout.read_to_string(&mut rest).await.unwrap();
    let lines: Vec<&str> = rest.lines().collect();
    assert_eq!(lines.len(), 1, "{rest}");
    let line: Value = serde_json::from_str(lines[0]).unwrap();
    assert_eq!(line["accepted"], true);
    let stderr = server.stderr.lock().unwrap().clone();
    assert!(stderr.contains("submit accepted"), "{stderr}");
}

// ------------------------------------------------------------------------------------------
// start-up mistakes
// ------------------------------------------------------------------------------------------

#[test]
fn start_up_mistakes_exit_2_with_one_line() {
    let dir = scratch("start-up");
    let missing_dir = dir.join("no/such/dir/result.json").display().to_string();
    for (args, expected) in [
        (
            vec!["mcp", "--schema", "no-such-schema.json"],
            "cannot read schema file `no-such-schema.json`",
        ),
        (
            vec!["mcp", "--schema", &schema(), "--out", &missing_dir],
            "cannot write result file",
        ),
        (
            vec!["mcp", "--schema", &schema(), "--provider", "claude"],
            "unexpected argument '--provider'",
        ),
        (
            vec!["mcp", "--schema", &schema(), "--listen", "localhost"],
            "invalid value 'localhost' for '--listen <ADDR>'",
        ),
    ] {
        let out = std::process::Command::new(BIN)
            .args(&args)
            .output()
            .unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
    }
}

#[tokio::test]
async fn listen_on_a_taken_port_is_an_error() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let out = Command::new(BIN)
        .args(["mcp", "--schema", &schema(), "--listen", &addr])
        .output()
        .await
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!("cannot listen on {addr}")),
        "{stderr}"
    );
}

#[tokio::test]
async fn stdio_server_exits_0_when_the_host_closes_the_session() {
    let mut child = Command::new(BIN)
        .args(["mcp", "--schema", &schema()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let transport = (child.stdout.take().unwrap(), child.stdin.take().unwrap());
    let client = ().serve(transport).await.unwrap();
    assert_eq!(
        submit(&client, clean_arguments()).await.is_error,
        Some(false)
    );
    client.cancel().await.unwrap();
    let status = tokio::time::timeout(PATIENCE, child.wait())
        .await
        .expect("the server exits in time")
        .unwrap();
    assert_eq!(status.code(), Some(0));
}

#[tokio::test]
async fn stdio_server_whose_host_never_starts_a_session_exits_2() {
    let out = tokio::time::timeout(
        PATIENCE,
        Command::new(BIN)
            .args(["mcp", "--schema", &schema()])
            .stdin(Stdio::null())
            .output(),
    )
    .await
    .expect("the server exits in time")
    .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("mcp: the session did not start"),
        "{stderr}"
    );
}
