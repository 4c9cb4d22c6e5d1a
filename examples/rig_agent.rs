//! A rig agent that ends by submitting a typed answer through `submit_result`.
//!
//! The model is rig's own OpenAI Chat Completions client; its HTTP client is rig's scripted
//! double, answering with a Chat Completions body in which the model JSON-encoded its payload
//! into a string (`submit-agent/tests/transport/openai_chat/stringified_submit.json`, written
//! in the shape of the recorded bodies beside it). rig's agent loop dispatches the call to the submit tool
//! with the raw argument text; the tool recovers the payload, commits it, and the handle, as
//! the agent's hook, ends the run before another model call is spent.
//!
//! Run with `cargo run --example rig_agent --features rig` (no network, no key).

use std::error::Error;

use rig_agent::agent::AgentBuilder;
use rig_agent::tool::server::ToolServer;
use rig_agent::tool::RegisteredTool;
use rig_core::providers::openai::OpenAIConfig;
use rig_http::test_utils::{MockHttpResponse, SequencedHttpClient};
use submit_result::agent::executor::{validator_fn, Finding};
use submit_result::rig::RigSubmitTool;
use submit_result::{Options, SubmitTool};

/// The agent's answer.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct CityFacts {
    city: String,
    population: u64,
}

/// The model's only turn, as the provider would send it.
const REPLY: &str =
    include_str!("../submit-agent/tests/transport/openai_chat/stringified_submit.json");

fn main() -> Result<(), Box<dyn Error>> {
    let tool = SubmitTool::<CityFacts>::new(Options::new())?;
    let submit = RigSubmitTool::new(tool).validator(validator_fn(|facts: &CityFacts, _: &str| {
        Ok(if facts.population == 0 {
            vec![Finding::new(
                "population",
                "a city has people: look the figure up",
            )]
        } else {
            vec![]
        })
    }));
    let accepted = submit.accepted();

    let http = SequencedHttpClient::new([MockHttpResponse::success(REPLY)]);
    let model = OpenAIConfig::new("no key needed")
        .connect(http.clone())
        .chat("gpt-4.1");
    let tools = ToolServer::new()
        .registered_tool(RegisteredTool::from_handler(submit)?)
        .run();
    let agent = AgentBuilder::new(model)
        .preamble("Answer by calling submit_result with the city and its population.")
        .tool_server_handle(tools)
        .add_hook(accepted.clone())
        .build();

    let run = futures::executor::block_on(std::future::IntoFuture::into_future(
        agent.prompt("How many people live in Paris?").max_turns(4),
    ));
    let Some(committed) = accepted.take() else {
        return Err(match run {
            Err(error) => format!("the run ended without a committed submit: {error}").into(),
            Ok(response) => format!(
                "the model answered without submitting: {}",
                response.output()
            )
            .into(),
        });
    };
    println!(
        "committed: {} has {} people (recovered: {:?})",
        committed.response.city,
        committed.response.population,
        committed.recovery()
    );
    println!(
        "model calls: {} (the run ended at the commit)",
        http.requests().len()
    );
    Ok(())
}
