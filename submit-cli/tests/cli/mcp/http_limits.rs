//! Each limit of the HTTP server, probed as a local program bent on exhausting it would, and
//! each answered with its status and a message naming the option that sets it.

use std::time::{Duration, Instant};

use reqwest::StatusCode;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::process::Command;

use super::http_access::{bearer, open_session, post, send, INITIALIZE};
use super::{http_server, schema, start_http, BIN, PATIENCE, TOKEN};

/// The host and port of a server's URL.
fn authority(url: &str) -> &str {
    url.trim_start_matches("http://").trim_end_matches("/mcp")
}

/// A number from `/proc/self/limits` or `/proc/<pid>/status`-style text: the first number on
/// the line starting with `label`.
#[cfg(target_os = "linux")]
fn number_after(text: &str, label: &str) -> Option<u64> {
    text.lines()
        .find(|line| line.starts_with(label))
        .and_then(|line| line[label.len()..].split_whitespace().next())
        .and_then(|n| n.parse().ok())
}

/// How many descriptors this test process may open (1,100 when it cannot tell).
fn own_descriptor_limit() -> usize {
    #[cfg(target_os = "linux")]
    {
        let limits = std::fs::read_to_string("/proc/self/limits").unwrap_or_default();
        if let Some(soft) = number_after(&limits, "Max open files") {
            return usize::try_from(soft).unwrap_or(usize::MAX);
        }
    }
    1_100
}

/// Opens `count` connections that each send half a request head and wait.
async fn half_requests(authority: &str, count: usize) -> Vec<TcpStream> {
    let mut streams = Vec::with_capacity(count);
    for _ in 0..count {
        let mut stream = TcpStream::connect(authority).await.unwrap();
        stream
            .write_all(format!("POST /mcp HTTP/1.1\r\nHost: {authority}\r\nContent-Ty").as_bytes())
            .await
            .unwrap();
        streams.push(stream);
    }
    streams
}

/// Whether the server closed `stream` within `within`.
async fn closed_within(stream: &mut TcpStream, within: Duration) -> bool {
    let mut buffer = [0_u8; 256];
    match tokio::time::timeout(within, stream.read(&mut buffer)).await {
        Ok(Ok(0)) | Ok(Err(_)) => true,
        Ok(Ok(_)) => false,
        Err(_elapsed) => false,
    }
}

#[cfg(unix)]
#[tokio::test]
async fn half_sent_requests_are_closed_on_the_read_timeout_and_the_real_client_is_served() {
    // The server gets 256 descriptors; the probe opens up to 1,100 half requests, more than it
    // has (fewer when this process may not open that many).
    let mut command = Command::new("sh");
    command
        .args(["-c", r#"ulimit -n 256 && exec "$0" "$@""#, BIN])
        .env("SUBMIT_RESULT_MCP_TOKEN", TOKEN);
    let server = start_http(command, &["--schema", &schema(), "--read-timeout", "3"]).await;
    let count = own_descriptor_limit().saturating_sub(200).min(1_100);
    let mut attackers = half_requests(authority(&server.url), count).await;
    // The real client, right after them, is served at once: its connection takes the place
    // of an idle one.
    let started = Instant::now();
    let client = server.connect().await;
    assert_eq!(client.list_all_tools().await.unwrap().len(), 1);
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    // Every half request is closed by the read timeout (3 s), most of them much sooner.
    let deadline = Instant::now() + Duration::from_secs(10);
    for (n, attacker) in attackers.iter_mut().enumerate() {
        let left = deadline.saturating_duration_since(Instant::now());
        assert!(
            closed_within(attacker, left).await,
            "connection {n} of {count} is open"
        );
    }
    drop(client);
    let stderr = server.stop().await;
    assert!(!stderr.contains("cannot accept a connection"), "{stderr}");
}

#[tokio::test]
async fn an_idle_kept_alive_connection_is_closed_after_the_read_timeout() {
    let server = http_server(&["--schema", &schema(), "--read-timeout", "1"]).await;
    let mut stream = TcpStream::connect(authority(&server.url)).await.unwrap();
    // One whole request on a kept-alive connection, answered; then nothing.
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer nope\r\nContent-Length: 0\r\n\r\n",
        authority(&server.url)
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut head = [0_u8; 12];
    stream.read_exact(&mut head).await.unwrap();
    assert_eq!(&head, b"HTTP/1.1 401");
    let started = Instant::now();
    let mut rest = Vec::new();
    let read = tokio::time::timeout(PATIENCE, stream.read_to_end(&mut rest)).await;
    assert!(read.is_ok(), "the idle connection stays open");
    let idle = started.elapsed();
    assert!(idle < Duration::from_secs(5), "closed after {idle:?}");
}

#[tokio::test]
async fn a_body_that_does_not_arrive_in_time_gets_408() {
    let server = http_server(&["--schema", &schema(), "--read-timeout", "1"]).await;
    let mut stream = TcpStream::connect(authority(&server.url)).await.unwrap();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {TOKEN}\r\n\
         Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
         Content-Length: 100\r\n\r\n{{\"jsonrpc\"",
        authority(&server.url)
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    tokio::time::timeout(PATIENCE, stream.read_to_end(&mut answer))
        .await
        .expect("an answer in time")
        .unwrap();
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(
        answer.contains("did not arrive within 1 s (--read-timeout)"),
        "{answer}"
    );
}

#[tokio::test]
async fn a_body_past_max_body_gets_413() {
    let server = http_server(&["--schema", &schema(), "--max-body", "1000"]).await;
    let (name, value) = bearer();
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"pad":"{}"}}}}"#,
        "x".repeat(1000)
    );
    let answer = post(&server.url, &[(name, &value)], &body).await;
    assert_eq!(answer.status, StatusCode::PAYLOAD_TOO_LARGE, "{answer:?}");
    assert!(
        answer.body.contains("longer than 1000 bytes (--max-body)"),
        "{}",
        answer.body
    );
    // Under the limit, it is read.
    let answer = post(&server.url, &[(name, &value)], INITIALIZE).await;
    assert_eq!(answer.status, StatusCode::OK, "{answer:?}");
}

