//! MCP tools in the loop: connect to a Model Context Protocol server and register its tools as
//! agent tools.
//!
//! A server is a child process spoken to over stdio ([`McpServer::child`]) or an endpoint
//! spoken to over streamable HTTP ([`McpServer::http`]). Connecting performs the MCP handshake
//! and lists the server's tools; [`McpServer::tools`] gives each as a [`Tool`] with the name,
//! description and input schema the server lists. A call goes to the server:
//!
//! - the arguments go as the model wrote them: the server judges them against its own schema
//!   (it may recover a mistake the schema alone would refuse, a JSON-encoded object say), and
//!   arguments that are not a JSON object are answered to the model as a fail without a call;
//! - a result with `isError: true` is a [`fail`](ToolError::fail_message) answered to the
//!   model, whose text is the result's text;
//! - otherwise the response output is the result's `structuredContent` when present, else its
//!   text blocks joined by newlines; image and audio blocks become inline media parts,
//!   embedded resources become text or inline media parts (with the resource's `uri` in the
//!   part's metadata) and resource links become media parts at their URI;
//! - a server that stops answering (it exited, the connection dropped, or no answer came
//!   within the [timeout](McpConnect::timeout)) is a plain tool error, so the run stops with a
//!   [`RunErrorKind::ToolFailed`](crate::run::RunErrorKind::ToolFailed) instead of hanging.
//!
//! MCP tools are ordinary tools: tool hooks ([`ToolApproval`](crate::hook::ToolApproval),
//! [`SoftToolErrors`](crate::run::SoftToolErrors), your own) wrap them like any other.
//!
//! # Runtime
//!
//! The MCP client needs tokio. Connecting inside a tokio runtime keeps the connection on that
//! runtime; connecting anywhere else (`futures::executor::block_on`, another executor) keeps
//! it on a small runtime this crate owns (one worker thread, started on first use, shared with
//! the provider transports). Calls run
//! where the connection lives, so the loop stays runtime-agnostic. Dropping a call's future
//! cancels the request on the server.
//!
//! ```no_run
//! use std::process::Command;
//! use std::time::Duration;
//! use submit_agent::mcp::McpServer;
//! use submit_agent::{model::ScriptedModel, run::Agent};
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let mut command = Command::new("my-mcp-server");
//! command.arg("--stdio");
//! let server = McpServer::child(command)
//!     .timeout(Duration::from_secs(30))
//!     .connect()
//!     .await?;
//! let mut agent = Agent::new(ScriptedModel::new());
//! for tool in server.tools() {
//!     agent = agent.tool(tool);
//! }
//! # Ok(()) }
//! ```

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use ::rmcp::model::{CallToolRequestParams, CallToolResult, ContentBlock, ResourceContents};
use ::rmcp::service::RunningService;
use ::rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use ::rmcp::{RoleClient, ServiceError, ServiceExt};
use base64::Engine as _;
use serde_json::{json, Value};
use submit_core::JsonType;

use crate::message::{JsonObject, Media, MediaSource, Part, PartKind};
use crate::run::Cause;
use crate::tool::{Tool, ToolContext, ToolDefinition, ToolError, ToolOutput};

