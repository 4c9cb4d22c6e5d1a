//! What the transports log, at the finest level, for a run with a retry: never the API key
//! and never a payload.

#![cfg(feature = "claude")]

use crate::transport::{agent, server};

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use submit_agent::transport::{Claude, Retry};

use server::{Recorded, Reply, Server};

#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn accept_all(_: &Recorded) -> Result<(), String> {
    Ok(())
}

#[test]
fn logs_hold_neither_the_key_nor_the_payload() {
    let captured = Captured::default();
    let writer = captured.clone();
    tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .init();

    let server = Server::start(
        accept_all,
        vec![
            Reply::json(
                503,
                r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
            ),
            Reply::scripted("claude/turn1_lookup.json"),
            Reply::scripted("claude/turn2_submit.json"),
        ],
    );
    let model = Claude::new("claude-sonnet-4-5")
        .api_key("sk-ant-never-logged-7f3a")
        .base_url(&server.url)
        .retry(Retry::new(3).backoff(Duration::from_millis(1), Duration::from_millis(5)));
    let committed = agent::run_to_commit(&agent::executor(model, None));
    assert_eq!(committed.response, agent::paris());

    let logs = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    assert!(logs.contains("retrying"), "the retry is logged: {logs}");
    for secret in [
        "sk-ant-never-logged-7f3a",
        "Atlantis",
        "2102650",
        "How many people",
    ] {
        assert!(
            !logs.contains(secret),
            "{secret:?} appears in the logs:\n{logs}"
        );
    }
}
