//! Runs a small agent on Claude (Anthropic Messages) that ends by submitting a typed answer through
//! `submit_result`.
//!
//! Needs `ANTHROPIC_API_KEY`; run with `cargo run --example claude --features claude`.

#[path = "common/city_agent.rs"]
mod city_agent;

use submit_result::agent::transport::Claude;

fn main() {
    city_agent::main_with(Claude::new("claude-sonnet-4-5").max_tokens(1024));
}