/// How long the handshake, the listing and each call may take unless set otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// Why connecting to an MCP server or calling one of its tools failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum McpError {
    /// The server's process could not be started.
    #[error("could not start the MCP server {command}: {source}: check the command and its path")]
    Spawn {
        /// The program.
        command: String,
        /// The operating system's error.
        source: Cause,
    },
    /// The MCP handshake failed.
    #[error("the MCP server {server} did not complete the handshake: {source}: check that it speaks MCP on this transport")]
    Handshake {
        /// The program or URL.
        server: String,
        /// The MCP client's error.
        source: Cause,
    },
    /// The server did not list its tools.
    #[error("the MCP server {server} did not list its tools: {source}")]
    List {
        /// The program or URL.
        server: String,
        /// The MCP client's error.
        source: Cause,
    },
    /// No answer came in time.
    #[error("the MCP server {server} did not answer {what} within {timeout:?}: check the server or raise the timeout")]
    Timeout {
        /// The program or URL.
        server: String,
        /// The request: the handshake, the listing or a tool call.
        what: String,
        /// The timeout.
        timeout: Duration,
    },
    /// The connection ended while a request was waiting or before it was sent.
    #[error("the MCP server {server} closed the connection during {what}: restart the server, then resume the run")]
    Closed {
        /// The program or URL.
        server: String,
        /// The request that was waiting.
        what: String,
        /// The MCP client's error, when sending failed.
        source: Option<Cause>,
    },
    /// The server answered a call with a protocol error (an unknown tool, invalid arguments).
    #[error("the MCP server {server} refused {what}: {source}")]
    Refused {
        /// The program or URL.
        server: String,
        /// The request.
        what: String,
        /// The server's error (its message and code), or the MCP client's.
        source: Cause,
    },
    /// A content block the server sent could not be read.
    #[error("MCP tool {tool:?} sent an unreadable {block} content block: {source}")]
    Content {
        /// The tool's name.
        tool: String,
        /// The block's type.
        block: &'static str,
        /// What is wrong with it.
        source: Cause,
    },
    /// The URL's scheme is not one this build reaches.
    #[error("cannot reach the MCP server {server}: {message}")]
    Unsupported {
        /// The URL.
        server: String,
        /// Why.
        message: String,
    },
    /// The runtime the connection needs could not start, or its task stopped.
    #[error("the MCP runtime could not run the connection: {0}")]
    Runtime(#[source] Cause),
}

enum Target {
    Child(std::process::Command),
    Http(String),
}

/// A connection about to be made: where the server is and how long it may take to answer.
pub struct McpConnect {
    target: Target,
    timeout: Duration,
    call_timeout: Option<Duration>,
}

impl std::fmt::Debug for McpConnect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpConnect")
            .field("server", &self.label())
            .field("timeout", &self.timeout)
            .field("call_timeout", &self.call_timeout)
            .finish()
    }
}

impl McpConnect {
    /// How long the handshake, the listing and each tool call may take ([`DEFAULT_TIMEOUT`]
    /// unless set).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// How long each tool call may take, when it differs from [`timeout`](Self::timeout).
    pub fn call_timeout(mut self, timeout: Duration) -> Self {
        self.call_timeout = Some(timeout);
        self
    }

    fn label(&self) -> String {
        match &self.target {
            Target::Child(command) => command.get_program().to_string_lossy().into_owned(),
            Target::Http(url) => url.clone(),
        }
    }

    /// Starts or reaches the server, performs the handshake and lists its tools.
    pub async fn connect(self) -> Result<McpServer, McpError> {
        let label = self.label();
        if let Target::Http(url) = &self.target {
            let scheme = url
                .split_once("://")
                .map(|(scheme, _)| scheme.to_ascii_lowercase());
            if !matches!(scheme.as_deref(), Some("http" | "https")) {
                return Err(McpError::Unsupported {
                    server: label,
                    message: "an MCP server over HTTP is reached at an http:// or https:// URL \
                              (such as http://127.0.0.1:8000/mcp)"
                        .into(),
                });
            }
        }
        let timeout = self.timeout;
        let call_timeout = self.call_timeout.unwrap_or(timeout);
        let runtime =
            crate::runtime::handle().map_err(|e| McpError::Runtime(Cause::from_source(e)))?;
        let server = label.clone();
        let task = async move {
            let service = match self.target {
                Target::Child(command) => {
                    let transport = TokioChildProcess::new(tokio::process::Command::from(command))
                        .map_err(|e| McpError::Spawn {
                            command: server.clone(),
                            source: Cause::from_source(e),
                        })?;
                    handshake(&server, timeout, ().serve(transport)).await?
                }
                Target::Http(url) => {
                    let transport = StreamableHttpClientTransport::from_uri(url);
                    handshake(&server, timeout, ().serve(transport)).await?
                }
            };
            let listed = match tokio::time::timeout(timeout, service.peer().list_all_tools()).await
            {
                Ok(Ok(tools)) => tools,
                Ok(Err(e)) => {
                    return Err(McpError::List {
                        server,
                        source: Cause::from_source(e),
                    })
                }
                Err(_) => {
                    return Err(McpError::Timeout {
                        server,
                        what: "the tool listing".into(),
                        timeout,
                    })
                }
            };
            Ok((service, listed))
        };
        let (service, listed) = on(&runtime, task).await??;
        let connection = Arc::new(Connection {
            label,
            service,
            runtime,
            timeout: call_timeout,
        });
        let tools = listed
            .into_iter()
            .map(|tool| mcp_tool(&connection, tool))
            .collect();
        Ok(McpServer { connection, tools })
    }
}

