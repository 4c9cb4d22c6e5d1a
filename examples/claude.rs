//! Runs a small agent on Claude (Anthropic Messages) that ends by submitting a typed answer through
//! `submit_result`.
//!
//! Needs `ANTHROPIC_API_KEY`; run with `cargo run --example claude --features claude`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;
use submit_result::agent::transport::Claude;
use submit_result::agent::{Agent, Execution, Executor, Message, Tool, ToolContext, ToolError};
use submit_result::{Options, SubmitTool};

/// The answer the run ends with.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
struct Answer {
    /// The city asked about.
    city: String,
    /// Its population.
    population: u64,
}

#[derive(Deserialize, JsonSchema)]
struct Lookup {
    /// The city to look up.
    city: String,
}

fn main() {
    if let Err(e) = run() {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let model = Claude::new("claude-sonnet-4-5").max_tokens(1024);
    let lookup = Tool::new(
        "lookup",
        "Looks up a city's population.",
        |_ctx: ToolContext, input: Lookup| async move {
            match input.city.as_str() {
                "Paris" => Ok(json!({"city": "Paris", "population": 2102650})),
                other => Err(ToolError::fail_message(format!("unknown city {other}"))),
            }
        },
    );
    let agent = Agent::new(model).tool(lookup).max_turns(4);
    let executor = Executor::new(agent, SubmitTool::<Answer>::new(Options::new())?)?;
    let messages = vec![
        Message::system(
            "You answer questions about cities. Use lookup, then finish by calling submit_result.",
        ),
        Message::user("How many people live in Paris?"),
    ];
    match futures::executor::block_on(executor.run(messages))? {
        Execution::Committed(committed) => {
            println!("answer:    {:?}", committed.response);
            println!("reasoning: {}", committed.reasoning);
            println!(
                "tokens:    {} in, {} out",
                committed.usage.input_tokens, committed.usage.output_tokens
            );
        }
        Execution::Interrupted(response) => {
            println!("interrupted: {:?}", response.finish_message);
        }
    }
    Ok(())
}
