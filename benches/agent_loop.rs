//! Loop overhead: a 50-turn scripted run with 4 tool calls a turn, against the same tools'
//! work done directly, in the same process.
//!
//! `cargo bench --bench agent_loop -- --warm-up-time 1 --measurement-time 2`

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use futures::executor::block_on;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use submit_result::agent::{
    message::{Message, Part},
    model::ScriptedModel,
    run::Agent,
    tool::{Tool, ToolContext, ToolError},
};

const TURNS: usize = 50;
const TOOLS: usize = 4;

#[derive(Deserialize, JsonSchema)]
struct Work {
    seed: u64,
}

/// The tools' own work: a few thousand rounds of a multiply-xorshift hash.
fn work(seed: u64) -> u64 {
    let mut x = seed | 1;
    for _ in 0..4_000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x = x.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
    x
}

fn agent() -> Agent {
    let mut script = ScriptedModel::new();
    for turn in 0..TURNS {
        let calls = (0..TOOLS)
            .map(|i| {
                Part::tool_request(
                    format!("tool{i}"),
                    None,
                    json!({ "seed": (turn * TOOLS + i) as u64 }),
                )
            })
            .collect();
        script = script.then_message(calls);
    }
    script = script.then_text("done");
    let mut agent = Agent::new(script).max_turns(TURNS);
    for i in 0..TOOLS {
        agent = agent.tool(Tool::new(
            format!("tool{i}"),
            "Hashes its seed.",
            |_ctx: ToolContext, w: Work| async move { Ok::<_, ToolError>(work(w.seed)) },
        ));
    }
    agent
}

fn direct() -> u64 {
    (0..TURNS * TOOLS)
        .map(|s| work(black_box(s as u64)))
        .fold(0, u64::wrapping_add)
}

fn run_loop(agent: Agent) -> usize {
    let response = block_on(agent.generate(vec![Message::user("go")])).expect("the run completes");
    response.messages.len()
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("agent_loop");
    group.bench_function("tools_direct_50x4", |b| b.iter(direct));
    group.bench_function("loop_50_turns_4_tools", |b| {
        b.iter_batched(agent, run_loop, BatchSize::SmallInput)
    });
    group.finish();

    // The ratio, measured here in the same process, for the report.
    let rounds = 20;
    let mut tools = Duration::ZERO;
    let mut looped = Duration::ZERO;
    for _ in 0..rounds {
        let start = Instant::now();
        black_box(direct());
        tools += start.elapsed();
        let a = agent();
        let start = Instant::now();
        black_box(run_loop(a));
        looped += start.elapsed();
    }
    let per_turn_overhead = looped.saturating_sub(tools) / (rounds * TURNS as u32);
    let per_turn_tools = tools / (rounds * TURNS as u32);
    println!(
        "loop/direct = {:.3}; per turn: tools' work {:?}, loop overhead {:?} ({:.1}% of the work)",
        looped.as_secs_f64() / tools.as_secs_f64(),
        per_turn_tools,
        per_turn_overhead,
        100.0 * per_turn_overhead.as_secs_f64() / per_turn_tools.as_secs_f64()
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);
