//! Who may call the HTTP server: probes sent the way a web page (through DNS rebinding) or
//! another local program would, with and without the token.

use reqwest::header::{HeaderMap, HeaderValue};
use reqwest::StatusCode;
use serde_json::{json, Value};

use super::{clean_arguments, http_server, schema, scratch, start_http, submit, TOKEN};

/// An `initialize` request.
pub const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"probe","version":"0"}}}"#;

/// An answer: its status, headers and body.
#[derive(Debug)]
pub struct Answer {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: String,
}

impl Answer {
    /// The JSON-RPC message in the body (plain JSON, or the data of an SSE event).
    pub fn message(&self) -> Value {
        let json = self
            .body
            .lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .map(str::trim)
            .find(|data| !data.is_empty())
            .unwrap_or(&self.body);
        serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {}", self.body))
    }

    /// The session the answer opened.
    pub fn session(&self) -> String {
        self.headers["mcp-session-id"].to_str().unwrap().to_owned()
    }
}

/// Sends `method` to `url` with `headers` (beside the content type and accept headers a
/// client sends) and `body`.
pub async fn send(
    url: &str,
    method: reqwest::Method,
    headers: &[(&str, &str)],
    body: Option<&str>,
) -> Answer {
    let mut request = reqwest::Client::new()
        .request(method, url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    for (name, value) in headers {
        request = request.header(*name, HeaderValue::from_str(value).unwrap());
    }
    if let Some(body) = body {
        request = request.body(body.to_owned());
    }
    let response = tokio::time::timeout(super::PATIENCE, request.send())
        .await
        .expect("an answer in time")
        .unwrap();
    let status = response.status();
    let headers = response.headers().clone();
    let body = tokio::time::timeout(super::PATIENCE, response.text())
        .await
        .expect("the body in time")
        .unwrap();
    Answer {
        status,
        headers,
        body,
    }
}

/// POSTs `body` to `url` with `headers`.
pub async fn post(url: &str, headers: &[(&str, &str)], body: &str) -> Answer {
    send(url, reqwest::Method::POST, headers, Some(body)).await
}

/// The header carrying the test servers' token.
pub fn bearer() -> (&'static str, String) {
    ("authorization", format!("Bearer {TOKEN}"))
}

/// Opens a session with the token and returns its id.
pub async fn open_session(url: &str) -> String {
    let (name, value) = bearer();
    let opened = post(url, &[(name, &value)], INITIALIZE).await;
    assert_eq!(opened.status, StatusCode::OK, "{opened:?}");
    let session = opened.session();
    let initialized = post(
        url,
        &[(name, &value), ("mcp-session-id", &session)],
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    )
    .await;
    assert_eq!(initialized.status, StatusCode::ACCEPTED, "{initialized:?}");
    session
}

/// A `tools/call` of the submit tool with a clean result.
fn clean_call() -> String {
    json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
           "params": {"name": "submit_result", "arguments": clean_arguments()}})
    .to_string()
}

#[tokio::test]
async fn a_foreign_origin_gets_403_before_any_json_rpc_and_never_commits_a_result() {
    let dir = scratch("foreign-origin");
    let out = dir.join("result.json");
    let out_arg = out.display().to_string();
    let server = http_server(&["--schema", &schema(), "--out", &out_arg]).await;
    let url = &server.url;
    let (name, value) = bearer();
    let session = open_session(url).await;
    for origin in [
        "http://evil.example",
        "null",
        "http://localhost.evil.example",
    ] {
        // Host is 127.0.0.1 (the URL's); the token is right; the origin is foreign.
        let opened = post(url, &[(name, &value), ("origin", origin)], INITIALIZE).await;
        assert_eq!(opened.status, StatusCode::FORBIDDEN, "{origin}: {opened:?}");
        assert!(
            opened
                .body
                .contains("is not allowed: a browser page may call this server only"),
            "{}",
            opened.body
        );
        let call = post(
            url,
            &[
                (name, &value),
                ("origin", origin),
                ("mcp-session-id", &session),
            ],
            &clean_call(),
        )
        .await;
        assert_eq!(call.status, StatusCode::FORBIDDEN, "{origin}: {call:?}");
    }
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "");
    // A loopback origin, and no origin at all, are served; the result then commits.
    let opened = post(
        url,
        &[(name, &value), ("origin", "http://localhost:6274")],
        INITIALIZE,
    )
    .await;
    assert_eq!(opened.status, StatusCode::OK, "{opened:?}");
    let call = post(
        url,
        &[(name, &value), ("mcp-session-id", &session)],
        &clean_call(),
    )
    .await;
    assert_eq!(call.status, StatusCode::OK, "{call:?}");
    assert_eq!(call.message()["result"]["isError"], false);
    assert!(!std::fs::read_to_string(&out).unwrap().is_empty());
    let stderr = server.stop().await;
    assert!(
        stderr.contains("a request from a foreign origin was refused"),
        "{stderr}"
    );
}

