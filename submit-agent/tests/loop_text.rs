//! Calls that never became calls, through the loop: a turn with no tool call whose text holds a
//! call of the submit tool (in a chat template's own syntax) commits as if called, with
//! `call_in_text` recorded; one that cannot be read is answered with the hint in the message
//! that names the tool; and the entries of an invented `multi_tool_use.parallel` call run as
//! the turn's calls, answered on the wrapper's own id.
//!
//! The answers are written from each API's documented shape; the texts are those the model
//! templates write (their real examples are in the corpus,
//! `submit-core/tests/corpus/17_calls_in_text.json`).

#![cfg(all(
    feature = "claude",
    feature = "gemini",
    feature = "openai-chat",
    feature = "openai-responses"
))]

use futures::executor::block_on;
use serde_json::{json, Value};
use submit_agent::transport::{Claude, Gemini, OpenAiChat, OpenAiResponses};
use submit_agent::{
    executor::{Execution, Executor, GateStatus},
    message::{Message, Part, Role},
    model::{ModelResponse, ScriptedModel},
    run::Agent,
    tool::{Tool, ToolContext, ToolError},
};
use submit_core::{Options, Provider, SubmitTool, TextFormat};

#[derive(Debug, PartialEq, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
struct Summary {
    summary: String,
}

fn tool() -> SubmitTool<Summary> {
    SubmitTool::new(Options::new()).unwrap()
}

const HERMES: &str = "I have what I need.\n<tool_call>\n{\"name\": \"submit_result\", \"arguments\": {\"reasoning\": \"checked\", \"result\": {\"summary\": \"done\"}}}\n</tool_call><|im_end|>";
const XML_FUNCTION: &str = "<tool_call>\n<function=submit_result>\n<parameter=reasoning>\nchecked\n</parameter>\n<parameter=result>\n{\"summary\": \"done\"}\n</parameter>\n</function>\n</tool_call>";
const MALFORMED: &str = "<tool_call>\n{\"name\": \"submit_result\", \"arguments\": {\"reasoning\": \"checked\", \"result\": {\"summary\": \"done\"}\n</tool_call>";

/// A whole answer of `provider` whose only content is `text`.
fn text_answer(provider: Provider, text: &str) -> ModelResponse {
    let body = match provider {
        Provider::Claude => json!({"id": "msg_1", "type": "message", "role": "assistant",
            "model": "m", "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
            "usage": {"input_tokens": 1, "output_tokens": 1}}),
        Provider::Gemini => json!({"candidates": [{"content": {"role": "model",
            "parts": [{"text": text}]}, "finishReason": "STOP"}]}),
        Provider::OpenAiChat => json!({"id": "c", "object": "chat.completion", "choices": [
            {"index": 0, "message": {"role": "assistant", "content": text},
             "finish_reason": "stop"}]}),
        _ => json!({"id": "r", "object": "response", "status": "completed", "output": [
            {"type": "message", "id": "msg_1", "role": "assistant",
             "content": [{"type": "output_text", "text": text}]}]}),
    }
    .to_string();
    let body = body.as_bytes();
    match provider {
        Provider::Claude => Claude::new("m").decode_body(body),
        Provider::Gemini => Gemini::new("m").decode_body(body),
        Provider::OpenAiChat => OpenAiChat::new("m").decode_body(body),
        _ => OpenAiResponses::new("m").decode_body(body),
    }
    .unwrap()
}

fn a_text_call_commits(provider: Provider, text: &str, format: TextFormat) {
    let model = ScriptedModel::new().then(text_answer(provider, text));
    let executor = Executor::new(Agent::new(model), tool()).unwrap();
    let done = block_on(executor.run(vec![Message::user("summarize")]))
        .unwrap()
        .committed()
        .unwrap_or_else(|| panic!("{provider} {format:?}: not committed"));
    assert_eq!(done.response.summary, "done");
    assert_eq!(done.recoveries[0].kind.as_str(), "call_in_text");
    assert_eq!(done.recoveries[0].format, Some(format), "{provider}");
    // The conversation keeps the text turn as the model wrote it.
    let last = done.messages.last().unwrap();
    assert_eq!(last.role, Role::Model);
    assert_eq!(last.text(), text);
}

#[test]
fn a_hermes_call_in_a_text_turn_commits_on_every_provider() {
    for provider in Provider::ALL {
        a_text_call_commits(provider, HERMES, TextFormat::Hermes);
    }
}

#[test]
fn an_xml_function_call_in_a_text_turn_commits_on_every_provider() {
    for provider in Provider::ALL {
        a_text_call_commits(provider, XML_FUNCTION, TextFormat::XmlFunction);
    }
}

