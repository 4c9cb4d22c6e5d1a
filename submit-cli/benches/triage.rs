//! Triage throughput against the cost of only decoding the same lines as JSON.
//!
//! Two groups:
//!
//! - `triage_12000_lines`: `tests/data/calls.jsonl` (one line of each outcome kind and two
//!   malformed lines) repeated to 12,000 lines, from memory. Compare `triage` and `triage_out`
//!   with `json_decode_only` in the same run: their ratio is what handling a call costs over
//!   reading it.
//! - `triage_200k_chat_calls`: 200,000 OpenAI Chat calls (80% clean, 10% with the payload
//!   JSON-encoded into a string, 5% with closers after the arguments, 5% cut part way as at the
//!   output-token limit), 96 MB, read from a file as the command line reads it. The floor
//!   (`floor_two_parses`) reads the same file line by line and decodes each line, then its
//!   argument text, as `serde_json::Value`s; `triage_threads_1` and `triage_threads_2` triage
//!   it on one and two threads; `triage_gzip_threads_1` and `triage_gzip_threads_2` triage its
//!   gzip archive, beside `zcat_to_dev_null`, the system's `zcat` decoding the same archive.
//!
//! Before the group, the `submit-result` binary triages the 200,000 calls (and their archive)
//! at 1, 2, 4, 8 and 16 threads under `/usr/bin/time`, and its peak resident memory is printed
//! for each; then the group's cases take turns for three rounds and the best wall time and
//! CPU time (of this process, every thread) of each is printed with its ratio to the floor's,
//! with the machine's load average before and after.
//!
//! ```text
//! cargo bench -p submit-cli --bench triage -- --warm-up-time 1 --measurement-time 2
//! cargo bench -p submit-cli --bench triage -- triage_200k --warm-up-time 2 --measurement-time 20
//! ```

use std::fs::File;
use std::hint::black_box;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use criterion::{Criterion, Throughput};
use serde_json::{json, Value};
use submit_cli::__private::InputFormat;
use submit_cli::__private::{handler, open, reader, run, Input};
use submit_core::{Options, Provider, SubmitTool};

const REPEAT: usize = 1_000;

/// The calls of the large group.
const CALLS: usize = 200_000;

fn data(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name);
    std::fs::read(path).expect("test data")
}

fn bench_triage(c: &mut Criterion) {
    let sample = data("calls.jsonl");
    let lines = sample.iter().filter(|b| **b == b'\n').count() * REPEAT;
    let calls = sample.repeat(REPEAT);
    let schema: Value = serde_json::from_slice(&data("schema.json")).expect("schema");
    let tool = SubmitTool::from_json_schema(schema, Options::new()).expect("tool");

    let mut group = c.benchmark_group("triage_12000_lines");
    group.throughput(Throughput::Elements(lines as u64));
    group.bench_function("json_decode_only", |b| {
        b.iter(|| {
            let mut objects = 0usize;
            for line in calls.split(|b| *b == b'\n') {
                if let Ok(value) = serde_json::from_slice::<Value>(line) {
                    objects += usize::from(value.is_object());
                }
            }
            black_box(objects)
        })
    });
    group.bench_function("triage", |b| {
        b.iter(|| {
            let input = Input::new(calls.as_slice());
            let summary = run(input, None, handler(&tool, Provider::Claude)).expect("triage");
            black_box(summary.calls())
        })
    });
    group.bench_function("triage_out", |b| {
        b.iter(|| {
            let input = Input::new(calls.as_slice());
            let mut sink = std::io::sink();
            let summary =
                run(input, Some(&mut sink), handler(&tool, Provider::Claude)).expect("triage");
            black_box(summary.calls())
        })
    });
    group.finish();
}

/// The tool of the large group: a review with a summary and findings.
fn review_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "summary": {"type": "string"},
            "findings": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "integer"},
                        "title": {"type": "string"},
                        "severity": {"type": "string", "enum": ["low", "medium", "high"]},
                        "score": {"type": "number"},
                        "tags": {"type": "array", "items": {"type": "string"}}
                    },
                    "required": ["id", "title", "severity", "score", "tags"]
                }
            }
        },
        "required": ["summary", "findings"]
    })
}

