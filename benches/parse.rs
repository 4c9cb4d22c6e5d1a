//! Parsing speed, each case against a baseline measured in the same run (see BENCHMARKS.md).

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion, Throughput};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use submit_result::{Arguments, Options, SubmitTool};

#[derive(Debug, Deserialize, Serialize, schemars::JsonSchema)]
struct Report {
    summary: String,
    findings: Vec<Finding>,
}

#[derive(Debug, Deserialize, Serialize, schemars::JsonSchema)]
struct Finding {
    id: u32,
    severity: String,
    file: String,
    detail: String,
    tags: Vec<String>,
}

/// The true floor of a clean call: a typed decode of the whole arguments object from the same
/// text, as a program that trusted the model would write it.
#[derive(Debug, Deserialize)]
#[allow(dead_code, reason = "decoded to be timed")]
struct Whole {
    reasoning: String,
    analysis: Report,
}

fn tool() -> SubmitTool<Report> {
    SubmitTool::new(Options::new().payload_field_name("analysis")).expect("the bench tool builds")
}

/// A realistic payload of about 8 KiB.
fn payload() -> String {
    let findings: Vec<Value> = (0..40)
        .map(|id| {
            json!({"id": id, "severity": "high", "file": format!("src/module_{id}/lib.rs"),
                   "detail": "The cache key omits the toolchain version, so a \"stale\" artefact is reused.",
                   "tags": ["cache", "ci", "build"]})
        })
        .collect();
    json!({"summary": "The build failed because the cache key changed.", "findings": findings})
        .to_string()
}

