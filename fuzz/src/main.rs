//! A mutation fuzzer that runs on stable Rust: it mutates a seed corpus and feeds every input
//! to the submit parser (all four providers, as a call object and as argument text) and to the
//! tag grammar, checking invariants beyond "does not panic".
//!
//! Usage: `submit-result-fuzz [--seconds S] [--iterations N] [--seed X]`. See `README.md`.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use submit_result::{
    Accepted, Arguments, ErrorClass, Metadata, Options, Outcome, Provider, RecoveryKind, SubmitTool,
};

#[derive(Debug, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
struct Analysis {
    summary: String,
    #[serde(default)]
    blocked: Option<bool>,
    #[serde(default)]
    tags: Vec<String>,
}

/// xorshift64*: small, seedable, good enough to pick mutations.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

const TOKENS: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    "\"",
    "\\",
    ":",
    ",",
    " ",
    "\n",
    "null",
    "true",
    "1e999",
    "-0",
    "\"analysis\"",
    "\"analysis\":",
    "\"reasoning\":",
    "\"summary\":\"x\"",
    "<parameter name=\"analysis\">",
    "<parameter name=",
    "</parameter>",
    "</reasoning>",
    "</analysis>",
    "</x>",
    "</>",
    "</ x>",
    "\\\"",
    "\\u0000",
    "\\ud800",
    "\u{feff}",
    "\u{1b}",
    "é",
    "漢",
    "🚀",
    "{\"summary\":\"all good\"}",
    "\\,",
    "=",
    "name=",
    "flat",
    "omit_reasoning=",
    "payload=analysis",
    "description=a\\, b",
    "```",
    "```json\n",
    "\n```",
    "</invoke>",
    "</function_calls>",
    "<parameter name=\"summary\">",
    "{\"arguments\":",
    "\"true\"",
    "\"[\\\"a\\\"]\"",
];

fn seeds() -> Vec<Vec<u8>> {
    let obj = r#"{"summary":"all good"}"#;
    let mut seeds: Vec<String> = vec![
        json!({"reasoning": "done", "analysis": {"summary": "all good"}}).to_string(),
        json!({"reasoning": "done", "analysis": format!("{obj}</analysis>\n</invoke>")}).to_string(),
        json!({"reasoning": format!("p</reasoning>\n<parameter name=\"analysis\">{obj}")}).to_string(),
        json!({"reasoning": format!("p\", \"analysis\": {obj}}}"), "analysis": null}).to_string(),
        json!({"reasoning": format!("{{\"reasoning\":\"r\",\"analysis\":{obj}}}")}).to_string(),
        json!({"reasoning": "r", "summary": "s", "blocked": true, "tags": ["a"]}).to_string(),
        json!({"type": "tool_use", "id": "t", "name": "submit_result",
               "input": {"reasoning": "r", "analysis": {"summary": "s"}}}).to_string(),
        json!({"functionCall": {"name": "submit_result", "args": {"reasoning": "r", "analysis": obj}}}).to_string(),
        "name=submit_decision,payloadDescription=Escalate\\, block\\, or approve.,flat".to_owned(),
        "name=x,payload=analysis,omit_reasoning=true,success=ok".to_owned(),
        "[[[[{\"a\":".to_owned(),
        // SUBMIT.md §10: the mistakes of the arguments as a whole, duplicates, flat properties.
        format!("{}}}\n</invoke>", json!({"reasoning": "r", "analysis": {"summary": "s"}})),
        Value::from(json!({"reasoning": "r", "analysis": {"summary": "s"}}).to_string()).to_string(),
        format!("```json\n{}\n```", json!({"reasoning": "r", "analysis": {"summary": "s"}})),
        json!({"arguments": {"reasoning": "r", "analysis": {"summary": "s"}}}).to_string(),
        r#"{"reasoning":"r","analysis":{"summary":"a","summary":"b"}}"#.to_owned(),
        json!({"reasoning": "r", "summary": "s</parameter>\n</invoke>", "blocked": "true", "tags": "[\"a\"]"}).to_string(),
        json!({"reasoning": "r</parameter>\n<parameter name=\"summary\">s"}).to_string(),
    ];
    // Every vector of the parser's corpus, when it is next door.
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/corpus");
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            let Ok(text) = std::fs::read_to_string(entry.path()) else {
                continue;
            };
            let Ok(Value::Array(vectors)) = serde_json::from_str::<Value>(&text) else {
                continue;
            };
            for vector in vectors {
                if let Some(arguments) = vector.get("arguments") {
                    seeds.push(arguments.to_string());
                }
                if let Some(Value::String(text)) = vector.get("arguments_text") {
                    seeds.push(text.clone());
                }
                if let Some(call) = vector.get("call") {
                    seeds.push(call.to_string());
                }
            }
        }
    }
    seeds.into_iter().map(String::into_bytes).collect()
}

