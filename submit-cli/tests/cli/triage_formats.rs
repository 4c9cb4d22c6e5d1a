//! `triage` on the files people have: batch results, whole responses and conversations, in
//! each provider's own format (`tests/data/formats/README.md` says where each line comes from).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};

const BIN: &str = env!("CARGO_BIN_EXE_submit-result");

fn formats(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/formats")
        .join(name)
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("formats-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// What one triage printed (`--json`) and wrote (`--out`).
struct Triage {
    report: Value,
    outcomes: Vec<Value>,
}

/// Runs `triage --json --out` on `input` with a tool of `schema`, more `args` after.
fn triage(dir: &Path, input: &Path, schema: Value, args: &[&str]) -> Triage {
    let schema_path = dir.join("schema.json");
    std::fs::write(&schema_path, schema.to_string()).unwrap();
    let out = dir.join("outcomes.jsonl");
    let output = Command::new(BIN)
        .arg("triage")
        .arg("--schema")
        .arg(&schema_path)
        .arg("--json")
        .arg("--out")
        .arg(&out)
        .args(args)
        .arg(input)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "triage failed: {stderr}");
    let report = serde_json::from_slice(&output.stdout).unwrap();
    let outcomes = std::fs::read_to_string(&out)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    Triage { report, outcomes }
}

/// The flat tool named `name` whose payload is the call's arguments, as the recorded tools
/// were declared (no reasoning parameter).
fn recorded_tool(name: &'static str) -> Vec<&'static str> {
    vec![
        "--provider",
        "openai-chat",
        "--name",
        name,
        "--flat",
        "--omit-reasoning",
    ]
}

fn failed(report: &Value) -> Vec<(String, u64)> {
    report["failed_entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["status"].as_str().unwrap().to_owned(),
                e["count"].as_u64().unwrap(),
            )
        })
        .collect()
}

fn origins(outcomes: &[Value]) -> Vec<(u64, Option<&str>, Option<u64>, bool)> {
    outcomes
        .iter()
        .map(|o| {
            (
                o["line"].as_u64().unwrap(),
                o["custom_id"].as_str(),
                o["message"].as_u64(),
                o["accepted"].as_bool().unwrap(),
            )
        })
        .collect()
}

fn submit_schema() -> Value {
    json!({"type": "object", "properties": {"summary": {"type": "string"}}, "required": ["summary"]})
}

#[test]
fn openai_batch_output_of_chat_completions_and_responses() {
    let dir = scratch("openai-batch");
    let file = formats("openai_batch.jsonl");
    let city = json!({"type": "object", "required": ["city", "country"],
                      "properties": {"city": {"type": "string"}, "country": {"type": "string"}}});
    let chat = triage(&dir, &file, city, &recorded_tool("final_result"));
    assert_eq!(chat.report["lines"], 5);
    assert_eq!(chat.report["calls"], 1);
    assert_eq!(chat.report["accepted"]["count"], 1);
    assert_eq!(chat.report["malformed"]["count"], 0);
    // Line 2 called another tool only; line 3 is a Responses object without final_result.
    assert_eq!(chat.report["without_call"], 2);
    assert_eq!(
        failed(&chat.report),
        [
            ("openai batch: HTTP 400".to_owned(), 1),
            ("openai batch: error".to_owned(), 1)
        ]
    );
    assert_eq!(
        origins(&chat.outcomes),
        [(1, Some("request-1"), None, true)]
    );
    assert_eq!(
        chat.outcomes[0]["response"],
        json!({"city": "Mexico City", "country": "Mexico"})
    );

    let plan =
        json!({"type": "object", "required": ["plan"], "properties": {"plan": {"type": "string"}}});
    let responses = triage(&dir, &file, plan, &recorded_tool("update_plan"));
    assert_eq!(responses.report["calls"], 1);
    assert_eq!(
        origins(&responses.outcomes),
        [(3, Some("request-3"), None, true)]
    );
    let plan_text = responses.outcomes[0]["response"]["plan"].as_str().unwrap();
    assert!(plan_text.starts_with("Plan:\n1) Determine"), "{plan_text}");
}

