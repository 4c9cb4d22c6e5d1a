//! Building a submit tool against reading a definition from a built one.
//!
//! Building reflects the schema, validates the options and computes all four definitions;
//! `definition()` clones the cached value. Both run in this process, so their ratio is the
//! figure to read.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use schemars::JsonSchema;
use serde::Deserialize;
use submit_result::{Options, Provider, SubmitTool};

/// A review of a code change.
#[allow(dead_code, reason = "fields are read through the schema only")]
#[derive(Deserialize, JsonSchema)]
struct Review {
    /// One-paragraph summary of the change.
    summary: String,
    /// How risky it is to merge the change.
    risk: Risk,
    /// Findings, most severe first.
    findings: Vec<Finding>,
    /// Number of lines the change touches.
    lines_changed: u32,
    /// Notes for the author, if any.
    notes: Option<String>,
}

/// Risk of merging.
#[allow(dead_code, reason = "variants are read through the schema only")]
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Risk {
    Low,
    Medium,
    High,
}

/// One problem found in the change.
#[allow(dead_code, reason = "fields are read through the schema only")]
#[derive(Deserialize, JsonSchema)]
struct Finding {
    /// Path of the file, relative to the repository root.
    file: String,
    /// 1-based line number, when the finding is about one line.
    line: Option<u64>,
    /// What is wrong and how to fix it.
    message: String,
}

fn options() -> Options {
    Options::new()
        .tool_name("submit_review")
        .payload_field_name("review")
}

fn bench_definition(c: &mut Criterion) {
    let mut group = c.benchmark_group("definition");
    group.bench_function("build_tool", |b| {
        b.iter(|| SubmitTool::<Review>::new(black_box(options())))
    });
    group.bench_function("build_tool_strict", |b| {
        b.iter(|| SubmitTool::<Review>::new(black_box(options().strict(true))))
    });
    let tool = match SubmitTool::<Review>::new(options()) {
        Ok(tool) => tool,
        Err(error) => panic!("the bench type builds: {error}"),
    };
    for provider in [Provider::Claude, Provider::Gemini] {
        group.bench_function(format!("cached_{provider}"), |b| {
            b.iter(|| black_box(&tool).definition(black_box(provider)))
        });
    }
    group.finish();
}

criterion_group!(benches, bench_definition);
criterion_main!(benches);