/// Call `i` of the large group, as one JSONL line (without its newline): every twentieth
/// call of each kind in turn, so any stretch of 20 lines holds 16 clean calls, 2 stringified,
/// 1 with closers and 1 cut.
fn chat_call(i: usize) -> String {
    let severity = ["low", "medium", "high"][i % 3];
    let payload = json!({
        "summary": format!("Run {i}: the cache key changed."),
        "findings": [
            {"id": i, "title": "The cache key omits the toolchain version", "severity": severity,
             "score": (i % 100) as f64 / 10.0, "tags": ["cache", "ci"]},
            {"id": i + 1, "title": "A stale artefact was reused", "severity": "low",
             "score": 0.5, "tags": ["build"]}
        ]
    });
    let reasoning = "I compared the cache keys of every step.";
    let arguments = match i % 20 {
        // The payload JSON-encoded into a string.
        16 | 17 => json!({"reasoning": reasoning, "result": payload.to_string()}).to_string(),
        // Closers after the arguments object: an extra brace (Qwen-Agent issue 734 shows
        // `{}}`), or the invoke tag of a chat template.
        18 => {
            let closers = if i % 40 == 18 { "}" } else { "\n</invoke>" };
            format!(
                "{}{closers}",
                json!({"reasoning": reasoning, "result": payload})
            )
        }
        // Cut part way, as a call is at the output-token limit.
        19 => {
            let whole = json!({"reasoning": reasoning, "result": payload}).to_string();
            let mut at = whole.len() * 2 / 3;
            while !whole.is_char_boundary(at) {
                at -= 1;
            }
            whole.get(..at).unwrap_or_default().to_owned()
        }
        _ => json!({"reasoning": reasoning, "result": payload}).to_string(),
    };
    json!({"id": format!("call_{i:08}"), "type": "function",
           "function": {"name": "submit_result", "arguments": arguments}})
    .to_string()
}

