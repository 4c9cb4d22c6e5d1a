//! Runs a small agent on OpenAI Responses that ends by submitting a typed answer through
//! `submit_result`.
//!
//! Needs `OPENAI_API_KEY`; run with `cargo run --example openai_responses --features openai-responses`.

#[path = "common/city_agent.rs"]
mod city_agent;

use submit_result::agent::transport::OpenAiResponses;

fn main() {
    city_agent::main_with(OpenAiResponses::new("gpt-5"));
}
