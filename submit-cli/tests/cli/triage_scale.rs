//! `triage` at scale: the same summary, `--out` and `--html` on four threads as on one, and
//! gzip and Zstandard archives read as the JSONL they hold (files and standard input), a cut
//! archive reported with the line reached after the summary of the lines before it.
//!
//! The lines are the corpus's vectors (`submit-core/tests/corpus`) framed as each provider's
//! calls and responses, and `gen_calls`'s generated mix of every outcome kind.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::{json, Value};
use submit_core::{Arguments, Provider};

use crate::commands::gen_calls;

const BIN: &str = env!("CARGO_BIN_EXE_submit-result");

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("scale-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The payload schema the corpus's vectors are written for (its `Sample` type), under the
/// payload name `analysis`.
fn corpus_schema(dir: &Path) -> PathBuf {
    let path = dir.join("schema.json");
    let schema = json!({"type": "object", "properties": {
        "summary": {"type": "string"},
        "blocked": {"type": "boolean"},
        "tags": {"type": "array", "items": {"type": "string"}}},
        "required": ["summary"]});
    std::fs::write(&path, schema.to_string()).unwrap();
    path
}

/// A call of `provider` (its command-line name) to `name` carrying `arguments`.
fn call<'a>(provider: &str, name: &str, arguments: impl Into<Arguments<'a>>) -> Value {
    let provider: Provider = provider.parse().unwrap();
    provider.call(name, Some("call_01"), arguments)
}

/// A whole response of `provider` whose turn is `text`, ended as usual.
fn text_response(provider: &str, text: &str) -> Value {
    match provider {
        "claude" => json!({"type": "message", "role": "assistant", "stop_reason": "end_turn",
                           "content": [{"type": "text", "text": text}]}),
        "gemini" => json!({"candidates": [{"finishReason": "STOP",
                           "content": {"role": "model", "parts": [{"text": text}]}}]}),
        "openai-chat" => json!({"object": "chat.completion", "choices": [{"index": 0,
                                "finish_reason": "stop",
                                "message": {"role": "assistant", "content": text}}]}),
        _ => json!({"object": "response", "status": "completed", "output": [{"type": "message",
                    "content": [{"type": "output_text", "text": text}]}]}),
    }
}

/// Every corpus vector as lines `provider` reads: its calls as bare calls, a wrapper as a
/// `multi_tool_use.parallel` call, a text as a whole response; each line also once more inside
/// a whole response (an Anthropic message, a chat completion, a Responses object, a Gemini
/// answer), so the lines mix bare calls and responses.
fn corpus_lines(provider: &str) -> Vec<String> {
    let files = submit_test_kit::corpus::files().unwrap();
    assert!(files.len() >= 20, "{} corpus files", files.len());
    let openai = provider.starts_with("openai");
    let mut lines = Vec::new();
    for (_, vectors) in files {
        for vector in vectors {
            let name = vector["options"]["name"]
                .as_str()
                .unwrap_or("submit_result");
            let calls: Vec<Value> = if let Some(arguments) = vector.get("arguments") {
                vec![call(provider, name, arguments)]
            } else if let Some(text) = vector["arguments_text"].as_str() {
                openai
                    .then(|| call(provider, name, text))
                    .into_iter()
                    .collect()
            } else if let Some(call) = vector.get("call") {
                let listed = vector["providers"].as_array().unwrap();
                listed
                    .iter()
                    .any(|p| p == provider)
                    .then(|| call.clone())
                    .into_iter()
                    .collect()
            } else if let Some(wrapper) = vector.get("wrapper") {
                let text = wrapper
                    .as_str()
                    .map_or_else(|| wrapper.to_string(), str::to_owned);
                openai
                    .then(|| call(provider, "multi_tool_use.parallel", &text))
                    .into_iter()
                    .collect()
            } else if let Some(text) = vector["text"].as_str() {
                lines.push(text_response(provider, text).to_string());
                Vec::new()
            } else {
                Vec::new()
            };
            for call in calls {
                lines.push(call.to_string());
                let response = match provider {
                    "claude" => json!({"type": "message", "stop_reason": "tool_use",
                                       "content": [call]}),
                    "gemini" => json!({"candidates": [{"finishReason": "STOP",
                                       "content": {"parts": [call]}}]}),
                    "openai-chat" => json!({"choices": [{"finish_reason": "tool_calls",
                                            "message": {"tool_calls": [call]}}]}),
                    _ => json!({"object": "response", "output": [call]}),
                };
                lines.push(response.to_string());
            }
        }
    }
    lines
}

/// What one triage printed (`--json`) and wrote (`--out`, `--html`).
#[derive(Debug, PartialEq)]
struct Triaged {
    report: String,
    out: Vec<u8>,
    html: Vec<u8>,
}