#[test]
fn a_malformed_text_call_is_answered_with_the_hint_in_the_message_that_names_the_tool() {
    for provider in Provider::ALL {
        let model = ScriptedModel::new()
            .then(text_answer(provider, MALFORMED))
            .then_message(vec![Part::tool_request(
                "submit_result",
                None,
                json!({"reasoning": "checked", "result": {"summary": "done"}}),
            )]);
        let executor = Executor::new(Agent::new(model.clone()), tool()).unwrap();
        let done = block_on(executor.run(vec![Message::user("summarize")]))
            .unwrap()
            .committed()
            .unwrap();
        assert!(done.recoveries.is_empty());
        let asked = model.requests()[1].messages.last().unwrap().text();
        assert!(
            asked.starts_with(
                "Your last turn did not call any tool, so the run cannot end: your reply \
                 contains a hermes call of submit_result written as text, which is not run; \
                 call submit_result as a tool call: "
            ),
            "{provider}: {asked}"
        );
        assert!(asked.ends_with(
            "To finish, call the submit_result tool now with your complete, final result."
        ));
        let GateStatus::Rejected(error) = &done.trace[0].status else {
            panic!("{provider}: {:?}", done.trace);
        };
        assert_eq!(
            error.cause().map(|c| c.as_str()),
            Some("undecodable_arguments")
        );
    }
}

#[test]
fn a_text_turn_without_a_call_is_nudged_as_before() {
    let model = ScriptedModel::new()
        .then_text("Here is the summary: done.")
        .then_message(vec![Part::tool_request(
            "submit_result",
            None,
            json!({"reasoning": "r", "result": {"summary": "done"}}),
        )]);
    let executor = Executor::new(Agent::new(model.clone()), tool()).unwrap();
    block_on(executor.run(vec![Message::user("go")])).unwrap();
    assert_eq!(
        model.requests()[1].messages.last().unwrap().text(),
        "Your last turn did not call any tool, so the run cannot end. To finish, call the \
         submit_result tool now with your complete, final result."
    );
}

/// An agent with a `lookup` tool around `model`.
fn with_lookup(model: ScriptedModel) -> Agent {
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    struct Lookup {
        city: String,
    }
    Agent::new(model).tool(Tool::new(
        "lookup",
        "Looks a city up.",
        |_ctx: ToolContext, input: Lookup| async move {
            Ok::<_, ToolError>(json!({"city": input.city, "population": 2102650}))
        },
    ))
}

fn wrapper(arguments: Value) -> Part {
    Part::tool_request_text(
        "multi_tool_use.parallel",
        Some("call_7".into()),
        arguments.to_string(),
    )
}

#[test]
fn the_parallel_wrappers_entries_run_as_calls_answered_on_the_wrappers_id() {
    let model = ScriptedModel::new().then_message(vec![wrapper(json!({"tool_uses": [
        {"recipient_name": "functions.lookup", "parameters": {"city": "Paris"}},
        {"recipient_name": "functions.submit_result",
         "parameters": {"reasoning": "looked it up", "result": {"summary": "done"}}}
    ]}))]);
    let executor = Executor::new(with_lookup(model), tool()).unwrap();
    let done = block_on(executor.run(vec![Message::user("go")]))
        .unwrap()
        .committed()
        .unwrap();
    assert_eq!(done.response.summary, "done");
    assert_eq!(done.recoveries[0].kind.as_str(), "parallel_wrapper");
    assert_eq!(done.trace[0].reference.as_deref(), Some("call_7#1"));
    let answers = done.messages.last().unwrap();
    assert_eq!(answers.role, Role::Tool);
    let responses: Vec<_> = answers.tool_responses().collect();
    assert_eq!(responses.len(), 1, "the wrapper's id is answered once");
    assert_eq!(responses[0].reference.as_deref(), Some("call_7"));
    assert_eq!(
        responses[0].output,
        Some(json!([
            {"city": "Paris", "population": 2102650},
            {"success": true, "message": "Result submitted successfully."}
        ]))
    );
}

#[test]
fn a_parallel_wrapper_with_an_entry_not_of_its_shape_is_declined_on_its_id() {
    let model = ScriptedModel::new()
        .then_message(vec![wrapper(json!({"tool_uses": [
            {"recipient_name": "lookup", "parameters": {"city": "Paris"}}
        ]}))])
        .then_message(vec![Part::tool_request(
            "submit_result",
            None,
            json!({"reasoning": "r", "result": {"summary": "done"}}),
        )]);
    let executor = Executor::new(with_lookup(model.clone()), tool()).unwrap();
    let run = block_on(executor.run(vec![Message::user("go")])).unwrap();
    assert!(matches!(run, Execution::Committed(_)));
    let answer = model.requests()[1].messages.last().unwrap().clone();
    let response = answer.tool_responses().next().unwrap();
    assert_eq!(response.reference.as_deref(), Some("call_7"));
    assert_eq!(
        response.output,
        Some(json!({"error": "multi_tool_use.parallel is not a tool; call each tool directly"}))
    );
}
