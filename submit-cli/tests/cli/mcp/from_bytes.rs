//! A `tools/call`'s arguments read from the bytes of the message, as `parse` reads the same
//! argument text: each row of the table of issue 31, sent as raw JSON-RPC over standard input
//! and output and over HTTP, gets `parse`'s verdict as a tool result.
//!
//! The arguments with a member written twice are written here (no recording of one over MCP
//! is known); the string arguments are a real case of the corpus
//! (`real-arguments-encoded-twice-openmanus-qwen25`, its schema and text as the corpus has
//! them).

use std::path::Path;

use serde_json::{json, Value};

use super::raw::{assert_answers_as_parse, parse_text, tools_call, Raw};
use super::{schema, scratch};

const TRANSPORTS: [&str; 2] = ["stdio", "http"];

/// The sample schema's options, for `parse` and the server alike.
fn sample() -> Vec<String> {
    vec!["--schema".to_owned(), schema()]
}

fn strs(options: &[String]) -> Vec<&str> {
    options.iter().map(String::as_str).collect()
}

/// Sends each of `arguments` as a `tools/call` over `transport` to one server started with
/// `options`, and checks each answer is the tool result `parse` gives the same text.
async fn assert_each_as_parse(transport: &str, options: &[String], arguments: &[&str]) {
    let options = strs(options);
    let mut server = Raw::start(transport, &options).await;
    for (n, text) in arguments.iter().enumerate() {
        let parsed = parse_text(&options, text);
        let answer = server
            .send(&tools_call(n as u64 + 10, "submit_result", text))
            .await;
        assert_eq!(answer["id"], n + 10, "{transport}: {answer}");
        assert_answers_as_parse(&answer, &parsed);
    }
}

#[tokio::test]
async fn a_member_sent_twice_in_mcp_arguments_is_rejected_as_parse_rejects_it() {
    let arguments = [
        r#"{"reasoning":"a","reasoning":"b","result":{"summary":"disk full"}}"#,
        r#"{"reasoning":"a","result":"garbage","result":{"summary":"disk full"}}"#,
        r#"{"reasoning":"a","result":{"summary":"disk","summary":"full"}}"#,
        r#"{"reasoning":"a","re\u0061soning":"b","result":{"summary":"disk full"}}"#,
    ];
    let twice = ["reasoning", "result", "summary", "reasoning"];
    for (text, name) in arguments.iter().zip(twice) {
        let parsed = parse_text(&strs(&sample()), text);
        assert_eq!(parsed["accepted"], false, "{parsed}");
        let message = parsed["tool_result"]["error"].as_str().unwrap();
        assert!(
            message.contains(&format!("\"{name}\" appears twice")),
            "{message}"
        );
    }
    for transport in TRANSPORTS {
        assert_each_as_parse(transport, &sample(), &arguments).await;
    }
}

/// The options of the real case `real-arguments-encoded-twice-openmanus-qwen25`, with its
/// schema written to `dir`, and its argument text.
fn openmanus(dir: &Path) -> (Vec<String>, String) {
    let vector =
        submit_test_kit::corpus::vector("real-arguments-encoded-twice-openmanus-qwen25").unwrap();
    let options = &vector["options"];
    assert_eq!(
        (
            &options["flat"],
            &options["omit_reasoning"],
            &options["payload"]
        ),
        (&json!(true), &json!(true), &json!("result")),
        "{options}"
    );
    let schema = dir.join("sales.json");
    std::fs::write(&schema, options["schema"].to_string()).unwrap();
    let options = [
        "--schema",
        &schema.display().to_string(),
        "--flat",
        "--omit-reasoning",
        "--payload",
        "result",
    ]
    .map(str::to_owned)
    .to_vec();
    let text = vector["arguments_text"].as_str().unwrap().to_owned();
    (options, text)
}

#[tokio::test]
async fn mcp_arguments_sent_as_a_json_string_are_read_as_argument_text() {
    let dir = scratch("arguments-string");
    let (options, text) = openmanus(&dir);
    // The whole arguments, a JSON string holding the object's text.
    assert!(text.starts_with("\"{\\\"shop_name\\\""), "{text}");
    let parsed = parse_text(&strs(&options), &text);
    assert_eq!(parsed["accepted"], true, "{parsed}");
    assert_eq!(
        parsed["recoveries"],
        json!([{"kind": "stringified_arguments", "parameters": []}])
    );
    for transport in TRANSPORTS {
        let out = dir.join(format!("{transport}.json"));
        let mut args = options.clone();
        args.extend(["--out".to_owned(), out.display().to_string()]);
        let mut server = Raw::start(transport, &strs(&args)).await;
        let answer = server.send(&tools_call(3, "submit_result", &text)).await;
        assert_answers_as_parse(&answer, &parsed);
        let written: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
        assert_eq!(written, parsed, "{transport}");
    }
}