#[test]
fn anthropic_batch_results_succeeded_errored_expired_and_canceled() {
    let dir = scratch("anthropic-batch");
    let file = formats("anthropic_batch.jsonl");
    // The recorded tool takes no arguments; an optional property lets --flat build on it.
    let optional = json!({"type": "object", "properties": {"country": {"type": "string"}}});
    let run = triage(&dir, &file, optional, &recorded_tool("get_user_country"));
    assert_eq!(run.report["lines"], 4);
    assert_eq!(run.report["calls"], 1);
    assert_eq!(run.report["accepted"]["count"], 1);
    assert_eq!(
        failed(&run.report),
        [
            ("anthropic batch: canceled".to_owned(), 1),
            ("anthropic batch: errored".to_owned(), 1),
            ("anthropic batch: expired".to_owned(), 1)
        ]
    );
    assert_eq!(
        origins(&run.outcomes),
        [(1, Some("my-first-request"), None, true)]
    );
    assert_eq!(run.outcomes[0]["response"], json!({}));
}

#[test]
fn gemini_batch_output_with_a_response_and_an_error() {
    let dir = scratch("gemini-batch");
    let file = formats("gemini_batch.jsonl");
    let location = json!({"type": "object", "properties": {"location": {"type": "string"}}});
    let run = triage(&dir, &file, location, &recorded_tool("weather"));
    assert_eq!(run.report["calls"], 1);
    assert_eq!(failed(&run.report), [("gemini batch: error".to_owned(), 1)]);
    assert_eq!(origins(&run.outcomes), [(1, Some("request-1"), None, true)]);
    assert_eq!(
        run.outcomes[0]["response"],
        json!({"location": "San Francisco"})
    );
}

#[test]
fn whole_responses_of_each_provider_give_their_submit_calls() {
    let dir = scratch("responses");
    let file = formats("responses.jsonl");
    for (name, line, schema) in [
        (
            "final_result",
            1,
            json!({"type": "object", "properties": {"city": {"type": "string"}, "country": {"type": "string"}}}),
        ),
        (
            "update_plan",
            2,
            json!({"type": "object", "properties": {"plan": {"type": "string"}}}),
        ),
        (
            "get_user_country",
            3,
            json!({"type": "object", "properties": {"country": {"type": "string"}}}),
        ),
        (
            "weather",
            4,
            json!({"type": "object", "properties": {"location": {"type": "string"}}}),
        ),
    ] {
        let run = triage(&dir, &file, schema, &recorded_tool(name));
        assert_eq!(run.report["calls"], 1, "{name}");
        assert_eq!(run.report["without_call"], 3, "{name}");
        assert_eq!(origins(&run.outcomes), [(line, None, None, true)], "{name}");
    }
}

#[test]
fn a_conversation_with_several_submit_calls_gives_each_with_its_message_index() {
    let dir = scratch("conversations");
    let file = formats("conversations.jsonl");
    let run = triage(
        &dir,
        &file,
        submit_schema(),
        &["--provider", "claude", "--input", "conversation"],
    );
    assert_eq!(run.report["lines"], 2);
    assert_eq!(run.report["calls"], 3);
    assert_eq!(
        origins(&run.outcomes),
        [
            (1, None, Some(4), false),
            (1, None, Some(6), true),
            (2, None, Some(1), true)
        ]
    );
    assert_eq!(run.outcomes[0]["cause"], "stringified_declined");
    assert_eq!(run.outcomes[1]["recovery"], Value::Null);
    assert_eq!(run.outcomes[2]["recovery"], "stringified");
    assert_eq!(run.outcomes[2]["response"], json!({"summary": "ok"}));
}

#[test]
fn a_recorded_request_body_is_read_as_its_conversation() {
    let dir = scratch("request-body");
    let file = formats("agent_run_request.json");
    let schema = json!({"type": "object", "properties": {"city": {"type": "string"}}});
    let run = triage(&dir, &file, schema, &recorded_tool("get_weather"));
    assert_eq!(run.report["calls"], 1);
    assert_eq!(origins(&run.outcomes), [(1, None, Some(4), true)]);
}

