//! The OpenAI Responses transport against a loopback server that checks each request's
//! shape and answers with scripted Responses API answers
//! (see `transport/suite.rs`; the real recordings replay in `transport_replay.rs`).

#![cfg(feature = "openai-responses")]

use crate::transport::{agent, server, suite};

use serde_json::{json, Value};
use submit_agent::transport::{OpenAiResponses, TransportError, TransportErrorKind};

use server::{array_at, ensure, fail, str_at, Recorded};
use submit_agent::{model::ModelError, run::RunErrorKind};
use suite::{cause, fast_retry, request, Case};

/// Checks a request against the documented Responses API shape.
fn check(r: &Recorded) -> Result<(), String> {
    ensure(
        r.method == "POST" && r.path == "/v1/responses",
        "POST /v1/responses",
    )?;
    ensure(
        r.headers.get("authorization").map(String::as_str) == Some("Bearer test-key"),
        "authorization: Bearer header",
    )?;
    let b = &r.body;
    str_at(b, "model")?;
    if let Some(i) = b.get("instructions") {
        ensure(i.is_string(), "instructions must be a string")?;
    }
    let mut open_calls: Vec<String> = Vec::new();
    for item in array_at(b, "input")? {
        match item.get("type").and_then(Value::as_str) {
            None | Some("message") => {
                ensure(
                    open_calls.is_empty(),
                    "No tool output found for function call",
                )?;
                let role = str_at(item, "role")?;
                ensure(
                    ["user", "assistant", "system", "developer"].contains(&role),
                    "message role",
                )?;
                match &item["content"] {
                    Value::String(_) => {}
                    Value::Array(parts) => {
                        for p in parts {
                            let t = str_at(p, "type")?;
                            let allowed: &[&str] = if role == "assistant" {
                                &["output_text", "refusal"]
                            } else {
                                &["input_text", "input_image", "input_file"]
                            };
                            ensure(allowed.contains(&t), "content part type for the role")?;
                        }
                    }
                    _ => return fail("message content must be a string or an array"),
                }
            }
            Some("function_call") => {
                open_calls.push(str_at(item, "call_id")?.to_owned());
                str_at(item, "name")?;
                ensure(
                    serde_json::from_str::<Value>(str_at(item, "arguments")?).is_ok(),
                    "function_call.arguments must be a JSON string",
                )?;
            }
            Some("function_call_output") => {
                let id = str_at(item, "call_id")?;
                ensure(
                    open_calls.iter().any(|c| c == id),
                    "function_call_output must answer a function_call",
                )?;
                open_calls.retain(|c| c != id);
                ensure(
                    item["output"].is_string() || item["output"].is_array(),
                    "output must be a string or an array",
                )?;
            }
            Some("reasoning") => {
                str_at(item, "id")?;
                array_at(item, "summary")?;
            }
            Some(other) => return fail(format!("unknown input item type {other}")),
        }
    }
    ensure(
        open_calls.is_empty(),
        "No tool output found for function call",
    )?;
    for tool in b
        .get("tools")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        ensure(tool["type"] == "function", "tools[].type must be function")?;
        str_at(tool, "name")?;
        ensure(
            tool["parameters"]["type"] == "object",
            "parameters must be an object schema",
        )?;
        ensure(tool["strict"].is_boolean(), "strict is sent explicitly")?;
    }
    if let Some(choice) = b.get("tool_choice") {
        let ok = matches!(choice.as_str(), Some("auto" | "none" | "required"))
            || (choice["type"] == "function" && choice["name"].is_string());
        ensure(
            ok,
            "tool_choice must be auto, none, required or a named function",
        )?;
    }
    Ok(())
}

fn model(url: &str) -> OpenAiResponses {
    OpenAiResponses::new("gpt-5")
        .api_key("test-key")
        .base_url(url)
        .retry(fast_retry())
}

const CASE: Case<OpenAiResponses> = Case {
    dir: "openai_responses",
    check,
    model,
    forbid_forcing: false,
};

