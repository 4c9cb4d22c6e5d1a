//! Reading a model's text turn for a call written as text, each case against a baseline
//! measured in the same run.
//!
//! `cargo bench --bench text -- --warm-up-time 1 --measurement-time 3`
//!
//! - `turn_64k`: a 64 KiB text turn (prose, then a hermes call of the submit tool) against one
//!   `serde_json::from_str::<Value>` of the call's arguments plus a `memchr` scan of the text.
//! - adversarial text, at 1 MiB and 8 MiB, out of cache: markers repeated, nested and
//!   unterminated, and a pythonic list nested a million deep.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion, Throughput};
use serde_json::{json, Value};
use submit_result::{Options, StopReason, SubmitTool};

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[allow(dead_code, reason = "decoded to be timed")]
struct Report {
    summary: String,
    findings: Vec<Finding>,
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[allow(dead_code, reason = "decoded to be timed")]
struct Finding {
    id: u32,
    severity: String,
    file: String,
    detail: String,
    tags: Vec<String>,
}

fn tool() -> SubmitTool<Report> {
    SubmitTool::new(Options::new().payload_field_name("analysis")).expect("the bench tool builds")
}

/// The arguments of a clean call, about 8 KiB.
fn arguments() -> String {
    let findings: Vec<Value> = (0..40)
        .map(|id| {
            json!({"id": id, "severity": "high", "file": format!("src/module_{id}/lib.rs"),
                   "detail": "The cache key omits the toolchain version, so a \"stale\" artefact is reused.",
                   "tags": ["cache", "ci", "build"]})
        })
        .collect();
    let payload =
        json!({"summary": "The build failed because the cache key changed.", "findings": findings});
    json!({"reasoning": "I read every log.", "analysis": payload}).to_string()
}

/// Prose of `size` bytes, as a model writes before its call.
fn prose(size: usize) -> String {
    "I went through the build logs one by one and compared the cache keys of each run. "
        .repeat(size / 84 + 1)
        .chars()
        .take(size)
        .collect()
}

fn turn_64k(c: &mut Criterion) {
    let tool = tool();
    let arguments = arguments();
    let call = format!(
        "<tool_call>\n{{\"name\": \"submit_result\", \"arguments\": {arguments}}}\n</tool_call>"
    );
    let text = format!("{}\n{call}", prose((64 << 10) - call.len() - 1));
    assert!(tool
        .handle_text(&text, StopReason::Complete)
        .is_some_and(|o| o.is_accepted()));
    let mut group = c.benchmark_group("text");
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.bench_function("turn_64k_baseline", |b| {
        b.iter(|| {
            let found = memchr::memmem::find(black_box(text.as_bytes()), b"<tool_call>");
            (
                found,
                serde_json::from_str::<Value>(black_box(&arguments)).unwrap(),
            )
        })
    });
    group.bench_function("turn_64k", |b| {
        b.iter(|| tool.handle_text(black_box(&text), StopReason::Complete))
    });
    group.finish();
}

/// Adversarial text of about `size` bytes.
fn adversarial_input(shape: &str, size: usize) -> String {
    let fill = |piece: &str| piece.repeat(size / piece.len() + 1);
    match shape {
        "markers_repeated" => fill("<tool_call>"),
        "markers_unterminated" => format!(
            "<tool_call>\n{{\"name\": \"submit_result\", \"arguments\": {{\"reasoning\": \"{}",
            "a".repeat(size)
        ),
        "markers_nested" => fill("<tool_call><function=submit_result><parameter=reasoning>"),
        "pythonic_deep" => format!("[submit_result(reasoning={})]", "[".repeat(size)),
        "harmony_recipients" => fill("to=functions.submit_result "),
        _ => unreachable!(),
    }
}

/// Bytes written before each adversarial run, so 1 MiB and 8 MiB inputs both start out of
/// cache.
const EVICT_BYTES: usize = 32 << 20;

fn evict(buffer: &mut [u8]) {
    for (line, byte) in buffer.iter_mut().step_by(64).enumerate() {
        *byte = byte.wrapping_add(line as u8);
    }
    black_box(buffer);
}

fn adversarial(c: &mut Criterion) {
    let tool = tool();
    let mut buffer = vec![0u8; EVICT_BYTES];
    let mut group = c.benchmark_group("text_adversarial");
    group.sample_size(10);
    for shape in [
        "markers_repeated",
        "markers_unterminated",
        "markers_nested",
        "pythonic_deep",
        "harmony_recipients",
    ] {
        for mib in [1, 8] {
            let input = adversarial_input(shape, mib << 20);
            group.throughput(Throughput::Bytes(input.len() as u64));
            // What serde_json alone does with the same bytes, for its own 8 MiB / 1 MiB ratio.
            group.bench_with_input(
                BenchmarkId::new(format!("{shape}_baseline_value"), format!("{mib}MiB")),
                &input,
                |b, input| {
                    b.iter_batched(
                        || evict(&mut buffer),
                        |()| serde_json::from_str::<Value>(black_box(input)),
                        BatchSize::PerIteration,
                    )
                },
            );
            group.bench_with_input(
                BenchmarkId::new(shape, format!("{mib}MiB")),
                &input,
                |b, input| {
                    b.iter_batched(
                        || evict(&mut buffer),
                        |()| {
                            let outcome = tool.handle_text(black_box(input), StopReason::Complete);
                            assert!(
                                !outcome.as_ref().is_some_and(|o| o.is_accepted()),
                                "{shape}"
                            );
                            outcome
                        },
                        BatchSize::PerIteration,
                    )
                },
            );
        }
    }
    group.finish();
}

criterion_group!(benches, turn_64k, adversarial);
criterion_main!(benches);
