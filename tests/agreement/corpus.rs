//! The corpus (`submit-core/tests/corpus/*.json`): its vectors, the tools their options
//! describe, and the (provider, native call) pairs each vector runs as — the same reading as
//! the corpus runner of `submit-core` (`submit-core/src/parse/tests/corpus.rs`), the files read
//! by `submit_test_kit::corpus` as that runner reads them.
//!
//! Besides calls, a vector may carry a model's visible text turn (`text`, read by
//! `SubmitTool::handle_text`) or the arguments of a `multi_tool_use.parallel` call (`wrapper`,
//! read by `SubmitTool::handle_parallel`), each with how its turn ended (`stop`, in `provider`'s
//! spelling or any provider's). The tool's name is the options' `name` (`submit_result` by
//! default): the native calls a vector's arguments run as are calls of that name.

use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};
use submit_result::{
    Arguments, Incoming, Options, Provider, StopReason, SubmitTool, PARALLEL_WRAPPER,
};

/// The sample response type of the corpus (as the corpus runner of `submit-core` declares it).
#[derive(Clone, Debug, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
pub struct Sample {
    summary: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    blocked: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    tags: Option<Vec<String>>,
}

/// What a vector carries.
#[derive(Debug)]
pub enum Kind {
    /// Calls (`arguments`, `arguments_text`, or `call` with its providers).
    Calls,
    /// A model's visible text turn (`text`).
    Text(String),
    /// The arguments of a `multi_tool_use.parallel` call (`wrapper`): an object, or a string
    /// holding its text.
    Wrapper(Value),
}

/// One vector of the corpus.
#[derive(Debug)]
pub struct Vector {
    /// Its unique name.
    pub name: String,
    /// Its `options` (`{}` when it has none).
    pub options: Value,
    /// Its `expected` object.
    pub expected: Value,
    /// What it carries.
    pub kind: Kind,
    /// How the turn of a text or wrapper vector ended (see [`stop_of`]); calls are handled as
    /// a turn that ended as usual.
    pub stop: StopReason,
    /// Every (provider, native call) it runs as: for a text vector, every provider with no call
    /// (`null`); for a wrapper vector, the `multi_tool_use.parallel` call of each OpenAI
    /// provider (see [`cases`]).
    pub cases: Vec<(Provider, Value)>,
}

impl Vector {
    /// The payload parameter's name (`analysis` unless the options name another).
    pub fn payload(&self) -> &str {
        self.options["payload"].as_str().unwrap_or("analysis")
    }
}

/// The tool's name the options give (`submit_result` unless they name another).
pub fn tool_name(options: &Value) -> &str {
    options["name"].as_str().unwrap_or("submit_result")
}

/// Every vector of every corpus file, in file order; a duplicate name is an error.
pub fn load() -> Result<Vec<Arc<Vector>>, String> {
    let mut vectors = Vec::new();
    for raw in submit_test_kit::corpus::vectors()? {
        let name = raw["name"].as_str().unwrap_or_default().to_owned();
        let options = raw.get("options").cloned().unwrap_or_else(|| json!({}));
        let cases = cases(&raw, tool_name(&options)).map_err(|e| format!("{name}: {e}"))?;
        let kind = kind(&raw).map_err(|e| format!("{name}: {e}"))?;
        let stop = stop_of(&raw).map_err(|e| format!("{name}: {e}"))?;
        vectors.push(Arc::new(Vector {
            name,
            options,
            expected: raw["expected"].clone(),
            kind,
            stop,
            cases,
        }));
    }
    Ok(vectors)
}

/// What `vector` carries; a text that is not a string is an error.
fn kind(vector: &Value) -> Result<Kind, String> {
    if let Some(text) = vector.get("text") {
        let text = text.as_str().ok_or("a text vector's text is a string")?;
        return Ok(Kind::Text(text.to_owned()));
    }
    Ok(match vector.get("wrapper") {
        Some(wrapper) => Kind::Wrapper(wrapper.clone()),
        None => Kind::Calls,
    })
}

/// How the turn of a text or wrapper vector ended, as the corpus runner of `submit-core` reads
/// it: its `stop` in `provider`'s spelling (any provider's when none is named) is the
/// output-token limit, or the turn ended as usual.
fn stop_of(vector: &Value) -> Result<StopReason, String> {
    let Some(stop) = vector["stop"].as_str() else {
        return Ok(StopReason::Complete);
    };
    let providers = match vector["provider"].as_str() {
        Some(name) => vec![name
            .parse::<Provider>()
            .map_err(|e| format!("provider: {e}"))?],
        None => Provider::ALL.to_vec(),
    };
    let limit = providers
        .into_iter()
        .any(|provider| provider.stop_reason(stop) == StopReason::OutputLimit);
    Ok(if limit {
        StopReason::OutputLimit
    } else {
        StopReason::Complete
    })
}

