//! Calls written as text, and the invented `multi_tool_use.parallel` wrapper. The input is a
//! model's visible text turn, read for a call of the submit tool by a nested, a flat and an
//! omit-reasoning tool, and by a tool named `get_weather` (a stand-in for a real text's tool);
//! where it is JSON, also a wrapper's arguments. Beyond "no panic": a call is found or not
//! whatever the stop reason, and under the output-token limit a found call is cut off after at
//! most the text's bytes; an accepted call records `call_in_text` first, with its format; a
//! rejection's tool result is `{"error": <message>}`, its class and cause agree, and a declined
//! call's message names a form and the tool; a wrapper read from its text is the one read from
//! its value, and its submit entry records `parallel_wrapper` first.

use std::sync::OnceLock;

use serde_json::{json, Value};
use submit_result::{
    parallel_entries, Arguments, ErrorClass, Incoming, Options, Outcome, ParallelEntry,
    ParameterCause, RecoveryKind, StopReason, SubmitTool, TextFormat,
};

/// The payload of the typed tools.
#[derive(Debug, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
pub struct Analysis {
    summary: String,
    #[serde(default)]
    blocked: Option<bool>,
    #[serde(default)]
    tags: Vec<String>,
}

struct Tools {
    nested: SubmitTool<Analysis>,
    flat: SubmitTool<Analysis>,
    omit: SubmitTool<Analysis>,
    weather: SubmitTool<Value>,
}

fn tools() -> &'static Tools {
    static TOOLS: OnceLock<Tools> = OnceLock::new();
    TOOLS.get_or_init(|| {
        let options = || Options::new().payload_field_name("analysis");
        let typed = |options: Options| match SubmitTool::new(options) {
            Ok(tool) => tool,
            Err(error) => panic!("the fuzz tools are valid: {error}"),
        };
        let schema = json!({"type": "object", "properties": {"city": {"type": "string"},
                            "days": {"type": "integer"}}, "required": ["city"]});
        let weather = Options::new()
            .tool_name("get_weather")
            .flat_payload(true)
            .omit_reasoning(true);
        Tools {
            nested: typed(options()),
            flat: typed(options().flat_payload(true)),
            omit: typed(options().omit_reasoning(true)),
            weather: match SubmitTool::from_json_schema(schema, weather) {
                Ok(tool) => tool,
                Err(error) => panic!("the fuzz tools are valid: {error}"),
            },
        }
    })
}

pub fn run(data: &[u8]) {
    let tools = tools();
    let text = String::from_utf8_lossy(data);
    check_text(&tools.nested, &text);
    check_text(&tools.flat, &text);
    check_text(&tools.omit, &text);
    check_text(&tools.weather, &text);
    check_wrapper(&tools.nested, &text);
}

/// A text read for a call of `tool`.
fn check_text<R: serde::de::DeserializeOwned>(tool: &SubmitTool<R>, text: &str) {
    let complete = tool.handle_text(text, StopReason::Complete);
    let cut = tool.handle_text(text, StopReason::OutputLimit);
    assert_eq!(
        complete.is_some(),
        cut.is_some(),
        "a call is found whatever the stop"
    );
    if let Some(cut) = &cut {
        let Some(error) = cut.error() else {
            panic!("a call cut off is accepted");
        };
        assert_eq!(error.cause(), Some(ParameterCause::TruncatedCall));
        let bytes = error
            .message()
            .split(" bytes")
            .next()
            .and_then(|head| head.rsplit(' ').next())
            .and_then(|n| n.parse::<usize>().ok());
        assert!(
            bytes.is_some_and(|n| n <= text.len()),
            "{}",
            error.message()
        );
        check(tool, cut);
    }
    match &complete {
        None => {}
        Some(Outcome::Accepted(accepted)) => {
            let first = accepted.recoveries.first();
            assert_eq!(first.map(|r| r.kind), Some(RecoveryKind::CallInText));
            assert!(first.and_then(|r| r.format).is_some());
            assert!(accepted.recoveries.iter().skip(1).all(|r| {
                !matches!(
                    r.kind,
                    RecoveryKind::CallInText | RecoveryKind::ParallelWrapper
                )
            }));
        }
        Some(Outcome::Rejected(rejected)) => {
            let message = rejected.error.message();
            if let Some(rest) = message.strip_prefix("your reply contains a ") {
                assert_eq!(
                    rejected.error.cause(),
                    Some(ParameterCause::UndecodableArguments)
                );
                let named = TextFormat::ALL.iter().any(|format| {
                    rest.starts_with(&format!(
                        "{} call of {tool} written as text, which is not run; call {tool} as a \
                         tool call",
                        format.as_str(),
                        tool = tool.name()
                    ))
                });
                assert!(named, "{message}");
            }
        }
    }
    if let Some(outcome) = &complete {
        check(tool, outcome);
    }
}

/// Invariants every outcome keeps.
fn check<R: serde::de::DeserializeOwned>(tool: &SubmitTool<R>, outcome: &Outcome<R>) {
    match outcome {
        Outcome::Accepted(accepted) => {
            assert_eq!(
                accepted.tool_result,
                json!({"success": true, "message": tool.success_message()})
            );
        }
        Outcome::Rejected(rejected) => {
            let error = &rejected.error;
            assert_eq!(rejected.tool_result, json!({"error": error.message()}));
            assert_eq!(
                error.class() == ErrorClass::Payload,
                error.cause().is_none()
            );
        }
    }
}

/// The input as a wrapper's arguments: text and value agree, and the submit entry is handled
/// recording `parallel_wrapper` first.
fn check_wrapper<R: serde::de::DeserializeOwned>(tool: &SubmitTool<R>, text: &str) {
    let from_text = parallel_entries(Arguments::Text(text), tool.name());
    let Ok(value) = serde_json::from_str::<Value>(text) else {
        assert!(from_text.is_err(), "a wrapper that is no JSON is read");
        return;
    };
    let from_value = parallel_entries(Arguments::Value(&value), tool.name());
    if let Ok(entries) = &from_text {
        // Text that reads is JSON whose members are each given once (but in the tool's own
        // entry's parameters): the value reads the same entries.
        let named = |entries: &Vec<ParallelEntry>| -> Vec<(String, Value)> {
            entries
                .iter()
                .map(|entry| (entry.name.clone(), entry.parameters.clone()))
                .collect()
        };
        assert_eq!(Some(named(entries)), from_value.as_ref().ok().map(named));
    }
    for entries in [from_text, from_value].into_iter().flatten() {
        for entry in entries.iter().filter(|entry| entry.name == tool.name()) {
            let incoming = Incoming::parallel_entry(entry);
            let outcome = tool
                .receive(incoming)
                .expect("an entry is a call")
                .expect("of the tool");
            if let Outcome::Accepted(accepted) = &outcome {
                assert_eq!(
                    accepted.recoveries.first().map(|r| r.kind),
                    Some(RecoveryKind::ParallelWrapper)
                );
            }
            check(tool, &outcome);
            let incoming = Incoming::parallel_entry(entry).stop(StopReason::OutputLimit);
            let cut = tool
                .receive(incoming)
                .expect("an entry is a call")
                .expect("of the tool");
            assert_eq!(
                cut.error().and_then(|error| error.cause()),
                Some(ParameterCause::TruncatedCall)
            );
        }
    }
}