async fn handshake<E: std::error::Error + Send + Sync + 'static>(
    server: &str,
    timeout: Duration,
    serving: impl Future<Output = Result<RunningService<RoleClient, ()>, E>>,
) -> Result<RunningService<RoleClient, ()>, McpError> {
    match tokio::time::timeout(timeout, serving).await {
        Ok(Ok(service)) => Ok(service),
        Ok(Err(e)) => Err(McpError::Handshake {
            server: server.to_owned(),
            source: Cause::from_source(e),
        }),
        Err(_) => Err(McpError::Timeout {
            server: server.to_owned(),
            what: "the handshake".into(),
            timeout,
        }),
    }
}

/// What every tool of one server shares: the running client and where it runs.
struct Connection {
    label: String,
    service: RunningService<RoleClient, ()>,
    runtime: tokio::runtime::Handle,
    /// The timeout of each call.
    timeout: Duration,
}

/// A connected MCP server and the tools it listed. Cheap to keep: the connection lives as long
/// as this value or any of its tools.
#[derive(Clone)]
pub struct McpServer {
    connection: Arc<Connection>,
    tools: Vec<Tool>,
}

impl std::fmt::Debug for McpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServer")
            .field("server", &self.connection.label)
            .field("tools", &self.tools)
            .finish()
    }
}

impl McpServer {
    /// A server started as a child process and spoken to over its stdin and stdout; its
    /// stderr is the caller's.
    pub fn child(command: std::process::Command) -> McpConnect {
        McpConnect {
            target: Target::Child(command),
            timeout: DEFAULT_TIMEOUT,
            call_timeout: None,
        }
    }

    /// A server reached over streamable HTTP at `url` (such as `http://127.0.0.1:8000/mcp`);
    /// `https://` URLs are verified against the system's certificate roots.
    pub fn http(url: impl Into<String>) -> McpConnect {
        McpConnect {
            target: Target::Http(url.into()),
            timeout: DEFAULT_TIMEOUT,
            call_timeout: None,
        }
    }

    /// The server's tools as agent tools, in the order it listed them.
    pub fn tools(&self) -> Vec<Tool> {
        self.tools.clone()
    }

    /// The program or URL this server was reached at.
    pub fn label(&self) -> &str {
        &self.connection.label
    }

    /// The name and version the server reported in the handshake.
    pub fn server_info(&self) -> Option<(String, String)> {
        let info = self.connection.service.peer().peer_info()?;
        let server = info.server_info.as_ref()?;
        Some((server.name.clone(), server.version.clone()))
    }

    /// Whether the connection has ended (the server exited or dropped it).
    pub fn is_closed(&self) -> bool {
        self.connection.service.is_closed()
    }
}

fn mcp_tool(connection: &Arc<Connection>, tool: ::rmcp::model::Tool) -> Tool {
    let name = tool.name.to_string();
    let description = tool
        .description
        .as_deref()
        .or(tool.title.as_deref())
        .unwrap_or_default()
        .to_owned();
    let definition = ToolDefinition {
        name: name.clone(),
        description,
        input_schema: Value::Object((*tool.input_schema).clone()),
        output_schema: tool
            .output_schema
            .as_deref()
            .map(|schema| Value::Object(schema.clone())),
        resume_schema: Some(json!({"type": "object"})),
        wire: Default::default(),
    };
    let connection = Arc::clone(connection);
    // The server judges its own arguments: a call that does not match the listed schema goes
    // to it as written (the model's mistake may be one the server recovers, a JSON-encoded
    // object, say), and its error answer reaches the model as a fail instead of ending the run.
    Tool::from_fn_judged_remotely(definition, move |_ctx: ToolContext, input: Value| {
        let connection = Arc::clone(&connection);
        let name = name.clone();
        async move { call(&connection, name, input).await }
    })
}

