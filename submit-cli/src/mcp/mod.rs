//! `mcp`: the submit tool served to an MCP host, over standard input and output or over
//! streamable HTTP, with the official Rust SDK (`rmcp`) speaking the protocol.
//!
//! The server lists one tool, whose `inputSchema` is the parameters object with the payload
//! schema as the schema file has it (`schema.rs`). A call is parsed as `parse` parses a call
//! (every recovery, every rejection and its hint); an accepted result then goes through the
//! `--validate` command, if any, like the executor's result validators, and the first one
//! that passes is written out as one line of `parse`'s JSON and ends the run: later submits
//! are refused. The accepted call's result carries the tool result as `structuredContent` and,
//! as the MCP specification asks of structured content, its serialized JSON as the text
//! block; a refused call's text is the hint for the model. Logs go to standard error; the
//! reasoning text never reaches them (its byte length does).
//!
//! Over standard input and output (`stdio.rs`), every line that holds no message is answered.
//! Over HTTP (`http.rs`), every request needs the bearer token and a browser's an allowed
//! origin (`access.rs`), checked with the limits before rmcp sees the request (`guard.rs`,
//! `connections.rs`).
//!
//! rmcp reads each message's envelope; the text of a `tools/call`'s `arguments` is cut from the
//! message's bytes as the client wrote them (`envelope.rs`) and handed to the parser's door as
//! argument text, so a call gets `parse`'s verdict on the same text: a member sent twice is
//! seen, a string is argument text encoded once, any other value gets the hint, and the
//! envelope's nesting does not count against the payload's depth. Every verdict is a tool
//! result (`isError: true` for a rejection); only a message that is not a `tools/call` of the
//! served tool gets a JSON-RPC error. Served in a program of its own over another rmcp
//! transport ([`SubmitServer::unrecorded`]), the server reads the arguments rmcp decoded, as
//! Anthropic's `input` is read.

use std::fs::File;
use std::io::{IsTerminal, Write};
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, CustomRequest,
    CustomResult, ErrorCode, Implementation, JsonObject, ListToolsResult, PaginatedRequestParams,
    ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{json, Value};
use submit_core::{Arguments, Incoming, Outcome, Provider, SubmitTool};
use tokio::sync::Mutex;

use crate::args::McpArgs;
use crate::error::CliError;
use crate::output::OutcomeView;

mod access;
mod connections;
mod envelope;
mod guard;
mod http;
mod jsonrpc;
mod schema;
mod stdio;
mod validate;

pub use validate::run_validator;

/// What a submit after the accepted one is told.
pub const ALREADY_ACCEPTED: &str = "a terminal result was already accepted";