fn clean(c: &mut Criterion) {
    let tool = tool();
    let payload = payload();
    let arguments = format!(r#"{{"reasoning":"I read every log.","analysis":{payload}}}"#);
    let value: Value = serde_json::from_str(&arguments).unwrap();
    let payload_value = value["analysis"].clone();
    let mut group = c.benchmark_group("clean");
    group.throughput(Throughput::Bytes(payload.len() as u64));
    group.bench_function("baseline_from_str", |b| {
        b.iter(|| serde_json::from_str::<Report>(black_box(&payload)).unwrap())
    });
    group.bench_function("handle_text", |b| {
        b.iter(|| tool.handle_arguments(Arguments::Text(black_box(&arguments))))
    });
    group.bench_function("floor_whole_from_str", |b| {
        b.iter(|| serde_json::from_str::<Whole>(black_box(&arguments)).unwrap())
    });
    group.bench_function("baseline_from_value", |b| {
        b.iter(|| Report::deserialize(black_box(&payload_value)).unwrap())
    });
    group.bench_function("handle_value", |b| {
        b.iter(|| tool.handle_arguments(Arguments::Value(black_box(&value))))
    });
    group.finish();
}

fn stringified(c: &mut Criterion) {
    let tool = tool();
    let payload = payload();
    let arguments =
        json!({"reasoning": "I read every log.", "analysis": format!("{payload}</analysis>\n</invoke>\n")})
            .to_string();
    let mut group = c.benchmark_group("stringified");
    group.throughput(Throughput::Bytes(payload.len() as u64));
    group.bench_function("baseline_from_str", |b| {
        b.iter(|| serde_json::from_str::<Report>(black_box(&payload)).unwrap())
    });
    group.bench_function("handle_text", |b| {
        b.iter(|| tool.handle_arguments(Arguments::Text(black_box(&arguments))))
    });
    group.finish();
}

fn reasoning_64k(c: &mut Criterion) {
    let tool = tool();
    let payload = payload();
    let sentence = "The job log shows the cache restore step matched an old key; ";
    let prose: String = sentence.repeat((64 << 10) / sentence.len() + 1);
    let reasoning = format!(
        "{}</reasoning>\n<parameter name=\"analysis\">{payload}</parameter>",
        &prose[..64 << 10]
    );
    let arguments = json!({ "reasoning": reasoning }).to_string();
    let mut group = c.benchmark_group("reasoning_64k");
    group.throughput(Throughput::Bytes(arguments.len() as u64));
    group.bench_function("baseline_parse_once", |b| {
        b.iter(|| serde_json::from_str::<Value>(black_box(&arguments)).unwrap())
    });
    group.bench_function("handle_text", |b| {
        b.iter(|| {
            let outcome = tool.handle_arguments(Arguments::Text(black_box(&arguments)));
            assert!(outcome.is_accepted());
            outcome
        })
    });
    group.finish();
}

/// Adversarial arguments of `size` bytes, by shape.
fn adversarial_input(shape: &str, size: usize) -> String {
    match shape {
        "open_braces" => "{".repeat(size),
        "nested_payload" => format!(
            r#"{{"reasoning":"r","analysis":{{"a":{}{}}}}}"#,
            "[".repeat(size / 2),
            "]".repeat(size / 2)
        ),
        "openers_in_reasoning" => format!(
            r#"{{"reasoning":"{}"}}"#,
            "<parameter name=".repeat(size / 16)
        ),
        "close_tags_after_payload" => format!(
            r#"{{"reasoning":"<parameter name=\"analysis\">{{}}{} x"}}"#,
            "</x>".repeat(size / 4)
        ),
        "member_marks_in_reasoning" => format!(
            r#"{{"reasoning":"{}"}}"#,
            r#"\"analysis\" "#.repeat(size / 14)
        ),
        // The recoveries of the arguments and the checks beside them: a fence around arguments
        // whose reasoning fills it, a wrapper nested deep, a payload whose members are all
        // distinct but the last, and a flat string full of parameter openers.
        "long_fence" => format!(
            "```json\n{{\"reasoning\":\"{}\",\"analysis\":{}}}\n```",
            "a".repeat(size),
            payload()
        ),
        "deep_wrapper" => format!(
            "{}{{}}{}",
            r#"{"a":"#.repeat(size / 5),
            "}".repeat(size / 5)
        ),
        "many_duplicates" => {
            let members: String = (0..size / 12).map(|i| format!(r#""k{i:07}":1,"#)).collect();
            format!(r#"{{"reasoning":"r","analysis":{{{members}"k0000000":1}}}}"#)
        }
        "openers_in_flat_string" => format!(
            r#"{{"reasoning":"r","findings":[],"summary":"{}"}}"#,
            r#"<parameter name=\"findings\">"#.repeat(size / 30)
        ),
        _ => unreachable!(),
    }
}

/// Bytes written before each adversarial run: more than the L2 cache holds, so every input,
/// 1 MiB or 8 MiB, starts out of it. With the input left warm between runs, the 1 MiB inputs
/// stay in L2 and the 8 MiB ones do not, and the 8 MiB / 1 MiB ratio then measures the cache
/// as much as the parser's scaling.
const EVICT_BYTES: usize = 32 << 20;

/// Touches every cache line of `buffer`.
fn evict(buffer: &mut [u8]) {
    for (line, byte) in buffer.iter_mut().step_by(64).enumerate() {
        *byte = byte.wrapping_add(line as u8);
    }
    black_box(buffer);
}

fn adversarial(c: &mut Criterion) {
    run_adversarial(
        c,
        "adversarial",
        &[
            "open_braces",
            "nested_payload",
            "openers_in_reasoning",
            "close_tags_after_payload",
            "member_marks_in_reasoning",
        ],
    );
}

/// Adversarial shapes for the recoveries of the arguments as a whole, duplicate members and
/// flat strings; `long_fence` and `openers_in_flat_string` are accepted, the others rejected.
fn adversarial_recoveries(c: &mut Criterion) {
    run_adversarial(
        c,
        "adversarial_recoveries",
        &[
            "long_fence",
            "deep_wrapper",
            "many_duplicates",
            "openers_in_flat_string",
        ],
    );
}

fn run_adversarial(c: &mut Criterion, name: &str, shapes: &[&str]) {
    let nested = tool();
    let flat = SubmitTool::<Report>::new(Options::new().flat_payload(true))
        .expect("the flat bench tool builds");
    let mut buffer = vec![0u8; EVICT_BYTES];
    let mut group = c.benchmark_group(name);
    group.sample_size(10);
    for &shape in shapes {
        let tool = if shape == "openers_in_flat_string" {
            &flat
        } else {
            &nested
        };
        let accepted = matches!(shape, "long_fence" | "openers_in_flat_string");
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
                    // Built outside the timed routine; the eviction is untimed too.
                    b.iter_batched(
                        || evict(&mut buffer),
                        |()| {
                            let outcome = tool.handle_arguments(Arguments::Text(black_box(input)));
                            assert_eq!(outcome.is_accepted(), accepted, "{shape}");
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

criterion_group!(
    benches,
    clean,
    stringified,
    reasoning_64k,
    adversarial,
    adversarial_recoveries
);
criterion_main!(benches);
