//! An agent using an MCP server's tools: the example starts itself again with `--serve` as a
//! small MCP server (over stdio) with a city lookup, registers the tools the server lists,
//! and runs a scripted model that looks a city up and ends with `submit_result`.
//!
//! Run with `cargo run --example mcp --features mcp`.

use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use futures::executor::block_on;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool as McpTool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use submit_result::agent::mcp::McpServer;
use submit_result::agent::{
    executor::{Execution, Executor},
    message::{Message, Part},
    model::ScriptedModel,
    run::Agent,
};
use submit_result::{Options, SubmitTool};

/// The answer the run ends with.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub struct Answer {
    /// The city asked about.
    pub city: String,
    /// Its population.
    pub population: u64,
}

/// The MCP server: one tool, `lookup_city`.
struct Cities;

impl ServerHandler for Cities {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let schema = json!({
            "type": "object",
            "properties": {"city": {"type": "string", "description": "The city to look up."}},
            "required": ["city"]
        });
        let Value::Object(schema) = schema else {
            return Err(ErrorData::internal_error(
                "the schema is not an object",
                None,
            ));
        };
        Ok(ListToolsResult {
            tools: vec![McpTool::new(
                "lookup_city",
                "Looks up a city's population.",
                Arc::new(schema),
            )],
            ..Default::default()
        })
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let city = request
            .arguments
            .as_ref()
            .and_then(|args| args.get("city"))
            .and_then(Value::as_str)
            .unwrap_or_default();
        let result = match (request.name.as_ref(), city) {
            ("lookup_city", "Paris") => {
                CallToolResult::structured(json!({"city": "Paris", "population": 2102650}))
            }
            ("lookup_city", other) => CallToolResult::error(vec![ContentBlock::text(format!(
                "unknown city {other:?}: try Paris"
            ))]),
            (other, _) => {
                return Err(ErrorData::invalid_params(
                    format!("no tool named {other}"),
                    None,
                ))
            }
        };
        Ok(result.into())
    }
}

/// Serves the example's MCP server over stdio until the client disconnects.
pub fn serve() -> Result<(), Box<dyn std::error::Error>> {
    serve_stdio(Cities)
}

/// Serves `handler` as an MCP server over this process's standard input and output until the
/// client disconnects, on a runtime of its own (rmcp's server half and its stdio transport).
pub fn serve_stdio<S: ServerHandler>(handler: S) -> Result<(), Box<dyn std::error::Error>> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let service = handler.serve(rmcp::transport::stdio()).await?;
        service.waiting().await?;
        Ok(())
    })
}

#[path = "common/conversation.rs"]
mod conversation;
use conversation::print_conversation;

/// Runs the agent against the MCP server `server` starts; `Err` when any step does not go as
/// described.
pub fn run(server: Command) -> Result<Answer, Box<dyn std::error::Error>> {
    let server = block_on(
        McpServer::child(server)
            .timeout(Duration::from_secs(30))
            .connect(),
    )?;
    println!(
        "connected to {:?}, tools: {:?}",
        server.server_info(),
        server.tools().iter().map(|t| t.name()).collect::<Vec<_>>()
    );

    let model = ScriptedModel::new()
        .then_message(vec![Part::tool_request(
            "lookup_city",
            None,
            json!({"city": "Lutetia"}),
        )])
        .then_message(vec![Part::tool_request(
            "lookup_city",
            None,
            json!({"city": "Paris"}),
        )])
        .then_message(vec![Part::tool_request(
            "submit_result",
            None,
            json!({"reasoning": "The lookup gave Paris's population.",
                   "result": {"city": "Paris", "population": 2102650}}),
        )]);
    let agent = server
        .tools()
        .into_iter()
        .fold(Agent::new(model), |agent, tool| agent.tool(tool))
        .max_turns(6);
    let executor = Executor::new(agent, SubmitTool::<Answer>::new(Options::new())?)?;
    let messages = vec![
        Message::system(
            "You answer questions about cities. Use lookup_city, then finish by calling submit_result.",
        ),
        Message::user("How many people live in Paris?"),
    ];
    match block_on(executor.run(messages))? {
        Execution::Committed(committed) => {
            print_conversation("the run", &committed.messages);
            println!("answer:    {:?}", committed.response);
            println!("reasoning: {}", committed.reasoning);
            let failed = committed
                .messages
                .iter()
                .flat_map(|m| m.content.iter())
                .filter(|p| p.is_tool_error())
                .count();
            if failed != 1 {
                return Err(format!("expected one failed lookup, saw {failed}").into());
            }
            Ok(committed.response)
        }
        Execution::Interrupted(_) => Err("the run paused, but nothing here interrupts".into()),
    }
}

/// Starts itself with `--serve` as the MCP server, or serves when given `--serve`.
pub fn main() -> Result<(), Box<dyn std::error::Error>> {
    if std::env::args().nth(1).as_deref() == Some("--serve") {
        serve()?;
        return Ok(());
    }
    let mut command = Command::new(std::env::current_exe()?);
    command.arg("--serve");
    let answer = run(command)?;
    if answer.city != "Paris" || answer.population != 2_102_650 {
        return Err(format!("unexpected answer {answer:?}").into());
    }
    Ok(())
}
