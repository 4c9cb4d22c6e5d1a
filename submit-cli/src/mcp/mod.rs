//! `mcp`: the submit tool served to an MCP host, over standard input and output or over
//! streamable HTTP, with the official Rust SDK (`rmcp`) speaking the protocol.
//!
//! The server lists one tool, whose `inputSchema` is the definition's parameters object. A
//! call is parsed as `parse` parses a call (every recovery, every rejection and its hint); an
//! accepted result then goes through the `--validate` command, if any, like the executor's
//! gate (SUBMIT.md §8), and the first one that passes is written out as one line of `parse`'s
//! JSON and ends the run: later submits are refused. Logs go to standard error; the reasoning
//! text never reaches them (its byte length does).
//!
//! MCP arguments arrive as a JSON object that rmcp has already decoded, so they are read as
//! Anthropic's `input` is: a member sent twice has already lost one of its values, and the
//! duplicate-member rejection of SUBMIT.md §10.2 cannot apply.

use std::fs::File;
use std::io::{IsTerminal, Write};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, CustomRequest,
    CustomResult, ErrorCode, Implementation, JsonObject, ListToolsResult, PaginatedRequestParams,
    ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{json, Value};
use submit_core::{Arguments, Outcome, Provider, SubmitTool};
use tokio::sync::Mutex;

use crate::args::McpArgs;
use crate::error::CliError;
use crate::output::OutcomeView;

mod validate;

pub use validate::{parse_findings, run_validator, ValidatorError};

/// What a submit after the accepted one is told.
pub const ALREADY_ACCEPTED: &str = "a terminal result was already accepted";

/// Builds the runtime and serves `tool` as `args` say, until the host goes away (standard
/// input closes) or, serving HTTP, until the process is interrupted.
pub fn serve(tool: SubmitTool<Value>, args: &McpArgs) -> Result<(), CliError> {
    init_logs();
    let sink = match &args.out {
        Some(path) => Sink::File {
            file: File::create(path).map_err(|source| CliError::Write {
                what: "result file",
                path: Some(path.clone()),
                source,
            })?,
            path: path.display().to_string(),
        },
        None if args.listen.is_some() => Sink::Stdout,
        None => {
            tracing::warn!("no --out given: an accepted result is answered but written nowhere");
            Sink::Nowhere
        }
    };
    let validate = args
        .validate
        .clone()
        .map(|command| (command, Duration::from_secs(args.validate_timeout)));
    let server = SubmitServer::new(tool, sink, validate);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(CliError::Runtime)?;
    let result = runtime.block_on(async {
        match args.listen {
            Some(addr) => serve_http(server, addr).await,
            None => serve_stdio(server).await,
        }
    });
    runtime.shutdown_timeout(Duration::from_secs(1));
    result
}

/// Logs to standard error, filtered by `RUST_LOG` (default: this tool's own events at `info`,
/// everything else at `warn`). rmcp is held at `info` whatever the filter says: below that it
/// logs whole messages, and a submit's message carries the reasoning.
fn init_logs() {
    use tracing_subscriber::filter::{filter_fn, EnvFilter, FilterExt};
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    use tracing_subscriber::Layer;

    let filter = EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| EnvFilter::new("warn,submit_cli=info,submit_core=info"));
    let rmcp_cap = filter_fn(|meta| {
        !meta.target().starts_with("rmcp") || *meta.level() <= tracing::Level::INFO
    });
    let layer = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_filter(filter.and(rmcp_cap));
    // A subscriber already set (only possible when embedded) keeps its place.
    let _ = tracing_subscriber::registry().with(layer).try_init();
}

/// Serves one session over standard input and output until the host closes it.
async fn serve_stdio(server: SubmitServer) -> Result<(), CliError> {
    let name = server.shared.tool.name().to_owned();
    let running = server
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|error| CliError::Mcp(format!("the session did not start: {error}")))?;
    tracing::info!(tool = %name, "serving over standard input and output");
    running
        .waiting()
        .await
        .map_err(|error| CliError::Mcp(format!("the session failed: {error}")))?;
    Ok(())
}

