//! The executor's verdict on a decoded answer: the provider's transport reads a body or a
//! stream, and the executor runs one turn on it with the vector's tool, recorded: a call of the
//! tool through `TerminalTool::handle`, a text-only turn through `TerminalTool::handle_text`, an entry
//! of a `multi_tool_use.parallel` call naming the tool through `TerminalTool::handle_parallel_entry`.

use std::sync::{Arc, Mutex, PoisonError};

use futures::executor::block_on;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};
use submit_result::agent::transport::{Claude, Gemini, OpenAiChat, OpenAiResponses};
use submit_result::agent::{
    executor::{Execution, Executor, TerminalTool},
    message::{Message, PartKind, Role},
    model::{ModelResponse, ScriptedModel},
    run::Agent,
    tool::{Tool, ToolDefinition, ToolOutput},
};
use submit_result::{Arguments, Outcome, ParallelEntry, Provider, StopReason, SubmitTool};

use super::corpus::{found_json, outcome_json};

/// The answer as it reached the transport.
pub enum Answer<'a> {
    /// A whole JSON body.
    Body(&'a [u8]),
    /// An event stream, received in pieces of this many bytes.
    Stream(&'a [u8], usize),
}

/// The response the provider's transport reads from `answer` (`decode_body`, or
/// `decode_stream` over the stream cut into pieces).
pub fn decode(provider: Provider, answer: Answer<'_>) -> Result<ModelResponse, String> {
    let decoded = match answer {
        Answer::Body(body) => match provider {
            Provider::Claude => Claude::new("claude-sonnet-4-5").decode_body(body),
            Provider::Gemini => Gemini::new("gemini-2.5-flash").decode_body(body),
            Provider::OpenAiChat => OpenAiChat::new("gpt-4.1").decode_body(body),
            Provider::OpenAiResponses => OpenAiResponses::new("gpt-5").decode_body(body),
        },
        Answer::Stream(bytes, cut) => {
            let chunks = bytes.chunks(cut);
            match provider {
                Provider::Claude => Claude::new("claude-sonnet-4-5").decode_stream(chunks),
                Provider::Gemini => Gemini::new("gemini-2.5-flash").decode_stream(chunks),
                Provider::OpenAiChat => OpenAiChat::new("gpt-4.1").decode_stream(chunks),
                Provider::OpenAiResponses => OpenAiResponses::new("gpt-5").decode_stream(chunks),
            }
        }
    };
    decoded.map_err(|e| format!("the {provider} transport refused the answer: {e}"))
}

/// The submit tool as the executor's terminal, recording every outcome it gives.
struct Recorder<R> {
    tool: SubmitTool<R>,
    seen: Arc<Mutex<Vec<Value>>>,
}

impl<R> TerminalTool<R> for Recorder<R>
where
    R: DeserializeOwned + Serialize + Send + Sync + 'static,
{
    fn name(&self) -> &str {
        <SubmitTool<R> as TerminalTool<R>>::name(&self.tool)
    }

    fn definition(&self) -> ToolDefinition {
        <SubmitTool<R> as TerminalTool<R>>::definition(&self.tool)
    }

    fn payload_schema(&self) -> Value {
        <SubmitTool<R> as TerminalTool<R>>::payload_schema(&self.tool)
    }

    fn verdict(&self, arguments: Arguments<'_>, end: StopReason) -> Outcome<R> {
        let outcome = <SubmitTool<R> as TerminalTool<R>>::verdict(&self.tool, arguments, end);
        self.record(outcome_json(&outcome));
        outcome
    }

    /// Recorded as the command line prints it: `{"accepted": false, "found": false}` when the
    /// text holds no call of the tool.
    fn verdict_on_text(&self, text: &str, end: StopReason) -> Option<Outcome<R>> {
        let outcome = <SubmitTool<R> as TerminalTool<R>>::verdict_on_text(&self.tool, text, end);
        self.record(found_json(outcome.as_ref()));
        outcome
    }

    fn verdict_on_entry(&self, entry: &ParallelEntry, end: StopReason) -> Outcome<R> {
        let outcome = <SubmitTool<R> as TerminalTool<R>>::verdict_on_entry(&self.tool, entry, end);
        self.record(outcome_json(&outcome));
        outcome
    }
}

impl<R> Recorder<R> {
    fn record(&self, outcome: Value) {
        self.seen
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(outcome);
    }
}

/// An ordinary tool named `name` that answers every call with `{}`: the stand-in for a tool a
/// `multi_tool_use.parallel` entry names besides the terminal.
fn stand_in(name: &str) -> Tool {
    let definition = ToolDefinition::new(
        name.to_owned(),
        format!("A stand-in for {name}."),
        json!({"type": "object"}),
    );
    Tool::from_fn(definition, |_, _| async {
        Ok(ToolOutput::value(json!({})))
    })
}

/// What a run on one answer gave.
pub struct Ran {
    /// Every outcome the terminal gave, in order (a text with no call of the tool as
    /// `{"accepted": false, "found": false}`).
    pub outcomes: Vec<Value>,
    /// What the run committed, as an accepted outcome's fields (`None`: nothing committed).
    pub committed: Option<Value>,
    /// Every tool result answered to the model (the run's tool messages).
    pub answered: Vec<Value>,
    /// Every user message the run added after the first (the nudges after a turn that made no
    /// tool call).
    pub told: Vec<String>,
}

/// Runs the executor (one turn) on a model that answers once with `response`, then fails;
/// `stand_ins` names the ordinary tools the answer calls (each answers `{}`).
pub fn run<R>(
    tool: &SubmitTool<R>,
    response: ModelResponse,
    stand_ins: &[String],
) -> Result<Ran, String>
where
    R: DeserializeOwned + Serialize + Send + Sync + 'static,
{
    let seen = Arc::new(Mutex::new(Vec::new()));
    let recorder = Recorder {
        tool: tool.clone(),
        seen: Arc::clone(&seen),
    };
    let model = ScriptedModel::new().then(response);
    let mut agent = Agent::new(model).max_turns(1);
    for name in stand_ins {
        agent = agent.tool(stand_in(name));
    }
    let executor =
        Executor::new(agent, recorder).map_err(|e| format!("the executor does not build: {e}"))?;
    let result = block_on(executor.run(vec![Message::user("Submit the result.")]));
    let (committed, history) = match result {
        Ok(Execution::Committed(done)) => {
            let committed = json!({
                "response": outcome_json(&done.response),
                "reasoning": done.reasoning,
                "recovery": outcome_json(&done.recovery()),
                "recoveries": outcome_json(&done.recoveries),
            });
            (Some(committed), done.messages)
        }
        Ok(Execution::Interrupted(response)) => {
            return Err(format!(
                "the run was interrupted: {:?}",
                response.finish_message
            ))
        }
        Err(error) => (None, error.partial.map(|p| p.history()).unwrap_or_default()),
    };
    let answered = history
        .iter()
        .flat_map(|message| &message.content)
        .filter_map(|part| match &part.kind {
            PartKind::ToolResponse(response) => response.output.clone(),
            _ => None,
        })
        .collect();
    let told = history
        .iter()
        .filter(|message| message.role == Role::User)
        .skip(1)
        .map(Message::text)
        .collect();
    let outcomes = std::mem::take(&mut *seen.lock().unwrap_or_else(PoisonError::into_inner));
    Ok(Ran {
        outcomes,
        committed,
        answered,
        told,
    })
}