#[tokio::test]
async fn sessions_past_the_cap_get_503_with_a_clear_error_and_memory_stays_bounded() {
    let server = http_server(&["--schema", &schema(), "--max-sessions", "4"]).await;
    let (name, value) = bearer();
    let mut opened = Vec::new();
    for _ in 0..4 {
        opened.push(open_session(&server.url).await);
    }
    #[cfg(target_os = "linux")]
    let rss = || {
        let status =
            std::fs::read_to_string(format!("/proc/{}/status", server.child.id().unwrap()))
                .unwrap();
        number_after(&status, "VmRSS:").unwrap()
    };
    #[cfg(target_os = "linux")]
    let before = rss();
    // One client opening sessions as fast as it can: 2,000 tries.
    let started = Instant::now();
    for n in 0..2_000 {
        let answer = post(&server.url, &[(name, &value)], INITIALIZE).await;
        assert_eq!(
            answer.status,
            StatusCode::SERVICE_UNAVAILABLE,
            "try {n}: {answer:?}"
        );
        if n == 0 {
            let message = answer.message();
            assert_eq!(message["id"], 1);
            let text = message["error"]["message"].as_str().unwrap();
            assert!(
                text.starts_with("too many sessions: 4 are live, and --max-sessions is 4"),
                "{text}"
            );
            assert_eq!(answer.headers["retry-after"], "120");
        }
    }
    println!("2,000 refused initializes in {:?}", started.elapsed());
    #[cfg(target_os = "linux")]
    {
        let after = rss();
        println!("server RSS {before} kB -> {after} kB");
        assert!(
            after < before + 20_000,
            "RSS grew from {before} kB to {after} kB"
        );
    }
    // A session that ends makes room for one more.
    let ended = send(
        &server.url,
        reqwest::Method::DELETE,
        &[(name, &value), ("mcp-session-id", &opened[0])],
        None,
    )
    .await;
    assert_eq!(ended.status, StatusCode::NO_CONTENT, "{ended:?}");
    open_session(&server.url).await;
}

#[tokio::test]
async fn an_idle_session_expires_after_the_session_timeout() {
    let server = http_server(&["--schema", &schema(), "--session-timeout", "1"]).await;
    let (name, value) = bearer();
    let session = open_session(&server.url).await;
    tokio::time::sleep(Duration::from_millis(2_500)).await;
    let list = r#"{"jsonrpc":"2.0","id":3,"method":"tools/list"}"#;
    let answer = post(
        &server.url,
        &[(name, &value), ("mcp-session-id", &session)],
        list,
    )
    .await;
    assert_eq!(answer.status, StatusCode::NOT_FOUND, "{answer:?}");
}