/// Runs `triage --json --out --html` on `calls` on `threads` threads, the tool's payload
/// named `payload`.
fn triage(
    dir: &Path,
    provider: &str,
    (schema, payload): (&Path, &str),
    calls: &Path,
    threads: u32,
) -> Triaged {
    let out = dir.join(format!("out-{threads}.jsonl"));
    let html = dir.join(format!("report-{threads}.html"));
    let output = Command::new(BIN)
        .args([
            "triage",
            "--provider",
            provider,
            "--payload",
            payload,
            "--json",
        ])
        .arg("--schema")
        .arg(schema)
        .arg("--threads")
        .arg(threads.to_string())
        .arg("--out")
        .arg(&out)
        .arg("--html")
        .arg(&html)
        .arg(calls)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    Triaged {
        report: String::from_utf8(output.stdout).unwrap(),
        out: std::fs::read(&out).unwrap(),
        html: std::fs::read(&html).unwrap(),
    }
}

#[test]
fn triage_on_four_threads_gives_the_summary_and_out_file_of_one_thread() {
    let dir = scratch("threads");
    let corpus = corpus_schema(&dir);
    let corpus = (corpus.as_path(), "analysis");
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/schema.json");
    let sample = (sample.as_path(), "result");
    let mut files = Vec::new();
    for provider in ["claude", "gemini", "openai-chat", "openai-responses"] {
        // The corpus lines 40 times over (each time at other line numbers), so that the file
        // spans many chunks of lines.
        let lines = corpus_lines(provider);
        let path = dir.join(format!("corpus-{provider}.jsonl"));
        let mut text = String::new();
        for _ in 0..40 {
            for line in &lines {
                text.push_str(line);
                text.push('\n');
            }
        }
        std::fs::write(&path, text).unwrap();
        files.push((provider, path, corpus));
    }
    let generated = dir.join("generated.jsonl");
    gen_calls(&generated, "openai-chat", 24_000);
    files.push(("openai-chat", generated, sample));
    for (provider, path, tool) in files {
        let size = std::fs::metadata(&path).unwrap().len();
        assert!(size > 2 << 20, "{}: {size} bytes", path.display());
        let one = triage(&dir, provider, tool, &path, 1);
        let four = triage(&dir, provider, tool, &path, 4);
        let report: Value = serde_json::from_str(&one.report).unwrap();
        assert!(
            report["accepted"]["count"].as_u64().unwrap() > 1_000
                && report["rejected"]["count"].as_u64().unwrap() > 1_000,
            "{}: {report}",
            path.display()
        );
        assert_eq!(
            one.out.iter().filter(|b| **b == b'\n').count() as u64,
            report["calls"].as_u64().unwrap()
        );
        assert_eq!(four.report, one.report, "{}", path.display());
        assert!(four.out == one.out, "{}: another --out", path.display());
        assert!(four.html == one.html, "{}: another --html", path.display());
    }
}

/// Runs `triage --json` with `args`, standard input `stdin`.
fn run(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    // The child may stop reading early (a cut archive): a broken pipe here is not an error.
    let _ = input.write_all(stdin);
    drop(input);
    child.wait_with_output().unwrap()
}

fn gzip(text: &[u8]) -> Vec<u8> {
    let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gzip.write_all(text).unwrap();
    gzip.finish().unwrap()
}

