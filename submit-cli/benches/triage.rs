//! Triage throughput against the cost of only decoding the same lines as JSON.
//!
//! The input is `tests/data/calls.jsonl` (one line of each outcome kind and two malformed
//! lines) repeated to 12,000 lines. Compare `triage` and `triage_out` with `json_decode_only`
//! in the same run: their ratio is what handling a call costs over reading it.
//!
//! ```text
//! cargo bench -p submit-cli --bench triage -- --warm-up-time 1 --measurement-time 2
//! ```

use std::hint::black_box;
use std::path::Path;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use serde_json::Value;
use submit_cli::triage::{handler, run, Input};
use submit_core::{Options, Provider, SubmitTool};

const REPEAT: usize = 1_000;

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
            let input = Input {
                reader: calls.as_slice(),
                size: None,
                progress: false,
            };
            let summary = run(input, None, handler(&tool, Provider::Claude)).expect("triage");
            black_box(summary.calls())
        })
    });
    group.bench_function("triage_out", |b| {
        b.iter(|| {
            let input = Input {
                reader: calls.as_slice(),
                size: None,
                progress: false,
            };
            let mut sink = std::io::sink();
            let summary =
                run(input, Some(&mut sink), handler(&tool, Provider::Claude)).expect("triage");
            black_box(summary.calls())
        })
    });
    group.finish();
}

criterion_group!(benches, bench_triage);
criterion_main!(benches);
