//! The acceptance cases every transport runs: a whole agent run (a lookup, then the submit) over
//! answers scripted in `tests/transport/<provider>/` (`turn1_lookup`, `turn2_submit` as `.json`
//! and `.sse`, `stringified_submit.json`, `malformed.sse`, `truncated.sse`). They are written
//! here in each API's documented shape, because no public recording holds a run of these tools
//! or a broken stream; the real recorded traffic replays in `transport_replay.rs`.

#![allow(dead_code, reason = "each transport test uses part of the helpers")]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use submit_agent::transport::Retry;
use submit_agent::{
    executor::Committed,
    message::Message,
    model::{Model, ModelRequest, ModelResponse},
    run::RunError,
};
use submit_core::{Provider, RecoveryKind};

use super::agent::{self, executor, paris, Answer, Recording};
use super::server::{Check, Recorded, Reply, Server};

/// One provider's setup.
pub struct Case<M> {
    /// The folder of its scripted answers.
    pub dir: &'static str,
    /// Its request shape check.
    pub check: Check,
    /// The transport, pointed at a server.
    pub model: fn(&str) -> M,
    /// Whether the executor must not force the tool choice.
    pub forbid_forcing: bool,
}

/// The first error of type `T` in `error`'s source chain (`error` itself excluded).
pub fn cause<'e, T: std::error::Error + 'static>(
    error: &'e (dyn std::error::Error + 'static),
) -> Option<&'e T> {
    let mut next = error.source();
    while let Some(e) = next {
        if let Some(t) = e.downcast_ref::<T>() {
            return Some(t);
        }
        next = e.source();
    }
    None
}

/// A tiny backoff for tests.
pub fn fast_retry() -> Retry {
    Retry::new(3).backoff(Duration::from_millis(1), Duration::from_millis(5))
}

/// A one-message request.
pub fn request() -> ModelRequest {
    ModelRequest::new(vec![Message::user("How many people live in Paris?")])
}

