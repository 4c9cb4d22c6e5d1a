//! The verdict through the loop: a provider's answer decoded by its transport (whole, or as an
//! event stream in pieces of 1, 7 and 61 bytes) and its submit call gated by the executor gets
//! the parser's verdict on the same call, the argument text read as the model sent it; the
//! last call of a turn cut at the output-token limit is never accepted; the run's last turn
//! forces the submit.
//!
//! The answers are written from each API's documented shape (a response body, and the events
//! of its stream); the real recorded traffic replays in `transport_replay.rs`.

#![cfg(all(
    feature = "claude",
    feature = "gemini",
    feature = "openai-chat",
    feature = "openai-responses"
))]

use std::sync::{Arc, Mutex};

use futures::executor::block_on;
use serde_json::{json, Value};
use submit_agent::transport::{Claude, Gemini, OpenAiChat, OpenAiResponses};
use submit_agent::{
    executor::{Committed, Execution, Executor, GateStatus, TerminalTool},
    message::{Message, Part},
    model::{ModelRequest, ModelResponse, ScriptedModel, ToolChoice},
    run::Agent,
    tool::ToolDefinition,
};
use submit_core::{
    Arguments, ErrorClass, Incoming, Options, Outcome, ParameterCause, Provider, RecoveryKind,
    StopReason, SubmitTool,
};

#[derive(Debug, PartialEq, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
struct Summary {
    summary: String,
}

fn tool() -> SubmitTool<Summary> {
    SubmitTool::new(Options::new()).unwrap()
}

/// The two calls of the table: a repeated member, and closing tags left after the object.
const DUPLICATE: &str =
    r#"{"reasoning":"a","result":{"summary":"first"},"result":{"summary":"second"}}"#;
const CLOSERS: &str = r#"{"reasoning":"a","result":{"summary":"first"}}</invoke>"#;
const CLEAN: &str = r#"{"reasoning":"checked","result":{"summary":"done"}}"#;

/// How an answer reaches the transport.
#[derive(Clone, Copy, Debug)]
enum Form {
    /// One JSON body.
    Body,
    /// An event stream, cut into pieces of this many bytes.
    Stream(usize),
}

const FORMS: [Form; 4] = [
    Form::Body,
    Form::Stream(1),
    Form::Stream(7),
    Form::Stream(61),
];

/// One call of an answer: the tool, and its arguments as the wire carries them (argument text
/// for the OpenAI formats and Anthropic's stream; a JSON value, a string included, otherwise).
#[derive(Clone, Debug)]
struct Call {
    name: &'static str,
    arguments: Value,
}

impl Call {
    fn submit(arguments: Value) -> Self {
        Call {
            name: "submit_result",
            arguments,
        }
    }
}

/// Pieces of about a third of `text` each, so every stream carries its text in several deltas.
fn pieces(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let size = chars.len().div_ceil(3).max(1);
    chars.chunks(size).map(|c| c.iter().collect()).collect()
}

/// The argument text a call's arguments are on the wire of a text format.
fn text_of(arguments: &Value) -> String {
    match arguments {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

fn sse(events: &[(Option<&str>, Value)]) -> String {
    let mut out = String::new();
    for (name, data) in events {
        if let Some(name) = name {
            out.push_str(&format!("event: {name}\n"));
        }
        out.push_str(&format!("data: {data}\n\n"));
    }
    out
}

/// The native call objects of an answer, as `SubmitTool::handle` reads them: a string's text
/// is the call's argument text.
fn native_calls(provider: Provider, calls: &[Call]) -> Vec<Value> {
    calls
        .iter()
        .enumerate()
        .map(|(i, call)| {
            let arguments = match &call.arguments {
                Value::String(text) => Arguments::Text(text),
                other => Arguments::Value(other),
            };
            let id = match provider {
                Provider::Claude => Some(format!("toolu_{i}")),
                Provider::Gemini => None,
                _ => Some(format!("call_{i}")),
            };
            let mut native = provider.call(call.name, id.as_deref(), arguments);
            if provider == Provider::OpenAiResponses {
                native["id"] = json!(format!("fc_{i}"));
                native["status"] = json!("completed");
            }
            native
        })
        .collect()
}

/// A whole answer's body holding `calls`, stopped for `stop` (the provider's own spelling).
fn body(provider: Provider, calls: &[Call], stop: &str) -> String {
    let native = native_calls(provider, calls);
    match provider {
        Provider::Claude => json!({"id": "msg_1", "type": "message", "role": "assistant",
            "model": "claude-test", "content": native, "stop_reason": stop,
            "usage": {"input_tokens": 10, "output_tokens": 20}}),
        Provider::Gemini => json!({"candidates": [{"content": {"role": "model", "parts": native},
            "finishReason": stop}], "usageMetadata": {"promptTokenCount": 10,
            "candidatesTokenCount": 20}}),
        Provider::OpenAiChat => json!({"id": "chatcmpl-1", "object": "chat.completion",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": null,
            "tool_calls": native}, "finish_reason": stop}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 20}}),
        _ => responses_body(native, stop),
    }
    .to_string()
}