#[tokio::test]
async fn delete_of_a_terminated_or_never_issued_session_gets_404() {
    let server = http_server(&["--schema", &schema()]).await;
    let (name, value) = bearer();
    let delete = |session: String| {
        let url = server.url.clone();
        let value = value.clone();
        async move {
            send(
                &url,
                reqwest::Method::DELETE,
                &[(name, &value), ("mcp-session-id", &session)],
                None,
            )
            .await
        }
    };
    let session = open_session(&server.url).await;
    let first = delete(session.clone()).await;
    // The live session is ended: 204, as the MCP SDKs' clients expect of a DELETE.
    assert_eq!(first.status, StatusCode::NO_CONTENT, "{first:?}");
    for session in [session, "0b6a4f0e-never-issued".to_owned()] {
        let again = delete(session.clone()).await;
        assert_eq!(again.status, StatusCode::NOT_FOUND, "{session}: {again:?}");
        assert!(again.body.contains("no such session"), "{}", again.body);
    }
}

#[tokio::test]
async fn a_malformed_json_body_gets_400_with_a_json_rpc_parse_error() {
    let server = http_server(&["--schema", &schema()]).await;
    let (name, value) = bearer();
    let answer = post(
        &server.url,
        &[(name, &value)],
        r#"{"jsonrpc": "2.0", "id": 1,"#,
    )
    .await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST, "{answer:?}");
    assert_eq!(answer.headers["content-type"], "application/json");
    let message = answer.message();
    assert_eq!(message["jsonrpc"], "2.0");
    assert_eq!(message["id"], serde_json::Value::Null);
    assert_eq!(message["error"]["code"], -32700);
    // JSON that is not a message: an invalid request, with its id.
    let answer = post(
        &server.url,
        &[(name, &value)],
        r#"{"jsonrpc": "2.0", "id": 8}"#,
    )
    .await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST, "{answer:?}");
    assert_eq!(answer.message()["id"], 8);
    assert_eq!(answer.message()["error"]["code"], -32600);
    // The same in a session (where rmcp reads the message).
    let session = open_session(&server.url).await;
    for (body, code) in [
        (r#"{"jsonrpc": "2.0", "id": 1,"#, -32700),
        (r#"{"jsonrpc": "2.0", "id": 8}"#, -32600),
    ] {
        let answer = post(
            &server.url,
            &[(name, &value), ("mcp-session-id", &session)],
            body,
        )
        .await;
        assert_eq!(answer.status, StatusCode::BAD_REQUEST, "{answer:?}");
        assert_eq!(answer.headers["content-type"], "application/json");
        assert_eq!(answer.message()["error"]["code"], code, "{answer:?}");
    }
}

#[tokio::test]
async fn connections_past_the_cap_that_all_serve_requests_get_503() {
    let server = http_server(&["--schema", &schema(), "--max-connections", "2"]).await;
    let (name, value) = bearer();
    let sessions = [
        open_session(&server.url).await,
        open_session(&server.url).await,
    ];
    // Two standalone event streams: two connections, each serving a request that lasts.
    let mut streams = Vec::new();
    for session in &sessions {
        let response = reqwest::Client::new()
            .get(&server.url)
            .header(name, &value)
            .header("accept", "text/event-stream")
            .header("mcp-session-id", session)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        streams.push(response);
    }
    let answer = post(&server.url, &[(name, &value)], INITIALIZE).await;
    assert_eq!(answer.status, StatusCode::SERVICE_UNAVAILABLE, "{answer:?}");
    assert!(
        answer
            .body
            .contains("all 2 (--max-connections) are serving requests"),
        "{}",
        answer.body
    );
    drop(streams);
    // Once they end, a connection is served again.
    let deadline = Instant::now() + PATIENCE;
    loop {
        let answer = post(&server.url, &[(name, &value)], INITIALIZE).await;
        if answer.status == StatusCode::OK {
            break;
        }
        assert!(Instant::now() < deadline, "{answer:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