async fn call(
    connection: &Connection,
    name: String,
    input: Value,
) -> Result<ToolOutput, ToolError> {
    let arguments = match input {
        Value::Null => None,
        Value::Object(map) => Some(map),
        other => {
            return Err(ToolError::fail_message(format!(
                "{name} takes its arguments as a JSON object, not a JSON {}: call it again with an \
                 object of its parameters",
                JsonType::of(&other).as_str()
            )))
        }
    };
    let mut params = CallToolRequestParams::new(name.clone());
    params.arguments = arguments;
    let peer = connection.service.peer().clone();
    let timeout = connection.timeout;
    let server = connection.label.clone();
    let what = format!("tool {name:?}");
    let request = async move {
        match tokio::time::timeout(timeout, peer.call_tool(params)).await {
            Ok(Ok(result)) => Ok(result),
            Ok(Err(e)) => Err(service_error(&server, what, e)),
            Err(_) => Err(McpError::Timeout {
                server,
                what,
                timeout,
            }),
        }
    };
    let result = on(&connection.runtime, request).await??;
    convert(&name, result)
}

fn service_error(server: &str, what: String, error: ServiceError) -> McpError {
    let server = server.to_owned();
    match error {
        ServiceError::TransportClosed => McpError::Closed {
            server,
            what,
            source: None,
        },
        e @ ServiceError::TransportSend(_) => McpError::Closed {
            server,
            what,
            source: Some(Cause::from_source(e)),
        },
        ServiceError::Timeout { timeout } => McpError::Timeout {
            server,
            what,
            timeout,
        },
        ServiceError::McpError(e) => McpError::Refused {
            server,
            what,
            source: Cause::described(format!("{} (code {})", e.message, e.code.0), e),
        },
        other => McpError::Refused {
            server,
            what,
            source: Cause::from_source(other),
        },
    }
}

/// The response output and content parts of a call's result; `isError` is a fail.
fn convert(tool: &str, result: CallToolResult) -> Result<ToolOutput, ToolError> {
    let mut texts = Vec::new();
    let mut content = Vec::new();
    for block in result.content {
        match block {
            ContentBlock::Text(t) => texts.push(t.text),
            ContentBlock::Image(image) => {
                content.push(Part::inline_media(
                    image.mime_type,
                    decode(tool, "image", &image.data)?,
                ));
            }
            ContentBlock::Audio(audio) => {
                content.push(Part::inline_media(
                    audio.mime_type,
                    decode(tool, "audio", &audio.data)?,
                ));
            }
            ContentBlock::Resource(embedded) => {
                content.push(resource_part(tool, embedded.resource)?)
            }
            ContentBlock::ResourceLink(link) => {
                let mut part = Part::from(PartKind::Media(Media {
                    content_type: link.mime_type.clone(),
                    source: MediaSource::Url(link.uri.clone()),
                }));
                part.metadata = Some(meta([("uri", Some(link.uri)), ("name", Some(link.name))]));
                content.push(part);
            }
            other => content.push(Part::custom(
                serde_json::to_value(&other).unwrap_or(Value::Null),
            )),
        }
    }
    let text = texts.join("\n");
    if result.is_error == Some(true) {
        let message = match (text.is_empty(), result.structured_content) {
            (false, _) => text,
            (true, Some(structured)) => structured.to_string(),
            (true, None) => format!("tool {tool:?} reported an error without a message"),
        };
        return Err(ToolError::fail_message(message));
    }
    let output = match result.structured_content {
        Some(structured) => Some(structured),
        None if texts.is_empty() => None,
        None => Some(Value::String(text)),
    };
    Ok(ToolOutput {
        output,
        content,
        metadata: None,
    })
}

fn resource_part(tool: &str, resource: ResourceContents) -> Result<Part, ToolError> {
    Ok(match resource {
        ResourceContents::TextResourceContents {
            uri,
            mime_type,
            text,
            ..
        } => {
            let mut part = Part::text(text);
            part.metadata = Some(meta([("uri", Some(uri)), ("mimeType", mime_type)]));
            part
        }
        ResourceContents::BlobResourceContents {
            uri,
            mime_type,
            blob,
            ..
        } => {
            let bytes = decode(tool, "resource", &blob)?;
            let mut part = Part::from(PartKind::Media(Media {
                content_type: mime_type,
                source: MediaSource::Inline(bytes),
            }));
            part.metadata = Some(meta([("uri", Some(uri))]));
            part
        }
        other => Part::custom(serde_json::to_value(&other).unwrap_or(Value::Null)),
    })
}

fn meta<const N: usize>(entries: [(&str, Option<String>); N]) -> JsonObject {
    entries
        .into_iter()
        .filter_map(|(k, v)| Some((k.to_owned(), Value::String(v?))))
        .collect()
}

