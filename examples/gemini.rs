//! Runs a small agent on Gemini that ends by submitting a typed answer through
//! `submit_result`.
//!
//! Needs `GEMINI_API_KEY`; run with `cargo run --example gemini --features gemini`.

#[path = "common/city_agent.rs"]
mod city_agent;

use submit_result::agent::transport::Gemini;

fn main() {
    city_agent::main_with(Gemini::new("gemini-3-pro-preview"));
}