#[tokio::test]
async fn an_origin_given_with_allow_origin_is_served() {
    let server = http_server(&[
        "--schema",
        &schema(),
        "--allow-origin",
        "https://app.example.com",
    ])
    .await;
    let (name, value) = bearer();
    for (origin, status) in [
        ("https://app.example.com", StatusCode::OK),
        ("https://app.example.com:443", StatusCode::OK),
        ("https://app.example.com:8443", StatusCode::FORBIDDEN),
        ("http://app.example.com", StatusCode::FORBIDDEN),
    ] {
        let answer = post(
            &server.url,
            &[(name, &value), ("origin", origin)],
            INITIALIZE,
        )
        .await;
        assert_eq!(answer.status, status, "{origin}: {answer:?}");
    }
}

#[tokio::test]
async fn a_request_without_the_token_gets_401_with_a_bearer_challenge_and_commits_nothing() {
    let dir = scratch("no-token");
    let out = dir.join("result.json");
    let out_arg = out.display().to_string();
    let server = http_server(&["--schema", &schema(), "--out", &out_arg]).await;
    let url = &server.url;
    let session = open_session(url).await;
    for (headers, challenge) in [
        (vec![], r#"Bearer realm="submit-result""#),
        (
            vec![("authorization", "Basic dXNlcjpwYXNz")],
            r#"Bearer realm="submit-result""#,
        ),
        (
            vec![("authorization", "Bearer not-the-token")],
            r#"Bearer realm="submit-result", error="invalid_token""#,
        ),
    ] {
        let answer = post(url, &headers, INITIALIZE).await;
        assert_eq!(
            answer.status,
            StatusCode::UNAUTHORIZED,
            "{headers:?}: {answer:?}"
        );
        assert_eq!(answer.headers["www-authenticate"], challenge);
        assert!(answer
            .body
            .contains("send the header `Authorization: Bearer <token>`"));
        let mut with_session = headers.clone();
        with_session.push(("mcp-session-id", &session));
        let call = post(url, &with_session, &clean_call()).await;
        assert_eq!(call.status, StatusCode::UNAUTHORIZED, "{call:?}");
    }
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "");
    // rmcp's client without the token cannot start a session; with it, it can.
    let transport = rmcp::transport::StreamableHttpClientTransport::from_uri(url.clone());
    let refused = rmcp::ServiceExt::serve((), transport).await;
    assert!(refused.is_err());
    let client = server.connect().await;
    assert_eq!(
        submit(&client, clean_arguments()).await.is_error,
        Some(false)
    );
}

#[tokio::test]
async fn a_generated_token_is_printed_once_and_written_to_the_token_file_readable_by_its_owner() {
    let dir = scratch("token-file");
    let token_file = dir.join("token");
    let token_arg = token_file.display().to_string();
    let mut command = tokio::process::Command::new(super::BIN);
    command.env_remove("SUBMIT_RESULT_MCP_TOKEN");
    let server = start_http(
        command,
        &["--schema", &schema(), "--token-file", &token_arg],
    )
    .await;
    let printed = server
        .started
        .lines()
        .find_map(|line| line.strip_prefix("submit-result: bearer token"))
        .and_then(|line| line.rsplit(": ").next())
        .expect("the token is printed before the address")
        .to_owned();
    assert_eq!(printed.len(), 64, "{printed}");
    let written = std::fs::read_to_string(&token_file).unwrap();
    assert_eq!(written.trim_end(), printed);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&token_file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    let client = server.connect_with(Some(&printed)).await;
    assert_eq!(client.list_all_tools().await.unwrap().len(), 1);
    let stderr = server.stop().await;
    assert_eq!(stderr.matches(&printed).count(), 1, "{stderr}");
}

#[test]
fn http_start_up_refusals_say_why() {
    let run = |args: &[&str], token: Option<&str>| {
        let mut command = std::process::Command::new(super::BIN);
        command.args(args);
        match token {
            Some(token) => command.env("SUBMIT_RESULT_MCP_TOKEN", token),
            None => command.env_remove("SUBMIT_RESULT_MCP_TOKEN"),
        };
        let out = command.output().unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        stderr
    };
    let schema = schema();
    let stderr = run(
        &[
            "mcp",
            "--schema",
            &schema,
            "--listen",
            "0.0.0.0:0",
            "--no-auth",
        ],
        None,
    );
    assert!(
        stderr.contains("--no-auth on 0.0.0.0:0, which is not a loopback address: anyone who can reach it could commit the run's result"),
        "{stderr}"
    );
    let stderr = run(
        &[
            "mcp",
            "--schema",
            &schema,
            "--listen",
            "127.0.0.1:0",
            "--allow-origin",
            "app.example.com",
        ],
        None,
    );
    assert!(
        stderr.contains("--allow-origin `app.example.com` is not an origin"),
        "{stderr}"
    );
    let stderr = run(
        &["mcp", "--schema", &schema, "--listen", "127.0.0.1:0"],
        Some(""),
    );
    assert!(
        stderr.contains("SUBMIT_RESULT_MCP_TOKEN is empty"),
        "{stderr}"
    );
    let stderr = run(&["mcp", "--schema", &schema, "--no-auth"], None);
    assert!(stderr.contains("--listen"), "{stderr}");
}
