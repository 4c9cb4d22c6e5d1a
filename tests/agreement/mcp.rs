//! The MCP server: `submit-result mcp` over stdio, driven by the agent's MCP client. A server
//! accepts one result and refuses every later submit, so a batch of calls sharing a tool runs
//! through as many servers as it has accepted calls (plus one): each server takes calls until
//! one is accepted, and the next call goes to a new server.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::time::Duration;

use futures::executor::block_on;
use serde_json::{json, Map, Value};
use submit_result::agent::mcp::McpServer;
use submit_result::agent::tool::Tool;

use super::cli::{binary, workdir};

/// How many servers of one batch run at once.
const LANES: usize = 3;

/// What the server answered one call.
#[derive(Clone, Debug)]
pub enum Answered {
    /// A success result: its structured content, and the line the server wrote to `--out`.
    Accepted { structured: Value, written: Value },
    /// A tool error (`isError: true`): its text.
    Rejected(String),
}

/// Calls that share a tool (schema and flags), each sent as one `tools/call`.
pub struct McpBatch {
    /// The schema file.
    pub schema: PathBuf,
    /// The tool's flags.
    pub flags: Vec<String>,
    /// The calls' arguments (`None`: no arguments member).
    pub calls: Vec<Option<Map<String, Value>>>,
    /// What each call was answered, read once.
    result: OnceLock<Vec<Result<Answered, String>>>,
}

impl McpBatch {
    /// A batch with no calls yet.
    pub fn new(schema: PathBuf, flags: Vec<String>) -> Self {
        McpBatch {
            schema,
            flags,
            calls: Vec::new(),
            result: OnceLock::new(),
        }
    }

    /// What call `index` was answered, running the batch the first time.
    pub fn answer(&self, index: usize) -> Result<Answered, String> {
        let answers = self.result.get_or_init(|| self.run());
        answers
            .get(index)
            .cloned()
            .unwrap_or_else(|| Err(format!("no answer for call {index}")))
    }

    fn run(&self) -> Vec<Result<Answered, String>> {
        let indices: Vec<usize> = (0..self.calls.len()).collect();
        let lane = indices.len().div_ceil(LANES).max(1);
        std::thread::scope(|scope| {
            let lanes: Vec<_> = indices
                .chunks(lane)
                .map(|chunk| scope.spawn(move || self.run_lane(chunk)))
                .collect();
            lanes
                .into_iter()
                .flat_map(|lane| {
                    lane.join()
                        .unwrap_or_else(|_| vec![Err("an MCP lane panicked".to_owned())])
                })
                .collect()
        })
    }

    /// Sends the calls of `indices` in order, starting a new server after each accepted call.
    fn run_lane(&self, indices: &[usize]) -> Vec<Result<Answered, String>> {
        let mut answers = Vec::with_capacity(indices.len());
        let mut server: Option<(McpServer, Tool, PathBuf)> = None;
        for &index in indices {
            let (connection, tool, out) = match server.take() {
                Some(running) => running,
                None => match self.start() {
                    Ok(started) => started,
                    Err(error) => {
                        answers.push(Err(error));
                        continue;
                    }
                },
            };
            let input = self.calls[index].clone().map_or(Value::Null, Value::Object);
            match block_on(tool.call(input)) {
                // The server is spent: it is dropped (and stopped), the next call goes to a
                // new one.
                Ok(output) => {
                    let structured = output.output.unwrap_or(Value::Null);
                    let written = std::fs::read_to_string(&out)
                        .map_err(|e| format!("cannot read {}: {e}", out.display()))
                        .and_then(|text| {
                            serde_json::from_str(text.trim()).map_err(|e| {
                                format!("the server's --out line is not JSON ({e}): {text}")
                            })
                        });
                    answers.push(written.map(|written| Answered::Accepted {
                        structured,
                        written,
                    }));
                }
                Err(error) => match error.fail_text() {
                    Some(text) => {
                        answers.push(Ok(Answered::Rejected(text.to_owned())));
                        server = Some((connection, tool, out));
                    }
                    None => answers.push(Err(format!("the MCP call failed: {error}"))),
                },
            }
        }
        answers
    }

    /// Starts `submit-result mcp --schema FILE <flags> --out OUT` and connects to it.
    fn start(&self) -> Result<(McpServer, Tool, PathBuf), String> {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let dir = workdir();
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let out = dir.join(format!(
            "mcp-{}.jsonl",
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let mut command = Command::new(binary()?);
        command
            .args(["mcp", "--schema"])
            .arg(&self.schema)
            .args(&self.flags)
            .arg("--out")
            .arg(&out)
            .env("RUST_LOG", "error")
            .stderr(Stdio::null());
        let server = block_on(
            McpServer::child(command)
                .timeout(Duration::from_secs(30))
                .connect(),
        )
        .map_err(|e| format!("cannot connect to submit-result mcp: {e}"))?;
        let tools = server.tools();
        let tool = match tools.as_slice() {
            [tool] => tool.clone(),
            _ => {
                let names: Vec<&str> = tools.iter().map(Tool::name).collect();
                return Err(format!("the server lists {names:?}, not one submit tool"));
            }
        };
        Ok((server, tool, out))
    }
}

/// What an MCP answer exposes, in the outcome's fields: whether it was accepted, the tool
/// result the model reads (the structured content of a success, the text of a tool error),
/// and, for an accepted call, the outcome the server wrote out.
pub fn observed(answer: &Answered) -> Result<Value, String> {
    Ok(match answer {
        Answered::Accepted {
            structured,
            written,
        } => {
            if written["tool_result"] != *structured {
                return Err(format!(
                    "the structured content {structured} is not the written tool_result {}",
                    written["tool_result"]
                ));
            }
            written.clone()
        }
        Answered::Rejected(text) => json!({"accepted": false, "tool_result": {"error": text}}),
    })
}
