//! The `submit-result` binary, run as a user runs it.
//!
//! `gen_calls` writes a JSONL file mixing every outcome kind and malformed lines; the ignored
//! test `triage_of_a_million_generated_lines` runs triage on 1,000,000 of them:
//!
//! ```text
//! cargo test -p submit-cli --release --test cli -- --ignored --nocapture
//! ```

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Instant;

use serde_json::{json, Value};
use submit_core::{Provider, DEFAULT_DESCRIPTION, REASONING_DESCRIPTION};

const BIN: &str = env!("CARGO_BIN_EXE_submit-result");

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

fn schema() -> String {
    data("schema.json").display().to_string()
}

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("cli-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn run_with(args: &[&str], stdin: Option<&[u8]>) -> Run {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    if let Some(bytes) = stdin {
        input.write_all(bytes).unwrap();
    }
    drop(input);
    let Output {
        status,
        stdout,
        stderr,
    } = child.wait_with_output().unwrap();
    Run {
        code: status.code().unwrap(),
        stdout: String::from_utf8(stdout).unwrap(),
        stderr: String::from_utf8(stderr).unwrap(),
    }
}

fn run(args: &[&str]) -> Run {
    run_with(args, None)
}

/// Runs a command expected to succeed and parses its standard output as JSON.
fn json_of(args: &[&str]) -> Value {
    let out = run(args);
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    serde_json::from_str(&out.stdout).unwrap()
}

fn reasoning_param() -> Value {
    json!({"type": "string", "description": REASONING_DESCRIPTION})
}

fn payload_schema() -> Value {
    json!({
        "type": "object",
        "properties": {"summary": {"type": "string"}},
        "required": ["summary"],
        "description": "Structured result payload."
    })
}

fn parameters() -> Value {
    json!({
        "type": "object",
        "properties": {"reasoning": reasoning_param(), "result": payload_schema()},
        "required": ["reasoning", "result"]
    })
}

// ------------------------------------------------------------------------------------------
// definition
// ------------------------------------------------------------------------------------------

#[test]
fn definition_of_readme_example_for_claude() {
    let value = json_of(&["definition", "--provider", "claude", "--schema", &schema()]);
    assert_eq!(
        value,
        json!({
            "name": "submit_result",
            "description": DEFAULT_DESCRIPTION,
            "input_schema": parameters()
        })
    );
}

