//! The corpus of model-mistake vectors (`submit-core/tests/corpus/*.json`), each run through
//! all four providers' call shapes (a model's text turn and an invented wrapper's arguments
//! through their own entry points, `SubmitTool::handle_text`, and `SubmitTool::receive` for a wrapper).

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use serde::de::DeserializeOwned;

use super::testing::TestTool;
use crate::options::Options;
use crate::parse::parallel::PARALLEL_WRAPPER;
use crate::parse::Arguments;
use crate::provider::Provider;
use crate::receive::Incoming;
use crate::stop::StopReason;
use crate::tool::SubmitTool;
use crate::trace::Trace;

#[derive(Debug, Deserialize, Serialize)]
struct Sample {
    summary: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    blocked: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    tags: Option<Vec<String>>,
}

/// The sample tool with the vector's options (its properties as `TestTool::new` gives them).
fn build_tool(options: Options) -> SubmitTool<Sample> {
    let payload = options.payload_field_name.to_string();
    TestTool::new(&payload).options(|_| options).build()
}

// Each file in the corpus is a JSON array of vectors:
// `{name, source?, options?, arguments | arguments_text | (call, providers) | text | wrapper,
// stop?, provider?, expected}`.
// `source` (`{url, what}`, where a real report showed the mistake) is not read here.
// `options` holds `name` (the tool's name, `submit_result` by default, so that a real text calling
// `get_weather` replays against a stand-in tool of that name), `payload`, `flat`,
// `omit_reasoning`, `strict`, `success`, `omit_fields` and `schema`: a JSON Schema document, for
// a tool built from it (`SubmitTool::<Value>::from_json_schema`) instead of the sample type.
// `arguments` runs through all four providers (an object for Claude and Gemini, a JSON string
// for OpenAI); `arguments_text` is OpenAI argument text as sent; `call` is a native call object
// for the listed providers. `text` is a model's visible text turn, run through
// `SubmitTool::handle_text`; `wrapper` is the arguments of a `multi_tool_use.parallel` call (an
// object, or a string holding its text), run through `SubmitTool::receive` as a wrapper (its one
// entry of the tool handled as that call; no entry of the tool: not found; two or more: the
// wrapper is declined). For both, `stop` is how the turn ended in `provider`'s spelling (any
// provider's when none is named); under the output-token limit a wrapper's entry is cut only
// when it is the wrapper's last. `expected` holds `accepted` and, as needed, `found` (`false`:
// no call of the tool was found), `response`, `reasoning`, `recovery`, `recoveries` (the array of
// `{kind, parameters}`, with `format` on `call_in_text`; an accepted vector without it must have
// none), `tool_result`, `class`, `cause`, `error` (the exact message the model reads),
// `error_contains`, `trace` (the exact trace text), `trace_contains`, `trace_lacks`.

/// Every (provider, call) a vector runs as.
fn corpus_cases(vector: &Value) -> Vec<(Provider, Value)> {
    if let Some(arguments) = vector.get("arguments") {
        return Provider::ALL
            .into_iter()
            .map(|provider| {
                (
                    provider,
                    provider.call("submit_result", Some("call_01"), arguments),
                )
            })
            .collect();
    }
    if let Some(text) = vector.get("arguments_text").and_then(Value::as_str) {
        return [Provider::OpenAiChat, Provider::OpenAiResponses]
            .into_iter()
            .map(|provider| {
                (
                    provider,
                    provider.call("submit_result", Some("call_01"), text),
                )
            })
            .collect();
    }
    let call = vector
        .get("call")
        .cloned()
        .expect("a vector has arguments, arguments_text or call");
    vector["providers"]
        .as_array()
        .expect("a call vector lists its providers")
        .iter()
        .map(|name| {
            (
                name.as_str().unwrap().parse::<Provider>().unwrap(),
                call.clone(),
            )
        })
        .collect()
}

fn corpus_differ(key: &str, got: &Value, want: &Value) -> Option<String> {
    (got != want).then(|| format!("{key}: got {got}, want {want}"))
}

