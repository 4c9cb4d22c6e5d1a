//! The Gemini transport against a loopback server that checks each request's shape and
//! answers with scripted `generateContent` answers
//! (see `transport/suite.rs`; the real recordings replay in `transport_replay.rs`).

#![cfg(feature = "gemini")]

use crate::transport::{agent, server, suite};

use serde_json::{json, Value};
use submit_agent::transport::{Gemini, TransportError, TransportErrorKind};

use server::{array_at, ensure, fail, str_at, Recorded};
use submit_agent::{model::ModelError, run::RunErrorKind};
use suite::{cause, fast_retry, request, Case};

const PART_KINDS: [&str; 5] = [
    "text",
    "inlineData",
    "fileData",
    "functionCall",
    "functionResponse",
];

/// Checks a request against the documented `generateContent` shape.
fn check(r: &Recorded) -> Result<(), String> {
    ensure(r.method == "POST", "POST")?;
    ensure(
        r.path == "/v1beta/models/gemini-2.5-flash:generateContent"
            || r.path == "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
        "the generateContent or streamGenerateContent?alt=sse path",
    )?;
    ensure(
        r.headers.get("x-goog-api-key").map(String::as_str) == Some("test-key"),
        "x-goog-api-key header",
    )?;
    let b = &r.body;
    if let Some(system) = b.get("systemInstruction") {
        str_at(&array_at(system, "parts")?[0], "text")?;
    }
    let mut previous_calls: Vec<String> = Vec::new();
    for content in array_at(b, "contents")? {
        let role = str_at(content, "role")?;
        ensure(
            role == "user" || role == "model",
            "role must be user or model",
        )?;
        let parts = array_at(content, "parts")?;
        ensure(!parts.is_empty(), "parts must not be empty")?;
        let mut calls = Vec::new();
        let mut answers = Vec::new();
        for p in parts {
            let kinds: Vec<&str> = PART_KINDS
                .iter()
                .copied()
                .filter(|k| p.get(*k).is_some())
                .collect();
            ensure(kinds.len() == 1, "a part holds exactly one of text, inlineData, fileData, functionCall, functionResponse")?;
            if let Some(call) = p.get("functionCall") {
                ensure(role == "model", "functionCall only on model turns")?;
                calls.push(str_at(call, "name")?.to_owned());
                ensure(
                    call["args"].is_object(),
                    "functionCall.args must be an object",
                )?;
            }
            if let Some(answer) = p.get("functionResponse") {
                ensure(role == "user", "functionResponse only on user turns")?;
                answers.push(str_at(answer, "name")?.to_owned());
                ensure(
                    answer["response"].is_object(),
                    "functionResponse.response must be an object",
                )?;
            }
            if p.get("thought").is_some() {
                ensure(role == "model", "thoughts only on model turns")?;
            }
        }
        if role == "user" && !previous_calls.is_empty() {
            let mut expected = previous_calls.clone();
            expected.sort();
            answers.sort();
            ensure(
                expected == answers,
                "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.",
            )?;
        }
        previous_calls = calls;
    }
    for tool in b
        .get("tools")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        for d in array_at(tool, "functionDeclarations")? {
            str_at(d, "name")?;
            let schema = match (d.get("parameters"), d.get("parametersJsonSchema")) {
                (Some(legacy), None) => legacy,
                (None, Some(json_schema)) => json_schema,
                _ => return fail("parameters and parametersJsonSchema are mutually exclusive"),
            };
            ensure(
                schema["type"]
                    .as_str()
                    .is_some_and(|t| t.eq_ignore_ascii_case("object")),
                "parameters must be an object schema",
            )?;
            ensure(schema.get("$schema").is_none(), "Unknown name \"$schema\"")?;
        }
    }
    if let Some(config) = b.pointer("/toolConfig/functionCallingConfig") {
        let mode = str_at(config, "mode")?;
        ensure(
            ["AUTO", "ANY", "NONE", "VALIDATED"].contains(&mode),
            "functionCallingConfig.mode",
        )?;
        if config.get("allowedFunctionNames").is_some() {
            ensure(mode == "ANY", "allowedFunctionNames only with mode ANY")?;
        }
    }
    if b.get("model").is_some() {
        return fail("the model goes in the path, not the body");
    }
    Ok(())
}

fn model(url: &str) -> Gemini {
    Gemini::new("gemini-2.5-flash")
        .api_key("test-key")
        .base_url(url)
        .retry(fast_retry())
}

const CASE: Case<Gemini> = Case {
    dir: "gemini",
    check,
    model,
    forbid_forcing: false,
};