#[tokio::test]
async fn non_object_mcp_arguments_get_the_hint_as_a_tool_error() {
    let arguments = ["[1,2]", "7", "\"\"", "true", "\"reasoning\"", "null", "{}"];
    for text in arguments {
        let parsed = parse_text(&strs(&sample()), text);
        assert_eq!(parsed["accepted"], false, "{text}: {parsed}");
    }
    let hint = parse_text(&strs(&sample()), "[1,2]");
    assert_eq!(
        hint["tool_result"]["error"],
        "failed to parse tool arguments: expected a JSON object, got array"
    );
    for transport in TRANSPORTS {
        assert_each_as_parse(transport, &sample(), &arguments).await;
    }
}

/// A schema whose payload holds anything under `nested`.
fn open_schema(dir: &Path) -> Vec<String> {
    let schema = dir.join("open.json");
    std::fs::write(
        &schema,
        json!({"type": "object",
               "properties": {"summary": {"type": "string"}, "nested": {}},
               "required": ["summary"]})
        .to_string(),
    )
    .unwrap();
    vec!["--schema".to_owned(), schema.display().to_string()]
}

/// Arguments whose payload is nested `depth` deep (the payload object is depth 1).
fn deep_arguments(depth: usize) -> String {
    let arrays = depth - 1;
    format!(
        r#"{{"reasoning":"deep","result":{{"summary":"s","nested":{}{}}}}}"#,
        "[".repeat(arrays),
        "]".repeat(arrays)
    )
}

#[tokio::test]
async fn a_payload_at_depth_126_is_accepted_over_mcp() {
    let dir = scratch("depth-126");
    let options = open_schema(&dir);
    let text = deep_arguments(126);
    let parsed = parse_text(&strs(&options), &text);
    assert_eq!(parsed["accepted"], true, "{parsed}");
    for transport in TRANSPORTS {
        // One server each: the accepted call ends its run.
        let mut server = Raw::start(transport, &strs(&options)).await;
        let answer = server.send(&tools_call(4, "submit_result", &text)).await;
        assert_answers_as_parse(&answer, &parsed);
    }
}

/// The rows of the table of issue 31 and the protocol errors around them, as raw messages.
fn table_rows() -> Vec<String> {
    let call = |id: u64, arguments: &str| tools_call(id, "submit_result", arguments);
    vec![
        call(1, r#"{"reasoning":"a","reasoning":"b","result":{"summary":"s"}}"#),
        call(2, r#"{"reasoning":"a","result":"garbage","result":{"summary":"s"}}"#),
        call(3, "[1,2]"),
        call(4, "7"),
        call(5, "\"\""),
        call(6, r#"{"reasoning":"\ud800","result":{"summary":"s"}}"#),
        call(7, r#"{"reasoning":"a","result":{"summary":"s","n":1e400}}"#),
        call(8, r#"{"result":{"summary":"s"}}"#),
        // Not a call of the served tool, and params that repeat a member: protocol errors.
        tools_call(9, "submit_results", r#"{"reasoning":"a"}"#),
        r#"{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"submit_result","name":"submit_result","arguments":{}}}"#.to_owned(),
        r#"{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"arguments":{}}}"#.to_owned(),
        // The envelope is still JSON-RPC: a lone surrogate there is no readable request.
        r#"{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"\ud800","arguments":{}}}"#.to_owned(),
        // Accepted last: the string of the whole arguments, then one nested 126 deep.
        call(13, r#""{\"reasoning\":\"r\",\"result\":{\"summary\":\"s\"}}""#),
        call(14, &deep_arguments(126)),
    ]
}

#[tokio::test]
async fn the_same_bytes_get_the_same_answer_over_stdio_and_http() {
    let dir = scratch("same-bytes");
    let options = open_schema(&dir);
    let rows = table_rows();
    let mut answers = Vec::new();
    for transport in TRANSPORTS {
        let mut server = Raw::start(transport, &strs(&options)).await;
        let mut answered = Vec::new();
        for row in &rows {
            answered.push(server.send(row).await);
        }
        answers.push(answered);
    }
    let (stdio, http) = (&answers[0], &answers[1]);
    for ((row, over_stdio), over_http) in rows.iter().zip(stdio).zip(http) {
        assert_eq!(over_stdio, over_http, "{row}");
    }
    // What they are: tool results with parse's verdict for the calls, protocol errors for the
    // rest.
    for (row, answer) in rows.iter().zip(stdio) {
        let id = answer["id"].as_u64().unwrap_or(0);
        match id {
            9..=12 => assert!(answer["error"]["code"].is_i64(), "{row}: {answer}"),
            13 => assert_eq!(answer["result"]["isError"], false, "{row}: {answer}"),
            // The run's result was accepted just before.
            14 => assert_eq!(
                answer["result"]["content"][0]["text"],
                "a terminal result was already accepted"
            ),
            _ => {
                let text = row
                    .split_once(r#""arguments":"#)
                    .map(|(_, rest)| rest.strip_suffix("}}").unwrap())
                    .unwrap();
                assert_answers_as_parse(answer, &parse_text(&strs(&options), text));
            }
        }
    }
    assert_eq!(stdio[8]["error"]["code"], -32602);
    assert_eq!(
        stdio[8]["error"]["message"],
        "unknown tool `submit_results`: this server has one tool, `submit_result`"
    );
    assert_eq!(stdio[9]["error"]["code"], -32602);
}
