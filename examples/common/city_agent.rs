//! The small agent every provider example runs: one lookup tool, then `submit_result`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;
use submit_result::agent::{
    executor::{Execution, Executor},
    message::Message,
    model::Model,
    run::Agent,
    tool::{Tool, ToolContext, ToolError},
};
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

/// Runs the agent on `model` and prints how it ended; exits with status 1 on an error.
pub fn main_with(model: impl Model + 'static) {
    if let Err(e) = run(model) {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

fn run(model: impl Model + 'static) -> Result<(), Box<dyn std::error::Error>> {
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