#[test]
fn full_agent_run_ends_in_committed_submit() {
    let (committed, requests, _) = CASE.full_run();
    assert_eq!(committed.usage.output_tokens, 38 + 84 + 61);
    let second = &requests[1].body;
    let model_turn = &second["contents"][1];
    assert_eq!(model_turn["role"], "model");
    // The unsigned thought summary stays home; the signature goes back on its call.
    assert_eq!(
        model_turn["parts"][0],
        json!({"text": "Let me look both up."})
    );
    assert_eq!(
        model_turn["parts"][1]["thoughtSignature"],
        "CiQB0e2Kb7vJ3sVqk4Lm8Tz1Wx9Yp2Rn5Hc6Ds0Fa7Gb3Ej4Ku="
    );
    // Gemini issued no call ids, so none are invented on the wire.
    assert_eq!(model_turn["parts"][1]["functionCall"].get("id"), None);
    let answers = &second["contents"][2]["parts"];
    assert_eq!(
        answers[0]["functionResponse"],
        json!({"name": "lookup", "response": {"output": {"city": "Paris", "population": 2102650}}})
    );
    assert_eq!(
        answers[1]["functionResponse"],
        json!({"name": "lookup", "response": {"error": "unknown city Atlantis"}})
    );
}

#[test]
fn streamed_run_assembles_the_same_responses_and_sends_chunks() {
    let (chunks, requests) = CASE.streamed_run();
    assert_eq!(agent::chunk_text(&chunks), "Let me look both up.");
    assert_eq!(
        requests[0].path,
        "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
    );
}

#[test]
fn stringified_payload_is_recovered() {
    CASE.stringified();
}

#[test]
fn rate_limited_429_then_success() {
    let response = CASE.rate_limited(
        r#"{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED"}}"#,
    );
    assert_eq!(
        response.message.tool_requests().next().unwrap().name,
        "submit_result"
    );
}

#[test]
fn server_error_500_three_times_is_a_typed_error() {
    let (server, model) = CASE.server_errors(
        r#"{"error":{"code":500,"message":"An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting","status":"INTERNAL"}}"#,
    );
    let err = futures::executor::block_on(model.send(request(), None)).unwrap_err();
    assert_eq!(err.provider(), submit_core::Provider::Gemini);
    assert_eq!(
        *err.kind(),
        TransportErrorKind::Api {
            status: 500,
            message: "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting".into(),
            attempts: 3,
        }
    );
    assert_eq!(server.requests().len(), 3);
}

#[test]
fn server_error_500_through_the_loop_keeps_the_typed_error() {
    let (err, requests) = CASE.server_errors_through_the_loop(
        r#"{"error":{"code":500,"message":"An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting","status":"INTERNAL"}}"#,
    );
    assert_eq!(requests, 3);
    assert!(matches!(err.kind, RunErrorKind::Model(_)), "{err:?}");
    let typed = cause::<TransportError>(&err).expect("the typed error in the source chain");
    assert_eq!(typed.provider(), submit_core::Provider::Gemini);
    assert_eq!(
        *typed.kind(),
        TransportErrorKind::Api {
            status: 500,
            message: "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting".into(),
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
    assert!(text.contains("malformed gemini event stream"), "{text}");
    assert!(
        text.contains("event 3 holds data that is not JSON"),
        "{text}"
    );
    let text = CASE.stream_error("truncated.sse");
    assert!(
        text.contains("the stream ended before a finishReason"),
        "{text}"
    );
}

#[test]
fn forced_tool_choice_is_mode_any_with_the_allowed_name() {
    let mut r = request();
    r.tools = vec![submit_agent::tool::ToolDefinition::new(
        "submit_result",
        "Submit.",
        json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object"}),
    )];
    r.tool_choice = submit_agent::model::ToolChoice::Tool("submit_result".into());
    let body = model("http://127.0.0.1:9").request_body(&r, false).unwrap();
    assert_eq!(
        body["toolConfig"],
        json!({"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["submit_result"]}})
    );
    assert_eq!(
        body["tools"][0]["functionDeclarations"][0]["parametersJsonSchema"],
        json!({"type": "object"})
    );
}

#[test]
fn wire_snapshots_of_the_agent_run() {
    let (_, requests, responses) = CASE.full_run();
    let requests: Vec<Value> = requests
        .into_iter()
        .map(|r| json!({"path": r.path, "headers": agent::redacted_headers(&r.headers), "body": r.body}))
        .collect();
    insta::assert_json_snapshot!("gemini_requests", requests);
    insta::assert_json_snapshot!("gemini_responses", responses);
}

#[test]
fn submit_tool_definition_reaches_the_wire_exactly() {
    CASE.submit_definition_on_the_wire(
        submit_core::Provider::Gemini,
        |b| {
            b["tools"][0]["functionDeclarations"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        },
        |d| d["name"].as_str(),
    );
}
