//! The Anthropic Messages transport against a loopback server that checks each request's
//! shape and answers with scripted Messages API answers
//! (see `transport/suite.rs`; the real recordings replay in `transport_replay.rs`).

#![cfg(feature = "claude")]

use crate::transport::{agent, server, suite};

use serde_json::{json, Value};
use submit_agent::transport::{Claude, TransportError, TransportErrorKind};

use server::{array_at, ensure, fail, str_at, Recorded, Reply, Server};
use submit_agent::{model::ModelError, run::RunErrorKind};
use suite::{cause, fast_retry, request, Case};

/// Checks a request against the documented Messages API shape.
fn check(r: &Recorded) -> Result<(), String> {
    ensure(
        r.method == "POST" && r.path == "/v1/messages",
        "POST /v1/messages",
    )?;
    ensure(
        r.headers.get("x-api-key").map(String::as_str) == Some("test-key"),
        "x-api-key header",
    )?;
    ensure(
        r.headers.contains_key("anthropic-version"),
        "anthropic-version header",
    )?;
    let b = &r.body;
    str_at(b, "model")?;
    ensure(b["max_tokens"].is_u64(), "max_tokens must be an integer")?;
    if let Some(system) = b.get("system") {
        ensure(system.is_string(), "system must be a string")?;
    }
    let messages = array_at(b, "messages")?;
    ensure(!messages.is_empty(), "messages must not be empty")?;
    let mut expected = "user";
    let mut open_calls: Vec<String> = Vec::new();
    for m in messages {
        let role = str_at(m, "role")?;
        ensure(role == expected, "roles must alternate, starting with user")?;
        let content = array_at(m, "content")?;
        ensure(!content.is_empty(), "content must not be empty")?;
        let mut answered = Vec::new();
        for block in content {
            match str_at(block, "type")? {
                "text" => ensure(
                    !str_at(block, "text")?.is_empty(),
                    "text blocks must not be empty",
                )?,
                "thinking" => {
                    ensure(role == "assistant", "thinking only on assistant turns")?;
                    str_at(block, "signature")?;
                }
                "tool_use" => {
                    ensure(role == "assistant", "tool_use only on assistant turns")?;
                    open_calls.push(str_at(block, "id")?.to_owned());
                    ensure(
                        block["input"].is_object(),
                        "tool_use.input must be an object",
                    )?;
                }
                "tool_result" => {
                    ensure(role == "user", "tool_result only on user turns")?;
                    let id = str_at(block, "tool_use_id")?;
                    ensure(
                        open_calls.iter().any(|c| c == id),
                        "tool_result must answer a tool_use of the previous turn",
                    )?;
                    answered.push(id.to_owned());
                    if let Some(e) = block.get("is_error") {
                        ensure(e.is_boolean(), "is_error must be a boolean")?;
                    }
                }
                other => return fail(format!("unknown block type {other}")),
            }
        }
        if role == "user" {
            ensure(
                answered.len() == open_calls.len(),
                "every tool_use must be answered in the next user turn",
            )?;
            open_calls.clear();
        }
        expected = if role == "user" { "assistant" } else { "user" };
    }
    for tool in b
        .get("tools")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        str_at(tool, "name")?;
        str_at(tool, "description")?;
        ensure(
            tool["input_schema"]["type"] == "object",
            "input_schema must be an object schema",
        )?;
    }
    if let Some(choice) = b.get("tool_choice") {
        let kind = str_at(choice, "type")?;
        ensure(
            ["auto", "any", "tool", "none"].contains(&kind),
            "tool_choice.type",
        )?;
        if b.get("thinking").is_some() && (kind == "any" || kind == "tool") {
            return fail("Thinking may not be enabled when tool_choice forces tool use.");
        }
    }
    Ok(())
}

fn model(url: &str) -> Claude {
    Claude::new("claude-sonnet-4-5")
        .api_key("test-key")
        .base_url(url)
        .max_tokens(2048)
        .thinking(1024)
        .retry(fast_retry())
}

const CASE: Case<Claude> = Case {
    dir: "claude",
    check,
    model,
    forbid_forcing: true,
};