fn decode(tool: &str, block: &'static str, data: &str) -> Result<Vec<u8>, McpError> {
    base64::engine::general_purpose::STANDARD
        .decode(data)
        .map_err(|e| McpError::Content {
            tool: tool.to_owned(),
            block,
            source: Cause::described(format!("its data is not base64: {e}"), e),
        })
}

/// Runs `future` on `runtime` (see [`crate::runtime`]) and waits for it from any executor.
async fn on<T, F>(runtime: &tokio::runtime::Handle, future: F) -> Result<T, McpError>
where
    T: Send + 'static,
    F: Future<Output = T> + Send + 'static,
{
    crate::runtime::run(runtime, future)
        .await
        .map_err(|e| McpError::Runtime(Cause::described(format!("the MCP task stopped: {e}"), e)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A result as it arrives on the wire. The blocks follow the content types of the MCP
    /// specification's tool results; written by hand, as no recording of them is kept here.
    fn result(value: Value) -> CallToolResult {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn audio_blob_and_link_blocks_become_media_parts() {
        let out = convert(
            "t",
            result(json!({"content": [
                {"type": "audio", "data": "AAEC", "mimeType": "audio/wav"},
                {"type": "resource", "resource":
                    {"uri": "file:///a.bin", "mimeType": "application/pdf", "blob": "AwQ="}},
                {"type": "resource_link", "uri": "file:///b.txt", "name": "b.txt",
                 "mimeType": "text/plain"}
            ]})),
        )
        .unwrap();
        assert_eq!(out.output, None);
        assert_eq!(
            out.content[0],
            Part::inline_media("audio/wav", vec![0, 1, 2])
        );
        assert_eq!(
            out.content[1].kind,
            Part::inline_media("application/pdf", vec![3, 4]).kind
        );
        assert_eq!(
            out.content[1].metadata.as_ref().unwrap()["uri"],
            json!("file:///a.bin")
        );
        assert_eq!(
            out.content[2].kind,
            Part::media("text/plain", "file:///b.txt").kind
        );
        assert_eq!(
            out.content[2].metadata.as_ref().unwrap()["name"],
            json!("b.txt")
        );
    }

    #[test]
    fn text_blocks_join_into_the_output() {
        let out = convert(
            "t",
            result(json!({"content": [
                {"type": "text", "text": "line one"},
                {"type": "text", "text": "line two"}
            ]})),
        )
        .unwrap();
        assert_eq!(out.output, Some(json!("line one\nline two")));
        assert!(out.content.is_empty());
    }

    #[test]
    fn bad_base64_is_a_clear_error_not_a_panic() {
        let err = convert(
            "chart",
            result(json!({"content": [{"type": "image", "data": "%%%", "mimeType": "image/png"}]})),
        )
        .unwrap_err();
        assert!(!err.is_fail());
        assert!(err.to_string().contains("chart"), "{err}");
        assert!(err.to_string().contains("not base64"), "{err}");
    }

    #[test]
    fn an_error_result_without_text_fails_with_its_structured_content_or_a_note() {
        let err = convert(
            "t",
            result(json!({"content": [], "structuredContent": {"code": 7}, "isError": true})),
        )
        .unwrap_err();
        assert_eq!(err.fail_text(), Some(r#"{"code":7}"#));
        let err = convert("t", result(json!({"content": [], "isError": true}))).unwrap_err();
        assert_eq!(
            err.fail_text(),
            Some(r#"tool "t" reported an error without a message"#)
        );
    }

    #[test]
    fn a_url_that_is_not_http_is_refused_with_what_to_do() {
        let err = futures::executor::block_on(McpServer::http("ws://127.0.0.1:9/mcp").connect())
            .unwrap_err();
        assert!(matches!(err, McpError::Unsupported { .. }), "{err:?}");
        assert!(err.to_string().contains("https://"), "{err}");
    }

    #[test]
    fn an_https_url_is_reached_over_tls() {
        // Nothing listens on port 9: the TLS client is built and the connection refused.
        let err = futures::executor::block_on(
            McpServer::http("https://127.0.0.1:9/mcp")
                .timeout(Duration::from_secs(5))
                .connect(),
        )
        .unwrap_err();
        assert!(matches!(err, McpError::Handshake { .. }), "{err:?}");
        // The client was built (its TLS set up) and the request sent.
        assert!(err.to_string().contains("error sending request"), "{err}");
    }
}