#[test]
fn full_agent_run_ends_in_committed_submit() {
    let (committed, requests, _) = CASE.full_run();
    assert_eq!(committed.usage.output_tokens, 118 + 70);
    let second = &requests[1].body;
    assert_eq!(
        second["instructions"],
        "You answer questions about cities. Finish by calling submit_result."
    );
    let input = second["input"].as_array().unwrap();
    // The reasoning item goes back by id before the calls it led to.
    assert_eq!(input[1]["type"], "reasoning");
    assert_eq!(input[1]["id"], "rs_68de1a2c11aa");
    // The text goes back as its output message, by item id.
    assert_eq!(
        input[2],
        json!({"type": "message", "role": "assistant", "id": "msg_68de1a2d22bb", "status": "completed",
               "content": [{"type": "output_text", "text": "Let me look both up.", "annotations": []}]})
    );
    assert_eq!(input[3]["call_id"], "call_Q1w2E3r4T5y6");
    assert_eq!(
        input[5],
        json!({"type": "function_call_output", "call_id": "call_Q1w2E3r4T5y6", "output": r#"{"city":"Paris","population":2102650}"#})
    );
    assert_eq!(
        input[6]["output"],
        r#"Error: {"error":"unknown city Atlantis"}"#
    );
}

#[test]
fn streamed_run_assembles_the_same_responses_and_sends_chunks() {
    let (chunks, requests) = CASE.streamed_run();
    assert_eq!(agent::chunk_text(&chunks), "Let me look both up.");
    let reasoning: String = chunks
        .iter()
        .flat_map(|c| c.content.iter())
        .filter_map(|p| match &p.kind {
            submit_agent::message::PartKind::Reasoning(r) => Some(r.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(reasoning, "Look up both cities first.");
    assert_eq!(requests[0].body["stream"], true);
}

#[test]
fn stringified_payload_is_recovered() {
    CASE.stringified();
}

#[test]
fn rate_limited_429_then_success() {
    let response = CASE.rate_limited(
        r#"{"error":{"message":"Rate limit reached for gpt-5 on requests per min (RPM).","type":"requests","param":null,"code":"rate_limit_exceeded"}}"#,
    );
    assert_eq!(
        response.message.tool_requests().next().unwrap().name,
        "submit_result"
    );
}

#[test]
fn server_error_500_three_times_is_a_typed_error() {
    let (server, model) = CASE.server_errors(
        r#"{"error":{"message":"An error occurred while processing your request.","type":"server_error","param":null,"code":"server_error"}}"#,
    );
    let err = futures::executor::block_on(model.send(request(), None)).unwrap_err();
    assert_eq!(err.provider(), submit_core::Provider::OpenAiResponses);
    assert_eq!(
        *err.kind(),
        TransportErrorKind::Api {
            status: 500,
            message: "An error occurred while processing your request.".into(),
            attempts: 3,
        }
    );
    assert_eq!(server.requests().len(), 3);
}

#[test]
fn server_error_500_through_the_loop_keeps_the_typed_error() {
    let (err, requests) = CASE.server_errors_through_the_loop(
        r#"{"error":{"message":"An error occurred while processing your request.","type":"server_error","param":null,"code":"server_error"}}"#,
    );
    assert_eq!(requests, 3);
    assert!(matches!(err.kind, RunErrorKind::Model(_)), "{err:?}");
    let typed = cause::<TransportError>(&err).expect("the typed error in the source chain");
    assert_eq!(typed.provider(), submit_core::Provider::OpenAiResponses);
    assert_eq!(
        *typed.kind(),
        TransportErrorKind::Api {
            status: 500,
            message: "An error occurred while processing your request.".into(),
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
        text.contains("malformed openai-responses event stream"),
        "{text}"
    );
    assert!(
        text.contains(
            "event 4 (response.reasoning_summary_text.delta) holds data that is not JSON"
        ),
        "{text}"
    );
    let text = CASE.stream_error("truncated.sse");
    assert!(
        text.contains("the stream ended before response.completed"),
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
        json!({"type": "function", "name": "submit_result"})
    );
    assert_eq!(body["tools"][0]["strict"], false);
}

#[test]
fn wire_snapshots_of_the_agent_run() {
    let (_, requests, responses) = CASE.full_run();
    let requests: Vec<Value> = requests
        .into_iter()
        .map(|r| json!({"path": r.path, "headers": agent::redacted_headers(&r.headers), "body": r.body}))
        .collect();
    insta::assert_json_snapshot!("openai_responses_requests", requests);
    insta::assert_json_snapshot!("openai_responses_responses", responses);
}

#[test]
fn submit_tool_definition_reaches_the_wire_exactly() {
    CASE.submit_definition_on_the_wire(
        submit_core::Provider::OpenAiResponses,
        |b| b["tools"].as_array().cloned().unwrap_or_default(),
        |d| d["name"].as_str(),
    );
}