/// Serves streamable HTTP on `addr`, one session per client, until interrupted.
async fn serve_http(server: SubmitServer, addr: SocketAddr) -> Result<(), CliError> {
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|source| CliError::Listen { addr, source })?;
    let local = listener
        .local_addr()
        .map_err(|source| CliError::Listen { addr, source })?;
    let config = StreamableHttpServerConfig::default();
    let cancel = config.cancellation_token.clone();
    let service = TowerToHyperService::new(StreamableHttpService::new(
        move || Ok(server.clone()),
        LocalSessionManager::default().into(),
        config,
    ));
    // The address is the interface here (port 0 picks one), so it is printed whatever the
    // log filter.
    eprintln!("submit-result: serving MCP at http://{local}/mcp");
    loop {
        let stream = tokio::select! {
            () = shutdown() => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(error) => {
                    // Out of file descriptors and the like: wait, then take the next one.
                    tracing::warn!(%error, "cannot accept a connection");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
        };
        let service = service.clone();
        tokio::spawn(async move {
            let connection = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service);
            if let Err(error) = connection.await {
                tracing::debug!(%error, "connection ended with an error");
            }
        });
    }
    cancel.cancel();
    tracing::info!("interrupted: stopped serving");
    Ok(())
}

/// Resolves on Ctrl-C, or on SIGTERM where there is one.
async fn shutdown() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// Where the first accepted result goes.
#[derive(Debug)]
enum Sink {
    /// The `--out` file, created when the server started.
    File {
        /// The open file.
        file: File,
        /// Its path, for messages.
        path: String,
    },
    /// Standard output (serving HTTP, where standard output is not the protocol stream).
    Stdout,
    /// Nowhere: serving standard input and output without `--out`.
    Nowhere,
}

impl Sink {
    /// Writes `line` and a newline, and makes sure it reached the file or the pipe.
    fn write_line(&mut self, line: &str) -> Result<(), String> {
        match self {
            Sink::File { file, path } => file
                .write_all(line.as_bytes())
                .and_then(|()| file.write_all(b"\n"))
                .and_then(|()| file.sync_all())
                .map_err(|error| format!("cannot write the result to `{path}`: {error}")),
            Sink::Stdout => {
                let mut stdout = std::io::stdout().lock();
                stdout
                    .write_all(line.as_bytes())
                    .and_then(|()| stdout.write_all(b"\n"))
                    .and_then(|()| stdout.flush())
                    .map_err(|error| format!("cannot write the result to standard output: {error}"))
            }
            Sink::Nowhere => Ok(()),
        }
    }
}

/// The gate every submit passes, one at a time.
#[derive(Debug)]
struct Gate {
    /// Whether a result was accepted and written.
    accepted: bool,
    /// Where the accepted result goes.
    sink: Sink,
}

/// What every session of the server shares.
struct Shared {
    /// The submit tool.
    tool: SubmitTool<Value>,
    /// The tool as MCP lists it.
    listed: Tool,
    /// The `--validate` command and how long it may run.
    validate: Option<(String, Duration)>,
    /// Held for a whole submit, so that two submits in flight commit one result.
    gate: Mutex<Gate>,
}

/// The MCP server of one submit tool; every HTTP session gets a clone sharing one gate.
#[derive(Clone)]
pub struct SubmitServer {
    shared: Arc<Shared>,
}

impl SubmitServer {
    /// A server for `tool` that writes its accepted result nowhere and runs no validator, to
    /// serve inside a program of your own over any rmcp transport (`rmcp::ServiceExt::serve`);
    /// the fuzz target drives it this way.
    pub fn unrecorded(tool: SubmitTool<Value>) -> Self {
        SubmitServer::new(tool, Sink::Nowhere, None)
    }

    /// A server for `tool` writing its result to `sink`.
    fn new(tool: SubmitTool<Value>, sink: Sink, validate: Option<(String, Duration)>) -> Self {
        let listed = listed_tool(&tool);
        SubmitServer {
            shared: Arc::new(Shared {
                tool,
                listed,
                validate,
                gate: Mutex::new(Gate {
                    accepted: false,
                    sink,
                }),
            }),
        }
    }

