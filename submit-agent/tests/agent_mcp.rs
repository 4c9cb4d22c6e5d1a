//! MCP tools in the loop, against a real MCP server: this test binary, started again with
//! `SUBMIT_TEST_MCP_SERVER` set and only `serve_entry` selected, serves the rmcp server
//! defined below over stdio (with the variable `example`, the example's server).
//!
//! The server's tools and answers are written here: they are the cases the loop must handle
//! (text, an image, an embedded resource, `isError`, a crash, a hang), not recordings.

#[path = "../../examples/mcp.rs"]
#[allow(dead_code, reason = "only the example's `run` is tested")]
mod example;

use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

use futures::executor::block_on;
use serde_json::{json, Value};
use submit_agent::mcp::{McpError, McpServer};
use submit_agent::{
    hook::{ToolApproval, ToolCallDecision},
    message::{MediaSource, Message, Part, PartKind},
    model::ScriptedModel,
    run::{Agent, Resume, RunErrorKind, SoftToolErrors},
};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, JsonObject,
    ListToolsResult, PaginatedRequestParams, ResourceContents, ServerCapabilities, ServerConfig,
    Tool as McpTool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};

/// The variable that makes this binary an MCP server: `tests` (the server below) or `example`.
const SERVE: &str = "SUBMIT_TEST_MCP_SERVER";

/// A test's error, shown when it fails.
type Failed = Box<dyn std::error::Error>;

/// A 1×1 PNG, the smallest real image a server sends.
const PNG_BASE64: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

fn object(value: Value) -> JsonObject {
    match value {
        Value::Object(map) => map,
        _ => JsonObject::new(),
    }
}

fn city_schema() -> Value {
    json!({
        "type": "object",
        "properties": {"city": {"type": "string", "description": "The city's name."}},
        "required": ["city"]
    })
}

fn forecast_schema() -> Value {
    json!({
        "type": "object",
        "properties": {"city": {"type": "string"}, "high": {"type": "integer"}},
        "required": ["city", "high"]
    })
}

fn divide_schema() -> Value {
    json!({
        "type": "object",
        "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
        "required": ["a", "b"]
    })
}

/// The test server: its tools and what each answers.
#[derive(Default)]
struct TestServer {
    deletions: AtomicUsize,
}

fn listed() -> Vec<McpTool> {
    let empty = json!({"type": "object", "properties": {}});
    vec![
        McpTool::new(
            "weather",
            "Current weather in a city.",
            Arc::new(object(city_schema())),
        ),
        McpTool::new(
            "divide",
            "Divides a by b.",
            Arc::new(object(divide_schema())),
        ),
        McpTool::new(
            "chart",
            "Draws a chart of a city's temperatures.",
            Arc::new(object(city_schema())),
        ),
        {
            let mut forecast = McpTool::new(
                "forecast",
                "Tomorrow's forecast for a city.",
                Arc::new(object(city_schema())),
            );
            forecast.output_schema = Some(Arc::new(object(forecast_schema())));
            forecast
        },
        McpTool::new(
            "delete_file",
            "Deletes a file.",
            Arc::new(object(json!({
                "type": "object",
                "properties": {"path": {"type": "string"}},
                "required": ["path"]
            }))),
        ),
        McpTool::new(
            "deletions",
            "How many files were deleted.",
            Arc::new(object(empty.clone())),
        ),
        McpTool::new(
            "crash",
            "Exits the server mid-call.",
            Arc::new(object(empty.clone())),
        ),
        McpTool::new("hang", "Never answers.", Arc::new(object(empty))),
    ]
}