/// Compares one outcome (serialized as the command-line tool prints it) with `expected`.
fn corpus_check(outcome: &Value, expected: &Value, success: &str, payload: &str) -> Vec<String> {
    let mut wrong = Vec::new();
    wrong.extend(corpus_differ(
        "accepted",
        &outcome["accepted"],
        &expected["accepted"],
    ));
    if outcome["accepted"] != expected["accepted"] {
        wrong.push(format!("outcome: {outcome}"));
        return wrong;
    }
    if expected["accepted"] == json!(true) {
        for key in ["response", "reasoning", "recovery"] {
            if let Some(want) = expected.get(key) {
                wrong.extend(corpus_differ(key, &outcome[key], want));
            }
        }
        // Without `recoveries`, a vector expects only its `recovery`, naming the payload.
        let implied = match expected.get("recovery") {
            Some(Value::String(kind)) => json!([{"kind": kind, "parameters": [payload]}]),
            _ => json!([]),
        };
        let want = expected.get("recoveries").unwrap_or(&implied);
        wrong.extend(corpus_differ("recoveries", &outcome["recoveries"], want));
        let default_result = json!({"success": true, "message": success});
        let want = expected.get("tool_result").unwrap_or(&default_result);
        wrong.extend(corpus_differ("tool_result", &outcome["tool_result"], want));
        return wrong;
    }
    for key in ["class", "cause"] {
        if let Some(want) = expected.get(key) {
            wrong.extend(corpus_differ(key, &outcome[key], want));
        }
    }
    let message = outcome["tool_result"]["error"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let trace = outcome["trace_error"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    if outcome["tool_result"].as_object().map(|o| o.len()) != Some(1) {
        wrong.push(format!(
            "tool_result must be {{\"error\": …}}: {}",
            outcome["tool_result"]
        ));
    }
    if let Some(want) = expected.get("error") {
        wrong.extend(corpus_differ("error", &json!(message), want));
    }
    let class = outcome["class"].as_str().unwrap_or_default();
    if expected.get("trace").is_none() && trace != format!("{class} error: {message}") {
        wrong.push(format!("trace: got {trace:?}, want the displayed error"));
    }
    if let Some(want) = expected.get("trace") {
        wrong.extend(corpus_differ("trace", &json!(trace), want));
    }
    let list = |key: &str| -> Vec<String> {
        expected
            .get(key)
            .and_then(Value::as_array)
            .map(|items| {
                items
                    .iter()
                    .filter_map(|i| i.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    };
    for part in list("error_contains") {
        if !message.contains(&part) {
            wrong.push(format!("error {message:?} lacks {part:?}"));
        }
    }
    for part in list("trace_contains") {
        if !trace.contains(&part) {
            wrong.push(format!("trace {trace:?} lacks {part:?}"));
        }
    }
    for part in list("trace_lacks") {
        if trace.contains(&part) {
            wrong.push(format!("trace {trace:?} holds {part:?}"));
        }
    }
    wrong
}

/// A vector's tool: for the sample type, or built from the vector's JSON Schema.
enum CorpusTool {
    Typed(SubmitTool<Sample>),
    Schema(SubmitTool<Value>),
}

/// The options a vector asks for (`payload` defaults to `analysis`).
fn corpus_options(options: &Value) -> Options {
    let flag = |key: &str| options[key].as_bool().unwrap_or(false);
    let mut built = Options::new()
        .tool_name(
            options["name"]
                .as_str()
                .unwrap_or("submit_result")
                .to_owned(),
        )
        .payload_field_name(options["payload"].as_str().unwrap_or("analysis").to_owned())
        .flat_payload(flag("flat"))
        .omit_reasoning(flag("omit_reasoning"))
        .strict(flag("strict"));
    if let Some(success) = options["success"].as_str() {
        built = built.success_message(success.to_owned());
    }
    if let Some(names) = options["omit_fields"].as_array() {
        built = built.omit_payload_fields(names.iter().map(|n| n.as_str().unwrap().to_owned()));
    }
    built
}

fn corpus_tool(options: &Value) -> CorpusTool {
    match options.get("schema") {
        Some(schema) => CorpusTool::Schema(
            SubmitTool::from_json_schema(schema.clone(), corpus_options(options))
                .expect("the vector's schema builds"),
        ),
        None => CorpusTool::Typed(build_tool(corpus_options(options))),
    }
}

/// How the turn of a `text` or `wrapper` vector ended: `stop` in `provider`'s spelling, or in
/// any provider's when none is named.
fn corpus_stop(vector: &Value) -> StopReason {
    let Some(stop) = vector["stop"].as_str() else {
        return StopReason::Complete;
    };
    let providers: Vec<Provider> = match vector["provider"].as_str() {
        Some(name) => vec![name.parse::<Provider>().expect("a provider's name")],
        None => Provider::ALL.to_vec(),
    };
    if providers
        .into_iter()
        .any(|provider| provider.stop_reason(stop) == StopReason::OutputLimit)
    {
        StopReason::OutputLimit
    } else {
        StopReason::Complete
    }
}

/// The outcome of a `text` or `wrapper` vector for one tool, as the command-line tool prints
/// it; `None` when no call of the tool was found.
fn corpus_found<R: serde::de::DeserializeOwned + serde::Serialize>(
    tool: &SubmitTool<R>,
    vector: &Value,
) -> Option<Value> {
    let stop = corpus_stop(vector);
    let outcome = if let Some(text) = vector.get("text") {
        let text = text.as_str().expect("a text vector's text is a string");
        tool.handle_text(text, stop)?
    } else {
        let arguments = match &vector["wrapper"] {
            Value::String(text) => Arguments::Text(text),
            other => Arguments::Value(other),
        };
        let wrapper = Incoming::arguments(Some(PARALLEL_WRAPPER), arguments).stop(stop);
        tool.receive(wrapper)
            .expect("arguments have no shape to be out of")?
    };
    Some(serde_json::to_value(outcome).unwrap())
}

/// Checks a `text` or `wrapper` vector; the mismatches.
fn corpus_check_found(
    tool: &CorpusTool,
    vector: &Value,
    success: &str,
    payload: &str,
) -> Vec<String> {
    let outcome = match tool {
        CorpusTool::Typed(tool) => corpus_found(tool, vector),
        CorpusTool::Schema(tool) => corpus_found(tool, vector),
    };
    let expected = &vector["expected"];
    match (outcome, expected.get("found") == Some(&json!(false))) {
        (None, true) => Vec::new(),
        (Some(outcome), true) => vec![format!("found a call, want none: {outcome}")],
        (None, false) => vec!["found no call".to_owned()],
        (Some(outcome), false) => corpus_check(&outcome, expected, success, payload),
    }
}

/// Runs every vector of the corpus; returns how many ran, panics listing every mismatch.
fn run_corpus() -> usize {
    let vectors = submit_test_kit::corpus::vectors().unwrap_or_else(|e| panic!("{e}"));
    let mut failures = Vec::new();
    for vector in &vectors {
        let name = vector["name"].as_str().expect("a vector has a name");
        let options = vector.get("options").cloned().unwrap_or_else(|| json!({}));
        let success = options["success"]
            .as_str()
            .unwrap_or("Result submitted successfully.");
        let tool = corpus_tool(&options);
        let payload = options["payload"].as_str().unwrap_or("analysis");
        if vector.get("text").is_some() || vector.get("wrapper").is_some() {
            let wrong = corpus_check_found(&tool, vector, success, payload);
            if !wrong.is_empty() {
                failures.push(format!("{name}:\n    {}", wrong.join("\n    ")));
            }
            continue;
        }
        for (provider, call) in corpus_cases(vector) {
            let mut trace = Trace::new();
            let outcome = match &tool {
                CorpusTool::Typed(tool) => {
                    serde_json::to_value(traced(tool, provider, &call, &mut trace))
                }
                CorpusTool::Schema(tool) => {
                    serde_json::to_value(traced(tool, provider, &call, &mut trace))
                }
            }
            .unwrap();
            let mut wrong = corpus_check(&outcome, &vector["expected"], success, payload);
            let records = trace.calls();
            let rejected = outcome["accepted"] == json!(false);
            if records.len() != usize::from(rejected)
                || records.iter().any(|record| {
                    !record.recoverable
                        || record.error.as_deref() != outcome["trace_error"].as_str()
                })
            {
                wrong.push(format!("trace records: {records:?}"));
            }
            if !wrong.is_empty() {
                failures.push(format!(
                    "{name} [{provider}]:\n    {}",
                    wrong.join("\n    ")
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    vectors.len()
}

#[test]
fn corpus_vectors_hold_for_all_four_providers() {
    let count = run_corpus();
    assert!(count >= 150, "the corpus has {count} vectors");
}

/// `handle`, its rejection recorded in `trace` under the call's id.
fn traced<R: DeserializeOwned>(
    tool: &SubmitTool<R>,
    provider: Provider,
    call: &Value,
    trace: &mut Trace,
) -> crate::Outcome<R> {
    let outcome = tool.handle(provider, call);
    let id = provider.read_call(call).ok().and_then(|call| call.id);
    trace.record(id, tool.name(), &outcome);
    outcome
}