fn responses_body(output: Vec<Value>, stop: &str) -> Value {
    let mut body = json!({"id": "resp_1", "object": "response", "status": "completed",
        "output": output, "usage": {"input_tokens": 10, "output_tokens": 20}});
    if stop != "completed" {
        body["status"] = json!("incomplete");
        body["incomplete_details"] = json!({"reason": stop});
    }
    body
}

/// The event stream of the same answer; argument text arrives in several deltas.
fn stream(provider: Provider, calls: &[Call], stop: &str) -> String {
    let native = native_calls(provider, calls);
    let mut events: Vec<(Option<&str>, Value)> = Vec::new();
    match provider {
        Provider::Claude => {
            events.push((Some("message_start"), json!({"type": "message_start", "message":
                {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test",
                 "content": [], "stop_reason": null, "usage": {"input_tokens": 10, "output_tokens": 1}}})));
            for (i, (call, block)) in calls.iter().zip(&native).enumerate() {
                let mut start = block.clone();
                start["input"] = json!({});
                events.push((
                    Some("content_block_start"),
                    json!({"type": "content_block_start", "index": i, "content_block": start}),
                ));
                for piece in pieces(&text_of(&call.arguments)) {
                    events.push((
                        Some("content_block_delta"),
                        json!({"type": "content_block_delta",
                        "index": i, "delta": {"type": "input_json_delta", "partial_json": piece}}),
                    ));
                }
                events.push((
                    Some("content_block_stop"),
                    json!({"type": "content_block_stop", "index": i}),
                ));
            }
            events.push((Some("message_delta"), json!({"type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": null}, "usage": {"output_tokens": 20}})));
            events.push((Some("message_stop"), json!({"type": "message_stop"})));
        }
        Provider::Gemini => {
            // Gemini sends each call whole, in one event.
            for part in &native {
                events.push((
                    None,
                    json!({"candidates": [{"content": {"role": "model", "parts": [part]}}]}),
                ));
            }
            events.push((None, json!({"candidates": [{"content": {"role": "model", "parts": [{"text": ""}]},
                "finishReason": stop}], "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 20}})));
        }
        Provider::OpenAiChat => {
            let chunk = |delta: Value, finish: Value| {
                json!({"id": "chatcmpl-1",
                "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta,
                "finish_reason": finish}]})
            };
            events.push((
                None,
                chunk(json!({"role": "assistant", "content": null}), Value::Null),
            ));
            for (i, (call, native)) in calls.iter().zip(&native).enumerate() {
                events.push((
                    None,
                    chunk(
                        json!({"tool_calls": [{"index": i, "id": native["id"],
                    "type": "function", "function": {"name": call.name, "arguments": ""}}]}),
                        Value::Null,
                    ),
                ));
                for piece in pieces(&text_of(&call.arguments)) {
                    events.push((
                        None,
                        chunk(
                            json!({"tool_calls": [{"index": i,
                        "function": {"arguments": piece}}]}),
                            Value::Null,
                        ),
                    ));
                }
            }
            events.push((None, chunk(json!({}), json!(stop))));
            let mut text = sse(&events);
            text.push_str("data: [DONE]\n\n");
            return text;
        }
        _ => {
            events.push((Some("response.created"), json!({"type": "response.created",
                "response": {"id": "resp_1", "object": "response", "status": "in_progress", "output": []}})));
            for (i, (call, item)) in calls.iter().zip(&native).enumerate() {
                let mut added = item.clone();
                added["arguments"] = json!("");
                added["status"] = json!("in_progress");
                events.push((
                    Some("response.output_item.added"),
                    json!({"type":
                    "response.output_item.added", "output_index": i, "item": added}),
                ));
                for piece in pieces(&text_of(&call.arguments)) {
                    events.push((
                        Some("response.function_call_arguments.delta"),
                        json!({"type":
                        "response.function_call_arguments.delta", "output_index": i,
                        "item_id": item["id"], "delta": piece}),
                    ));
                }
                events.push((
                    Some("response.output_item.done"),
                    json!({"type":
                    "response.output_item.done", "output_index": i, "item": item}),
                ));
            }
            let done = responses_body(native.clone(), stop);
            let kind = if stop == "completed" {
                "response.completed"
            } else {
                "response.incomplete"
            };
            events.push((Some(kind), json!({"type": kind, "response": done})));
        }
    }
    sse(&events)
}

/// The answer decoded by the provider's transport in `form`.
fn decode(provider: Provider, calls: &[Call], stop: &str, form: Form) -> ModelResponse {
    let decoded = match form {
        Form::Body => {
            let body = body(provider, calls, stop);
            let body = body.as_bytes();
            match provider {
                Provider::Claude => Claude::new("m").decode_body(body),
                Provider::Gemini => Gemini::new("m").decode_body(body),
                Provider::OpenAiChat => OpenAiChat::new("m").decode_body(body),
                _ => OpenAiResponses::new("m").decode_body(body),
            }
        }
        Form::Stream(size) => {
            let text = stream(provider, calls, stop);
            let chunks = text.as_bytes().chunks(size);
            match provider {
                Provider::Claude => Claude::new("m").decode_stream(chunks),
                Provider::Gemini => Gemini::new("m").decode_stream(chunks),
                Provider::OpenAiChat => OpenAiChat::new("m").decode_stream(chunks),
                _ => OpenAiResponses::new("m").decode_stream(chunks),
            }
        }
    };
    decoded.unwrap_or_else(|e| panic!("{provider} {form:?}: {e}"))
}

/// The submit tool, recording each outcome the executor's gate got from it.
#[derive(Clone)]
struct Recorder {
    tool: SubmitTool<Summary>,
    outcomes: Arc<Mutex<Vec<Value>>>,
}

impl Recorder {
    fn new() -> Self {
        Recorder {
            tool: tool(),
            outcomes: Arc::default(),
        }
    }

    fn outcomes(&self) -> Vec<Value> {
        self.outcomes.lock().unwrap().clone()
    }
}

impl TerminalTool<Summary> for Recorder {
    fn name(&self) -> &str {
        TerminalTool::name(&self.tool)
    }

    fn definition(&self) -> ToolDefinition {
        TerminalTool::definition(&self.tool)
    }

    fn payload_schema(&self) -> Value {
        TerminalTool::payload_schema(&self.tool)
    }

    fn verdict(&self, arguments: Arguments<'_>, end: StopReason) -> Outcome<Summary> {
        let outcome = TerminalTool::verdict(&self.tool, arguments, end);
        self.outcomes
            .lock()
            .unwrap()
            .push(serde_json::to_value(&outcome).unwrap());
        outcome
    }
}

/// The executor's run on one decoded answer (then a model with nothing more to say): the
/// gate's first outcome, and the run when it committed.
fn through_the_loop(response: ModelResponse) -> (Value, Option<Committed<Summary>>) {
    let recorder = Recorder::new();
    let model = ScriptedModel::new().then(response);
    let executor = Executor::new(Agent::new(model).max_turns(1), recorder.clone()).unwrap();
    let run = block_on(executor.run(vec![Message::user("summarize")]));
    let committed = match run {
        Ok(Execution::Committed(c)) => Some(*c),
        _ => None,
    };
    let outcomes = recorder.outcomes();
    let first = outcomes
        .first()
        .cloned()
        .expect("the gate handled the call");
    (first, committed)
}

/// The parser's verdict on the call as the transport received it: the native call for the
/// whole answers, the argument text for a streamed Anthropic call (whose `input` arrives as
/// `input_json_delta` text).
fn parser_verdict(provider: Provider, call: &Call, form: Form, stop: StopReason) -> Value {
    let tool = tool();
    let outcome = match (provider, form) {
        (Provider::Claude, Form::Stream(_)) => {
            let text = text_of(&call.arguments);
            let incoming = Incoming::arguments(None, Arguments::Text(&text)).stop(stop);
            tool.receive(incoming).unwrap().unwrap()
        }
        _ => {
            let native = &native_calls(provider, std::slice::from_ref(call))[0];
            let incoming = Incoming::call(provider, native).stop(stop);
            tool.receive(incoming).unwrap().unwrap()
        }
    };
    serde_json::to_value(outcome).unwrap()
}

/// Checks one row of the table on every form of `provider`'s answer. The call carries `text`
/// as the wire does: argument text for the OpenAI formats and Anthropic's stream, and a JSON
/// string `input`/`args` (a gateway or model that sends one) where the wire carries values,
/// since neither a repeated member nor trailing tags can live in a JSON object.
fn the_row_holds(provider: Provider, text: &str, check: impl Fn(&Value, Form)) {
    for form in FORMS {
        let call = Call::submit(Value::String(text.to_owned()));
        let response = decode(
            provider,
            std::slice::from_ref(&call),
            stop_of(provider),
            form,
        );
        let (got, committed) = through_the_loop(response);
        let want = parser_verdict(provider, &call, form, StopReason::Complete);
        assert_eq!(
            got, want,
            "{provider} {form:?}: the loop's verdict is the parser's"
        );
        if let Some(committed) = committed {
            let recoveries = serde_json::to_value(&committed.recoveries).unwrap();
            assert_eq!(
                recoveries, want["recoveries"],
                "{provider} {form:?}: committed"
            );
        }
        check(&got, form);
    }
}

/// A normal stop reason in the provider's spelling.
fn stop_of(provider: Provider) -> &'static str {
    match provider {
        Provider::Claude => "tool_use",
        Provider::Gemini => "STOP",
        Provider::OpenAiChat => "tool_calls",
        _ => "completed",
    }
}