impl ServerHandler for TestServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult {
            tools: listed(),
            ..Default::default()
        })
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = Value::Object(request.arguments.unwrap_or_default());
        let text = |key: &str| args[key].as_str().unwrap_or_default().to_owned();
        let result = match request.name.as_ref() {
            "weather" if args.get("city").is_none() => {
                CallToolResult::error(vec![ContentBlock::text(
                    "weather needs a city: pass {\"city\": \"<name>\"}",
                )])
            }
            "weather" => CallToolResult::success(vec![ContentBlock::text(format!(
                "sunny in {}",
                text("city")
            ))]),
            "divide" => {
                let (a, b) = (
                    args["a"].as_f64().unwrap_or(0.0),
                    args["b"].as_f64().unwrap_or(0.0),
                );
                if b == 0.0 {
                    CallToolResult::error(vec![ContentBlock::text(
                        "cannot divide by zero: pass a nonzero b",
                    )])
                } else {
                    CallToolResult::success(vec![ContentBlock::text((a / b).to_string())])
                }
            }
            "chart" => CallToolResult::success(vec![
                ContentBlock::text(format!("temperatures in {}", text("city"))),
                ContentBlock::image(PNG_BASE64, "image/png"),
                ContentBlock::resource(ResourceContents::text(
                    "day,high\nmon,21",
                    format!("charts://{}/data.csv", text("city")),
                )),
            ]),
            "forecast" => CallToolResult::structured(json!({"city": text("city"), "high": 21})),
            "delete_file" => {
                self.deletions.fetch_add(1, Ordering::SeqCst);
                CallToolResult::success(vec![ContentBlock::text(format!(
                    "deleted {}",
                    text("path")
                ))])
            }
            "deletions" => CallToolResult::success(vec![ContentBlock::text(
                self.deletions.load(Ordering::SeqCst).to_string(),
            )]),
            "crash" => std::process::exit(7),
            "hang" => std::future::pending().await,
            other => {
                return Err(ErrorData::invalid_params(
                    format!("no tool named {other}"),
                    None,
                ))
            }
        };
        Ok(result.into())
    }
}

/// This binary, started as the test server.
fn server_command() -> Command {
    serving("tests")
}

/// This binary, started again to run `serve_entry` alone as `server` (`tests` or `example`).
fn serving(server: &str) -> Command {
    let path = concat!(module_path!(), "::serve_entry");
    // The test's name is its path without the crate's name.
    let name = path.split_once("::").map_or(path, |(_, name)| name);
    let mut command = Command::new(std::env::current_exe().unwrap());
    command
        .args([
            "--exact",
            name,
            "--nocapture",
            "--test-threads=1",
            "--quiet",
        ])
        .env(SERVE, server);
    command
}

/// The MCP server over stdio when this binary was started by [`serving`]; otherwise nothing.
/// The only line the test harness writes on stdout before it, `running 1 test`, is not JSON,
/// and an MCP client skips it.
#[test]
fn serve_entry() {
    let served = match std::env::var(SERVE).as_deref() {
        Ok("tests") => example::serve_stdio(TestServer::default()),
        Ok("example") => example::serve(),
        _ => return,
    };
    if let Err(e) = served {
        eprintln!("{e}");
        std::process::exit(1);
    }
}

fn connect(timeout: Duration) -> McpServer {
    block_on(
        McpServer::child(server_command())
            .timeout(timeout)
            .connect(),
    )
    .unwrap()
}

fn agent(server: &McpServer, model: ScriptedModel) -> Agent {
    server
        .tools()
        .into_iter()
        .fold(Agent::new(model), |agent, tool| agent.tool(tool))
}

/// The tool responses of a run's conversation, in order.
fn responses(messages: &[Message]) -> Vec<&Part> {
    messages
        .iter()
        .flat_map(|m| m.content.iter())
        .filter(|p| p.as_tool_response().is_some())
        .collect()
}

/// Runs `f` on its own thread; a run that does not end in `limit` fails the test as a hang.
fn within<T: Send + 'static>(limit: Duration, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(limit)
        .unwrap_or_else(|_| panic!("the run did not end within {limit:?}: it hangs"))
}