/// Builds the runtime and serves `tool` (built from the schema file's JSON `document`) as
/// `args` say, until the host goes away (standard input closes) or, serving HTTP, until the
/// process is interrupted.
pub fn serve(tool: SubmitTool<Value>, document: &Value, args: &McpArgs) -> Result<(), CliError> {
    init_logs();
    let setup = args
        .listen
        .map(|addr| http::Setup::new(args, addr))
        .transpose()?;
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
    let listed = schema::input_schema(&tool, document);
    let server = SubmitServer::new(tool, listed, sink, validate);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(CliError::Runtime)?;
    let result = runtime.block_on(async {
        match setup {
            Some(setup) => http::serve(move || server.clone(), setup).await,
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
    server
        .serve_lines(std::io::stdin(), tokio::io::stdout())
        .await
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
    /// serve inside a program of your own: over lines of JSON-RPC ([`SubmitServer::serve_lines`],
    /// as the fuzz target drives it), or over any rmcp transport (`rmcp::ServiceExt::serve`),
    /// where the arguments are those rmcp decoded (read as Anthropic's `input` is, a member sent
    /// twice already lost).
    pub fn unrecorded(tool: SubmitTool<Value>) -> Self {
        let listed = match tool.definition(Provider::Claude).get("input_schema") {
            Some(Value::Object(schema)) => schema.clone(),
            _ => JsonObject::new(),
        };
        SubmitServer::new(tool, listed, Sink::Nowhere, None)
    }

    /// Serves one session over `input` and `output`, one JSON-RPC message a line, as
    /// `submit-result mcp` serves standard input and output: every line that holds no message
    /// is answered, and a `tools/call`'s arguments are read from the line's bytes as written.
    /// Ends when `input` ends (or the session does).
    ///
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use serde_json::json;
    /// use submit_cli::__private::SubmitServer;
    /// use submit_core::{Options, SubmitTool};
    ///
    /// let schema = json!({"type": "object", "properties": {"summary": {"type": "string"}}});
    /// let server = SubmitServer::unrecorded(SubmitTool::from_json_schema(schema, Options::new())?);
    /// let input = concat!(
    ///     r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"doc","version":"0"}}}"#,
    ///     "\n",
    /// );
    /// let (output, mut answers) = tokio::io::duplex(64 * 1024);
    /// let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    /// runtime.block_on(async move {
    ///     use tokio::io::AsyncBufReadExt;
    ///     let serving = tokio::spawn(server.serve_lines(input.as_bytes(), output));
    ///     let mut lines = tokio::io::BufReader::new(&mut answers).lines();
    ///     let answer = lines.next_line().await.unwrap().unwrap();
    ///     assert!(answer.contains(r#""id":0,"result""#), "{answer}");
    ///     serving.abort();
    /// });
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// [`CliError::Mcp`] when the reading thread cannot start, or the session does not start
    /// (the input ends before an `initialize`) or fails.
    pub async fn serve_lines(
        self,
        input: impl std::io::Read + Send + 'static,
        output: impl tokio::io::AsyncWrite + Send + Unpin + 'static,
    ) -> Result<(), CliError> {
        let name = self.shared.tool.name().to_owned();
        let transport = stdio::Stdio::start(input, output)
            .map_err(|error| CliError::Mcp(format!("cannot read standard input: {error}")))?;
        let running = self
            .serve(transport)
            .await
            .map_err(|error| CliError::Mcp(format!("the session did not start: {error}")))?;
        tracing::info!(tool = %name, "serving over standard input and output");
        running
            .waiting()
            .await
            .map_err(|error| CliError::Mcp(format!("the session failed: {error}")))?;
        Ok(())
    }

    /// A server for `tool`, listed with the `inputSchema` `schema`, writing its result to
    /// `sink`.
    fn new(
        tool: SubmitTool<Value>,
        schema: JsonObject,
        sink: Sink,
        validate: Option<(String, Duration)>,
    ) -> Self {
        let listed = listed_tool(&tool, schema);
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
    async fn submit(&self, sent: Sent<'_>) -> Result<CallToolResult, ErrorData> {
        let shared = &self.shared;
        let mut gate = shared.gate.lock().await;
        if gate.accepted {
            tracing::info!("submit refused: a result was already accepted");
            return Ok(tool_error(
                ALREADY_ACCEPTED,
                json!({ "error": ALREADY_ACCEPTED }),
            ));
        }
        let name = Some(shared.tool.name());
        let incoming = match &sent {
            Sent::Text(text) => Incoming::arguments_json(name, text),
            Sent::Value(Some(value)) => Incoming::arguments(name, Arguments::Value(value)),
            Sent::Value(None) => Incoming::arguments(name, Arguments::Missing),
        };
        let outcome = match shared.tool.receive(incoming) {
            Ok(Some(outcome)) => outcome,
            // Neither can happen for arguments called under the tool's own name (no tool is
            // named `multi_tool_use.parallel`, the one name read as a wrapper); answered all the
            // same.
            Ok(None) => return Ok(not_read("no call of the tool was found in the arguments")),
            Err(shape) => return Ok(not_read(&shape.to_string())),
        };
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
            recovery = accepted.recovery().map(|r| r.as_str()),
            reasoning_bytes = accepted.reasoning.len(),
            "submit accepted"
        );
        // The structured content, and its serialized JSON as the text block (the MCP
        // specification asks a tool returning structured content to do so).
        let text = serde_json::to_string(&accepted.tool_result)
            .map_err(|error| ErrorData::internal_error(error.to_string(), None))?;
        let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
        result.structured_content = Some(accepted.tool_result.clone());
        Ok(result)
    }
}

/// The arguments of a `tools/call`, as the server got them.
enum Sent<'a> {
    /// The text cut from the message's bytes.
    Text(&'a str),
    /// The object rmcp decoded (`None`: no arguments), where no text was cut (a transport of
    /// the embedding program's).
    Value(Option<Value>),
}

/// A tool error for arguments the door could not read as a call, saying `why`.
fn not_read(why: &str) -> CallToolResult {
    let error = format!("failed to parse tool arguments: {why}");
    tracing::info!(%error, "submit rejected");
    tool_error(&error, json!({ "error": error }))
}

/// The tool as listed: name and description from the definition, `inputSchema` `schema`.
fn listed_tool(tool: &SubmitTool<Value>, schema: JsonObject) -> Tool {
    let definition = tool.definition(Provider::Claude);
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
        context: RequestContext<RoleServer>,
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
        let text = envelope::beside::<envelope::ArgumentText>(&context).map(|text| text.text());
        let sent = match &text {
            Some(text) => Sent::Text(text),
            None => Sent::Value(request.arguments.map(Value::Object)),
        };
        self.submit(sent).await.map(Into::into)
    }

    /// A request rmcp could not read as one of the protocol's: a `tools/…` request with
    /// malformed params (named as such), or a method this server does not serve.
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        let method = request.method.as_str();
        if let Some(envelope::RepeatedMember(member)) = envelope::beside(&context) {
            return Err(ErrorData::invalid_params(
                format!(
                    "malformed {method} params: `{}` appears twice; send each member once",
                    member.escape_debug()
                ),
                None,
            ));
        }
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
