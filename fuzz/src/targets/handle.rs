//! The submit parser. The input is argument text; where it is JSON, also a call object for
//! each provider and arguments that arrived as a value. Beyond "no panic": every rejection's
//! tool result is `{"error": <message>}`, class and cause agree, the echo is bounded and
//! escaped; a value and its JSON text give the same outcome; a clean call damaged by each
//! SUBMIT.md §10.1 mistake is recovered to the clean call's response.

use std::sync::OnceLock;

use serde_json::{json, Value};
use submit_result::{
    Accepted, Arguments, ErrorClass, Options, Outcome, Provider, RecoveryKind, SubmitTool,
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
    typed: SubmitTool<Analysis>,
    value: SubmitTool<Value>,
    flat: SubmitTool<Analysis>,
    omit: SubmitTool<Analysis>,
    strict: SubmitTool<Analysis>,
}

const SUCCESS: &str = "Result submitted successfully.";

fn tools() -> &'static Tools {
    static TOOLS: OnceLock<Tools> = OnceLock::new();
    TOOLS.get_or_init(|| {
        let options = || Options::new().payload_field_name("analysis");
        let typed = |options: Options| match SubmitTool::new(options) {
            Ok(tool) => tool,
            Err(error) => panic!("the fuzz tools are valid: {error}"),
        };
        Tools {
            typed: typed(options()),
            value: match SubmitTool::from_json_schema(json!({"type": "object"}), options()) {
                Ok(tool) => tool,
                Err(error) => panic!("the fuzz tools are valid: {error}"),
            },
            flat: typed(options().flat_payload(true)),
            omit: typed(options().omit_reasoning(true)),
            strict: typed(options().strict(true)),
        }
    })
}

/// Invariants every outcome keeps.
fn check<R>(outcome: &Outcome<R>) {
    match outcome {
        Outcome::Accepted(accepted) => {
            assert_eq!(
                accepted.tool_result,
                json!({"success": true, "message": SUCCESS})
            );
        }
        Outcome::Rejected(rejected) => {
            let error = &rejected.error;
            assert_eq!(rejected.tool_result, json!({"error": error.message()}));
            assert_eq!(
                error.class() == ErrorClass::Payload,
                error.cause().is_none()
            );
            let trace = error.trace_text();
            let lead = match error.class() {
                ErrorClass::Parameter => "parameter error: ",
                ErrorClass::Payload => "payload error: ",
            };
            assert!(trace.starts_with(lead));
            // The echo is bounded: 128 bytes, each escaped to at most 10 characters.
            assert!(
                trace.len() <= lead.len() + error.message().len() + 128 * 10 + 80,
                "{trace}"
            );
            assert!(!trace.contains('\u{1b}') || error.message().contains('\u{1b}'));
        }
    }
}

fn comparable(outcome: &Outcome<Value>) -> Value {
    serde_json::to_value(outcome).unwrap_or_else(|error| panic!("an outcome serializes: {error}"))
}

pub fn run(data: &[u8]) {
    let tools = tools();
    let text = String::from_utf8_lossy(data);
    for outcome in [
        tools.typed.handle_arguments(Arguments::Text(&text)),
        tools.flat.handle_arguments(Arguments::Text(&text)),
        tools.omit.handle_arguments(Arguments::Text(&text)),
        tools.strict.handle_arguments(Arguments::Text(&text)),
    ] {
        check(&outcome);
    }
    check(&tools.value.handle_arguments(Arguments::Text(&text)));
    for provider in [Provider::OpenAiChat, Provider::OpenAiResponses] {
        let kind = if provider == Provider::OpenAiChat {
            "function"
        } else {
            "function_call"
        };
        let call = json!({"type": kind, "name": "s", "function": {"name": "s", "arguments": text},
                          "arguments": text});
        check(&tools.typed.handle(provider, &call));
    }
    let Ok(value) = serde_json::from_str::<Value>(&text) else {
        return;
    };
    for provider in Provider::ALL {
        check(&tools.typed.handle(provider, &value));
        check(&tools.value.handle(provider, &value));
    }
    let by_value = tools.value.handle_arguments(Arguments::Value(&value));
    check(&by_value);
    let normalized = value.to_string();
    let by_normalized = tools.value.handle_arguments(Arguments::Text(&normalized));
    // A string value is argument text (SUBMIT.md §10.1), read by rules its encoded text is
    // not (a fence, empty text): only other values must agree with their text.
    if !value.is_string() {
        assert_eq!(
            comparable(&by_value),
            comparable(&by_normalized),
            "value and text disagree"
        );
    }
    if let Outcome::Accepted(clean) = &by_value {
        if let (Some(members), true) = (value.as_object(), clean.recoveries.is_empty()) {
            // The wrapper rule holds only advertised parameters.
            let advertised = members
                .keys()
                .all(|name| name == "reasoning" || name == "analysis");
            damaged_like_clean(tools, &normalized, clean, advertised);
        }
    }
}

/// A clean call damaged by each SUBMIT.md §10.1 mistake is recovered to the clean call's
/// response and reasoning, recording the rule.
fn damaged_like_clean(tools: &Tools, clean_text: &str, clean: &Accepted<Value>, wrap: bool) {
    let mut damaged = vec![
        (
            format!("{clean_text}}}\n</invoke>"),
            RecoveryKind::TrailingClosers,
        ),
        (
            Value::from(clean_text).to_string(),
            RecoveryKind::StringifiedArguments,
        ),
        (
            format!("```json\n{clean_text}\n```"),
            RecoveryKind::FencedArguments,
        ),
    ];
    if wrap {
        damaged.push((
            format!("{{\"arguments\":{clean_text}}}"),
            RecoveryKind::WrappedArguments,
        ));
    }
    for (text, kind) in damaged {
        let outcome = tools.value.handle_arguments(Arguments::Text(&text));
        let Outcome::Accepted(recovered) = &outcome else {
            panic!(
                "damaged clean call rejected: {text:?}: {:?}",
                outcome.error()
            );
        };
        assert_eq!(recovered.response, clean.response, "{text:?}");
        assert_eq!(recovered.reasoning, clean.reasoning, "{text:?}");
        assert_eq!(
            recovered.recoveries.first().map(|rule| rule.kind),
            Some(kind),
            "{text:?}"
        );
    }
}