#[test]
fn mcp_tool_listing_gives_names_descriptions_and_input_schemas_as_listed() -> Result<(), Failed> {
    let server = connect(Duration::from_secs(30));
    let tools = server.tools();
    let names: Vec<&str> = tools.iter().map(|t| t.name()).collect();
    assert_eq!(
        names,
        [
            "weather",
            "divide",
            "chart",
            "forecast",
            "delete_file",
            "deletions",
            "crash",
            "hang"
        ]
    );
    let weather = tools[0].definition();
    assert_eq!(weather.description, "Current weather in a city.");
    assert_eq!(weather.input_schema, city_schema());
    assert_eq!(tools[1].definition().input_schema, divide_schema());
    assert_eq!(tools[1].definition().description, "Divides a by b.");
    assert_eq!(tools[0].definition().output_schema, None);
    assert_eq!(tools[3].definition().output_schema, Some(forecast_schema()));
    assert!(!server.is_closed());
    Ok(())
}

#[test]
fn mcp_tool_call_goes_to_the_server_and_its_text_is_the_output() -> Result<(), Failed> {
    let server = connect(Duration::from_secs(30));
    let model = ScriptedModel::new()
        .then_message(vec![Part::tool_request(
            "weather",
            None,
            json!({"city": "Paris"}),
        )])
        .then_text("Sunny in Paris.");
    let response = block_on(agent(&server, model).generate(vec![Message::user("Weather?")]))?;
    assert_eq!(response.text(), "Sunny in Paris.");
    let answers = responses(&response.messages);
    assert_eq!(answers.len(), 1);
    let answer = answers[0].as_tool_response().unwrap();
    assert_eq!(answer.name, "weather");
    assert_eq!(answer.output, Some(json!("sunny in Paris")));
    assert!(answer.content.is_empty());
    // The server judges its own arguments: a call off its listed schema reaches it, and its
    // error answer is a fail for the model, not the end of the run.
    let err = block_on(server.tools()[0].call(json!({"town": "Paris"}))).unwrap_err();
    assert_eq!(
        err.fail_text(),
        Some("weather needs a city: pass {\"city\": \"<name>\"}")
    );
    // Arguments that are not an object cannot be sent over MCP: a fail saying so.
    let err = block_on(server.tools()[0].call(json!("Paris"))).unwrap_err();
    assert_eq!(
        err.fail_text(),
        Some(
            "weather takes its arguments as a JSON object, not a JSON string: call it again with \
             an object of its parameters"
        )
    );
    Ok(())
}

#[test]
fn mcp_error_result_is_answered_to_the_model_as_a_fail() -> Result<(), Failed> {
    let server = connect(Duration::from_secs(30));
    let model = ScriptedModel::new()
        .then_message(vec![Part::tool_request(
            "divide",
            None,
            json!({"a": 1, "b": 0}),
        )])
        .then_message(vec![Part::tool_request(
            "divide",
            None,
            json!({"a": 1, "b": 4}),
        )])
        .then_text("It is 0.25.");
    let response = block_on(agent(&server, model).generate(vec![Message::user("1/0?")]))?;
    assert_eq!(response.text(), "It is 0.25.");
    let answers = responses(&response.messages);
    assert_eq!(answers.len(), 2);
    assert!(answers[0].is_tool_error());
    assert_eq!(
        answers[0].as_tool_response().unwrap().output,
        Some(json!({"error": "cannot divide by zero: pass a nonzero b"}))
    );
    assert!(!answers[1].is_tool_error());
    assert_eq!(
        answers[1].as_tool_response().unwrap().output,
        Some(json!("0.25"))
    );
    // Outside a loop the same result is a fail, an error meant for the model.
    let err = block_on(server.tools()[1].call(json!({"a": 1, "b": 0}))).unwrap_err();
    assert_eq!(
        err.fail_text(),
        Some("cannot divide by zero: pass a nonzero b")
    );
    Ok(())
}