/// The output-limit stop reason in the provider's spelling.
fn limit_of(provider: Provider) -> &'static str {
    match provider {
        Provider::Claude => "max_tokens",
        Provider::Gemini => "MAX_TOKENS",
        Provider::OpenAiChat => "length",
        _ => "max_output_tokens",
    }
}

/// Whether the call reaches the parser as text in this form (the OpenAI formats always, and
/// Anthropic's stream); otherwise it is a JSON string value.
fn arrives_as_text(provider: Provider, form: Form) -> bool {
    matches!(provider, Provider::OpenAiChat | Provider::OpenAiResponses)
        || matches!((provider, form), (Provider::Claude, Form::Stream(_)))
}

fn a_repeated_member_is_rejected(provider: Provider) {
    the_row_holds(provider, DUPLICATE, |got, form| {
        assert_eq!(got["accepted"], false, "{provider} {form:?}: {got}");
        assert_eq!(got["cause"], "undecodable_arguments", "{provider} {form:?}");
        assert_eq!(
            got["tool_result"]["error"],
            "failed to parse tool arguments: \"result\" appears twice; send each parameter once",
            "{provider} {form:?}"
        );
    });
}

fn trailing_closers_are_recovered(provider: Provider) {
    the_row_holds(provider, CLOSERS, |got, form| {
        assert_eq!(got["accepted"], true, "{provider} {form:?}: {got}");
        assert_eq!(got["response"], json!({"summary": "first"}));
        let kinds: Vec<&str> = got["recoveries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["kind"].as_str().unwrap())
            .collect();
        // Text records only the closers; a string value was JSON-encoded, and says so.
        let want: &[&str] = if arrives_as_text(provider, form) {
            &["trailing_closers"]
        } else {
            &["stringified_arguments", "trailing_closers"]
        };
        assert_eq!(kinds, want, "{provider} {form:?}");
    });
}

#[test]
fn a_repeated_member_is_rejected_through_the_claude_loop() {
    a_repeated_member_is_rejected(Provider::Claude);
}

#[test]
fn a_repeated_member_is_rejected_through_the_gemini_loop() {
    a_repeated_member_is_rejected(Provider::Gemini);
}

#[test]
fn a_repeated_member_is_rejected_through_the_openai_chat_loop() {
    a_repeated_member_is_rejected(Provider::OpenAiChat);
}

#[test]
fn a_repeated_member_is_rejected_through_the_openai_responses_loop() {
    a_repeated_member_is_rejected(Provider::OpenAiResponses);
}

#[test]
fn trailing_closers_are_recovered_through_the_claude_loop_naming_the_rule() {
    trailing_closers_are_recovered(Provider::Claude);
}

#[test]
fn trailing_closers_are_recovered_through_the_gemini_loop_naming_the_rule() {
    trailing_closers_are_recovered(Provider::Gemini);
}

#[test]
fn trailing_closers_are_recovered_through_the_openai_chat_loop_naming_the_rule() {
    trailing_closers_are_recovered(Provider::OpenAiChat);
}

#[test]
fn trailing_closers_are_recovered_through_the_openai_responses_loop_naming_the_rule() {
    trailing_closers_are_recovered(Provider::OpenAiResponses);
}

/// The clean call as the provider's wire carries it in `form`: text, or the JSON object.
fn clean(provider: Provider, form: Form) -> Call {
    if arrives_as_text(provider, form) {
        Call::submit(Value::String(CLEAN.to_owned()))
    } else {
        Call::submit(serde_json::from_str(CLEAN).unwrap())
    }
}

fn truncated_message(bytes: usize) -> String {
    format!(
        "the submit_result call was cut off at the output-token limit after {bytes} bytes of \
         arguments; call submit_result again with the complete result and keep it shorter (a \
         brief reasoning, no repeated content)"
    )
}

fn a_cut_submit_is_rejected_as_truncated(provider: Provider) {
    for form in FORMS {
        let call = clean(provider, form);
        let response = decode(
            provider,
            std::slice::from_ref(&call),
            limit_of(provider),
            form,
        );
        let (got, committed) = through_the_loop(response);
        assert!(
            committed.is_none(),
            "{provider} {form:?}: committed a cut call"
        );
        assert_eq!(got["class"], "parameter", "{provider} {form:?}: {got}");
        assert_eq!(got["cause"], "truncated_call", "{provider} {form:?}");
        assert_eq!(
            got["tool_result"]["error"],
            truncated_message(CLEAN.len()),
            "{provider} {form:?}"
        );
        let want = parser_verdict(provider, &call, form, StopReason::OutputLimit);
        assert_eq!(
            got, want,
            "{provider} {form:?}: the loop's verdict is the parser's"
        );
    }
}

fn a_clean_submit_in_a_turn_that_stopped_normally_commits(provider: Provider) {
    for form in FORMS {
        let call = clean(provider, form);
        let response = decode(
            provider,
            std::slice::from_ref(&call),
            stop_of(provider),
            form,
        );
        let (got, committed) = through_the_loop(response);
        assert_eq!(got["accepted"], true, "{provider} {form:?}: {got}");
        let committed = committed.expect("committed");
        assert_eq!(committed.response.summary, "done");
        assert!(committed.recoveries.is_empty(), "{provider} {form:?}");
    }
}

#[test]
fn a_cut_submit_is_rejected_as_truncated_through_the_claude_loop() {
    a_cut_submit_is_rejected_as_truncated(Provider::Claude);
}

#[test]
fn a_cut_submit_is_rejected_as_truncated_through_the_gemini_loop() {
    a_cut_submit_is_rejected_as_truncated(Provider::Gemini);
}

#[test]
fn a_cut_submit_is_rejected_as_truncated_through_the_openai_chat_loop() {
    a_cut_submit_is_rejected_as_truncated(Provider::OpenAiChat);
}

#[test]
fn a_cut_submit_is_rejected_as_truncated_through_the_openai_responses_loop() {
    a_cut_submit_is_rejected_as_truncated(Provider::OpenAiResponses);
}

#[test]
fn a_clean_submit_in_a_turn_that_stopped_normally_commits_on_every_provider() {
    for provider in Provider::ALL {
        a_clean_submit_in_a_turn_that_stopped_normally_commits(provider);
    }
}

/// Anthropic answers a call cut at `max_tokens` with whatever input it closed, often `{}`: the
/// loop does not ask for a missing reasoning, it says the call was cut.
#[test]
fn an_empty_input_cut_at_max_tokens_is_truncated_not_missing_a_parameter() {
    for form in [Form::Body, Form::Stream(7)] {
        let call = Call::submit(json!({}));
        let response = decode(Provider::Claude, &[call], "max_tokens", form);
        let (got, _) = through_the_loop(response);
        assert_eq!(got["cause"], "truncated_call");
        assert_eq!(got["tool_result"]["error"], truncated_message(2));
    }
}

/// An agent with a `lookup` tool around `model`, whose submit tool records its outcomes.
fn agent_with_lookup(model: impl submit_agent::model::Model + 'static) -> Agent {
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    struct Lookup {
        #[allow(dead_code, reason = "read by the model, not by the test")]
        city: String,
    }
    Agent::new(model).tool(submit_agent::tool::Tool::new(
        "lookup",
        "Looks a city up.",
        |_ctx: submit_agent::tool::ToolContext, _input: Lookup| async move {
            Ok::<_, submit_agent::tool::ToolError>(json!({"population": 2102650}))
        },
    ))
}

#[test]
fn only_the_last_call_of_a_cut_turn_is_truncated() {
    let lookup = Call {
        name: "lookup",
        arguments: json!({"city": "Paris"}),
    };
    for provider in Provider::ALL {
        let form = Form::Body;
        // The submit first, then another call the limit cut: the submit is complete.
        let calls = [clean(provider, form), lookup.clone()];
        let response = decode(provider, &calls, limit_of(provider), form);
        let recorder = Recorder::new();
        let model = ScriptedModel::new().then(response);
        let executor = Executor::new(agent_with_lookup(model), recorder.clone()).unwrap();
        let run = block_on(executor.run(vec![Message::user("go")])).unwrap();
        assert!(
            run.committed().is_some(),
            "{provider}: the complete submit commits"
        );
        // The submit last: it is the call the limit cut.
        let calls = [lookup.clone(), clean(provider, form)];
        let response = decode(provider, &calls, limit_of(provider), form);
        let recorder = Recorder::new();
        let model = ScriptedModel::new().then(response);
        let executor = Executor::new(agent_with_lookup(model), recorder.clone()).unwrap();
        let _ = block_on(executor.run(vec![Message::user("go")]));
        assert_eq!(
            recorder.outcomes()[0]["cause"],
            "truncated_call",
            "{provider}"
        );
    }
}

/// A model that calls `lookup` on every turn unless the request forces the submit tool (or a
/// user message asks for it now), when it submits.
fn lookup_until_forced(
    request: ModelRequest,
) -> Result<ModelResponse, submit_agent::model::ModelError> {
    let forced = request.tool_choice == ToolChoice::Tool("submit_result".into());
    let asked = request
        .messages
        .last()
        .is_some_and(|m| m.text().contains("last turn of the run"));
    let part = if forced || asked {
        Part::tool_request("submit_result", None, serde_json::from_str(CLEAN).unwrap())
    } else {
        Part::tool_request("lookup", None, json!({"city": "Paris"}))
    };
    Ok(ModelResponse::new(Message::model(vec![part])))
}

#[test]
fn a_run_out_of_turns_commits_the_forced_submit_marked_forced() {
    let executor = Executor::new(
        agent_with_lookup(submit_agent::model::model_fn(lookup_until_forced)).max_turns(3),
        tool(),
    )
    .unwrap();
    let done = block_on(executor.run(vec![Message::user("go")]))
        .unwrap()
        .committed()
        .expect("the forced last turn commits");
    assert_eq!(done.response.summary, "done");
    assert!(done.forced_by_budget);
    assert!(matches!(
        done.trace.last().map(|r| &r.status),
        Some(GateStatus::Committed {
            forced_by_budget: true,
            ..
        })
    ));
    // Two lookups, then the forced submit.
    let calls: Vec<String> = done
        .messages
        .iter()
        .flat_map(|m| {
            m.tool_requests()
                .map(|r| r.name.clone())
                .collect::<Vec<_>>()
        })
        .collect();
    assert_eq!(calls, ["lookup", "lookup", "submit_result"]);
}

#[test]
fn a_submit_before_the_last_turn_is_not_marked_forced() {
    let model = ScriptedModel::new().then_message(vec![Part::tool_request(
        "submit_result",
        None,
        serde_json::from_str(CLEAN).unwrap(),
    )]);
    let executor = Executor::new(agent_with_lookup(model.clone()).max_turns(3), tool()).unwrap();
    let done = block_on(executor.run(vec![Message::user("go")]))
        .unwrap()
        .committed()
        .unwrap();
    assert!(!done.forced_by_budget);
    assert_eq!(model.requests()[0].tool_choice, ToolChoice::Auto);
}

/// The requests of a run of two turns, the second its last.
fn last_turn_requests(forbid_forcing: bool) -> Vec<ModelRequest> {
    let model = ScriptedModel::new()
        .then_message(vec![Part::tool_request(
            "lookup",
            None,
            json!({"city": "Paris"}),
        )])
        .then_message(vec![Part::tool_request(
            "submit_result",
            None,
            serde_json::from_str(CLEAN).unwrap(),
        )]);
    let executor = Executor::new(agent_with_lookup(model.clone()).max_turns(2), tool())
        .unwrap()
        .forbid_forced_tool_choice(forbid_forcing);
    let done = block_on(executor.run(vec![Message::user("go")]))
        .unwrap()
        .committed()
        .unwrap();
    assert!(done.forced_by_budget);
    model.requests()
}

#[test]
fn the_last_turn_forces_the_submit_on_each_providers_wire() {
    let requests = last_turn_requests(false);
    assert_eq!(requests[0].tool_choice, ToolChoice::Auto);
    let last = &requests[1];
    assert_eq!(last.tool_choice, ToolChoice::Tool("submit_result".into()));
    let claude = Claude::new("m").request_body(last, false).unwrap();
    assert_eq!(
        claude["tool_choice"],
        json!({"type": "tool", "name": "submit_result"})
    );
    let gemini = Gemini::new("m").request_body(last, false).unwrap();
    assert_eq!(
        gemini["toolConfig"]["functionCallingConfig"],
        json!({"mode": "ANY", "allowedFunctionNames": ["submit_result"]})
    );
    let chat = OpenAiChat::new("m").request_body(last, false).unwrap();
    assert_eq!(
        chat["tool_choice"],
        json!({"type": "function", "function": {"name": "submit_result"}})
    );
    let responses = OpenAiResponses::new("m").request_body(last, false).unwrap();
    assert_eq!(
        responses["tool_choice"],
        json!({"type": "function", "name": "submit_result"})
    );
}

#[test]
fn where_forcing_is_refused_the_last_turn_asks_for_the_submit_in_a_user_message() {
    let requests = last_turn_requests(true);
    let last = &requests[1];
    assert_eq!(last.tool_choice, ToolChoice::Auto);
    let asked = last.messages.last().unwrap();
    assert_eq!(asked.role, submit_agent::message::Role::User);
    assert_eq!(
        asked.text(),
        "This is the last turn of the run: no more tool calls will run after it. Call the \
         submit_result tool now with your complete, final result."
    );
    // Under extended thinking, Anthropic gets it after the tool results, with `auto`.
    let claude = Claude::new("m")
        .thinking(1024)
        .request_body(last, false)
        .unwrap();
    assert_eq!(claude["tool_choice"], json!({"type": "auto"}));
    let turn = claude["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(turn["role"], "user");
    let blocks = turn["content"].as_array().unwrap();
    assert_eq!(blocks[0]["type"], "tool_result");
    assert_eq!(blocks.last().unwrap()["text"], asked.text());
}

#[test]
fn a_rejected_terminal_call_is_traced_with_its_class_cause_and_message() {
    let model = ScriptedModel::new()
        .then_message(vec![Part::tool_request_text(
            "submit_result",
            None,
            DUPLICATE,
        )])
        .then_message(vec![Part::tool_request_text(
            "submit_result",
            None,
            CLOSERS,
        )]);
    let done = block_on(
        Executor::new(Agent::new(model), tool())
            .unwrap()
            .run(vec![Message::user("go")]),
    )
    .unwrap()
    .committed()
    .unwrap();
    let GateStatus::Rejected(error) = &done.trace[0].status else {
        panic!("{:?}", done.trace[0]);
    };
    assert_eq!(error.class(), ErrorClass::Parameter);
    assert_eq!(error.cause(), Some(ParameterCause::UndecodableArguments));
    assert_eq!(
        error.message(),
        "failed to parse tool arguments: \"result\" appears twice; send each parameter once"
    );
    assert_eq!(
        serde_json::to_value(&done.recoveries).unwrap(),
        json!([{"kind": RecoveryKind::TrailingClosers.as_str(), "parameters": []}])
    );
    let GateStatus::Committed { recoveries, .. } = &done.trace[1].status else {
        panic!("{:?}", done.trace[1]);
    };
    assert_eq!(recoveries, &done.recoveries);
}

// Recorded answers that stopped at the output-token limit while a tool call was being written
// (`tests/recordings/PROVENANCE.md`), each read by its transport and gated as the submit tool
// of the tool the model was calling.

fn recording(path: &str) -> String {
    let path = format!("{}/tests/recordings/{path}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// A submit tool standing in for the recorded tool `name`: its arguments are the payload
/// (flat), with no reasoning parameter, as the recorded tool took them.
fn stand_in(name: &str, schema: Value) -> SubmitTool<Value> {
    let options = Options::new()
        .tool_name(name.to_owned())
        .flat_payload(true)
        .omit_reasoning(true);
    SubmitTool::from_json_schema(schema, options).unwrap()
}

/// The outcomes the gate got on `response`, with `others` registered as ordinary tools that
/// answer `{}`.
fn gate_outcomes(tool: SubmitTool<Value>, others: &[&str], response: ModelResponse) -> Vec<Value> {
    let outcomes = Arc::new(Mutex::new(Vec::new()));
    struct Recording(SubmitTool<Value>, Arc<Mutex<Vec<Value>>>);
    impl TerminalTool<Value> for Recording {
        fn name(&self) -> &str {
            TerminalTool::name(&self.0)
        }
        fn definition(&self) -> ToolDefinition {
            TerminalTool::definition(&self.0)
        }
        fn payload_schema(&self) -> Value {
            TerminalTool::payload_schema(&self.0)
        }
        fn verdict(&self, arguments: Arguments<'_>, end: StopReason) -> Outcome<Value> {
            let outcome = TerminalTool::verdict(&self.0, arguments, end);
            self.1
                .lock()
                .unwrap()
                .push(serde_json::to_value(&outcome).unwrap());
            outcome
        }
    }
    let mut agent = Agent::new(ScriptedModel::new().then(response));
    for name in others {
        agent = agent.tool(submit_agent::tool::Tool::new(
            *name,
            "A recorded tool.",
            |_ctx: submit_agent::tool::ToolContext, _input: Value| async move {
                Ok::<_, submit_agent::tool::ToolError>(json!({}))
            },
        ));
    }
    let executor = Executor::new(agent, Recording(tool, Arc::clone(&outcomes))).unwrap();
    let _ = block_on(executor.run(vec![Message::user("go")]));
    let got = outcomes.lock().unwrap().clone();
    got
}

#[test]
fn a_recorded_anthropic_call_answered_as_an_empty_input_at_max_tokens_is_truncated() {
    let recording: Value = serde_json::from_str(&recording(
        "claude/should-handle-multiple-tools-in-single-request.json",
    ))
    .unwrap();
    let body = recording[0]["response"].to_string();
    let response = Claude::new("m").decode_body(body.as_bytes()).unwrap();
    assert_eq!(
        response.finish_reason,
        submit_agent::model::FinishReason::Length
    );
    let schema = recording[0]["body"]["tools"][1]["input_schema"].clone();
    let outcomes = gate_outcomes(
        stand_in("calculate", schema.clone()),
        &["get_weather", "web_search"],
        response,
    );
    assert_eq!(outcomes.len(), 1);
    assert_eq!(outcomes[0]["cause"], "truncated_call", "{}", outcomes[0]);
    assert_eq!(
        outcomes[0]["tool_result"]["error"],
        "the calculate call was cut off at the output-token limit after 2 bytes of arguments; \
         call calculate again with the complete result and keep it shorter (a brief reasoning, \
         no repeated content)"
    );
    // Read without its stop reason, the empty input would ask for a missing parameter: a
    // mistake the model did not make.
    let call = &recording[0]["response"]["content"][2];
    let unaware = stand_in("calculate", schema).handle(Provider::Claude, call);
    let error = unaware.error().expect("rejected");
    assert_eq!(
        error.cause(),
        Some(ParameterCause::AbsentOrMistyped),
        "{error}"
    );
}

#[test]
fn a_recorded_anthropic_stream_cut_in_a_tool_calls_text_is_truncated() {
    // The file stops after the last event's data line; on the wire a blank line ends it.
    let stream = recording("claude/incomplete_partial_json_response.txt") + "\n\n";
    for size in [stream.len(), 1, 7, 61] {
        let response = Claude::new("m")
            .decode_stream(stream.as_bytes().chunks(size))
            .unwrap();
        let call = response.message.tool_requests().next().unwrap().clone();
        let text = call
            .arguments_text
            .clone()
            .expect("the streamed text is kept");
        assert!(text.starts_with("{\"filename\": \"taxes.txt\", \"lines_of_text\": ["));
        assert!(text.ends_with("\n\"Filing taxes"), "{text:?}");
        let schema = json!({"type": "object", "properties": {"filename": {"type": "string"},
            "lines_of_text": {"type": "array", "items": {"type": "string"}}},
            "required": ["filename", "lines_of_text"]});
        let outcomes = gate_outcomes(stand_in("make_file", schema), &[], response);
        assert_eq!(
            outcomes[0]["cause"], "truncated_call",
            "in pieces of {size}"
        );
        assert_eq!(
            outcomes[0]["tool_result"]["error"],
            format!(
                "the make_file call was cut off at the output-token limit after {} bytes of \
                 arguments; call make_file again with the complete result and keep it shorter \
                 (a brief reasoning, no repeated content)",
                text.len()
            )
        );
    }
}

#[test]
fn a_recorded_responses_stream_cut_at_max_output_tokens_is_truncated() {
    let har: Value = serde_json::from_str(&recording(
        "openai_responses/handles-refusal-for-stream.har",
    ))
    .unwrap();
    let entry = &har["log"]["entries"][0];
    let stream = entry["response"]["content"]["text"].as_str().unwrap();
    let sent: Value =
        serde_json::from_str(entry["request"]["postData"]["text"].as_str().unwrap()).unwrap();
    let name = "__mirascope_formatted_output_tool__";
    let schema = sent["tools"][0]["parameters"].clone();
    for size in [stream.len(), 7, 61] {
        let response = OpenAiResponses::new("m")
            .decode_stream(stream.as_bytes().chunks(size))
            .unwrap();
        assert_eq!(
            response.finish_reason,
            submit_agent::model::FinishReason::Length
        );
        let call = response.message.tool_requests().next().unwrap().clone();
        let text = call
            .arguments_text
            .clone()
            .expect("the argument text is kept");
        assert!(text.ends_with("how naloxone works and"), "{text:?}");
        let outcomes = gate_outcomes(stand_in(name, schema.clone()), &[], response);
        assert_eq!(
            outcomes[0]["cause"], "truncated_call",
            "in pieces of {size}"
        );
        assert!(outcomes[0]["tool_result"]["error"]
            .as_str()
            .unwrap()
            .contains(&format!("after {} bytes of arguments", text.len())));
    }
}

/// A submit call that waited in an interrupted round is gated after the conversation went
/// through JSON (a database row between the interrupt and its resume) on the text the model
/// sent, not on a value decoded from it.
#[test]
fn argument_text_survives_a_resume_from_stored_json() {
    use submit_agent::{
        run::Resume,
        tool::{Tool, ToolContext, ToolError},
    };
    let model = ScriptedModel::new()
        .then_message(vec![
            Part::tool_request("approve", Some("a".into()), json!({})),
            Part::tool_request_text("submit_result", Some("s".into()), DUPLICATE),
        ])
        .then_message(vec![Part::tool_request_text("submit_result", None, CLEAN)]);
    let agent = Agent::new(model).tool(Tool::new(
        "approve",
        "Asks a person.",
        |ctx: ToolContext, _input: Value| async move {
            Err::<Value, ToolError>(ctx.interrupt(json!({"why": "a person checks it"})))
        },
    ));
    let executor = Executor::new(agent, tool()).unwrap();
    let Execution::Interrupted(paused) = block_on(executor.run(vec![Message::user("go")])).unwrap()
    else {
        panic!("the approval interrupts the round");
    };
    let stored = serde_json::to_string(&paused.history()).unwrap();
    let history: Vec<Message> = serde_json::from_str(&stored).unwrap();
    let held = history
        .last()
        .and_then(|m| m.content.iter().find(|p| p.is_interrupt()))
        .expect("the held call")
        .clone();
    let respond = held.to_tool_response(json!({"approved": true})).unwrap();
    let done = block_on(executor.resume(history, Resume::new().respond(respond)))
        .unwrap()
        .committed()
        .expect("the next submit commits");
    let GateStatus::Rejected(error) = &done.trace[0].status else {
        panic!("{:?}", done.trace);
    };
    assert_eq!(
        error.message(),
        "failed to parse tool arguments: \"result\" appears twice; send each parameter once"
    );
    assert_eq!(done.response.summary, "done");
}