    /// Handles one submit: parse, gate, write, answer.
    async fn submit(&self, arguments: Option<JsonObject>) -> Result<CallToolResult, ErrorData> {
        let shared = &self.shared;
        let mut gate = shared.gate.lock().await;
        if gate.accepted {
            tracing::info!("submit refused: a result was already accepted");
            return Ok(tool_error(
                ALREADY_ACCEPTED,
                json!({ "error": ALREADY_ACCEPTED }),
            ));
        }
        let arguments = arguments.map(Value::Object);
        let outcome = shared.tool.handle_arguments(match &arguments {
            Some(value) => Arguments::Value(value),
            None => Arguments::Missing,
        });
        let accepted = match &outcome {
            Outcome::Rejected(rejected) => {
                // The parser's own event has the trace text; this one says what was answered.
                tracing::info!(
                    class = ?rejected.error.class(),
                    cause = ?rejected.error.cause(),
                    "submit rejected"
                );
                return Ok(tool_error(
                    text_of(&rejected.tool_result, "error"),
                    rejected.tool_result.clone(),
                ));
            }
            Outcome::Accepted(accepted) => accepted,
        };
        if let Some((command, limit)) = &shared.validate {
            let findings = run_validator(command, &accepted.response, *limit)
                .await
                .map_err(|error| {
                    tracing::error!(%error, "result validation failed");
                    ErrorData::internal_error(format!("result validation: {error}"), None)
                })?;
            if !findings.is_empty() {
                tracing::info!(
                    findings = findings.len(),
                    "submit rejected by the validator"
                );
                let error = format!(
                    "Result rejected: validation raised {} finding(s). Address each finding and \
                     call {} again with your corrected, complete result.",
                    findings.len(),
                    shared.tool.name()
                );
                let listed = serde_json::to_string(&findings).unwrap_or_default();
                let text = format!("{error}\nFindings: {listed}");
                return Ok(tool_error(
                    &text,
                    json!({ "error": error, "findings": findings }),
                ));
            }
        }
        let line = serde_json::to_string(&OutcomeView::new(&outcome, None))
            .map_err(|error| ErrorData::internal_error(error.to_string(), None))?;
        gate.sink.write_line(&line).map_err(|error| {
            tracing::error!(%error, "the accepted result was not written");
            ErrorData::internal_error(error, None)
        })?;
        gate.accepted = true;
        tracing::info!(
            recovery = accepted.recovery.map(|r| r.as_str()),
            reasoning_bytes = accepted.reasoning.len(),
            "submit accepted"
        );
        let message = text_of(&accepted.tool_result, "message");
        let mut result = CallToolResult::success(vec![ContentBlock::text(message)]);
        result.structured_content = Some(accepted.tool_result.clone());
        Ok(result)
    }
}

/// The tool as listed: name and description from the definition, `inputSchema` its
/// parameters object.
fn listed_tool(tool: &SubmitTool<Value>) -> Tool {
    // Anthropic's definition holds the parameters object as it is (`input_schema`), and its
    // strict form when `--strict` is given.
    let definition = tool.definition(Provider::Claude);
    let schema = match definition.get("input_schema") {
        Some(Value::Object(schema)) => schema.clone(),
        _ => JsonObject::new(),
    };
    let description = definition
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    Tool::new(tool.name().to_owned(), description, schema)
}

/// The string member `key` of a tool result (`message` or `error`), empty if it has none.
fn text_of<'a>(tool_result: &'a Value, key: &str) -> &'a str {
    tool_result.get(key).and_then(Value::as_str).unwrap_or("")
}

/// A tool error (`isError: true`): `text` for the model, `structured` its JSON form.
fn tool_error(text: &str, structured: Value) -> CallToolResult {
    let mut result = CallToolResult::error(vec![ContentBlock::text(text.to_owned())]);
    result.structured_content = Some(structured);
    result
}

impl ServerHandler for SubmitServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new(
                "submit-result",
                env!("CARGO_PKG_VERSION"),
            ))
            .with_instructions(format!(
                "Call `{}` exactly once, with the complete result, to end the run.",
                self.shared.tool.name()
            ))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(vec![self
            .shared
            .listed
            .clone()]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = self.shared.tool.name();
        if request.name != name {
            return Err(ErrorData::invalid_params(
                format!(
                    "unknown tool `{}`: this server has one tool, `{name}`",
                    request.name.escape_debug()
                ),
                None,
            ));
        }
        self.submit(request.arguments).await.map(Into::into)
    }

    /// A request rmcp could not read as one of the protocol's: a `tools/…` request with
    /// malformed params (named as such), or a method this server does not serve.
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        let method = request.method.as_str();
        let malformed = match method {
            "tools/call" => request.params_as::<CallToolRequestParams>().err(),
            "tools/list" => request.params_as::<PaginatedRequestParams>().err(),
            _ => None,
        };
        Err(match malformed {
            Some(error) => {
                ErrorData::invalid_params(format!("malformed {method} params: {error}"), None)
            }
            None => ErrorData::new(
                ErrorCode::METHOD_NOT_FOUND,
                format!(
                    "method `{}` is not served here: this server serves tools/list and tools/call",
                    method.escape_debug()
                ),
                None,
            ),
        })
    }
}