/// Every (provider, call) a vector runs as: `arguments` through all four providers,
/// `arguments_text` through both OpenAI providers, `call` through the providers it lists, each
/// a call of the tool `name`; `text` through all four providers, with no call; `wrapper`
/// through both OpenAI providers, as a call named `multi_tool_use.parallel` whose argument text
/// is the wrapper (a string as it is, an object as its JSON text). The wrapper is OpenAI's own
/// invention (the `multi_tool_use` namespace of OpenAI models): a Claude tool's name cannot hold
/// its dot, and Gemini calls only the functions it was declared, so neither is given one.
fn cases(vector: &Value, name: &str) -> Result<Vec<(Provider, Value)>, String> {
    if let Some(arguments) = vector.get("arguments") {
        return Ok(Provider::ALL
            .into_iter()
            .map(|provider| (provider, provider.call(name, Some("call_01"), arguments)))
            .collect());
    }
    if let Some(text) = vector.get("arguments_text").and_then(Value::as_str) {
        return Ok([Provider::OpenAiChat, Provider::OpenAiResponses]
            .into_iter()
            .map(|provider| (provider, provider.call(name, Some("call_01"), text)))
            .collect());
    }
    if vector.get("text").is_some() {
        return Ok(Provider::ALL
            .into_iter()
            .map(|provider| (provider, Value::Null))
            .collect());
    }
    if let Some(wrapper) = vector.get("wrapper") {
        let text = match wrapper {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        };
        return Ok([Provider::OpenAiChat, Provider::OpenAiResponses]
            .into_iter()
            .map(|provider| {
                (
                    provider,
                    provider.call(PARALLEL_WRAPPER, Some("call_01"), &text),
                )
            })
            .collect());
    }
    let call = vector
        .get("call")
        .ok_or("a vector has arguments, arguments_text, call, text or wrapper")?;
    let providers = vector["providers"]
        .as_array()
        .ok_or("a call vector lists its providers")?;
    providers
        .iter()
        .map(|name| {
            let name = name.as_str().ok_or("a provider is named by a string")?;
            let provider = name
                .parse::<Provider>()
                .map_err(|e| format!("providers: {e}"))?;
            Ok((provider, call.clone()))
        })
        .collect()
}

/// The options a vector asks for (`payload` defaults to `analysis`).
pub fn options(options: &Value) -> Options {
    let flag = |key: &str| options[key].as_bool().unwrap_or(false);
    let mut built = Options::new()
        .tool_name(tool_name(options).to_owned())
        .payload_field_name(options["payload"].as_str().unwrap_or("analysis").to_owned())
        .flat_payload(flag("flat"))
        .omit_reasoning(flag("omit_reasoning"))
        .strict(flag("strict"));
    if let Some(success) = options["success"].as_str() {
        built = built.success_message(success.to_owned());
    }
    if let Some(names) = options["omit_fields"].as_array() {
        built = built.omit_payload_fields(
            names
                .iter()
                .filter_map(|n| n.as_str().map(str::to_owned))
                .collect::<Vec<_>>(),
        );
    }
    built
}

/// A vector's tool: for the sample type, or built from the vector's JSON Schema.
#[derive(Clone)]
pub enum CorpusTool {
    /// The sample type's tool.
    Typed(SubmitTool<Sample>),
    /// A tool built from the vector's `schema`.
    Schema(SubmitTool<Value>),
}

/// Runs `$body` with `$tool` bound to the `SubmitTool` inside a [`CorpusTool`], whichever its
/// response type.
macro_rules! with_tool {
    ($corpus:expr, $tool:ident => $body:expr) => {
        match $corpus {
            $crate::agreement::corpus::CorpusTool::Typed($tool) => $body,
            $crate::agreement::corpus::CorpusTool::Schema($tool) => $body,
        }
    };
}
pub(crate) use with_tool;

impl CorpusTool {
    /// The tool the vector's options describe (the reference of the library's entry points).
    pub fn build(vector: &Vector) -> Result<CorpusTool, String> {
        let built = options(&vector.options);
        Ok(match vector.options.get("schema") {
            Some(schema) => CorpusTool::Schema(
                SubmitTool::from_json_schema(schema.clone(), built)
                    .map_err(|e| format!("the vector's schema does not build: {e}"))?,
            ),
            None => CorpusTool::Typed(
                SubmitTool::new(built)
                    .map_err(|e| format!("the sample tool does not build: {e}"))?,
            ),
        })
    }

    /// The reference verdict: `handle(provider, call)`, serialized as the command line prints
    /// it.
    pub fn handle(&self, provider: Provider, call: &Value) -> Value {
        with_tool!(self, tool => outcome_json(&tool.handle(provider, call)))
    }

    /// The reference verdict of a text or wrapper vector (see [`found`]).
    pub fn found(&self, vector: &Vector) -> Value {
        with_tool!(self, tool => found(tool, vector))
    }
}

/// The payload schema the command line is given for a vector: its own `schema`, or the sample
/// type's as the core reflects it.
pub fn schema_of(vector: &Vector) -> Result<Value, String> {
    if let Some(schema) = vector.options.get("schema") {
        return Ok(schema.clone());
    }
    let tool = SubmitTool::<Sample>::new(Options::new())
        .map_err(|e| format!("the sample tool does not build: {e}"))?;
    Ok(tool.payload_schema().clone())
}