impl<M: Model + 'static> Case<M> {
    fn reply(&self, file: &str) -> Reply {
        Reply::scripted(&format!("{}/{file}", self.dir))
    }

    fn run(
        &self,
        server: &Server,
        chunks: Option<Arc<Mutex<Vec<submit_agent::message::Chunk>>>>,
    ) -> (Committed<Answer>, Vec<ModelResponse>) {
        let model = Recording::new((self.model)(&server.url));
        let ex = executor(model.clone(), chunks).forbid_forced_tool_choice(self.forbid_forcing);
        let committed = agent::run_to_commit(&ex);
        assert_eq!(server.problems(), Vec::<String>::new());
        (committed, model.responses())
    }

    /// The full run, unstreamed: the requests received and the responses parsed.
    pub fn full_run(&self) -> (Committed<Answer>, Vec<Recorded>, Vec<ModelResponse>) {
        let server = Server::start(
            self.check,
            vec![
                self.reply("turn1_lookup.json"),
                self.reply("turn2_submit.json"),
            ],
        );
        let (committed, responses) = self.run(&server, None);
        assert_eq!(committed.response, paris());
        assert_eq!(committed.recovery(), None);
        let requests = server.requests();
        assert_eq!(requests.len(), 2);
        (committed, requests, responses)
    }

    /// The streamed run equals the unstreamed one; returns the chunks and the requests.
    pub fn streamed_run(&self) -> (Vec<submit_agent::message::Chunk>, Vec<Recorded>) {
        let (_, _, plain) = self.full_run();
        let server = Server::start(
            self.check,
            vec![
                self.reply("turn1_lookup.sse"),
                self.reply("turn2_submit.sse"),
            ],
        );
        let chunks = Arc::new(Mutex::new(Vec::new()));
        let (committed, streamed) = self.run(&server, Some(Arc::clone(&chunks)));
        assert_eq!(committed.response, paris());
        // A streamed Anthropic call keeps its `input_json_delta` text, where the whole answer
        // carries the object: the text must read as that object.
        assert_eq!(
            as_values(streamed),
            as_values(plain),
            "streamed answers must parse like the unstreamed ones"
        );
        let chunks = chunks.lock().unwrap().clone();
        assert_eq!(
            agent::chunk_tool_names(&chunks),
            ["lookup", "lookup", "submit_result"]
        );
        (chunks, server.requests())
    }

    /// In every request of a full run, the submit tool's definition as sent (found among the
    /// request's tool definitions by `definitions`, keyed by `name`) equals
    /// `SubmitTool::definition(provider)`.
    pub fn submit_definition_on_the_wire(
        &self,
        provider: Provider,
        definitions: fn(&Value) -> Vec<Value>,
        name: fn(&Value) -> Option<&str>,
    ) {
        let (_, requests, _) = self.full_run();
        let expected = agent::submit_tool().definition(provider);
        for r in &requests {
            let tools = definitions(&r.body);
            let sent: Vec<&Value> = tools
                .iter()
                .filter(|d| name(d) == Some("submit_result"))
                .collect();
            assert_eq!(sent, vec![&expected], "{provider}: the submit tool as sent");
            assert!(
                tools.iter().any(|d| name(d) == Some("lookup")),
                "{provider}: the lookup tool is sent too"
            );
        }
    }

    /// A stringified payload reaches the submit tool intact and is recovered.
    pub fn stringified(&self) {
        let server = Server::start(self.check, vec![self.reply("stringified_submit.json")]);
        let (committed, _) = self.run(&server, None);
        assert_eq!(committed.response, paris());
        assert_eq!(committed.recovery(), Some(RecoveryKind::Stringified));
    }

    /// A 429 answer, then success: one retry.
    pub fn rate_limited(&self, body: &str) -> ModelResponse {
        let server = Server::start(
            self.check,
            vec![
                Reply::json(429, body).header("retry-after", "0"),
                self.reply("stringified_submit.json"),
            ],
        );
        let model = (self.model)(&server.url);
        let response = futures::executor::block_on(model.generate(request(), None)).unwrap();
        assert_eq!(server.requests().len(), 2);
        response
    }

    /// The server answering 500 three times: the error after the third attempt.
    pub fn server_errors(&self, body: &str) -> (Server, M) {
        let server = Server::start(
            self.check,
            vec![
                Reply::json(500, body),
                Reply::json(500, body),
                Reply::json(500, body),
                Reply::json(500, body),
            ],
        );
        let model = (self.model)(&server.url);
        (server, model)
    }

    /// Runs the agent against the 500-answering server of [`Case::server_errors`]; returns
    /// the run's error and the number of requests the server received.
    pub fn server_errors_through_the_loop(&self, body: &str) -> (RunError, usize) {
        let (server, model) = self.server_errors(body);
        let ex = executor(model, None).forbid_forced_tool_choice(self.forbid_forcing);
        match futures::executor::block_on(ex.run(agent::question())) {
            Ok(_) => panic!("a run against a failing server must fail"),
            Err(e) => (e, server.requests().len()),
        }
    }

    /// Runs the agent streamed over `file`; returns the run's error text.
    pub fn stream_error(&self, file: &str) -> String {
        let server = Server::start(self.check, vec![self.reply(file)]);
        let chunks = Arc::new(Mutex::new(Vec::new()));
        let ex = executor((self.model)(&server.url), Some(chunks))
            .forbid_forced_tool_choice(self.forbid_forcing);
        match futures::executor::block_on(ex.run(agent::question())) {
            Ok(_) => panic!("{file} must be rejected"),
            Err(e) => e.to_string(),
        }
    }
}

/// The responses with every call's arguments as the value an ordinary tool reads.
fn as_values(mut responses: Vec<ModelResponse>) -> Vec<ModelResponse> {
    for response in &mut responses {
        for part in &mut response.message.content {
            if let submit_agent::message::PartKind::ToolRequest(r) = &mut part.kind {
                r.input = r.input_value().into_owned();
                r.arguments_text = None;
            }
        }
    }
    responses
}