#[test]
fn definition_is_pretty_printed() {
    let out = run(&["definition", "--provider", "claude", "--schema", &schema()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.starts_with("{\n  \"name\": \"submit_result\""));
    assert!(out.stdout.ends_with("}\n"));
}

#[test]
fn definition_for_openai_chat_has_no_strict() {
    let value = json_of(&[
        "definition",
        "--provider",
        "openai-chat",
        "--schema",
        &schema(),
    ]);
    assert_eq!(
        value,
        json!({
            "type": "function",
            "function": {
                "name": "submit_result",
                "description": DEFAULT_DESCRIPTION,
                "parameters": parameters()
            }
        })
    );
}

#[test]
fn definition_for_openai_responses_has_explicit_strict_false() {
    let value = json_of(&[
        "definition",
        "--provider",
        "openai-responses",
        "--schema",
        &schema(),
    ]);
    assert_eq!(
        value,
        json!({
            "type": "function",
            "name": "submit_result",
            "description": DEFAULT_DESCRIPTION,
            "parameters": parameters(),
            "strict": false
        })
    );
}

#[test]
fn definition_for_gemini_uses_the_legacy_subset() {
    let value = json_of(&["definition", "--provider", "gemini", "--schema", &schema()]);
    assert_eq!(
        value,
        json!({
            "name": "submit_result",
            "description": DEFAULT_DESCRIPTION,
            "parameters": {
                "type": "OBJECT",
                "properties": {
                    "reasoning": {"type": "STRING", "description": REASONING_DESCRIPTION},
                    "result": {
                        "type": "OBJECT",
                        "properties": {"summary": {"type": "STRING"}},
                        "required": ["summary"],
                        "propertyOrdering": ["summary"],
                        "description": "Structured result payload."
                    }
                },
                "required": ["reasoning", "result"],
                "propertyOrdering": ["reasoning", "result"]
            }
        })
    );
}

#[test]
fn definition_for_gemini_json_schema_flag() {
    let value = json_of(&[
        "definition",
        "--provider",
        "gemini",
        "--schema",
        &schema(),
        "--gemini-json-schema",
    ]);
    assert_eq!(
        value,
        json!({
            "name": "submit_result",
            "description": DEFAULT_DESCRIPTION,
            "parametersJsonSchema": parameters()
        })
    );
}

#[test]
fn definition_metadata_flags_override_the_tag() {
    let value = json_of(&[
        "definition",
        "--provider",
        "claude",
        "--schema",
        &schema(),
        "--tag",
        "name=submit_analysis,payload=analysis,payloadDescription=The analysis\\, in short.",
        "--name",
        "submit_summary",
        "--description",
        "Submit the summary.",
        "--omit-reasoning",
    ]);
    let mut payload = payload_schema();
    payload["description"] = json!("The analysis, in short.");
    assert_eq!(
        value,
        json!({
            "name": "submit_summary",
            "description": "Submit the summary.",
            "input_schema": {
                "type": "object",
                "properties": {"analysis": payload},
                "required": ["analysis"]
            }
        })
    );
}

#[test]
fn definition_flat_advertises_each_property() {
    let value = json_of(&[
        "definition",
        "--provider",
        "claude",
        "--schema",
        &schema(),
        "--flat",
    ]);
    assert_eq!(
        value["input_schema"],
        json!({
            "type": "object",
            "properties": {"reasoning": reasoning_param(), "summary": {"type": "string"}},
            "required": ["reasoning", "summary"]
        })
    );
}

// ------------------------------------------------------------------------------------------
// parse
// ------------------------------------------------------------------------------------------

fn parse(provider: &str, call: &str) -> Value {
    json_of(&[
        "parse",
        "--provider",
        provider,
        "--schema",
        &schema(),
        &data(call).display().to_string(),
    ])
}

fn success() -> Value {
    json!({"success": true, "message": "Result submitted successfully."})
}

#[test]
fn parse_of_readme_example_clean_call_is_accepted() {
    assert_eq!(
        parse("claude", "claude_clean.json"),
        json!({
            "accepted": true,
            "response": {"summary": "disk full"},
            "reasoning": "The logs show the disk filled up at 03:12.",
            "recovery": null,
            "recoveries": [],
            "tool_result": success()
        })
    );
}

#[test]
fn parse_prints_keys_in_the_documented_order() {
    let out = run(&[
        "parse",
        "--provider",
        "claude",
        "--schema",
        &schema(),
        &data("claude_clean.json").display().to_string(),
    ]);
    let keys: Vec<usize> = [
        "\"accepted\"",
        "\"response\"",
        "\"reasoning\"",
        "\"recovery\"",
        "\"recoveries\"",
        "\"tool_result\"",
    ]
    .iter()
    .map(|key| out.stdout.find(key).unwrap())
    .collect();
    assert!(keys.windows(2).all(|w| w[0] < w[1]), "{}", out.stdout);
}

#[test]
fn parse_openai_chat_stringified_with_invoke_is_recovered() {
    assert_eq!(
        parse("openai-chat", "openai_chat_stringified.json"),
        json!({
            "accepted": true,
            "response": {"summary": "disk full"},
            "reasoning": "Checked.",
            "recovery": "stringified",
            "recoveries": [{"kind": "stringified", "parameters": ["result"]}],
            "tool_result": success()
        })
    );
}

#[test]
fn parse_gemini_payload_in_reasoning_opener_is_recovered() {
    assert_eq!(
        parse("gemini", "gemini_opener.json"),
        json!({
            "accepted": true,
            "response": {"summary": "disk full"},
            "reasoning": "Checked the logs.",
            "recovery": "reasoning_opener",
            "recoveries": [{"kind": "reasoning_opener", "parameters": ["result"]}],
            "tool_result": success()
        })
    );
}

#[test]
fn parse_openai_responses_payload_as_reasoning_member_is_recovered() {
    assert_eq!(
        parse("openai-responses", "openai_responses_member.json"),
        json!({
            "accepted": true,
            "response": {"summary": "ok"},
            "reasoning": "Checked.",
            "recovery": "reasoning_member",
            "recoveries": [{"kind": "reasoning_member", "parameters": ["result"]}],
            "tool_result": success()
        })
    );
}

const STRINGIFIED_MESSAGE: &str = "result parameter must be a JSON object, got string — it looks \
like the object was JSON-encoded into a string; pass result as a nested JSON object, not as a string";

#[test]
fn parse_rejected_submit_exits_0_with_class_cause_and_trace() {
    let value = parse("claude", "claude_stringified_declined.json");
    assert_eq!(
        value,
        json!({
            "accepted": false,
            "class": "parameter",
            "cause": "stringified_declined",
            "trace_error": format!(
                "parameter error: {STRINGIFIED_MESSAGE} (result arrived as a 33-byte string: \
                 \"{{\\\"summary\\\": \\\"s\\\"}} Hope this helps!\")"
            ),
            "tool_result": {"error": STRINGIFIED_MESSAGE}
        })
    );
}

fn parse_stdin(provider: &str, call: &Value) -> Value {
    let out = run_with(
        &["parse", "--provider", provider, "--schema", &schema()],
        Some(call.to_string().as_bytes()),
    );
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    serde_json::from_str(&out.stdout).unwrap()
}

fn tool_use(input: Value) -> Value {
    Provider::Claude.call("submit_result", Some("toolu_x"), &input)
}

#[test]
fn parse_reads_standard_input_without_a_file_or_with_dash() {
    let call = tool_use(json!({"reasoning": "r", "result": {"summary": "s"}}));
    assert_eq!(parse_stdin("claude", &call)["accepted"], true);
    let out = run_with(
        &["parse", "--provider", "claude", "--schema", &schema(), "-"],
        Some(call.to_string().as_bytes()),
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let value: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(value["response"], json!({"summary": "s"}));
}

#[test]
fn parse_gemini_bare_function_call() {
    let call =
        json!({"name": "submit_result", "args": {"reasoning": "r", "result": {"summary": "s"}}});
    assert_eq!(
        parse_stdin("gemini", &call),
        json!({
            "accepted": true,
            "response": {"summary": "s"},
            "reasoning": "r",
            "recovery": null,
            "recoveries": [],
            "tool_result": success()
        })
    );
}

#[test]
fn parse_absent_payload_is_absent_or_mistyped() {
    let value = parse_stdin("claude", &tool_use(json!({"reasoning": "r"})));
    assert_eq!(
        value,
        json!({
            "accepted": false,
            "class": "parameter",
            "cause": "absent_or_mistyped",
            "trace_error": "parameter error: result parameter is required",
            "tool_result": {"error": "result parameter is required"}
        })
    );
}

#[test]
fn parse_undecodable_arguments() {
    let value = parse_stdin("claude", &tool_use(json!([1])));
    let message = "failed to parse tool arguments: expected a JSON object, got array";
    assert_eq!(
        value,
        json!({
            "accepted": false,
            "class": "parameter",
            "cause": "undecodable_arguments",
            "trace_error": format!("parameter error: {message}"),
            "tool_result": {"error": message}
        })
    );
}

#[test]
fn parse_payload_error_has_null_cause() {
    let value = parse_stdin(
        "claude",
        &tool_use(json!({"reasoning": "r", "result": {"summary": 5}})),
    );
    assert_eq!(value["accepted"], false);
    assert_eq!(value["class"], "payload");
    assert_eq!(value["cause"], Value::Null);
    let error = value["tool_result"]["error"].as_str().unwrap();
    assert!(error.starts_with("failed to decode payload: "), "{error}");
    assert!(error.contains("/summary"), "{error}");
    assert_eq!(value["trace_error"], format!("payload error: {error}"));
}

#[test]
fn parse_reasoning_declined() {
    let value = parse_stdin(
        "claude",
        &tool_use(json!({
            "reasoning": "Done. <parameter name=\"result\">{\"summary\": \"s\"} and that is all."
        })),
    );
    assert_eq!(value["accepted"], false);
    assert_eq!(value["class"], "parameter");
    assert_eq!(value["cause"], "reasoning_declined");
}

/// A clean call in each provider's shape, and the byte length of its arguments as received:
/// the compact JSON of an object (Anthropic, Gemini), the text as written (OpenAI, with
/// spaces).
fn clean_calls() -> [(&'static str, Value, usize); 4] {
    let arguments = json!({"reasoning": "Checked the logs.", "result": {"summary": "disk full"}});
    let text = r#"{"reasoning": "Checked the logs.", "result": {"summary": "disk full"}}"#;
    [
        ("claude", tool_use(arguments.clone()), 66),
        (
            "openai-chat",
            Provider::OpenAiChat.call("submit_result", Some("call_1"), text),
            70,
        ),
        (
            "openai-responses",
            Provider::OpenAiResponses.call("submit_result", Some("call_1"), text),
            70,
        ),
        (
            "gemini",
            Provider::Gemini.call("submit_result", None, &arguments),
            66,
        ),
    ]
}

/// `parse --finish-reason reason` of `call` read from standard input.
fn parse_finished(provider: &str, reason: &str, call: &Value) -> Value {
    let out = run_with(
        &[
            "parse",
            "--provider",
            provider,
            "--schema",
            &schema(),
            "--finish-reason",
            reason,
        ],
        Some(call.to_string().as_bytes()),
    );
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    serde_json::from_str(&out.stdout).unwrap()
}

/// The accepted outcome of every call of [`clean_calls`].
fn clean_outcome() -> Value {
    json!({
        "accepted": true,
        "response": {"summary": "disk full"},
        "reasoning": "Checked the logs.",
        "recovery": null,
        "recoveries": [],
        "tool_result": success()
    })
}

#[test]
fn parse_with_a_limit_finish_reason_rejects_a_clean_call_as_truncated() {
    let limits = [
        ("claude", "max_tokens"),
        ("claude", "model_context_window_exceeded"),
        ("openai-chat", "length"),
        ("openai-responses", "max_output_tokens"),
        ("gemini", "MAX_TOKENS"),
    ];
    for (provider, call, bytes) in clean_calls() {
        // Without a finish reason the call is accepted as it is.
        assert_eq!(parse_stdin(provider, &call), clean_outcome(), "{provider}");
        let spellings = limits.iter().filter(|(owner, _)| *owner == provider);
        for (_, reason) in spellings {
            let message = format!(
                "the submit_result call was cut off at the output-token limit after {bytes} \
                 bytes of arguments; call submit_result again with the complete result and keep \
                 it shorter (a brief reasoning, no repeated content)"
            );
            assert_eq!(
                parse_finished(provider, reason, &call),
                json!({
                    "accepted": false,
                    "class": "parameter",
                    "cause": "truncated_call",
                    "trace_error": format!("parameter error: {message}"),
                    "tool_result": {"error": message}
                }),
                "{provider} {reason}"
            );
        }
    }
}

#[test]
fn parse_with_another_finish_reason_accepts_the_clean_call() {
    let own = |provider: &str| match provider {
        "claude" => ["max_tokens", "model_context_window_exceeded"].as_slice(),
        "openai-chat" => &["length"],
        "openai-responses" => &["max_output_tokens"],
        _ => &["MAX_TOKENS"],
    };
    let limits = [
        "max_tokens",
        "model_context_window_exceeded",
        "length",
        "max_output_tokens",
        "MAX_TOKENS",
    ];
    for (provider, call, _) in clean_calls() {
        // Normal stops, any limit spelling of another provider, and a spelling in another case.
        let others = limits
            .iter()
            .filter(|reason| !own(provider).contains(reason));
        let reasons = [
            "stop",
            "end_turn",
            "STOP",
            "tool_calls",
            "tool_use",
            "Length",
            "",
        ]
        .iter()
        .chain(others);
        for reason in reasons {
            assert_eq!(
                parse_finished(provider, reason, &call),
                clean_outcome(),
                "{provider} {reason:?}"
            );
        }
    }
}

#[test]
fn parse_help_describes_the_finish_reason() {
    let out = run(&["parse", "--help"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    for text in [
        "--finish-reason <VALUE>",
        "max_tokens",
        "length",
        "max_output_tokens",
        "MAX_TOKENS",
        "truncated_call",
    ] {
        assert!(out.stdout.contains(text), "{text}: {}", out.stdout);
    }
}

// ------------------------------------------------------------------------------------------
// exit codes
// ------------------------------------------------------------------------------------------

/// Asserts exit status 2 and one line on standard error that contains `names`.
fn assert_usage_error(args: &[&str], stdin: Option<&[u8]>, names: &str) {
    let out = run_with(args, stdin);
    assert_eq!(out.code, 2, "{args:?}: stdout {}", out.stdout);
    assert!(out.stdout.is_empty(), "{args:?}: stdout {}", out.stdout);
    assert_eq!(out.stderr.lines().count(), 1, "{args:?}: {}", out.stderr);
    assert!(
        out.stderr.starts_with("submit-result: "),
        "{args:?}: {}",
        out.stderr
    );
    assert!(out.stderr.contains(names), "{args:?}: {}", out.stderr);
}

#[test]
fn exit_2_for_usage_mistakes() {
    let schema = schema();
    assert_usage_error(&["definition", "--schema", &schema], None, "--provider");
    assert_usage_error(&["definition", "--provider", "claude"], None, "--schema");
    assert_usage_error(
        &["definition", "--provider", "openai", "--schema", &schema],
        None,
        "openai",
    );
    assert_usage_error(
        &[
            "definition",
            "--provider",
            "claude",
            "--schema",
            &schema,
            "--flta",
        ],
        None,
        "--flta",
    );
    assert_usage_error(&["frobnicate"], None, "frobnicate");
    assert_usage_error(&[], None, "subcommand");
}

#[test]
fn exit_2_for_empty_values() {
    let schema = schema();
    for flag in [
        "--name",
        "--description",
        "--payload",
        "--payload-description",
        "--success",
        "--tag",
        "--omit-field",
    ] {
        assert_usage_error(
            &[
                "definition",
                "--provider",
                "claude",
                "--schema",
                &schema,
                flag,
                "",
            ],
            None,
            flag,
        );
    }
}

#[test]
fn exit_2_for_unreadable_files() {
    let schema = schema();
    assert_usage_error(
        &[
            "definition",
            "--provider",
            "claude",
            "--schema",
            "/nonexistent/schema.json",
        ],
        None,
        "/nonexistent/schema.json",
    );
    let not_json = data("not_json.txt").display().to_string();
    assert_usage_error(
        &["definition", "--provider", "claude", "--schema", &not_json],
        None,
        "schema file",
    );
    assert_usage_error(
        &[
            "parse",
            "--provider",
            "claude",
            "--schema",
            &schema,
            "/nonexistent/call.json",
        ],
        None,
        "/nonexistent/call.json",
    );
    assert_usage_error(
        &[
            "parse",
            "--provider",
            "claude",
            "--schema",
            &schema,
            &not_json,
        ],
        None,
        "not_json.txt` is not JSON",
    );
    assert_usage_error(
        &["parse", "--provider", "claude", "--schema", &schema],
        Some(b"{\"type\": "),
        "call from standard input is not JSON",
    );
    assert_usage_error(
        &[
            "triage",
            "--provider",
            "claude",
            "--schema",
            &schema,
            "/nonexistent/calls.jsonl",
        ],
        None,
        "/nonexistent/calls.jsonl",
    );
    assert_usage_error(
        &[
            "triage",
            "--provider",
            "claude",
            "--schema",
            &schema,
            "--out",
            "/nonexistent/dir/out.jsonl",
            &data("calls.jsonl").display().to_string(),
        ],
        None,
        "/nonexistent/dir/out.jsonl",
    );
}

#[test]
fn exit_2_for_a_call_not_in_the_provider_shape() {
    let schema = schema();
    let chat_call = data("openai_chat_stringified.json").display().to_string();
    assert_usage_error(
        &[
            "parse",
            "--provider",
            "claude",
            "--schema",
            &schema,
            &chat_call,
        ],
        None,
        "not a tool call in the claude shape",
    );
    let claude_call = data("claude_clean.json").display().to_string();
    assert_usage_error(
        &[
            "parse",
            "--provider",
            "openai-responses",
            "--schema",
            &schema,
            &claude_call,
        ],
        None,
        "not a tool call in the openai-responses shape",
    );
}

#[test]
fn exit_2_for_construction_errors() {
    let schema = schema();
    let base = [
        "definition",
        "--provider",
        "claude",
        "--schema",
        schema.as_str(),
    ];
    let with = |extra: &[&str]| -> Vec<String> {
        base.iter().chain(extra).map(|s| (*s).to_owned()).collect()
    };
    for (extra, names) in [
        (&["--omit-field", "nope"][..], "nope"),
        (&["--omit-field", "summary"][..], "summary"),
        (&["--name", "bad name"][..], "bad name"),
        (&["--payload", "reasoning"][..], "reasoning"),
        (&["--tag", "nmae=x"][..], "nmae"),
        (&["--tag", "flat=maybe"][..], "flat"),
    ] {
        let args = with(extra);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        assert_usage_error(&args, None, names);
    }
    assert_usage_error(
        &[
            "definition",
            "--provider",
            "gemini",
            "--schema",
            &schema,
            "--strict",
        ],
        None,
        "strict",
    );
}

#[test]
fn help_and_version_exit_0_on_stdout() {
    for args in [
        &["--help"][..],
        &["triage", "--help"][..],
        &["--version"][..],
    ] {
        let out = run(args);
        assert_eq!(out.code, 0, "{args:?}: {}", out.stderr);
        assert!(out.stderr.is_empty(), "{args:?}: {}", out.stderr);
        assert!(
            out.stdout.contains("submit-result"),
            "{args:?}: {}",
            out.stdout
        );
    }
}

#[test]
fn exit_0_for_a_rejected_submit() {
    let out = run(&[
        "parse",
        "--provider",
        "claude",
        "--schema",
        &schema(),
        &data("claude_stringified_declined.json")
            .display()
            .to_string(),
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.is_empty());
    let value: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(value["accepted"], false);
}

// ------------------------------------------------------------------------------------------
// triage
// ------------------------------------------------------------------------------------------

/// How a generated line is framed for a provider, given the call's arguments.
fn frame(provider: &str, arguments: &Value) -> String {
    let id = match provider {
        "claude" => Some("toolu_x"),
        "gemini" => None,
        _ => Some("call_x"),
    };
    let provider: Provider = provider.parse().unwrap();
    provider.call("submit_result", id, arguments).to_string()
}

/// The kinds of generated lines, in the order they repeat: every twelfth line has the same
/// kind, so `n` lines (a multiple of 12) hold `n / 12` of each (`clean` twice).
const KINDS: usize = 12;

/// Writes `n` lines mixing clean, stringified-with-`</invoke>`, reasoning-nested (both
/// forms), declined (both recoveries), absent, payload-error, undecodable and malformed calls.
pub(crate) fn gen_calls(path: &Path, provider: &str, n: usize) {
    let file = std::fs::File::create(path).unwrap();
    let mut out = std::io::BufWriter::new(file);
    for i in 0..n {
        let summary = format!("run {i} finished");
        let object = json!({"summary": summary}).to_string();
        let line = match i % KINDS {
            0 | 1 => frame(
                provider,
                &json!({"reasoning": "all checks passed", "result": {"summary": summary}}),
            ),
            2 => frame(
                provider,
                &json!({"reasoning": "done", "result": format!("{object}</invoke>")}),
            ),
            3 => frame(
                provider,
                &json!({"reasoning": format!(
                    "Checked.\n<parameter name=\"result\">{object}\n</parameter>"
                )}),
            ),
            4 => frame(
                provider,
                &json!({"reasoning": format!("Checked.\", \"result\": {object}}}")}),
            ),
            5 => frame(
                provider,
                &json!({"reasoning": "done", "result": format!("{object} Hope this helps!")}),
            ),
            6 => frame(
                provider,
                &json!({"reasoning": format!(
                    "Done. <parameter name=\"result\">{object} and that is all."
                )}),
            ),
            7 => frame(provider, &json!({"reasoning": "forgot the payload"})),
            8 => frame(
                provider,
                &json!({"reasoning": "wrong type", "result": {"summary": i}}),
            ),
            9 => frame(provider, &json!([summary])),
            10 => format!("{{\"type\": \"tool_use\", \"id\": \"truncated {i}"),
            // Not an object: no provider reads it as a call.
            _ => json!(["text", summary]).to_string(),
        };
        out.write_all(line.as_bytes()).unwrap();
        out.write_all(b"\n").unwrap();
    }
    out.flush().unwrap();
}

/// The counts `gen_calls` with `n` lines (a multiple of 12) must produce.
fn assert_generated_counts(report: &Value, n: u64) {
    let each = n / KINDS as u64;
    let calls = n - 2 * each;
    let count = |pointer: &str| report.pointer(pointer).and_then(Value::as_u64).unwrap();
    assert_eq!(count("/lines"), n);
    assert_eq!(count("/calls"), calls);
    assert_eq!(count("/malformed/count"), 2 * each);
    assert_eq!(count("/accepted/count"), 5 * each);
    assert_eq!(count("/clean/count"), 2 * each);
    assert_eq!(count("/recovery/stringified/count"), each);
    assert_eq!(count("/recovery/reasoning_opener/count"), each);
    assert_eq!(count("/recovery/reasoning_member/count"), each);
    assert_eq!(count("/rejected/count"), 5 * each);
    assert_eq!(count("/class/parameter/count"), 4 * each);
    assert_eq!(count("/class/payload/count"), each);
    assert_eq!(count("/cause/undecodable_arguments/count"), each);
    assert_eq!(count("/cause/absent_or_mistyped/count"), each);
    assert_eq!(count("/cause/stringified_declined/count"), each);
    assert_eq!(count("/cause/reasoning_declined/count"), each);
    let share = report["clean"]["share"].as_f64().unwrap();
    assert!((share - 2.0 * each as f64 / calls as f64).abs() < 1e-12);
    assert_eq!(report["declined_shapes_exact"], true);
    let mut shapes = report["declined_shapes"].as_array().unwrap().clone();
    shapes.sort_by_key(|s| s["cause"].as_str().unwrap().to_owned());
    assert_eq!(shapes.len(), 2, "{shapes:?}");
    assert_eq!(shapes[0]["cause"], "reasoning_declined");
    assert_eq!(shapes[0]["shape"], "\" and that is all.\"");
    assert_eq!(shapes[0]["count"], each);
    assert_eq!(shapes[1]["cause"], "stringified_declined");
    assert_eq!(shapes[1]["shape"], "\" Hope this helps!\"");
    assert_eq!(shapes[1]["count"], each);
}

fn triage_json(provider: &str, calls: &Path, extra: &[&str]) -> Value {
    let schema = schema();
    let calls = calls.display().to_string();
    let mut args = vec![
        "triage",
        "--provider",
        provider,
        "--schema",
        schema.as_str(),
        "--json",
    ];
    args.extend_from_slice(extra);
    args.push(&calls);
    let out = run(&args);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.is_empty(),
        "no progress bar off a terminal: {}",
        out.stderr
    );
    assert_eq!(out.stdout.lines().count(), 1, "one JSON object on one line");
    serde_json::from_str(&out.stdout).unwrap()
}

#[test]
fn triage_summary_counts_of_generated_calls() {
    let dir = scratch("triage-counts");
    for provider in ["claude", "gemini", "openai-chat", "openai-responses"] {
        let calls = dir.join(format!("{provider}.jsonl"));
        gen_calls(&calls, provider, 6_000);
        let report = triage_json(provider, &calls, &[]);
        assert_generated_counts(&report, 6_000);
    }
}

#[test]
fn triage_malformed_lines_counted_with_line_numbers() {
    let dir = scratch("triage-malformed");
    let calls = dir.join("calls.jsonl");
    gen_calls(&calls, "claude", 1_200);
    let report = triage_json("claude", &calls, &[]);
    assert_eq!(report["malformed"]["count"], 200);
    let first = report["malformed"]["first"].as_array().unwrap();
    let lines: Vec<u64> = first.iter().map(|m| m["line"].as_u64().unwrap()).collect();
    // Kinds 10 and 11 are malformed: lines 11, 12, 23, 24, … (counting from 1).
    let expected: Vec<u64> = (0..10u64)
        .flat_map(|k| [12 * k + 11, 12 * k + 12])
        .collect();
    assert_eq!(lines, expected);
    assert!(first[0]["reason"]
        .as_str()
        .unwrap()
        .starts_with("not JSON: "));
    assert!(first[1]["reason"]
        .as_str()
        .unwrap()
        .contains("not a tool call in the claude shape"));
}

#[test]
fn triage_out_has_one_line_per_call() {
    let dir = scratch("triage-out");
    let calls = dir.join("calls.jsonl");
    let out = dir.join("outcomes.jsonl");
    gen_calls(&calls, "openai-chat", 1_200);
    let out_arg = out.display().to_string();
    let report = triage_json("openai-chat", &calls, &["--out", &out_arg]);
    let text = std::fs::read_to_string(&out).unwrap();
    let outcomes: Vec<Value> = text
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let malformed = report["malformed"]["count"].as_u64().unwrap();
    assert_eq!(outcomes.len() as u64, 1_200 - malformed);
    assert_eq!(
        outcomes[0],
        json!({
            "line": 1,
            "accepted": true,
            "response": {"summary": "run 0 finished"},
            "reasoning": "all checks passed",
            "recovery": null,
            "recoveries": [],
            "tool_result": success()
        })
    );
    assert_eq!(outcomes[2]["recovery"], "stringified");
    assert_eq!(outcomes[5]["cause"], "stringified_declined");
    assert_eq!(outcomes[8]["class"], "payload");
    assert_eq!(outcomes[8]["cause"], Value::Null);
    // Line 13 follows the two malformed lines 11 and 12.
    assert_eq!(outcomes[10]["line"], 13);
}

#[test]
fn triage_json_summary_parses() {
    let report = triage_json("claude", &data("calls.jsonl"), &[]);
    assert_eq!(report["lines"], 12);
    assert_eq!(report["calls"], 10);
    for key in [
        "accepted",
        "clean",
        "recovery",
        "rejected",
        "class",
        "cause",
        "malformed",
    ] {
        assert!(report.get(key).is_some(), "{key}");
    }
    assert_generated_counts(&report, 12);
}

#[test]
fn triage_table_reads_standard_input() {
    let calls = std::fs::read(data("calls.jsonl")).unwrap();
    let out = run_with(
        &["triage", "--provider", "claude", "--schema", &schema()],
        Some(&calls),
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let row = |label: &str| {
        out.stdout
            .lines()
            .find(|line| line.trim_start().starts_with(label))
            .map(|line| {
                line.split_whitespace()
                    .skip(1)
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .unwrap_or_else(|| panic!("no {label} row in {}", out.stdout))
    };
    assert_eq!(row("lines"), "12");
    assert_eq!(row("calls"), "10");
    assert_eq!(row("clean"), "2 20.00%");
    assert_eq!(row("stringified "), "1 10.00%");
    assert_eq!(row("reasoning_declined"), "1 10.00%");
    assert_eq!(row("malformed lines"), "lines 2");
    assert!(
        out.stdout.contains("  line 11: not JSON: "),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("\" Hope this helps!\""),
        "{}",
        out.stdout
    );
}

#[test]
fn sample_calls_file_matches_the_generator() {
    let dir = scratch("sample");
    let generated = dir.join("calls.jsonl");
    gen_calls(&generated, "claude", 12);
    assert_eq!(
        std::fs::read_to_string(generated).unwrap(),
        std::fs::read_to_string(data("calls.jsonl")).unwrap()
    );
}

#[test]
#[ignore = "a million lines: run with --release --ignored"]
fn triage_of_a_million_generated_lines() {
    let n = 1_000_008; // a multiple of 12
    let dir = scratch("million");
    let calls = dir.join("calls.jsonl");
    let out = dir.join("outcomes.jsonl");
    let started = Instant::now();
    gen_calls(&calls, "openai-chat", n);
    println!("generated {n} lines in {:?}", started.elapsed());
    let started = Instant::now();
    let out_arg = out.display().to_string();
    let report = triage_json("openai-chat", &calls, &["--out", &out_arg]);
    println!("triage --out of {n} lines: {:?}", started.elapsed());
    assert_generated_counts(&report, n as u64);
    gen_calls(&calls, "claude", n);
    let started = Instant::now();
    let report = triage_json("claude", &calls, &[]);
    println!(
        "triage (claude, no --out) of {n} lines: {:?}",
        started.elapsed()
    );
    assert_generated_counts(&report, n as u64);
}

// ------------------------------------------------------------------------------------------
// mcp, in a build without the server (the `mcp` module drives the server)
// ------------------------------------------------------------------------------------------

#[cfg(not(feature = "mcp"))]
#[test]
fn mcp_without_the_feature_names_the_feature() {
    let out = run(&["mcp", "--schema", &schema()]);
    assert_eq!(out.code, 2);
    assert_eq!(
        out.stderr,
        "submit-result: this submit-result was built without the MCP server (its default \
         feature `mcp` was turned off): install it with its default features (cargo install \
         submit-cli)\n"
    );
    assert_eq!(out.stdout, "");
}

#[test]
fn mcp_help_describes_the_server_in_every_build() {
    let out = run(&["mcp", "--help"]);
    assert_eq!(out.code, 0);
    for text in [
        "--listen <ADDR>",
        "--out <FILE>",
        "--validate <CMD>",
        "--schema <FILE>",
        "--token-file <FILE>",
        "--no-auth",
        "--allow-origin <ORIGIN>",
        "--read-timeout <SECONDS>",
        "--max-connections <N>",
        "--max-sessions <N>",
        "--session-timeout <SECONDS>",
        "--max-body <BYTES>",
    ] {
        assert!(out.stdout.contains(text), "{text}: {}", out.stdout);
    }
    assert!(!out.stdout.contains("--provider"), "{}", out.stdout);
}

/// One `tool_use` line a call, for `triage`.
fn claude_lines(inputs: &[Value]) -> String {
    inputs
        .iter()
        .map(|input| format!("{}\n", tool_use(input.clone())))
        .collect()
}

#[test]
fn triage_on_a_mixed_file_reports_each_recovery_kind_and_cause() {
    let object = r#"{"summary":"s"}"#;
    let call = json!({"reasoning": "r", "result": {"summary": "s"}}).to_string();
    let nested = claude_lines(&[
        json!({"reasoning": "r", "result": {"summary": "s"}}),
        json!({"reasoning": "r", "result": object}),
        json!({"reasoning": format!("r</reasoning>\n<parameter name=\"result\">{object}")}),
        json!({"reasoning": format!("r\", \"result\": {object}}}")}),
        json!(call),
        json!(format!("{call}}}")),
        json!(format!("```json\n{call}\n```")),
        json!({"arguments": {"reasoning": "r", "result": {"summary": "s"}}}),
        json!("{\"reasoning\":"),
        json!({"reasoning": "r"}),
        json!({"reasoning": "r", "result": format!("{object} and more")}),
        json!({"reasoning": "<parameter name=\"result\">oops"}),
        json!({"reasoning": "r", "result": {"summary": 1}}),
    ]);
    let dir = scratch("triage-mixed");
    let calls = dir.join("nested.jsonl");
    std::fs::write(&calls, nested).unwrap();
    let report = triage_json("claude", &calls, &[]);
    assert_eq!(report["calls"], 13);
    assert_eq!(report["clean"]["count"], 1);
    assert_eq!(report["accepted"]["count"], 8);
    for (kind, count) in [
        ("stringified", 1),
        ("reasoning_opener", 1),
        ("reasoning_member", 1),
        ("stringified_arguments", 3),
        ("trailing_closers", 1),
        ("fenced_arguments", 1),
        ("wrapped_arguments", 1),
        ("stringified_property", 0),
        ("closing_markup", 0),
    ] {
        assert_eq!(report["recovery"][kind]["count"], count, "{kind}: {report}");
    }
    for (cause, count) in [
        ("undecodable_arguments", 1),
        ("absent_or_mistyped", 1),
        ("stringified_declined", 1),
        ("reasoning_declined", 1),
        ("swallowed_parameter", 0),
    ] {
        assert_eq!(report["cause"][cause]["count"], count, "{cause}: {report}");
    }
    assert_eq!(report["class"]["payload"]["count"], 1);

    let schema = dir.join("flat_schema.json");
    let flat_schema = json!({"type": "object",
        "properties": {"summary": {"type": "string"}, "count": {"type": "integer"}},
        "required": ["summary"]});
    std::fs::write(&schema, flat_schema.to_string()).unwrap();
    let flat = claude_lines(&[
        json!({"reasoning": "r", "summary": "s", "count": "3"}),
        json!({"reasoning": "r", "summary": "s</parameter>\n</invoke>"}),
        json!({"reasoning": "r</parameter>\n<parameter name=\"summary\">s"}),
    ]);
    let calls = dir.join("flat.jsonl");
    std::fs::write(&calls, flat).unwrap();
    let schema = schema.display().to_string();
    let calls = calls.display().to_string();
    let out = run(&[
        "triage",
        "--provider",
        "claude",
        "--schema",
        &schema,
        "--flat",
        "--json",
        &calls,
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(report["recovery"]["stringified_property"]["count"], 1);
    assert_eq!(report["recovery"]["closing_markup"]["count"], 1);
    assert_eq!(report["cause"]["swallowed_parameter"]["count"], 1);
    let out = run(&[
        "triage",
        "--provider",
        "claude",
        "--schema",
        &schema,
        "--flat",
        &calls,
    ]);
    for row in [
        "  stringified_property",
        "  closing_markup",
        "    swallowed_parameter",
    ] {
        assert!(out.stdout.contains(row), "{row}: {}", out.stdout);
    }
}

#[test]
fn parse_prints_recoveries() {
    let call = json!({"reasoning": "r", "result": {"summary": "s"}}).to_string();
    let outcome = parse_stdin("claude", &tool_use(json!(format!("{call}}}"))));
    assert_eq!(
        outcome["recoveries"],
        json!([{"kind": "stringified_arguments", "parameters": []},
               {"kind": "trailing_closers", "parameters": []}])
    );
    assert_eq!(outcome["recovery"], Value::Null);
}

/// `parse --text` on `text`, with `more` arguments after the common ones.
fn parse_text(text: &[u8], more: &[&str]) -> Run {
    let schema = schema();
    let mut args = vec![
        "parse",
        "--provider",
        "openai-chat",
        "--schema",
        &schema,
        "--text",
    ];
    args.extend_from_slice(more);
    run_with(&args, Some(text))
}

const HERMES_TURN: &str = "Done.\n<tool_call>\n{\"name\": \"submit_result\", \"arguments\": {\"reasoning\": \"Checked the logs.\", \"result\": {\"summary\": \"disk full\"}}}\n</tool_call>";

#[test]
fn parse_text_reads_a_call_written_as_text_and_names_its_format() {
    let out = parse_text(HERMES_TURN.as_bytes(), &[]);
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    let outcome: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(
        outcome,
        json!({
            "accepted": true,
            "response": {"summary": "disk full"},
            "reasoning": "Checked the logs.",
            "recovery": null,
            "recoveries": [{"kind": "call_in_text", "parameters": [], "format": "hermes"}],
            "tool_result": success()
        })
    );
}

#[test]
fn parse_text_without_a_call_says_none_was_found() {
    let out = parse_text(b"The disk is full; I will submit next.", &[]);
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    let outcome: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(outcome, json!({"accepted": false, "found": false}));
}

#[test]
fn parse_text_of_a_turn_cut_at_the_limit_is_truncated() {
    let out = parse_text(HERMES_TURN.as_bytes(), &["--finish-reason", "length"]);
    let outcome: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(outcome["cause"], "truncated_call");
    // N counts from the call's first marker to the end of the text.
    let from_marker = HERMES_TURN.len() - HERMES_TURN.find("<tool_call>").unwrap();
    assert!(outcome["tool_result"]["error"]
        .as_str()
        .unwrap()
        .contains(&format!("after {from_marker} bytes of arguments")));
}

#[test]
fn parse_text_that_is_not_utf8_exits_2_saying_so() {
    let out = parse_text(b"<tool_call>\xff\xfe", &[]);
    assert_eq!(out.code, 2);
    assert_eq!(
        out.stderr.trim(),
        "submit-result: text from standard input is not UTF-8 (from byte 11): pass the model's \
         text as it arrived, in UTF-8"
    );
}

/// A Chat tool call named `multi_tool_use.parallel` holding `tool_uses`.
fn parallel_call(tool_uses: Value) -> Value {
    json!({"id": "call_1", "type": "function", "function": {
        "name": "multi_tool_use.parallel",
        "arguments": json!({"tool_uses": tool_uses}).to_string()}})
}

#[test]
fn parse_reads_the_one_entry_of_the_tool_in_a_parallel_wrapper() {
    let call = parallel_call(json!([
        {"recipient_name": "functions.lookup", "parameters": {"city": "Paris"}},
        {"recipient_name": "functions.submit_result",
         "parameters": {"reasoning": "Checked the logs.", "result": {"summary": "disk full"}}}
    ]));
    let outcome = parse_stdin("openai-chat", &call);
    assert_eq!(outcome["accepted"], true, "{outcome}");
    assert_eq!(
        outcome["recoveries"],
        json!([{"kind": "parallel_wrapper", "parameters": []}])
    );
}

#[test]
fn parse_of_a_parallel_wrapper_without_the_tool_says_none_was_found() {
    let call = parallel_call(json!([
        {"recipient_name": "functions.lookup", "parameters": {"city": "Paris"}}
    ]));
    assert_eq!(
        parse_stdin("openai-chat", &call),
        json!({"accepted": false, "found": false})
    );
}

#[test]
fn parse_declines_a_parallel_wrapper_with_two_entries_of_the_tool() {
    let entry = json!({"recipient_name": "functions.submit_result",
        "parameters": {"reasoning": "r", "result": {"summary": "x"}}});
    let outcome = parse_stdin("openai-chat", &parallel_call(json!([entry, entry])));
    assert_eq!(outcome["cause"], "undecodable_arguments");
    assert_eq!(
        outcome["tool_result"]["error"],
        "multi_tool_use.parallel is not a tool; call each tool directly"
    );
}