/// The schema-driven tool of the command line and the MCP server for a vector:
/// `SubmitTool::<Value>::from_json_schema` on [`schema_of`] with the vector's options (the
/// reference of those entry points).
pub fn schema_tool(vector: &Vector) -> Result<SubmitTool<Value>, String> {
    SubmitTool::from_json_schema(schema_of(vector)?, options(&vector.options))
        .map_err(|e| format!("the schema tool does not build: {e}"))
}

/// An outcome as JSON (`Outcome`'s own serialization).
pub fn outcome_json<T: serde::Serialize>(outcome: &T) -> Value {
    serde_json::to_value(outcome)
        .unwrap_or_else(|e| json!({"unserializable outcome": e.to_string()}))
}

/// No call of the tool found, as the command line prints it.
pub fn not_found() -> Value {
    json!({"accepted": false, "found": false})
}

/// A found call's outcome as JSON, or [`not_found`].
pub fn found_json<T: serde::Serialize>(outcome: Option<T>) -> Value {
    outcome.map_or_else(not_found, |outcome| outcome_json(&outcome))
}

/// The reference verdict of a text or wrapper vector: `handle_text` on its text, or
/// `handle_parallel` on its wrapper, with how its turn ended; [`not_found`] when no call of the
/// tool was found (a vector of calls has no such verdict: `null`).
pub fn found<R>(tool: &SubmitTool<R>, vector: &Vector) -> Value
where
    R: DeserializeOwned + Serialize,
{
    match &vector.kind {
        Kind::Calls => Value::Null,
        Kind::Text(text) => found_json(tool.handle_text(text, vector.stop)),
        Kind::Wrapper(wrapper) => {
            let call = Incoming::arguments(Some(PARALLEL_WRAPPER), wrapper_arguments(wrapper));
            let received = tool.receive(call.stop(vector.stop));
            found_json(received.expect("arguments have no shape to be out of"))
        }
    }
}

/// A wrapper vector's `wrapper` as the arguments of its call: a string as argument text, an
/// object as the value a gateway decoded.
pub fn wrapper_arguments(wrapper: &Value) -> Arguments<'_> {
    match wrapper {
        Value::String(text) => Arguments::Text(text),
        other => Arguments::Value(other),
    }
}

/// The command-line flags that give a tool the vector's options.
pub fn cli_flags(vector: &Vector) -> Vec<String> {
    let options = &vector.options;
    let mut flags = vec!["--payload".to_owned(), vector.payload().to_owned()];
    if let Some(name) = options["name"].as_str() {
        flags.push("--name".to_owned());
        flags.push(name.to_owned());
    }
    let flag = |key: &str| options[key].as_bool().unwrap_or(false);
    for (key, spelled) in [
        ("flat", "--flat"),
        ("omit_reasoning", "--omit-reasoning"),
        ("strict", "--strict"),
    ] {
        if flag(key) {
            flags.push(spelled.to_owned());
        }
    }
    if let Some(success) = options["success"].as_str() {
        flags.push("--success".to_owned());
        flags.push(success.to_owned());
    }
    for name in options["omit_fields"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        flags.push("--omit-field".to_owned());
        flags.push(name.to_owned());
    }
    flags
}

/// Checks the reference outcome against the vector's `expected` (a light form of the corpus
/// runner's check; `submit-core`'s corpus test runs the full one).
pub fn check_expected(outcome: &Value, vector: &Vector) -> Vec<String> {
    let expected = &vector.expected;
    let mut wrong = Vec::new();
    let none_found = outcome.get("found") == Some(&json!(false));
    let none_expected = expected.get("found") == Some(&json!(false));
    if none_found || none_expected {
        if none_found != none_expected {
            wrong.push(format!(
                "found: got {}, want {}",
                !none_found, !none_expected
            ));
        }
        return wrong;
    }
    let mut differ = |key: &str, got: &Value, want: &Value| {
        if got != want {
            wrong.push(format!("{key}: got {got}, want {want}"));
        }
    };
    differ("accepted", &outcome["accepted"], &expected["accepted"]);
    if outcome["accepted"] != expected["accepted"] {
        return wrong;
    }
    if expected["accepted"] == json!(true) {
        for key in [
            "response",
            "reasoning",
            "recovery",
            "recoveries",
            "tool_result",
        ] {
            if let Some(want) = expected.get(key) {
                differ(key, &outcome[key], want);
            }
        }
        return wrong;
    }
    for key in ["class", "cause"] {
        if let Some(want) = expected.get(key) {
            differ(key, &outcome[key], want);
        }
    }
    if let Some(want) = expected.get("error") {
        differ("error", &outcome["tool_result"]["error"], want);
    }
    let message = outcome["tool_result"]["error"].as_str().unwrap_or_default();
    for part in expected["error_contains"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        if !message.contains(part) {
            wrong.push(format!("error {message:?} lacks {part:?}"));
        }
    }
    wrong
}