#[test]
fn triage_reads_gzip_and_zstd_as_the_jsonl_they_hold() {
    let dir = scratch("compressed");
    let plain = dir.join("calls.jsonl");
    gen_calls(&plain, "claude", 12_000);
    let text = std::fs::read(&plain).unwrap();
    let schema = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/schema.json");
    let schema = schema.to_str().unwrap();
    let triage = |path: &Path, stdin: &[u8]| {
        let path = path.to_str().unwrap();
        let mut args = vec![
            "triage",
            "--provider",
            "claude",
            "--schema",
            schema,
            "--json",
        ];
        args.push(path);
        let output = run(&args, stdin);
        assert!(
            output.status.success(),
            "{path}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout).unwrap()
    };
    let expected = triage(&plain, b"");
    let report: Value = serde_json::from_str(&expected).unwrap();
    assert_eq!(report["lines"], 12_000);
    // Two gzip members one after the other, as `cat a.gz b.gz` makes (and `zcat` reads).
    let half = text.len() / 2;
    let cut = half + text[half..].iter().position(|b| *b == b'\n').unwrap() + 1;
    let mut members = gzip(&text[..cut]);
    members.extend(gzip(&text[cut..]));
    let zstd = zstd::encode_all(&text[..], 3).unwrap();
    // Named for what they hold, and named for nothing: the first bytes tell.
    for (name, archive) in [
        ("calls.jsonl.gz", gzip(&text)),
        ("calls.jsonl.zst", zstd.clone()),
        ("calls.members.gz", members),
        ("gzip-calls.jsonl", gzip(&text)),
        ("zstd-calls.jsonl", zstd),
    ] {
        let path = dir.join(name);
        std::fs::write(&path, &archive).unwrap();
        assert_eq!(triage(&path, b""), expected, "{name}");
        assert_eq!(
            triage(Path::new("-"), &archive),
            expected,
            "{name} on standard input"
        );
    }
}

#[test]
fn a_truncated_gzip_is_reported_with_the_line_reached() {
    let dir = scratch("truncated");
    let plain = dir.join("calls.jsonl");
    gen_calls(&plain, "claude", 24_000);
    let text = std::fs::read(&plain).unwrap();
    let archive = gzip(&text);
    let schema = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/schema.json");
    let schema = schema.to_str().unwrap();
    // Cut at 60% of the archive, and with the last byte of its trailer gone (every line is
    // there, the archive's check is not).
    for kept in [archive.len() * 6 / 10, archive.len() - 1] {
        let path = dir.join("calls.jsonl.gz");
        std::fs::write(&path, &archive[..kept]).unwrap();
        let out = dir.join("out.jsonl");
        for threads in ["1", "2"] {
            let output = run(
                &[
                    "triage",
                    "--provider",
                    "claude",
                    "--schema",
                    schema,
                    "--json",
                    "--threads",
                    threads,
                    "--out",
                    out.to_str().unwrap(),
                    path.to_str().unwrap(),
                ],
                b"",
            );
            assert_eq!(
                output.status.code(),
                Some(2),
                "{kept} bytes, {threads} threads"
            );
            let stderr = String::from_utf8(output.stderr).unwrap();
            let report: Value = serde_json::from_slice(&output.stdout).unwrap();
            let lines = report["lines"].as_u64().unwrap();
            assert!(lines > 1_000 && lines <= 24_000, "{lines}");
            if kept == archive.len() - 1 {
                assert_eq!(lines, 24_000);
            }
            let reached = lines + 1;
            assert_eq!(stderr.lines().count(), 1, "{stderr}");
            assert!(
                stderr.starts_with(&format!(
                    "submit-result: cannot read calls `{}` at line {reached}: ",
                    path.display()
                )),
                "{stderr}"
            );
            assert!(
                stderr.contains(&format!("the summary counts the {lines} lines before it")),
                "{stderr}"
            );
            // The summary is the one of the lines read: those lines triaged alone give it.
            let whole: Vec<&[u8]> = text.split_inclusive(|b| *b == b'\n').collect();
            let read: Vec<u8> = whole[..lines as usize].concat();
            let alone = run(
                &[
                    "triage",
                    "--provider",
                    "claude",
                    "--schema",
                    schema,
                    "--json",
                ],
                &read,
            );
            assert_eq!(
                alone.stdout, output.stdout,
                "{kept} bytes, {threads} threads"
            );
            let written = std::fs::read_to_string(&out).unwrap();
            let last: Value = serde_json::from_str(written.lines().last().unwrap()).unwrap();
            assert!(last["line"].as_u64().unwrap() <= lines);
            assert_eq!(
                written.lines().count() as u64,
                report["calls"].as_u64().unwrap()
            );
        }
    }
}

#[test]
fn triage_help_describes_threads_and_compressed_input() {
    let output = Command::new(BIN)
        .args(["triage", "--help"])
        .output()
        .unwrap();
    assert!(output.status.success());
    // The words as they read, whatever the wrapping.
    let help = String::from_utf8(output.stdout).unwrap();
    let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
    for words in [
        "--threads <N>",
        "from 1 to 256 (default: one a core)",
        "gzip (.gz) or Zstandard (.zst)",
        "reported with the line reached",
    ] {
        assert!(help.contains(words), "{words:?} not in {help}");
    }
}

/// In a build without the `compression` feature (`.ci/run` runs this with
/// `--no-default-features`), a compressed input is refused, naming the feature and the way out.
#[cfg(not(feature = "compression"))]
#[test]
fn compressed_input_without_the_feature_names_the_feature() {
    let schema = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/schema.json");
    let schema = schema.to_str().unwrap();
    for (archive, format) in [
        (gzip(b"{}\n"), "gzip"),
        (zstd::encode_all(&b"{}\n"[..], 3).unwrap(), "Zstandard"),
    ] {
        let output = run(
            &["triage", "--provider", "claude", "--schema", schema],
            &archive,
        );
        assert_eq!(output.status.code(), Some(2));
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert!(
            stderr.starts_with(&format!(
                "submit-result: calls from standard input is a {format} archive, and this \
                 submit-result was built without compressed input (its default feature \
                 `compression` was turned off)"
            )),
            "{stderr}"
        );
    }
}