#[test]
fn mcp_image_content_is_attached_as_an_inline_media_part() -> Result<(), Failed> {
    let server = connect(Duration::from_secs(30));
    let model = ScriptedModel::new()
        .then_message(vec![Part::tool_request(
            "chart",
            None,
            json!({"city": "Oslo"}),
        )])
        .then_text("Here is the chart.");
    let response = block_on(agent(&server, model).generate(vec![Message::user("Chart?")]))?;
    let answers = responses(&response.messages);
    let answer = answers[0].as_tool_response().unwrap();
    assert_eq!(answer.output, Some(json!("temperatures in Oslo")));
    assert_eq!(answer.content.len(), 2, "{:?}", answer.content);
    let PartKind::Media(image) = &answer.content[0].kind else {
        panic!("expected a media part, got {:?}", answer.content[0]);
    };
    assert_eq!(image.content_type.as_deref(), Some("image/png"));
    let MediaSource::Inline(bytes) = &image.source else {
        panic!("expected inline bytes, got {:?}", image.source);
    };
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    // The embedded resource is a text part that keeps its URI.
    let resource = &answer.content[1];
    assert_eq!(resource.as_text(), Some("day,high\nmon,21"));
    assert_eq!(
        resource.metadata.as_ref().unwrap()["uri"],
        json!("charts://Oslo/data.csv")
    );
    Ok(())
}

#[test]
fn mcp_structured_content_is_the_output_when_present() -> Result<(), Failed> {
    let server = connect(Duration::from_secs(30));
    let model = ScriptedModel::new()
        .then_message(vec![Part::tool_request(
            "forecast",
            None,
            json!({"city": "Rome"}),
        )])
        .then_text("21 degrees.");
    let response = block_on(agent(&server, model).generate(vec![Message::user("Tomorrow?")]))?;
    let answers = responses(&response.messages);
    assert_eq!(
        answers[0].as_tool_response().unwrap().output,
        Some(json!({"city": "Rome", "high": 21}))
    );
    Ok(())
}

#[test]
fn mcp_server_that_dies_mid_call_is_a_run_error_within_the_timeout() -> Result<(), Failed> {
    let server = connect(Duration::from_secs(20));
    let err = within(Duration::from_secs(60), move || {
        let model = ScriptedModel::new()
            .then_message(vec![Part::tool_request("crash", None, json!({}))])
            .then_text("unreachable");
        let result = block_on(agent(&server, model).generate(vec![Message::user("Go.")]));
        result.map(|r| r.text())
    });
    let err = err.expect_err("a dead server must stop the run");
    let RunErrorKind::ToolFailed { name, error } = &err.kind else {
        panic!("expected a failed tool, got {err}");
    };
    assert_eq!(name, "crash");
    let message = error.message();
    assert!(
        matches!(
            error.downcast_ref::<McpError>(),
            Some(McpError::Closed { .. })
        ),
        "the MCP error is kept: {error:?}"
    );
    // Seen as a closed connection, not waited out until the 20 s timeout.
    assert!(message.contains("closed the connection"), "{message}");
    Ok(())
}

#[test]
fn mcp_server_that_stops_answering_is_a_run_error_after_the_timeout() -> Result<(), Failed> {
    let server = block_on(
        McpServer::child(server_command())
            .timeout(Duration::from_secs(30))
            .call_timeout(Duration::from_millis(500))
            .connect(),
    )?;
    let result = within(Duration::from_secs(60), move || {
        let model = ScriptedModel::new()
            .then_message(vec![Part::tool_request("hang", None, json!({}))])
            .then_text("unreachable");
        block_on(agent(&server, model).generate(vec![Message::user("Go.")])).map(|r| r.text())
    });
    let err = result.expect_err("a silent server must stop the run");
    let RunErrorKind::ToolFailed { name, error } = &err.kind else {
        panic!("expected a failed tool, got {err}");
    };
    assert_eq!(name, "hang");
    let message = error.message();
    assert!(message.contains("did not answer"), "{message}");
    // The call's own timeout applies, not the handshake's.
    assert!(message.contains("500ms"), "{message}");
    Ok(())
}

