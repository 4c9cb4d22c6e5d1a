//! Runs a small agent on OpenAI Chat Completions that ends by submitting a typed answer through
//! `submit_result`.
//!
//! Needs `OPENAI_API_KEY`; run with `cargo run --example openai_chat --features openai-chat`.

#[path = "common/city_agent.rs"]
mod city_agent;

use submit_result::agent::transport::OpenAiChat;

fn main() {
    city_agent::main_with(OpenAiChat::new("gpt-4.1-nano"));
}