#[test]
fn a_mixed_file_is_read_line_by_line() {
    let dir = scratch("mixed");
    let line_of = |file: &str, n: usize| {
        std::fs::read_to_string(formats(file))
            .unwrap()
            .lines()
            .nth(n - 1)
            .unwrap()
            .to_owned()
    };
    let bare = json!({"type": "tool_use", "id": "toolu_9", "name": "submit_result",
                      "input": {"reasoning": "r", "result": {"summary": "bare"}}});
    let lines = [
        bare.to_string(),
        line_of("openai_batch.jsonl", 1),
        line_of("anthropic_batch.jsonl", 3),
        line_of("responses.jsonl", 4),
        line_of("conversations.jsonl", 1),
        "not json".to_owned(),
    ];
    let mixed = dir.join("mixed.jsonl");
    std::fs::write(&mixed, lines.join("\n") + "\n").unwrap();
    let run = triage(&dir, &mixed, submit_schema(), &["--provider", "claude"]);
    assert_eq!(run.report["lines"], 6);
    assert_eq!(run.report["calls"], 3);
    assert_eq!(run.report["accepted"]["count"], 2);
    assert_eq!(run.report["without_call"], 2);
    assert_eq!(
        failed(&run.report),
        [("anthropic batch: expired".to_owned(), 1)]
    );
    assert_eq!(run.report["malformed"]["count"], 1);
    assert_eq!(run.report["malformed"]["first"][0]["line"], 6);
    assert_eq!(
        origins(&run.outcomes),
        [
            (1, None, None, true),
            (5, None, Some(4), false),
            (5, None, Some(6), true)
        ]
    );
}

#[test]
fn a_line_not_in_the_chosen_format_is_malformed_with_the_reason() {
    let dir = scratch("forced");
    let file = formats("openai_batch.jsonl");
    let run = triage(
        &dir,
        &file,
        submit_schema(),
        &["--provider", "claude", "--input", "anthropic-batch"],
    );
    assert_eq!(run.report["calls"], 0);
    assert_eq!(run.report["malformed"]["count"], 5);
    let reason = run.report["malformed"]["first"][0]["reason"]
        .as_str()
        .unwrap();
    assert!(
        reason.contains("succeeded, errored, canceled or expired"),
        "{reason}"
    );
}

#[test]
fn the_table_counts_failed_entries_and_lines_without_a_call_apart() {
    let output = Command::new(BIN)
        .args(["triage", "--provider", "claude", "--schema"])
        .arg(formats("city.json"))
        .arg(formats("anthropic_batch.jsonl"))
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let table = String::from_utf8(output.stdout).unwrap();
    let row = |label: &str| {
        table
            .lines()
            .find(|line| line.trim_start().starts_with(label))
            .map(|line| {
                line.split_whitespace()
                    .last()
                    .unwrap_or_default()
                    .to_owned()
            })
    };
    // The tool is `submit_result`: the succeeded message calls another tool only.
    assert_eq!(row("calls").as_deref(), Some("0"), "{table}");
    assert_eq!(
        row("lines without submit call").as_deref(),
        Some("1"),
        "{table}"
    );
    assert!(
        table.contains("batch entries with no answer (not counted as calls):"),
        "{table}"
    );
    for status in [
        "anthropic batch: canceled",
        "anthropic batch: errored",
        "anthropic batch: expired",
    ] {
        assert_eq!(row(status).as_deref(), Some("1"), "{status}: {table}");
    }
}

// ------------------------------------------------------------------------------------------
// Responses cut at the output-token limit (`output_limit.jsonl`: written from each provider's
// documented response shape, not recorded; its README rows say so)
// ------------------------------------------------------------------------------------------

