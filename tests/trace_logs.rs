//! The logs of submits: reasoning never reaches them, only its byte length.
//!
//! Alone in its test binary, so no concurrent test meets a callsite while no subscriber is set
//! (which can cache it as "never interested").

use std::sync::{Arc, Mutex};

use serde_json::json;
use submit_result::{Options, Provider, SubmitTool};

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct Analysis {
    #[allow(dead_code, reason = "decoded, not read")]
    summary: String,
}

fn tool() -> SubmitTool<Analysis> {
    SubmitTool::new(Options::new().payload_field_name("analysis")).unwrap()
}

fn chat(arguments: serde_json::Value) -> serde_json::Value {
    json!({"id": "call_7", "type": "function",
           "function": {"name": "submit_result", "arguments": arguments.to_string()}})
}

/// A `tracing` subscriber writing into a buffer.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Log tests take turns: each installs its own subscriber for the time of its run.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn logs_of(run: impl FnOnce()) -> String {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_max_level(tracing::Level::TRACE)
        .with_ansi(false)
        .finish();
    tracing::subscriber::with_default(subscriber, || {
        // Another test of this binary may have met a callsite while no subscriber was set,
        // caching "never interested"; ask every callsite again under this subscriber.
        tracing::callsite::rebuild_interest_cache();
        run();
    });
    let bytes = captured.0.lock().unwrap().clone();
    String::from_utf8(bytes).unwrap()
}

#[test]
fn submit_log_carries_reasoning_bytes_never_the_reasoning() {
    let tool = tool();
    for reasoning in [
        "",
        "ok",
        "CONFIDENTIAL: the customer's database password is hunter2, seen in the log",
    ] {
        let logs = logs_of(|| {
            let outcome = tool.handle(
                Provider::OpenAiChat,
                &chat(json!({"reasoning": reasoning, "analysis": {"summary": "s"}})),
            );
            assert_eq!(outcome.accepted().unwrap().reasoning, reasoning);
        });
        assert!(logs.contains("submitting result"), "{logs}");
        assert!(
            logs.contains(&format!("reasoning_bytes={}", reasoning.len())),
            "{logs}"
        );
        if reasoning.len() > 2 {
            assert!(!logs.contains(&reasoning[..20]), "{logs}");
        }
    }
}

#[test]
fn recovery_log_names_tool_field_and_kind_never_the_prose() {
    let prose = "SECRET prose about the incident";
    let tool = tool();
    let logs = logs_of(|| {
        let outcome = tool.handle(
            Provider::Claude,
            &json!({"type": "tool_use", "id": "t", "name": "submit_result", "input": {
                "reasoning": format!("{prose}</reasoning>\n<parameter name=\"analysis\">{{\"summary\":\"s\"}}")
            }}),
        );
        assert!(outcome.is_accepted());
    });
    assert!(logs.contains("recovered submit payload"), "{logs}");
    assert!(logs.contains("tool=submit_result"), "{logs}");
    assert!(logs.contains("field=analysis"), "{logs}");
    assert!(logs.contains("recovery=\"reasoning_opener\""), "{logs}");
    assert!(!logs.contains("SECRET"), "{logs}");
}