#[test]
fn full_agent_run_ends_in_committed_submit() {
    let (committed, requests, _) = CASE.full_run();
    assert_eq!(committed.usage.input_tokens, 412 + 633);
    let second = &requests[1].body;
    // The thinking block and its signature go back unchanged.
    assert_eq!(
        second["messages"][1]["content"][0]["signature"],
        "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxFn0d"
    );
    let results = second["messages"][2]["content"].as_array().unwrap();
    assert_eq!(results[0]["tool_use_id"], "toolu_01A09q90qw90lq917835lq9");
    assert_eq!(results[0].get("is_error"), None);
    assert_eq!(results[1]["tool_use_id"], "toolu_01B3mzp8DhTAsKxPoqs5UyF");
    assert_eq!(results[1]["is_error"], true);
    assert!(results[1]["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains("unknown city Atlantis"));
    assert_eq!(second["tools"][0]["name"], "submit_result");
    assert_eq!(second["tools"][1]["name"], "lookup");
}

#[test]
fn streamed_run_assembles_the_same_responses_and_sends_chunks() {
    let (chunks, requests) = CASE.streamed_run();
    assert_eq!(agent::chunk_text(&chunks), "Let me look both up.");
    assert_eq!(requests[0].body["stream"], true);
}

#[test]
fn stringified_payload_is_recovered() {
    CASE.stringified();
}

#[test]
fn rate_limited_429_then_success() {
    let response = CASE.rate_limited(
        r#"{"type":"error","error":{"type":"rate_limit_error","message":"Number of requests has exceeded your rate limit."}}"#,
    );
    assert_eq!(
        response.message.tool_requests().next().unwrap().name,
        "submit_result"
    );
}

#[test]
fn server_error_500_three_times_is_a_typed_error() {
    let (server, model) = CASE.server_errors(
        r#"{"type":"error","error":{"type":"api_error","message":"Internal server error"}}"#,
    );
    let err = futures::executor::block_on(model.send(request(), None)).unwrap_err();
    assert_eq!(err.provider(), submit_core::Provider::Claude);
    assert_eq!(
        *err.kind(),
        TransportErrorKind::Api {
            status: 500,
            message: "Internal server error".into(),
            attempts: 3,
        }
    );
    assert_eq!(server.requests().len(), 3);
}

#[test]
fn server_error_500_through_the_loop_keeps_the_typed_error() {
    let (err, requests) = CASE.server_errors_through_the_loop(
        r#"{"type":"error","error":{"type":"api_error","message":"Internal server error"}}"#,
    );
    assert_eq!(requests, 3);
    assert!(matches!(err.kind, RunErrorKind::Model(_)), "{err:?}");
    let typed = cause::<TransportError>(&err).expect("the typed error in the source chain");
    assert_eq!(typed.provider(), submit_core::Provider::Claude);
    assert_eq!(
        *typed.kind(),
        TransportErrorKind::Api {
            status: 500,
            message: "Internal server error".into(),
            attempts: 3,
        }
    );
    assert_eq!(typed.status(), Some(500));
    let model = cause::<ModelError>(&err).expect("the model error in the source chain");
    assert_eq!(model.downcast_ref::<TransportError>(), Some(typed));
}

#[test]
fn client_error_400_is_not_retried_and_keeps_the_message() {
    let server = Server::start(
        check,
        vec![Reply::json(
            400,
            r#"{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: too large"}}"#,
        )],
    );
    let err = futures::executor::block_on(model(&server.url).send(request(), None)).unwrap_err();
    assert_eq!(err.status(), Some(400));
    assert!(err.to_string().contains("max_tokens: too large"), "{err}");
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn malformed_sse_stream_is_rejected_with_a_clear_error() {
    let text = CASE.stream_error("malformed.sse");
    assert!(text.contains("malformed claude event stream"), "{text}");
    assert!(
        text.contains("event 5 (content_block_delta) holds data that is not JSON"),
        "{text}"
    );
    let text = CASE.stream_error("truncated.sse");
    assert!(
        text.contains("the stream ended before message_stop"),
        "{text}"
    );
}

#[test]
fn missing_key_names_the_variable() {
    let model = Claude::new("m").base_url("http://127.0.0.1:9");
    // The key may be set in the environment of whoever runs the tests.
    if std::env::var("ANTHROPIC_API_KEY").is_err() {
        let err = futures::executor::block_on(model.send(request(), None)).unwrap_err();
        assert_eq!(
            err.to_string(),
            "no API key for claude: set ANTHROPIC_API_KEY or pass one with api_key(...)"
        );
    }
    let keyed = Claude::new("m").api_key("sk-ant-secret");
    assert!(!format!("{keyed:?}").contains("sk-ant-secret"));
}

#[test]
fn wire_snapshots_of_the_agent_run() {
    let (_, requests, responses) = CASE.full_run();
    let requests: Vec<Value> = requests
        .into_iter()
        .map(|r| json!({"path": r.path, "headers": agent::redacted_headers(&r.headers), "body": r.body}))
        .collect();
    insta::assert_json_snapshot!("claude_requests", requests);
    insta::assert_json_snapshot!("claude_responses", responses);
}

#[test]
fn forced_choice_with_extended_thinking_falls_back_to_auto_plus_instruction() {
    // The executor is not told that forcing is refused: after a text-only turn it forces
    // submit_result, and the transport sends auto plus an instruction instead (the server
    // refuses a forced choice with thinking on, as Anthropic does).
    let text_only = json!({
        "id": "msg_01", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
        "content": [{"type": "text", "text": "Paris has about 2.1 million people."}],
        "stop_reason": "end_turn", "stop_sequence": null,
        "usage": {"input_tokens": 10, "output_tokens": 9}
    });
    let server = Server::start(
        check,
        vec![
            Reply::json(200, text_only.to_string()),
            Reply::scripted("claude/turn2_submit.json"),
        ],
    );
    let committed = agent::run_to_commit(&agent::executor(model(&server.url), None));
    assert_eq!(committed.response, agent::paris());
    assert_eq!(server.problems(), Vec::<String>::new());
    let second = &server.requests()[1].body;
    assert_eq!(second["tool_choice"], json!({"type": "auto"}));
    let last = second["messages"].as_array().unwrap().last().unwrap();
    let texts: Vec<&str> = last["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|b| b["text"].as_str())
        .collect();
    assert_eq!(texts.last(), Some(&"Call the submit_result tool now."));
}

#[test]
fn provider_error_event_mid_stream_is_a_typed_error() {
    let server = Server::start(
        check,
        vec![Reply::sse(
            "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n",
        )],
    );
    let chunks = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let ex = agent::executor(model(&server.url), Some(chunks)).forbid_forced_tool_choice(true);
    let err = futures::executor::block_on(ex.run(agent::question())).unwrap_err();
    assert!(
        err.to_string()
            .contains("claude reported an error: Overloaded"),
        "{err}"
    );
}

#[test]
fn unreachable_server_is_a_network_error_after_the_retries() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let model = model(&format!("http://127.0.0.1:{port}"));
    let err = futures::executor::block_on(model.send(request(), None)).unwrap_err();
    assert_eq!(err.provider(), submit_core::Provider::Claude);
    assert_eq!(*err.kind(), TransportErrorKind::Network { attempts: 3 });
    assert!(err.is_network());
}

/// A refused connection keeps reqwest's error under the transport's, and the run's error
/// keeps both: `RunError` → `ModelError` → `TransportError` → the connection's error.
#[test]
fn a_network_failure_keeps_its_source() {
    use std::error::Error as _;
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let model =
        model(&format!("http://127.0.0.1:{port}")).retry(submit_agent::transport::Retry::new(1));
    let err = futures::executor::block_on(model.send(request(), None)).unwrap_err();
    let source = err.source().expect("the connection's error is the source");
    assert!(
        !source.to_string().contains(&port.to_string()),
        "the URL is left out of the source: {source}"
    );
    assert!(err.to_string().contains(&source.to_string()), "{err}");

    let ex = agent::executor(model, None);
    let run = futures::executor::block_on(ex.run(agent::question())).unwrap_err();
    assert!(matches!(run.kind, RunErrorKind::Model(_)), "{run:?}");
    let typed = cause::<TransportError>(&run).expect("the transport's error under the run's");
    assert!(typed.is_network(), "{typed:?}");
    assert!(
        typed.source().is_some(),
        "the connection's error under the transport's"
    );
}

#[test]
fn slow_answer_is_a_timeout_error() {
    let server = Server::start(
        check,
        vec![Reply::scripted("claude/turn2_submit.json").after(std::time::Duration::from_secs(2))],
    );
    let model = model(&server.url)
        .timeout(std::time::Duration::from_millis(100))
        .retry(submit_agent::transport::Retry::new(1));
    let err = futures::executor::block_on(model.send(request(), None)).unwrap_err();
    assert_eq!(err.provider(), submit_core::Provider::Claude);
    assert_eq!(*err.kind(), TransportErrorKind::Timeout { attempts: 1 });
    assert!(err.is_timeout());
}

#[test]
fn json_answer_to_a_streamed_call_is_a_clear_stream_error() {
    let server = Server::start(check, vec![Reply::scripted("claude/turn2_submit.json")]);
    let chunks = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let ex = agent::executor(model(&server.url), Some(chunks)).forbid_forced_tool_choice(true);
    let err = futures::executor::block_on(ex.run(agent::question())).unwrap_err();
    assert!(
        err.to_string()
            .contains("expected text/event-stream, got application/json"),
        "{err}"
    );
}

#[test]
fn submit_tool_definition_reaches_the_wire_exactly() {
    CASE.submit_definition_on_the_wire(
        submit_core::Provider::Claude,
        |b| b["tools"].as_array().cloned().unwrap_or_default(),
        |d| d["name"].as_str(),
    );
}