/// The lines `numbers` (from 1) of `output_limit.jsonl`, parsed.
fn cut_lines(numbers: &[usize]) -> Vec<Value> {
    let text = std::fs::read_to_string(formats("output_limit.jsonl")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    numbers
        .iter()
        .map(|n| serde_json::from_str(lines[n - 1]).unwrap())
        .collect()
}

/// Writes `lines` as a JSONL file in `dir`.
fn jsonl(dir: &Path, lines: &[Value]) -> PathBuf {
    let path = dir.join("lines.jsonl");
    let text: String = lines.iter().map(|line| format!("{line}\n")).collect();
    std::fs::write(&path, text).unwrap();
    path
}

/// The message of a submit call cut off after `bytes` bytes of arguments.
fn truncated_message(bytes: usize) -> String {
    format!(
        "the submit_result call was cut off at the output-token limit after {bytes} bytes of \
         arguments; call submit_result again with the complete result and keep it shorter (a \
         brief reasoning, no repeated content)"
    )
}

/// The outcome `--out` writes for a truncated call of line `line`.
fn truncated_outcome(line: u64, custom_id: Option<&str>, bytes: usize) -> Value {
    let message = truncated_message(bytes);
    let mut outcome = json!({
        "line": line,
        "accepted": false,
        "class": "parameter",
        "cause": "truncated_call",
        "trace_error": format!("parameter error: {message}"),
        "tool_result": {"error": message}
    });
    if let Some(id) = custom_id {
        outcome["custom_id"] = json!(id);
    }
    outcome
}

/// The payload of every clean-looking call in `output_limit.jsonl`, but the last of line 5.
fn disk_full() -> Value {
    json!({"summary": "disk full"})
}

// The arguments of lines 1 and 4 are objects (91 bytes as compact JSON); those of lines 2 and 3
// are text as the model wrote it, with spaces (95 bytes).
const OBJECT_BYTES: usize = 91;
const TEXT_BYTES: usize = 95;

#[test]
fn a_whole_response_cut_at_the_output_limit_counts_its_submit_call_as_truncated() {
    let dir = scratch("cut-responses");
    let file = jsonl(&dir, &cut_lines(&[1, 2, 3, 4]));
    let run = triage(&dir, &file, submit_schema(), &["--provider", "claude"]);
    assert_eq!(run.report["calls"], 4);
    assert_eq!(run.report["accepted"]["count"], 0);
    assert_eq!(run.report["class"]["parameter"]["count"], 4);
    assert_eq!(run.report["cause"]["truncated_call"]["count"], 4);
    assert_eq!(run.report["cause"]["truncated_call"]["share"], 1.0);
    assert_eq!(
        run.outcomes,
        [
            truncated_outcome(1, None, OBJECT_BYTES),
            truncated_outcome(2, None, TEXT_BYTES),
            truncated_outcome(3, None, TEXT_BYTES),
            truncated_outcome(4, None, OBJECT_BYTES),
        ]
    );
}

#[test]
fn the_same_responses_with_a_normal_stop_reason_are_accepted() {
    let dir = scratch("complete-responses");
    let mut lines = cut_lines(&[1, 2, 3, 4]);
    lines[0]["stop_reason"] = json!("tool_use");
    lines[1]["choices"][0]["finish_reason"] = json!("tool_calls");
    lines[2]["status"] = json!("completed");
    lines[2]["incomplete_details"] = Value::Null;
    lines[2]["output"][1]["status"] = json!("completed");
    lines[3]["candidates"][0]["finishReason"] = json!("STOP");
    let file = jsonl(&dir, &lines);
    let run = triage(&dir, &file, submit_schema(), &["--provider", "claude"]);
    assert_eq!(run.report["calls"], 4);
    assert_eq!(run.report["clean"]["count"], 4);
    assert_eq!(run.report["cause"]["truncated_call"]["count"], 0);
    for outcome in &run.outcomes {
        assert_eq!(outcome["response"], disk_full(), "{outcome}");
    }

    // A limit spelling of another provider is no limit: Anthropic's `max_tokens` in a chat
    // completion, OpenAI's `length` in an Anthropic message.
    lines[0]["stop_reason"] = json!("length");
    lines[1]["choices"][0]["finish_reason"] = json!("max_tokens");
    lines[2]["status"] = json!("completed");
    lines[2]["incomplete_details"] = json!({"reason": "max_output_tokens"});
    lines[3]["candidates"][0]["finishReason"] = json!("max_tokens");
    let file = jsonl(&dir, &lines);
    let run = triage(&dir, &file, submit_schema(), &["--provider", "claude"]);
    assert_eq!(run.report["clean"]["count"], 4);
}

#[test]
fn of_two_submit_calls_in_a_cut_response_the_first_is_handled_as_usual_and_the_last_truncated() {
    let dir = scratch("cut-two-calls");
    let file = jsonl(&dir, &cut_lines(&[5]));
    let run = triage(&dir, &file, submit_schema(), &["--provider", "claude"]);
    assert_eq!(run.report["calls"], 2);
    assert_eq!(run.report["clean"]["count"], 1);
    assert_eq!(run.report["cause"]["truncated_call"]["count"], 1);
    assert_eq!(run.outcomes[0]["accepted"], true);
    assert_eq!(run.outcomes[0]["response"], disk_full());
    // The last call's input, 100 bytes as compact JSON: its summary is "disk full at 03:12".
    assert_eq!(run.outcomes[1], truncated_outcome(1, None, 100));
}

#[test]
fn a_submit_call_before_another_tools_call_in_a_cut_response_is_handled_as_usual() {
    let dir = scratch("cut-other-tool-last");
    let file = jsonl(&dir, &cut_lines(&[6]));
    let run = triage(&dir, &file, submit_schema(), &["--provider", "claude"]);
    assert_eq!(run.report["calls"], 1);
    assert_eq!(run.report["clean"]["count"], 1);
    assert_eq!(run.report["cause"]["truncated_call"]["count"], 0);
    assert_eq!(run.outcomes[0]["response"], disk_full());
}

#[test]
fn batch_entries_carrying_a_cut_response_count_it_as_truncated() {
    let dir = scratch("cut-batch");
    let file = jsonl(&dir, &cut_lines(&[7, 8, 9, 10]));
    let run = triage(&dir, &file, submit_schema(), &["--provider", "claude"]);
    assert_eq!(run.report["calls"], 4);
    assert_eq!(run.report["cause"]["truncated_call"]["count"], 4);
    assert_eq!(
        run.outcomes,
        [
            truncated_outcome(1, Some("request-cut-1"), TEXT_BYTES),
            truncated_outcome(2, Some("request-cut-2"), TEXT_BYTES),
            truncated_outcome(3, Some("request-cut-3"), OBJECT_BYTES),
            truncated_outcome(4, Some("request-cut-4"), OBJECT_BYTES),
        ]
    );

    // Each batch format read as such, not only as `auto` tells it.
    for (format, line) in [
        ("openai-batch", 7),
        ("anthropic-batch", 9),
        ("gemini-batch", 10),
    ] {
        let file = jsonl(&dir, &cut_lines(&[line]));
        let run = triage(
            &dir,
            &file,
            submit_schema(),
            &["--provider", "claude", "--input", format],
        );
        assert_eq!(
            run.report["cause"]["truncated_call"]["count"], 1,
            "{format}"
        );
    }
}

#[test]
fn a_bare_call_and_a_conversation_carry_no_stop_reason_and_are_handled_as_usual() {
    let dir = scratch("cut-bare");
    let claude = &cut_lines(&[1])[0];
    let call = claude["content"][1].clone();
    let conversation = json!([
        {"role": "user", "content": "Why did the job fail?"},
        {"role": "assistant", "content": claude["content"].clone()}
    ]);
    let file = jsonl(&dir, &[call, conversation]);
    let run = triage(&dir, &file, submit_schema(), &["--provider", "claude"]);
    assert_eq!(run.report["calls"], 2);
    assert_eq!(run.report["clean"]["count"], 2);
    assert_eq!(run.report["cause"]["truncated_call"]["count"], 0);
}

#[test]
fn the_table_lists_truncated_calls_in_their_row_under_parameter() {
    let dir = scratch("cut-table");
    let schema = dir.join("schema.json");
    std::fs::write(&schema, submit_schema().to_string()).unwrap();
    let output = Command::new(BIN)
        .args(["triage", "--provider", "claude", "--schema"])
        .arg(&schema)
        .arg(formats("output_limit.jsonl"))
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let table = String::from_utf8(output.stdout).unwrap();
    let row = |label: &str| {
        table
            .lines()
            .position(|line| line.trim_start().starts_with(label))
            .and_then(|at| Some((at, table.lines().nth(at)?.to_owned())))
            .unwrap_or_else(|| panic!("no {label} row: {table}"))
    };
    // 11 calls: 9 truncated (lines 1 to 4, the last of line 5, 7 to 10), 2 accepted.
    let (parameter, _) = row("parameter ");
    let (truncated, line) = row("truncated_call");
    let (payload, _) = row("payload ");
    assert!(parameter < truncated && truncated < payload, "{table}");
    assert!(line.starts_with("    truncated_call "), "{table}");
    let numbers: Vec<&str> = line.split_whitespace().skip(1).collect();
    assert_eq!(numbers, ["9", "81.82%"], "{table}");
}

/// A recorded answer (Bedrock's Anthropic Messages, `submit-agent/tests/recordings/claude/`,
/// where its provenance is) that stopped at `max_tokens` while writing a `calculate` call,
/// which Anthropic answered as `"input": {}`: triage reads the body's stop reason and counts
/// the call as cut, not as a call missing its parameter.
#[test]
fn a_recorded_anthropic_answer_cut_at_max_tokens_counts_its_last_call_as_truncated() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../submit-agent/tests/recordings/claude/should-handle-multiple-tools-in-single-request.json");
    let recording: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let body = &recording[0]["response"];
    let schema = recording[0]["body"]["tools"][1]["input_schema"].clone();
    let dir = scratch("recorded-max-tokens");
    let input = jsonl(&dir, std::slice::from_ref(body));
    let mut args = recorded_tool("calculate");
    args[1] = "claude";
    let run = triage(&dir, &input, schema.clone(), &args);
    let message = "the calculate call was cut off at the output-token limit after 2 bytes of \
                   arguments; call calculate again with the complete result and keep it shorter \
                   (a brief reasoning, no repeated content)";
    assert_eq!(run.outcomes.len(), 1);
    assert_eq!(run.outcomes[0]["cause"], "truncated_call");
    assert_eq!(run.outcomes[0]["tool_result"]["error"], message);
    // The same body with a normal stop reason: the empty input is a missing parameter.
    let mut stopped = body.clone();
    stopped["stop_reason"] = json!("tool_use");
    let input = jsonl(&dir, &[stopped]);
    let run = triage(&dir, &input, schema, &args);
    assert_eq!(run.outcomes[0]["cause"], "absent_or_mistyped");
}

