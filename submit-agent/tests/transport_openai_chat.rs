//! The OpenAI Chat Completions transport against a loopback server that checks each
//! request's shape and answers with scripted Chat Completions answers
//! (see `transport/suite.rs`; the real recordings replay in `transport_replay.rs`).

#![cfg(feature = "openai-chat")]

use crate::transport::{agent, server, suite};

use serde_json::{json, Value};
use submit_agent::transport::{OpenAiChat, TransportError, TransportErrorKind};

use server::{array_at, ensure, fail, str_at, Recorded};
use submit_agent::{model::ModelError, run::RunErrorKind};
use suite::{cause, fast_retry, request, Case};

/// Checks a request against the documented Chat Completions shape.
fn check(r: &Recorded) -> Result<(), String> {
    ensure(
        r.method == "POST" && r.path == "/v1/chat/completions",
        "POST /v1/chat/completions",
    )?;
    ensure(
        r.headers.get("authorization").map(String::as_str) == Some("Bearer test-key"),
        "authorization: Bearer header",
    )?;
    let b = &r.body;
    str_at(b, "model")?;
    let messages = array_at(b, "messages")?;
    let mut open_calls: Vec<String> = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        let role = str_at(m, "role")?;
        if role != "tool" {
            ensure(
                open_calls.is_empty(),
                "every tool call must be answered by a tool message before the next message",
            )?;
        }
        match role {
            "system" => {
                ensure(i == 0, "the system message comes first")?;
                str_at(m, "content")?;
            }
            "user" => ensure(
                m["content"].is_string() || m["content"].is_array(),
                "user content must be a string or an array of parts",
            )?,
            "assistant" => {
                ensure(
                    m["content"].is_string() || m["content"].is_null(),
                    "assistant content must be a string or null",
                )?;
                for call in m
                    .get("tool_calls")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    open_calls.push(str_at(call, "id")?.to_owned());
                    ensure(
                        call["type"] == "function",
                        "tool_calls[].type must be function",
                    )?;
                    str_at(&call["function"], "name")?;
                    let arguments = str_at(&call["function"], "arguments")?;
                    ensure(
                        serde_json::from_str::<Value>(arguments).is_ok(),
                        "tool_calls[].function.arguments must be a JSON string",
                    )?;
                }
            }
            "tool" => {
                let id = str_at(m, "tool_call_id")?;
                ensure(
                    open_calls.iter().any(|c| c == id),
                    "tool_call_id must answer an open tool call",
                )?;
                open_calls.retain(|c| c != id);
                str_at(m, "content")?;
            }
            other => return fail(format!("unknown role {other}")),
        }
    }
    for tool in b
        .get("tools")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        ensure(tool["type"] == "function", "tools[].type must be function")?;
        let f = &tool["function"];
        str_at(f, "name")?;
        ensure(
            f["parameters"]["type"] == "object",
            "parameters must be an object schema",
        )?;
        // Chat Completions reads a missing `strict` as false.
        ensure(
            f.get("strict").is_none_or(Value::is_boolean),
            "strict must be a boolean",
        )?;
    }
    if let Some(choice) = b.get("tool_choice") {
        let ok = matches!(choice.as_str(), Some("auto" | "none" | "required"))
            || (choice["type"] == "function" && choice["function"]["name"].is_string());
        ensure(
            ok,
            "tool_choice must be auto, none, required or a named function",
        )?;
    }
    if b.get("stream_options").is_some() {
        ensure(b["stream"] == true, "stream_options only with stream")?;
    }
    Ok(())
}

fn model(url: &str) -> OpenAiChat {
    OpenAiChat::new("gpt-4.1")
        .api_key("test-key")
        .base_url(url)
        .retry(fast_retry())
}

const CASE: Case<OpenAiChat> = Case {
    dir: "openai_chat",
    check,
    model,
    forbid_forcing: false,
};