/// The files of the large group: the calls, and their gzip archive.
fn large_files() -> (PathBuf, PathBuf) {
    let dir = std::env::temp_dir().join(format!("submit-cli-triage-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("bench directory");
    let plain = dir.join("chat_calls.jsonl");
    let gzip = dir.join("chat_calls.jsonl.gz");
    let mut text = Vec::new();
    for i in 0..CALLS {
        text.extend_from_slice(chat_call(i).as_bytes());
        text.push(b'\n');
    }
    std::fs::write(&plain, &text).expect("calls file");
    let mut archive = flate2::write::GzEncoder::new(
        File::create(&gzip).expect("gzip file"),
        flate2::Compression::default(),
    );
    archive.write_all(&text).expect("gzip");
    archive.finish().expect("gzip");
    println!(
        "{CALLS} calls: {} bytes, gzip {} bytes",
        text.len(),
        std::fs::metadata(&gzip).map(|m| m.len()).unwrap_or(0)
    );
    (plain, gzip)
}

/// The machine's load averages over 1, 5 and 15 minutes.
fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|text| {
            text.split_whitespace()
                .take(3)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_else(|_| "unknown".to_owned())
}

/// The `submit-result` binary's peak resident memory triaging `calls` on each thread count.
fn peak_memory(calls: &Path, schema: &Path) {
    if !Path::new("/usr/bin/time").exists() {
        println!("no /usr/bin/time: peak memory not measured");
        return;
    }
    for threads in [1, 2, 4, 8, 16] {
        let output = Command::new("/usr/bin/time")
            .args(["-f", "%M"])
            .arg(env!("CARGO_BIN_EXE_submit-result"))
            .args(["triage", "--provider", "openai-chat", "--json", "--threads"])
            .arg(threads.to_string())
            .arg("--schema")
            .arg(schema)
            .arg(calls)
            .stdout(Stdio::null())
            .output()
            .expect("submit-result");
        let stderr = String::from_utf8_lossy(&output.stderr);
        let kib: u64 = stderr
            .lines()
            .last()
            .and_then(|line| line.trim().parse().ok())
            .unwrap_or(0);
        println!(
            "peak resident memory, {} at {threads} threads: {:.1} MiB",
            calls.display(),
            kib as f64 / 1024.0
        );
    }
}

/// This process's CPU time so far (user and system, all threads), from `/proc/self/stat`, in
/// clock ticks of 10 ms; `None` where there is no such file.
fn cpu_ticks() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The fields after the command name in parentheses: utime and stime are the 12th and 13th.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let user: u64 = fields.get(11)?.parse().ok()?;
    let system: u64 = fields.get(12)?.parse().ok()?;
    Some(user + system)
}

/// Each case's best wall and CPU time over `rounds` rounds, the cases taking turns so that a
/// change in the machine's load reaches them alike, printed with their ratios to the first.
fn side_by_side(cases: &[(&str, &dyn Fn())], rounds: usize) {
    let mut best = vec![(f64::INFINITY, f64::INFINITY); cases.len()];
    for _ in 0..rounds {
        for ((_, case), best) in cases.iter().zip(&mut best) {
            let ticks = cpu_ticks().unwrap_or(0);
            let started = std::time::Instant::now();
            case();
            let wall = started.elapsed().as_secs_f64();
            let cpu = cpu_ticks().unwrap_or(0).saturating_sub(ticks) as f64 / 100.0;
            *best = (best.0.min(wall), best.1.min(cpu));
        }
    }
    let (base_wall, base_cpu) = best[0];
    for ((name, _), (wall, cpu)) in cases.iter().zip(&best) {
        println!(
            "{name:<24} wall {wall:6.3} s ({:5.2}x)   cpu {cpu:6.2} s ({:5.2}x)",
            wall / base_wall,
            cpu / base_cpu
        );
    }
}

fn bench_large(c: &mut Criterion) {
    println!("load average before: {}", load());
    let (plain, gzip) = large_files();
    let schema = review_schema();
    let schema_path = plain.with_file_name("schema.json");
    std::fs::write(&schema_path, schema.to_string()).expect("schema file");
    peak_memory(&plain, &schema_path);
    peak_memory(&gzip, &schema_path);
    let tool = SubmitTool::from_json_schema(schema, Options::new()).expect("tool");
    let triage = |path: &Path, threads: usize| {
        let file = File::open(path).expect("calls");
        let size = file.metadata().ok().map(|m| m.len());
        let source = open(file).expect("open");
        let input = Input::from_source(source, size).threads(threads);
        let summary = run(
            input,
            None,
            reader(&tool, Provider::OpenAiChat, InputFormat::Auto),
        )
        .expect("triage");
        assert_eq!(summary.calls(), CALLS as u64);
        black_box(summary.clean);
    };

    let floor = || {
        let mut lines = BufReader::with_capacity(256 * 1024, File::open(&plain).expect("calls"));
        let mut line = Vec::new();
        let mut objects = 0usize;
        loop {
            line.clear();
            if lines.read_until(b'\n', &mut line).expect("read") == 0 {
                break;
            }
            let Ok(call) = serde_json::from_slice::<Value>(&line) else {
                continue;
            };
            let text = call
                .get("function")
                .and_then(|f| f.get("arguments"))
                .and_then(Value::as_str)
                .unwrap_or_default();
            if let Ok(arguments) = serde_json::from_str::<Value>(text) {
                objects += usize::from(arguments.is_object());
            }
        }
        black_box(objects);
    };
    let zcat = || {
        let status = Command::new("zcat")
            .arg(&gzip)
            .stdout(Stdio::null())
            .status()
            .expect("zcat");
        assert!(status.success());
    };
    // The CPU time of `zcat` is its own process's, not this one's: only its wall time counts.
    println!("side by side, best of 3 rounds (ratios to the floor):");
    side_by_side(
        &[
            ("floor_two_parses", &floor),
            ("triage_threads_1", &|| triage(&plain, 1)),
            ("triage_threads_2", &|| triage(&plain, 2)),
            ("triage_gzip_threads_1", &|| triage(&gzip, 1)),
            ("triage_gzip_threads_2", &|| triage(&gzip, 2)),
            ("zcat_to_dev_null", &zcat),
        ],
        3,
    );

    let mut group = c.benchmark_group("triage_200k_chat_calls");
    group.sample_size(10);
    group.throughput(Throughput::Elements(CALLS as u64));
    group.bench_function("floor_two_parses", |b| b.iter(floor));
    group.bench_function("triage_threads_1", |b| b.iter(|| triage(&plain, 1)));
    group.bench_function("triage_threads_2", |b| b.iter(|| triage(&plain, 2)));
    group.bench_function("triage_gzip_threads_1", |b| b.iter(|| triage(&gzip, 1)));
    group.bench_function("triage_gzip_threads_2", |b| b.iter(|| triage(&gzip, 2)));
    group.bench_function("zcat_to_dev_null", |b| b.iter(zcat));
    group.finish();
    println!("load average after: {}", load());
    if let Some(dir) = plain.parent() {
        let _ = std::fs::remove_dir_all(dir);
    }
}

fn main() {
    let mut criterion = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .configure_from_args();
    bench_triage(&mut criterion);
    bench_large(&mut criterion);
    criterion.final_summary();
}