// ------------------------------------------------------------------------------------------
// Calls written as text (`text_calls.jsonl`: written from each provider's documented response
// shape, not recorded; its README rows say so)
// ------------------------------------------------------------------------------------------

/// The lines `numbers` (from 1) of `text_calls.jsonl`, parsed.
fn text_lines(numbers: &[usize]) -> Vec<Value> {
    let text = std::fs::read_to_string(formats("text_calls.jsonl")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    numbers
        .iter()
        .map(|n| serde_json::from_str(lines[n - 1]).unwrap())
        .collect()
}

/// The recoveries entry of a call read from text written in `format`.
fn call_in_text(format: &str) -> Value {
    json!([{"kind": "call_in_text", "parameters": [], "format": format}])
}

const LOGS: &str = "The logs show the disk filled up at 03:12.";

#[test]
fn a_response_of_each_provider_with_a_hermes_call_in_its_text_is_accepted_as_call_in_text() {
    let dir = scratch("text-calls");
    let file = jsonl(&dir, &text_lines(&[1, 2, 3, 4]));
    let run = triage(&dir, &file, submit_schema(), &["--provider", "claude"]);
    assert_eq!(run.report["calls"], 4);
    assert_eq!(run.report["without_call"], 0);
    assert_eq!(run.report["accepted"]["count"], 4);
    assert_eq!(run.report["clean"]["count"], 0);
    assert_eq!(run.report["recovery"]["call_in_text"]["count"], 4);
    assert_eq!(run.report["recovery"]["call_in_text"]["share"], 1.0);
    assert_eq!(run.report["call_in_text_format"]["hermes"]["count"], 4);
    assert_eq!(run.report["call_in_text_format"]["pythonic"]["count"], 0);
    assert_eq!(
        origins(&run.outcomes),
        [
            (1, None, None, true),
            (2, None, None, true),
            (3, None, None, true),
            (4, None, None, true)
        ]
    );
    for outcome in &run.outcomes {
        assert_eq!(outcome["response"], disk_full(), "{outcome}");
        assert_eq!(outcome["reasoning"], LOGS, "{outcome}");
        assert_eq!(outcome["recovery"], Value::Null, "{outcome}");
        assert_eq!(outcome["recoveries"], call_in_text("hermes"), "{outcome}");
    }
}

#[test]
fn a_gemini_malformed_function_call_is_read_from_its_finish_message_as_pythonic() {
    let dir = scratch("text-malformed");
    let file = jsonl(&dir, &text_lines(&[5]));
    let run = triage(&dir, &file, submit_schema(), &["--provider", "claude"]);
    assert_eq!(run.report["calls"], 1);
    assert_eq!(run.report["call_in_text_format"]["pythonic"]["count"], 1);
    assert_eq!(run.outcomes[0]["accepted"], true);
    assert_eq!(run.outcomes[0]["response"], json!({"summary": "x"}));
    assert_eq!(run.outcomes[0]["reasoning"], "r");
    assert_eq!(run.outcomes[0]["recoveries"], call_in_text("pythonic"));

    // The same finish message under another finish reason is not read.
    let mut stopped = text_lines(&[5]);
    stopped[0]["candidates"][0]["finishReason"] = json!("STOP");
    let file = jsonl(&dir, &stopped);
    let run = triage(&dir, &file, submit_schema(), &["--provider", "claude"]);
    assert_eq!(run.report["calls"], 0);
    assert_eq!(run.report["without_call"], 1);
}

#[test]
fn a_response_of_plain_prose_still_counts_as_holding_no_submit_call() {
    let dir = scratch("text-prose");
    let file = jsonl(&dir, &text_lines(&[6]));
    let run = triage(&dir, &file, submit_schema(), &["--provider", "claude"]);
    assert_eq!(run.report["lines"], 1);
    assert_eq!(run.report["calls"], 0);
    assert_eq!(run.report["without_call"], 1);
    assert_eq!(run.report["recovery"]["call_in_text"]["count"], 0);
    assert!(run.outcomes.is_empty());
}

#[test]
fn a_call_in_text_cut_at_the_output_limit_counts_as_truncated() {
    let dir = scratch("text-cut");
    let mut lines = text_lines(&[7]);
    let file = jsonl(&dir, &lines);
    let run = triage(&dir, &file, submit_schema(), &["--provider", "claude"]);
    assert_eq!(run.report["calls"], 1);
    assert_eq!(run.report["cause"]["truncated_call"]["count"], 1);
    assert_eq!(run.report["recovery"]["call_in_text"]["count"], 0);
    // 82 bytes from the call's first marker, `<tool_call>`.
    assert_eq!(run.outcomes, [truncated_outcome(1, None, 82)]);

    // With a normal stop reason the same cut call is read, and cannot be.
    lines[0]["choices"][0]["finish_reason"] = json!("stop");
    let file = jsonl(&dir, &lines);
    let run = triage(&dir, &file, submit_schema(), &["--provider", "claude"]);
    assert_eq!(run.report["cause"]["truncated_call"]["count"], 0);
    assert_eq!(run.report["cause"]["undecodable_arguments"]["count"], 1);
    let error = run.outcomes[0]["tool_result"]["error"].as_str().unwrap();
    assert!(
        error.starts_with(
            "your reply contains a hermes call of submit_result written as text, which is not run"
        ),
        "{error}"
    );
}

#[test]
fn a_call_in_thinking_or_reasoning_is_not_read_as_text() {
    let dir = scratch("text-reasoning");
    // An Anthropic thinking block, a chat message's reasoning_content, a Responses reasoning
    // summary, a Gemini thought part: each holds the hermes call; the visible text is prose.
    let file = jsonl(&dir, &text_lines(&[8, 9, 10, 11]));
    let run = triage(&dir, &file, submit_schema(), &["--provider", "claude"]);
    assert_eq!(run.report["lines"], 4);
    assert_eq!(run.report["calls"], 0);
    assert_eq!(run.report["without_call"], 4);
    assert!(run.outcomes.is_empty());
}

#[test]
fn batch_entries_carrying_a_response_with_a_call_in_text_count_it_with_their_custom_id() {
    let dir = scratch("text-batch");
    let file = jsonl(&dir, &text_lines(&[12, 13, 14]));
    let run = triage(&dir, &file, submit_schema(), &["--provider", "claude"]);
    assert_eq!(run.report["call_in_text_format"]["hermes"]["count"], 3);
    assert_eq!(
        origins(&run.outcomes),
        [
            (1, Some("request-text-1"), None, true),
            (2, Some("request-text-2"), None, true),
            (3, Some("request-text-3"), None, true)
        ]
    );
    for outcome in &run.outcomes {
        assert_eq!(outcome["recoveries"], call_in_text("hermes"), "{outcome}");
    }
    // Each batch format, and a whole response, read as such, not only as `auto` tells it.
    for (format, line) in [
        ("openai-batch", 12),
        ("anthropic-batch", 13),
        ("gemini-batch", 14),
        ("response", 1),
    ] {
        let file = jsonl(&dir, &text_lines(&[line]));
        let args = ["--provider", "claude", "--input", format];
        let run = triage(&dir, &file, submit_schema(), &args);
        assert_eq!(
            run.report["recovery"]["call_in_text"]["count"], 1,
            "{format}"
        );
    }
}

#[test]
fn a_conversation_and_a_bare_call_line_are_not_read_as_text() {
    let dir = scratch("text-conversation");
    // Line 15: a Chat conversation whose assistant message writes the call as text.
    let conversation = text_lines(&[15]).remove(0);
    let text = conversation[1]["content"].clone();
    let file = jsonl(&dir, &[conversation, text]);
    let run = triage(&dir, &file, submit_schema(), &["--provider", "openai-chat"]);
    assert_eq!(run.report["lines"], 2);
    assert_eq!(run.report["calls"], 0);
    assert_eq!(run.report["without_call"], 1);
    // The text alone on a line (a JSON string) is a bare call line: not a call, not read.
    assert_eq!(run.report["malformed"]["count"], 1);
    assert_eq!(run.report["malformed"]["first"][0]["line"], 2);
    assert!(run.outcomes.is_empty());
}

#[test]
fn the_table_shows_call_in_text_with_its_count_per_format() {
    let dir = scratch("text-table");
    let schema = dir.join("schema.json");
    std::fs::write(&schema, submit_schema().to_string()).unwrap();
    let output = Command::new(BIN)
        .args(["triage", "--provider", "claude", "--schema"])
        .arg(&schema)
        .arg(formats("text_calls.jsonl"))
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let table = String::from_utf8(output.stdout).unwrap();
    let row = |label: &str| {
        let at = table
            .lines()
            .position(|line| line.trim_start().starts_with(label))
            .unwrap_or_else(|| panic!("no {label} row: {table}"));
        let line = table.lines().nth(at).unwrap_or_default();
        let numbers: Vec<&str> = line[label.len() + line.find(label).unwrap_or(0)..]
            .split_whitespace()
            .collect();
        (at, line.to_owned(), numbers.join(" "))
    };
    // 9 calls: 7 hermes (lines 1 to 4, 12 to 14), 1 pythonic (line 5), 1 truncated (line 7).
    let (kind, line, numbers) = row("call_in_text ");
    assert!(line.starts_with("  call_in_text "), "{table}");
    assert_eq!(numbers, "8 88.89%", "{table}");
    let (hermes, line, numbers) = row("call_in_text (hermes)");
    assert!(line.starts_with("    call_in_text (hermes)"), "{table}");
    assert_eq!(numbers, "7 77.78%", "{table}");
    let (pythonic, _, numbers) = row("call_in_text (pythonic)");
    assert_eq!(numbers, "1 11.11%", "{table}");
    let (next_kind, _, _) = row("parallel_wrapper");
    assert!(
        kind < hermes && hermes < pythonic && pythonic < next_kind,
        "{table}"
    );
    assert!(!table.contains("call_in_text (glm)"), "{table}");
    assert_eq!(row("lines without submit call").2, "6", "{table}");
}

/// A `multi_tool_use.parallel` call, on a line of its own or in a chat completion: its one
/// entry of the tool is handled as that call (the line is not taken as a call of the tool
/// whose payload is the wrapper); a wrapper with no entry of the tool holds no submit call.
#[test]
fn a_parallel_wrapper_is_read_for_its_entry_of_the_tool_on_a_line_or_in_a_response() {
    let entry = json!({"recipient_name": "functions.submit_result",
        "parameters": {"reasoning": "r", "result": {"summary": "disk full"}}});
    let other = json!({"recipient_name": "functions.lookup", "parameters": {"q": "x"}});
    let call = |uses: Value| {
        json!({"id": "call_1", "type": "function", "function": {
            "name": "multi_tool_use.parallel",
            "arguments": json!({"tool_uses": uses}).to_string()}})
    };
    let response = |uses: Value| {
        json!({"id": "c", "object": "chat.completion", "choices": [{"index": 0,
            "message": {"role": "assistant", "content": null, "tool_calls": [call(uses)]},
            "finish_reason": "tool_calls"}]})
    };
    let dir = scratch("parallel-wrapper");
    let lines = [
        call(json!([other, entry])),
        response(json!([other, entry])),
        response(json!([other])),
    ];
    let input = jsonl(&dir, &lines);
    let run = triage(
        &dir,
        &input,
        submit_schema(),
        &["--provider", "openai-chat"],
    );
    assert_eq!(run.outcomes.len(), 2, "{:?}", run.outcomes);
    for outcome in &run.outcomes {
        assert_eq!(outcome["response"], disk_full(), "{outcome}");
        assert_eq!(
            outcome["recoveries"],
            json!([{"kind": "parallel_wrapper", "parameters": []}])
        );
    }
    assert_eq!(run.report["recovery"]["parallel_wrapper"]["count"], 2);
}