#[test]
fn mcp_lost_server_is_answered_to_the_model_under_soft_tool_errors() -> Result<(), Failed> {
    let server = connect(Duration::from_secs(20));
    let result = within(Duration::from_secs(60), move || {
        let model = ScriptedModel::new()
            .then_message(vec![Part::tool_request("crash", None, json!({}))])
            .then_text("The tool is gone.");
        block_on(
            agent(&server, model)
                .soft_tool_errors(SoftToolErrors::all())
                .generate(vec![Message::user("Go.")]),
        )
    });
    let response = result?;
    assert_eq!(response.text(), "The tool is gone.");
    let answers = responses(&response.messages);
    assert!(answers[0].is_tool_error());
    let output = answers[0]
        .as_tool_response()
        .unwrap()
        .output
        .clone()
        .unwrap();
    assert!(
        output["error"]
            .as_str()
            .unwrap()
            .contains("closed the connection"),
        "{output}"
    );
    Ok(())
}

#[test]
fn mcp_tool_is_held_by_the_approval_hook_until_approved() -> Result<(), Failed> {
    let server = connect(Duration::from_secs(30));
    let deletions = server.tools()[5].clone();
    let count = || block_on(deletions.call(json!({}))).unwrap().output;
    let model = ScriptedModel::new()
        .then_message(vec![Part::tool_request(
            "delete_file",
            None,
            json!({"path": "/tmp/report.txt"}),
        )])
        .then_text("Deleted.");
    let agent = agent(&server, model).hook(ToolApproval::new(["weather"]));
    let paused = block_on(agent.generate(vec![Message::user("Delete the report.")]))?;
    let held = paused.interrupts();
    assert_eq!(held.len(), 1);
    assert_eq!(held[0].as_tool_request().unwrap().name, "delete_file");
    assert_eq!(
        count(),
        Some(json!("0")),
        "a held call must not reach the server"
    );

    let approve =
        held[0].to_tool_restart(Some(serde_json::to_value(ToolCallDecision::approve())?))?;
    let done = block_on(agent.resume(paused.history(), Resume::new().restart(approve)))?;
    assert_eq!(done.text(), "Deleted.");
    let answers = responses(&done.messages);
    assert_eq!(
        answers.last().unwrap().as_tool_response().unwrap().output,
        Some(json!("deleted /tmp/report.txt"))
    );
    assert_eq!(count(), Some(json!("1")));
    Ok(())
}

#[test]
fn mcp_http_server_that_is_not_there_is_a_clear_connect_error() -> Result<(), Failed> {
    // Port 9 (discard) on loopback: nothing listens there in a test environment.
    let result = within(Duration::from_secs(60), || {
        block_on(
            McpServer::http("http://127.0.0.1:9/mcp")
                .timeout(Duration::from_secs(10))
                .connect(),
        )
    });
    let err = result.expect_err("nothing listens");
    assert!(
        matches!(err, McpError::Handshake { .. } | McpError::Timeout { .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains("127.0.0.1:9"), "{err}");
    Ok(())
}

#[test]
fn mcp_child_that_cannot_start_is_a_spawn_error() -> Result<(), Failed> {
    let err = block_on(McpServer::child(Command::new("/nonexistent/mcp-server")).connect())
        .expect_err("no such program");
    assert!(matches!(err, McpError::Spawn { .. }), "{err:?}");
    assert!(err.to_string().contains("/nonexistent/mcp-server"), "{err}");
    Ok(())
}

#[test]
fn example_mcp_runs_the_agent_against_its_own_server_to_a_committed_result() -> Result<(), Failed> {
    // The example's run, against its server served by this binary started again.
    let answer = example::run(serving("example"))?;
    assert_eq!(
        (answer.city.as_str(), answer.population),
        ("Paris", 2_102_650)
    );
    Ok(())
}