#[test]
fn full_agent_run_ends_in_committed_submit() {
    let (committed, requests, _) = CASE.full_run();
    assert_eq!(committed.usage.input_tokens, 388 + 571);
    let messages = requests[1].body["messages"].as_array().unwrap().clone();
    assert_eq!(messages[0]["role"], "system");
    assert_eq!(messages[2]["role"], "assistant");
    assert_eq!(
        messages[2]["tool_calls"][1]["function"]["arguments"],
        r#"{"city":"Atlantis"}"#
    );
    assert_eq!(
        messages[3],
        json!({"role": "tool", "tool_call_id": "call_Xk2mP9qRt4vW", "content": r#"{"city":"Paris","population":2102650}"#})
    );
    // An error result is marked in the content text.
    assert_eq!(messages[4]["tool_call_id"], "call_Yb7nL3sDf8hJ");
    assert_eq!(
        messages[4]["content"],
        r#"Error: {"error":"unknown city Atlantis"}"#
    );
}

#[test]
fn streamed_run_assembles_the_same_responses_and_sends_chunks() {
    let (chunks, requests) = CASE.streamed_run();
    assert_eq!(agent::chunk_text(&chunks), "Let me look both up.");
    assert_eq!(requests[0].body["stream"], true);
    assert_eq!(requests[0].body["stream_options"]["include_usage"], true);
}

#[test]
fn stringified_payload_is_recovered() {
    CASE.stringified();
}

#[test]
fn rate_limited_429_then_success() {
    let response = CASE.rate_limited(
        r#"{"error":{"message":"Rate limit reached for gpt-4.1 on tokens per min (TPM).","type":"tokens","param":null,"code":"rate_limit_exceeded"}}"#,
    );
    assert_eq!(
        response.message.tool_requests().next().unwrap().name,
        "submit_result"
    );
}

#[test]
fn server_error_500_three_times_is_a_typed_error() {
    let (server, model) = CASE.server_errors(
        r#"{"error":{"message":"The server had an error while processing your request. Sorry about that!","type":"server_error","param":null,"code":null}}"#,
    );
    let err = futures::executor::block_on(model.send(request(), None)).unwrap_err();
    assert_eq!(err.provider(), submit_core::Provider::OpenAiChat);
    assert_eq!(
        *err.kind(),
        TransportErrorKind::Api {
            status: 500,
            message: "The server had an error while processing your request. Sorry about that!"
                .into(),
            attempts: 3,
        }
    );
    assert_eq!(server.requests().len(), 3);
}

#[test]
fn server_error_500_through_the_loop_keeps_the_typed_error() {
    let (err, requests) = CASE.server_errors_through_the_loop(
        r#"{"error":{"message":"The server had an error while processing your request. Sorry about that!","type":"server_error","param":null,"code":null}}"#,
    );
    assert_eq!(requests, 3);
    assert!(matches!(err.kind, RunErrorKind::Model(_)), "{err:?}");
    let typed = cause::<TransportError>(&err).expect("the typed error in the source chain");
    assert_eq!(typed.provider(), submit_core::Provider::OpenAiChat);
    assert_eq!(
        *typed.kind(),
        TransportErrorKind::Api {
            status: 500,
            message: "The server had an error while processing your request. Sorry about that!"
                .into(),
            attempts: 3,
        }
    );
    assert_eq!(typed.status(), Some(500));
    let model = cause::<ModelError>(&err).expect("the model error in the source chain");
    assert_eq!(model.downcast_ref::<TransportError>(), Some(typed));
}

#[test]
fn malformed_sse_stream_is_rejected_with_a_clear_error() {
    let text = CASE.stream_error("malformed.sse");
    assert!(
        text.contains("malformed openai-chat event stream"),
        "{text}"
    );
    assert!(
        text.contains("event 4 holds data that is not JSON"),
        "{text}"
    );
    let text = CASE.stream_error("truncated.sse");
    assert!(
        text.contains("the stream ended before data: [DONE]"),
        "{text}"
    );
}

#[test]
fn forced_tool_choice_is_sent_as_a_named_function() {
    let mut r = request();
    r.tools = vec![submit_agent::tool::ToolDefinition::new(
        "submit_result",
        "Submit.",
        json!({"type": "object"}),
    )];
    r.tool_choice = submit_agent::model::ToolChoice::Tool("submit_result".into());
    let body = model("http://127.0.0.1:9").request_body(&r, false).unwrap();
    assert_eq!(
        body["tool_choice"],
        json!({"type": "function", "function": {"name": "submit_result"}})
    );
}

#[test]
fn wire_snapshots_of_the_agent_run() {
    let (_, requests, responses) = CASE.full_run();
    let requests: Vec<Value> = requests
        .into_iter()
        .map(|r| json!({"path": r.path, "headers": agent::redacted_headers(&r.headers), "body": r.body}))
        .collect();
    insta::assert_json_snapshot!("openai_chat_requests", requests);
    insta::assert_json_snapshot!("openai_chat_responses", responses);
}

#[test]
fn submit_tool_definition_reaches_the_wire_exactly() {
    CASE.submit_definition_on_the_wire(
        submit_core::Provider::OpenAiChat,
        |b| b["tools"].as_array().cloned().unwrap_or_default(),
        |d| d["function"]["name"].as_str(),
    );
}