fn mutate(rng: &mut Rng, input: &mut Vec<u8>, corpus: &[Vec<u8>]) {
    for _ in 0..=rng.below(4) {
        let len = input.len();
        match rng.below(8) {
            0 if len > 0 => {
                let at = rng.below(len);
                input[at] ^= 1 << rng.below(8);
            }
            1 => {
                let at = rng.below(len + 1);
                input.insert(at, rng.next() as u8);
            }
            2 => {
                let at = rng.below(len + 1);
                let token = TOKENS[rng.below(TOKENS.len())].as_bytes();
                input.splice(at..at, token.iter().copied());
            }
            3 if len > 0 => {
                let start = rng.below(len);
                let end = (start + 1 + rng.below(16)).min(len);
                input.drain(start..end);
            }
            4 if len > 0 => {
                let start = rng.below(len);
                let end = (start + 1 + rng.below(32)).min(len);
                let chunk = input[start..end].to_vec();
                let most = if rng.below(50) == 0 { 20_000 } else { 8 };
                let times = 1 + rng.below(most);
                let at = rng.below(len + 1);
                let repeated: Vec<u8> = chunk
                    .iter()
                    .copied()
                    .cycle()
                    .take(chunk.len() * times)
                    .collect();
                input.splice(at..at, repeated);
            }
            5 if !corpus.is_empty() => {
                let other = &corpus[rng.below(corpus.len())];
                let at = rng.below(len + 1);
                let from = rng.below(other.len() + 1);
                input.truncate(at);
                input.extend_from_slice(&other[from..]);
            }
            6 if len > 0 => input.truncate(rng.below(len)),
            _ => {
                let at = rng.below(len + 1);
                let token = TOKENS[rng.below(TOKENS.len())].as_bytes();
                input.splice(at..at, token.iter().copied());
            }
        }
    }
    input.truncate(1 << 20);
}

/// Invariants every outcome keeps.
fn check<R>(outcome: &Outcome<R>, success: &str) {
    match outcome {
        Outcome::Accepted(accepted) => {
            assert_eq!(
                accepted.tool_result,
                json!({"success": true, "message": success})
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

/// Serialized outcome without the parts that legitimately differ between a value and text.
fn comparable(outcome: &Outcome<Value>) -> Value {
    serde_json::to_value(outcome).expect("an outcome serializes")
}

struct Tools {
    typed: SubmitTool<Analysis>,
    value: SubmitTool<Value>,
    flat: SubmitTool<Analysis>,
    omit: SubmitTool<Analysis>,
    strict: SubmitTool<Analysis>,
}

fn run(tools: &Tools, input: &[u8]) {
    let text = String::from_utf8_lossy(input);
    // The tag grammar never panics; what it accepts parses again the same.
    if let Ok(metadata) = Metadata::from_tag(&text) {
        let _ = Options::from_metadata(&metadata);
    }
    // As argument text.
    for outcome in [
        tools.typed.handle_arguments(Arguments::Text(&text)),
        tools.flat.handle_arguments(Arguments::Text(&text)),
        tools.omit.handle_arguments(Arguments::Text(&text)),
        tools.strict.handle_arguments(Arguments::Text(&text)),
    ] {
        check(&outcome, "Result submitted successfully.");
    }
    let by_text = tools.value.handle_arguments(Arguments::Text(&text));
    check(&by_text, "Result submitted successfully.");
    for provider in [Provider::OpenAiChat, Provider::OpenAiResponses] {
        let call = json!({"type": if provider == Provider::OpenAiChat { "function" } else { "function_call" },
                          "name": "s", "function": {"name": "s", "arguments": text}, "arguments": text});
        check(
            &tools.typed.handle(provider, &call),
            "Result submitted successfully.",
        );
    }
    // As a call object, and as arguments that arrived as a value: a value and its text agree.
    if let Ok(value) = serde_json::from_str::<Value>(&text) {
        for provider in Provider::ALL {
            check(
                &tools.typed.handle(provider, &value),
                "Result submitted successfully.",
            );
            check(
                &tools.value.handle(provider, &value),
                "Result submitted successfully.",
            );
        }
        let by_value = tools.value.handle_arguments(Arguments::Value(&value));
        check(&by_value, "Result submitted successfully.");
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

fn main() {
    let mut seconds = 10u64;
    let mut iterations = u64::MAX;
    let mut seed = 0x5eed_u64;
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let number = args.next().and_then(|n| n.parse::<u64>().ok());
        match (flag.as_str(), number) {
            ("--seconds", Some(n)) => seconds = n,
            ("--iterations", Some(n)) => iterations = n,
            ("--seed", Some(n)) => seed = n.max(1),
            _ => {
                eprintln!("usage: submit-result-fuzz [--seconds S] [--iterations N] [--seed X]");
                std::process::exit(2);
            }
        }
    }
    let options = || Options::new().payload_field_name("analysis");
    let tools = Tools {
        typed: SubmitTool::new(options()).expect("tool"),
        value: SubmitTool::from_json_schema(json!({"type": "object"}), options()).expect("tool"),
        flat: SubmitTool::new(options().flat_payload(true)).expect("tool"),
        omit: SubmitTool::new(options().omit_reasoning(true)).expect("tool"),
        strict: SubmitTool::new(options().strict(true)).expect("tool"),
    };
    let corpus = seeds();
    let mut rng = Rng(seed);
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let mut done = 0u64;
    std::panic::set_hook(Box::new(|_| {}));
    while done < iterations && Instant::now() < deadline {
        let mut input = corpus[rng.below(corpus.len())].clone();
        if done >= corpus.len() as u64 {
            mutate(&mut rng, &mut input, &corpus);
        }
        if let Err(panic) = catch_unwind(AssertUnwindSafe(|| run(&tools, &input))) {
            let message = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                .unwrap_or_default();
            let path = format!("{}/crash-{seed}-{done}.bin", env!("CARGO_MANIFEST_DIR"));
            let _ = std::fs::write(&path, &input);
            eprintln!("failure after {done} inputs: {message}\ninput saved to {path}");
            std::process::exit(1);
        }
        done += 1;
    }
    println!(
        "{done} inputs, no failure (seed {seed}, {} seeds)",
        corpus.len()
    );
}
