//! The submit parser. The input is argument text; where it is JSON, also a call object for
//! each provider and arguments that arrived as a value. Beyond "no panic": every rejection's
//! tool result is `{"error": <message>}`, class and cause agree, the echo is bounded and
//! escaped; a value and its JSON text give the same outcome; a clean call damaged by each
//! mistake of the arguments as a whole is recovered to the clean call's response; a payload
//! with one value below its top turned into its JSON text, or one enum value in upper case, is
//! recovered to the clean payload's response, naming that value's JSON Pointer.

use std::sync::OnceLock;

use serde_json::{json, Value};
use submit_result::{
    Accepted, Arguments, ErrorClass, Options, Outcome, Provider, Recovery, RecoveryKind, SubmitTool,
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

/// The payload of the tool whose values at depth are damaged: numbers, booleans and arrays
/// below the top, and enums (one written with a `const` per documented variant).
#[derive(Debug, PartialEq, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
pub struct Report {
    summary: String,
    #[serde(default)]
    limits: Option<Limits>,
    #[serde(default)]
    format: Option<Format>,
    #[serde(default)]
    tone: Option<Tone>,
    #[serde(default)]
    sections: Vec<Section>,
}

#[derive(Debug, PartialEq, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
pub struct Limits {
    max: u32,
    strict: bool,
    ratios: Vec<f64>,
}

#[derive(Debug, PartialEq, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
pub struct Section {
    title: String,
    #[serde(default)]
    format: Option<Format>,
}

#[derive(Debug, PartialEq, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    Markdown,
    Html,
}

#[derive(Debug, PartialEq, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
pub enum Tone {
    /// Plain.
    Plain,
    /// Formal.
    Formal,
}

/// The members of [`Report`] (and of its sections) that hold an enum.
const ENUMS: [&str; 2] = ["format", "tone"];

/// At most this many values of one payload are damaged, one at a time.
const DAMAGES: usize = 16;

struct Tools {
    typed: SubmitTool<Analysis>,
    depth: SubmitTool<Report>,
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
            depth: match SubmitTool::new(options()) {
                Ok(tool) => tool,
                Err(error) => panic!("the fuzz tools are valid: {error}"),
            },
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
    values_at_depth(tools, &text);
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
    // A string value is argument text, read by rules its encoded text is not (a fence, empty
    // text): only other values must agree with their text.
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

/// A clean call damaged by each mistake of the arguments as a whole is recovered to the clean
/// call's response and reasoning, recording the rule.
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

/// A payload the depth tool accepted, written back clean, then damaged one value at a time: a
/// value below the top that is no string turned into its JSON text, or an enum value in upper
/// case. Each damaged call recovers to the same response, recording that one rule naming the
/// value's JSON Pointer, from a value and from its text alike.
fn values_at_depth(tools: &Tools, text: &str) {
    let Outcome::Accepted(read) = tools.depth.handle_arguments(Arguments::Text(text)) else {
        return;
    };
    let payload = serde_json::to_value(&read.response)
        .unwrap_or_else(|error| panic!("a response serializes: {error}"));
    let clean = json!({"reasoning": read.reasoning, "analysis": payload});
    let outcome = tools.depth.handle_arguments(Arguments::Value(&clean));
    check(&outcome);
    let Outcome::Accepted(written_back) = &outcome else {
        panic!("the clean call of an accepted payload was rejected: {clean}");
    };
    assert_eq!(written_back.response, read.response, "{clean}");
    assert!(written_back.recoveries.is_empty(), "{clean}");
    for (n, (pointer, kind)) in damageable(&payload).into_iter().take(DAMAGES).enumerate() {
        let mut damaged = clean.clone();
        let Some(value) = damaged
            .get_mut("analysis")
            .and_then(|payload| payload.pointer_mut(&pointer))
        else {
            continue;
        };
        *value = match (kind, &*value) {
            (RecoveryKind::EnumCase, Value::String(member)) => member.to_uppercase().into(),
            (_, other) => {
                let pad = ["", " ", "\n"][n % 3];
                format!("{pad}{other}{pad}").into()
            }
        };
        let damaged_text = damaged.to_string();
        for arguments in [Arguments::Value(&damaged), Arguments::Text(&damaged_text)] {
            let outcome = tools.depth.handle_arguments(arguments);
            check(&outcome);
            let Outcome::Accepted(recovered) = &outcome else {
                panic!(
                    "a payload damaged at {pointer} was rejected: {damaged_text}: {:?}",
                    outcome.error()
                );
            };
            assert_eq!(recovered.response, read.response, "{damaged_text}");
            assert_eq!(recovered.reasoning, read.reasoning, "{damaged_text}");
            assert_eq!(
                recovered.recoveries,
                [Recovery::naming(kind, vec![pointer.clone()])],
                "{damaged_text}"
            );
        }
    }
}

/// The values of a clean [`Report`] payload a damage can reach, in document order, with the
/// rule that recovers it: values below the top that are neither strings nor `null`, and enum
/// values (whose upper case is never a member).
fn damageable(payload: &Value) -> Vec<(String, RecoveryKind)> {
    let mut found = Vec::new();
    let mut pending = vec![(String::new(), payload, false)];
    while let Some((pointer, value, is_enum)) = pending.pop() {
        match value {
            Value::String(member) if is_enum && member.to_uppercase() != *member => {
                found.push((pointer.clone(), RecoveryKind::EnumCase));
            }
            Value::Null | Value::String(_) => {}
            _ if !pointer.is_empty() => {
                found.push((pointer.clone(), RecoveryKind::StringifiedValue));
            }
            _ => {}
        }
        let children: Vec<(String, &Value, bool)> = match value {
            Value::Object(members) => members
                .iter()
                .map(|(name, child)| {
                    let is_enum = ENUMS.contains(&name.as_str());
                    (format!("{pointer}/{name}"), child, is_enum)
                })
                .collect(),
            Value::Array(items) => items
                .iter()
                .enumerate()
                .map(|(i, child)| (format!("{pointer}/{i}"), child, false))
                .collect(),
            _ => Vec::new(),
        };
        pending.extend(children.into_iter().rev());
    }
    found
}
