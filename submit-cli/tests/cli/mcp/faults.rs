//! The faults of issue 31 beside the arguments: Nagle's algorithm on kept-alive connections, a
//! SIGTERM lost between two passes of the accept loop, connections past the cap reset unread,
//! and a `params` member sent twice answered as a method not served.

use std::time::{Duration, Instant};

use reqwest::StatusCode;
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::http_access::{bearer, open_session, post, INITIALIZE};
use super::raw::{tools_call, Raw};
use super::{clean_arguments, http_server, schema, PATIENCE};

/// The host and port of a server's URL.
fn authority(url: &str) -> &str {
    url.trim_start_matches("http://").trim_end_matches("/mcp")
}

/// The descriptor, in process `pid`, of its end of the loopback TCP connection between
/// `port` (its side) and `peer_port`, found through `/proc`.
#[cfg(target_os = "linux")]
fn socket_of(pid: u32, port: u16, peer_port: u16) -> i32 {
    let table = std::fs::read_to_string(format!("/proc/{pid}/net/tcp")).unwrap();
    let port_of = |address: &str| {
        address
            .rsplit_once(':')
            .and_then(|(_, port)| u16::from_str_radix(port, 16).ok())
    };
    let inode = table
        .lines()
        .skip(1)
        .map(|line| line.split_whitespace().collect::<Vec<_>>())
        .find(|fields| {
            fields.len() > 9
                && port_of(fields[1]) == Some(port)
                && port_of(fields[2]) == Some(peer_port)
        })
        .map(|fields| fields[9].to_owned())
        .unwrap_or_else(|| panic!("no connection {port} <- {peer_port} in:\n{table}"));
    let link = format!("socket:[{inode}]");
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .unwrap()
        .filter_map(Result::ok)
        .find(|fd| {
            std::fs::read_link(fd.path()).is_ok_and(|target| target.as_os_str() == link.as_str())
        })
        .and_then(|fd| fd.file_name().to_str()?.parse().ok())
        .unwrap_or_else(|| panic!("process {pid} holds no descriptor of {link}"))
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn a_kept_alive_http_client_is_not_delayed_by_nagle() {
    use rustix::net::sockopt::tcp_nodelay;
    use rustix::process::{pidfd_getfd, pidfd_open, Pid, PidfdFlags, PidfdGetfdFlags};

    let server = http_server(&["--schema", &schema()]).await;
    let authority = authority(&server.url);
    let mut stream = TcpStream::connect(authority).await.unwrap();
    // One request answered on the connection, which stays open for the next.
    let request = format!("POST /mcp HTTP/1.1\r\nHost: {authority}\r\nContent-Length: 0\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut head = [0_u8; 12];
    stream.read_exact(&mut head).await.unwrap();
    assert_eq!(&head, b"HTTP/1.1 401");
    // The server's end of this very connection, taken from the server process.
    let pid = server.child.id().unwrap();
    let port = stream.peer_addr().unwrap().port();
    let fd = socket_of(pid, port, stream.local_addr().unwrap().port());
    let process = pidfd_open(Pid::from_raw(pid as i32).unwrap(), PidfdFlags::empty())
        .expect("pidfd_open of the server");
    let accepted = pidfd_getfd(&process, fd, PidfdGetfdFlags::empty()).unwrap_or_else(|error| {
        panic!("cannot take the server's socket to read its options (pidfd_getfd): {error}")
    });
    assert!(
        tcp_nodelay(&accepted).unwrap(),
        "TCP_NODELAY is not set on the accepted socket"
    );
    // The client's own end is as it was made: the option is the server's doing.
    assert!(!stream.nodelay().unwrap());
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn sigterm_right_after_a_request_stops_the_server() {
    use rustix::process::{kill_process, Pid, Signal};

    let (name, value) = bearer();
    for run in 0..20 {
        let mut server = http_server(&["--schema", &schema()]).await;
        let answer = post(&server.url, &[(name, &value)], INITIALIZE).await;
        assert_eq!(answer.status, StatusCode::OK, "{answer:?}");
        let pid = Pid::from_raw(server.child.id().unwrap() as i32).unwrap();
        kill_process(pid, Signal::TERM).unwrap();
        let sent = Instant::now();
        let status = tokio::time::timeout(Duration::from_secs(1), server.child.wait())
            .await
            .unwrap_or_else(|_| panic!("run {run}: still serving a second after SIGTERM"))
            .unwrap();
        assert!(status.success(), "run {run}: {status}");
        assert!(sent.elapsed() < Duration::from_secs(1));
    }
}

#[tokio::test]
async fn a_connection_past_the_cap_gets_503_not_a_reset() {
    let server = http_server(&["--schema", &schema(), "--max-connections", "2"]).await;
    let (name, value) = bearer();
    // Two standalone event streams: two connections, each serving a request that lasts.
    let mut streams = Vec::new();
    for _ in 0..2 {
        let session = open_session(&server.url).await;
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
    // Clients past the cap, all at once, each sending a whole request: its head, then a body
    // the server answers before reading.
    let authority = authority(&server.url).to_owned();
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "ping",
                      "params": {"pad": "x".repeat(256 * 1024)}})
    .to_string();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {authority}\r\nAuthorization: {value}\r\n\
         Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
         Content-Length: {}\r\n\r\n",
        body.len()
    );
    let clients: Vec<_> = (0..64)
        .map(|_| {
            let (authority, head, body) = (authority.clone(), head.clone(), body.clone());
            tokio::spawn(async move {
                let mut stream = TcpStream::connect(&authority).await?;
                stream.write_all(head.as_bytes()).await?;
                stream.write_all(body.as_bytes()).await?;
                let mut answer = Vec::new();
                stream.read_to_end(&mut answer).await?;
                Ok::<_, std::io::Error>(answer)
            })
        })
        .collect();
    for (n, client) in clients.into_iter().enumerate() {
        let answer = tokio::time::timeout(PATIENCE, client)
            .await
            .expect("an answer in time")
            .unwrap()
            .unwrap_or_else(|error| panic!("client {n}: the connection failed: {error}"));
        let answer = String::from_utf8_lossy(&answer).to_ascii_lowercase();
        assert!(answer.starts_with("http/1.1 503"), "client {n}: {answer}");
        assert!(
            answer.contains("\r\nretry-after: 1\r\n"),
            "client {n}: {answer}"
        );
        assert!(
            answer.contains("all 2 (--max-connections) are serving requests"),
            "client {n}: {answer}"
        );
    }
    drop(streams);
}

#[tokio::test]
async fn repeated_params_members_get_invalid_params() {
    let arguments = clean_arguments().to_string();
    for transport in ["stdio", "http"] {
        let mut server = Raw::start(transport, &["--schema", &schema()]).await;
        for (params, member) in [
            (
                format!(
                    r#"{{"name":"submit_result","name":"submit_result","arguments":{arguments}}}"#
                ),
                "name",
            ),
            (
                format!(r#"{{"name":"submit_result","arguments":{{}},"arguments":{arguments}}}"#),
                "arguments",
            ),
            (
                format!(
                    r#"{{"_meta":{{}},"name":"submit_result","arguments":{arguments},"_meta":{{}}}}"#
                ),
                "_meta",
            ),
        ] {
            let message =
                format!(r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{params}}}"#);
            let answer = server.send(&message).await;
            assert_eq!(answer["id"], 7, "{transport}: {answer}");
            assert_eq!(answer["error"]["code"], -32602, "{transport}: {answer}");
            assert_eq!(
                answer["error"]["message"],
                format!(
                    "malformed tools/call params: `{member}` appears twice; send each member once"
                ),
                "{transport}"
            );
        }
        // Nothing was committed: the same call with each member once is accepted.
        let answer = server
            .send(&tools_call(8, "submit_result", &arguments))
            .await;
        assert_eq!(answer["result"]["isError"], false, "{transport}: {answer}");
    }
}
