//! Every corpus vector gets the same verdict at every entry point.
//!
//! The reference is `SubmitTool::handle(provider, &call)` on the vector's native call (with
//! the tool its options describe; for the command line and the MCP server, which are driven
//! by a JSON Schema, the tool `SubmitTool::<Value>::from_json_schema` builds from the same
//! schema). Each other entry point gets the same call its own way, and what it exposes of the
//! outcome (accepted, response, reasoning, recovery and recoveries, class and cause, the
//! message the model reads) must be the reference's:
//!
//! - `handle[P]`: the reference itself, checked against the vector's `expected`;
//! - `executor_body[P]`: the provider's whole JSON answer holding the call, read by the
//!   provider's transport (`decode_body`), then the executor (one turn);
//! - `executor_stream[P,n]`: the provider's event stream for the same answer (the argument
//!   text in several deltas), received in pieces of n bytes (`decode_stream`), then the
//!   executor;
//! - `cli_parse[P]`: `submit-result parse`, one process per call (or text);
//! - `cli_triage[P]`: `submit-result triage --out`, one process per tool, provider and kind of
//!   line (bare calls, or whole responses for text vectors);
//! - `mcp_stdio[P]`, `mcp_http[P]`: `submit-result mcp` over standard input and output and over
//!   streamable HTTP, sent raw JSON-RPC bytes with the call's arguments spliced in as written
//!   (an OpenAI argument text that is a JSON string is an MCP `arguments` string, read as a
//!   string `input` is: its reference is the Claude call carrying it);
//! - `rig[P]`, `async_openai[P]`: the rig tool and the async-openai conversions, on OpenAI
//!   calls.
//!
//! A text vector (a model's visible text turn) and a wrapper vector (the arguments of a
//! `multi_tool_use.parallel` call) have `SubmitTool::handle_text` and
//! `SubmitTool::handle_parallel` as their reference, and run where they can be carried (see
//! `agreement/found.rs`).
//!
//! A case an entry point cannot take is skipped by one of the rules of `agreement/rules.rs`,
//! each decided from the case, never from a vector's name; the counts of trials per entry
//! point and of skips per rule are printed by `trial_counts_add_up`.
//!
//! Each entry point is one test, `agrees_at_<entry>`, which runs all its trials and fails with
//! the list of every trial that disagrees, each named `<vector>::<entry>[<detail>]`.
//!
//! The command-line entry points need the `submit-result` binary beside this test executable
//! (`cargo test --workspace --all-features` builds it; alone: `cargo build -p submit-cli
//! --features mcp`).

mod cli;
mod compare;
mod corpus;
mod executor;
mod found;
mod mcp;
mod openai_types;
mod rig_tool;
mod rules;
mod wire;

use std::collections::{BTreeMap, HashMap};
use std::panic::{self, AssertUnwindSafe};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use serde_json::{json, Value};
use submit_result::{Provider, SubmitTool};

use compare::{agree, ACCEPTED, REJECTED};
use corpus::{with_tool, CorpusTool, Kind, Vector};
use executor::Answer;
use rules::{count_skip, count_trial, Rule};

/// The cuts a stream is received in: one byte at a time, and two sizes that fall anywhere.
const CUTS: [usize; 3] = [1, 7, 61];

/// Every entry point, as trials and counts name them.
const ENTRIES: [&str; 9] = [
    "handle",
    "executor_body",
    "executor_stream",
    "cli_parse",
    "cli_triage",
    "mcp_stdio",
    "mcp_http",
    "rig",
    "async_openai",
];

/// Every field an outcome has, accepted or rejected.
fn all_fields() -> Vec<&'static str> {
    let mut fields = ACCEPTED.to_vec();
    fields.extend(REJECTED.iter().filter(|f| !ACCEPTED.contains(f)));
    fields
}

/// One check of one case at one entry point.
struct Trial {
    /// `<vector>::<entry>[<detail>]`.
    name: String,
    entry: &'static str,
    run: Box<dyn FnOnce() -> Result<(), String> + Send>,
}

/// One (vector, provider, call) case, shared by its trials.
struct Case {
    vector: Arc<Vector>,
    provider: Provider,
    /// The native call (for a wrapper vector, the `multi_tool_use.parallel` call; for a text
    /// vector, `null`).
    call: Value,
    /// The vector's tool (the sample type's, or its schema's).
    tool: CorpusTool,
    /// The schema-driven tool of the command line and the MCP server.
    schema_tool: SubmitTool<Value>,
}

impl Case {
    /// The reference verdict of the library's entry points.
    fn reference(&self) -> Value {
        match self.vector.kind {
            Kind::Calls => self.tool.handle(self.provider, &self.call),
            _ => self.tool.found(&self.vector),
        }
    }

    /// The reference verdict of the schema-driven entry points.
    fn schema_reference(&self) -> Value {
        match self.vector.kind {
            Kind::Calls => {
                corpus::outcome_json(&self.schema_tool.handle(self.provider, &self.call))
            }
            _ => corpus::found(&self.schema_tool, &self.vector),
        }
    }

    /// A trial named `<vector>::<entry>[<detail>]`.
    fn trial(
        self: &Arc<Self>,
        entry: &'static str,
        detail: String,
        run: impl FnOnce(&Case) -> Result<(), String> + Send + 'static,
    ) -> Trial {
        count_trial(entry);
        let case = Arc::clone(self);
        let binary = matches!(entry, "cli_parse" | "cli_triage" | "mcp_stdio" | "mcp_http");
        Trial {
            name: format!("{}::{entry}[{detail}]", case.vector.name),
            entry,
            run: Box::new(move || {
                run(&case).map_err(|error| match binary {
                    true => format!("{error}\n{}", cli::REBUILD_HINT),
                    false => error,
                })
            }),
        }
    }
}

/// The first rule of `rules` (checked in order) that keeps the case away from `entry`,
/// counted.
fn skipped(entry: &'static str, rules: &[(bool, Rule)]) -> bool {
    match rules.iter().find(|(applies, _)| *applies) {
        Some((_, rule)) => {
            count_skip(entry, *rule);
            true
        }
        None => false,
    }
}

/// The argument text a stream of the case carries (Gemini streams carry the call whole).
fn streamed_text(case: &Case) -> String {
    match case.provider {
        Provider::Claude => case.call["input"].to_string(),
        Provider::Gemini => String::new(),
        Provider::OpenAiChat => case.call["function"]["arguments"]
            .as_str()
            .unwrap_or_default()
            .to_owned(),
        Provider::OpenAiResponses => case.call["arguments"]
            .as_str()
            .unwrap_or_default()
            .to_owned(),
    }
}

/// The executor's verdict on `answer` against the reference: the outcome its terminal gave,
/// what the model was told of it, and, when accepted, what the run committed.
fn executor_agrees(case: &Case, entry: &'static str, answer: Answer<'_>) -> Result<(), String> {
    let reference = case.reference();
    let response = executor::decode(case.provider, answer)?;
    let stand_ins = found::stand_ins(case);
    let ran = with_tool!(&case.tool, tool => executor::run(tool, response, &stand_ins))?;
    let outcome = found::executor_outcome(case, &ran)?;
    agree(entry, &reference, &outcome, &all_fields())?;
    let findings = found::told_agrees(case, entry, &ran, &outcome)?;
    match (&ran.committed, outcome["accepted"] == json!(true)) {
        (Some(committed), true) => {
            for key in ["response", "reasoning", "recovery", "recoveries"] {
                if committed[key] != outcome[key] {
                    return Err(format!(
                        "{entry}: the run committed {key} {}, the accepted outcome has {}",
                        committed[key], outcome[key]
                    ));
                }
            }
            Ok(())
        }
        (None, true) if findings => {
            count_skip(entry, Rule::ValidatorFindings);
            Ok(())
        }
        (None, true) => Err(format!(
            "{entry}: the call was accepted but the run did not commit; answered {:?}, told {:?}",
            ran.answered, ran.told
        )),
        (Some(_), false) => Err(format!("{entry}: a rejected call committed")),
        (None, false) => Ok(()),
    }
}

/// The command line's verdict on a call not in the provider's shape: it refuses the call (no
/// outcome), naming the reason the reference's rejection gives.
fn refusal_agrees(case: &Case, entry: &str, refusal: &str) -> Result<(), String> {
    let shape = match case.provider.read_call(&case.call) {
        Ok(_) => {
            return Err(format!(
                "{entry} refused a call in the {} shape: {refusal}",
                case.provider
            ))
        }
        Err(shape) => shape.to_string(),
    };
    let reference = case.schema_reference();
    let message = reference["tool_result"]["error"]
        .as_str()
        .unwrap_or_default();
    if !message.contains(&shape) {
        return Err(format!(
            "the reference's rejection {message:?} does not name the shape error {shape:?}"
        ));
    }
    if refusal.contains(&shape) {
        Ok(())
    } else {
        Err(format!(
            "{entry} refused a call not in the {} shape with {refusal:?}; the reference's \
             rejection names {shape:?}",
            case.provider
        ))
    }
}

/// The batches the batch entry points share, being filled, by tool (and provider).
#[derive(Default)]
struct Batches {
    /// One `triage` process per tool, provider and what its lines hold (`call`, `response`).
    triage: BTreeMap<(String, &'static str, &'static str), TriageSlot>,
    /// One series of MCP servers per tool and transport.
    mcp: BTreeMap<(String, mcp::Transport), McpSlot>,
}

/// A triage batch being filled: its lines (line `n` is case `n - 1`).
struct TriageSlot {
    batch: cli::TriageBatch,
    cases: Vec<Arc<Case>>,
}

/// An MCP batch being filled: its distinct argument texts, and each case's index into them.
struct McpSlot {
    batch: mcp::McpBatch,
    indices: HashMap<String, usize>,
    cases: Vec<(usize, Arc<Case>)>,
}

/// The key of a tool: its schema file and its flags.
fn tool_key(schema: &Path, flags: &[String]) -> String {
    format!("{}\u{0}{}", schema.display(), flags.join("\u{0}"))
}

/// The trials of every case, and the batches they share.
fn build() -> Result<Vec<Trial>, String> {
    let vectors = corpus::load()?;
    let mut trials = Vec::new();
    let mut batches = Batches::default();
    for vector in vectors {
        let tool = CorpusTool::build(&vector)?;
        let schema_tool = corpus::schema_tool(&vector)?;
        let schema = cli::schema_file(&corpus::schema_of(&vector)?)?;
        let flags = corpus::cli_flags(&vector);
        for (provider, call) in vector.cases.clone() {
            let case = Arc::new(Case {
                vector: Arc::clone(&vector),
                provider,
                call,
                tool: tool.clone(),
                schema_tool: schema_tool.clone(),
            });
            trials.extend(case_trials(&case, &schema, &flags, &mut batches));
        }
    }
    for slot in batches.triage.into_values() {
        trials.extend(triage_trials(slot));
    }
    for slot in batches.mcp.into_values() {
        trials.extend(mcp_trials(slot));
    }
    Ok(trials)
}

/// The trials of every test of this module, built once: each test takes its entry point's.
fn trials() -> &'static Mutex<Vec<Trial>> {
    static TRIALS: OnceLock<Result<Mutex<Vec<Trial>>, String>> = OnceLock::new();
    match TRIALS.get_or_init(|| build().map(Mutex::new)) {
        Ok(trials) => trials,
        Err(error) => panic!("cannot build the trials: {error}"),
    }
}

/// The entry points whose trials read the files of [`cli::workdir`]: the last of them to end
/// removes it.
const IN_WORKDIR: [&str; 4] = ["cli_parse", "cli_triage", "mcp_stdio", "mcp_http"];

/// Runs every trial of `entry`, and fails with the list of those that disagree.
fn run(entry: &'static str) {
    static ENDED_IN_WORKDIR: AtomicUsize = AtomicUsize::new(0);
    let trials: Vec<Trial> = trials()
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .extract_if(.., |trial| trial.entry == entry)
        .collect();
    let count = trials.len();
    let disagreeing: Vec<String> = trials
        .into_iter()
        .filter_map(|trial| {
            let error = match panic::catch_unwind(AssertUnwindSafe(trial.run)) {
                Ok(result) => result.err()?,
                Err(panic) => match panic.downcast::<String>() {
                    Ok(message) => format!("panicked: {message}"),
                    Err(panic) => match panic.downcast::<&str>() {
                        Ok(message) => format!("panicked: {message}"),
                        Err(_) => "panicked".to_owned(),
                    },
                },
            };
            Some(format!("{}: {error}", trial.name))
        })
        .collect();
    if IN_WORKDIR.contains(&entry)
        && ENDED_IN_WORKDIR.fetch_add(1, Ordering::SeqCst) + 1 == IN_WORKDIR.len()
    {
        cli::remove_workdir();
    }
    assert!(
        disagreeing.is_empty(),
        "{} of the {count} trials of {entry} disagree:\n{}",
        disagreeing.len(),
        disagreeing.join("\n")
    );
}

#[test]
fn agrees_at_handle() {
    run("handle");
}

#[test]
fn agrees_at_executor_body() {
    run("executor_body");
}

#[test]
fn agrees_at_executor_stream() {
    run("executor_stream");
}

#[test]
fn agrees_at_cli_parse() {
    run("cli_parse");
}

#[test]
fn agrees_at_cli_triage() {
    run("cli_triage");
}

#[test]
fn agrees_at_mcp_stdio() {
    run("mcp_stdio");
}

#[test]
fn agrees_at_mcp_http() {
    run("mcp_http");
}

#[test]
fn agrees_at_rig() {
    run("rig");
}

#[test]
fn agrees_at_async_openai() {
    run("async_openai");
}

/// Every entry point has trials, and each takes every case: a case is a trial (one per cut
/// for streams) or a skip by a rule. Prints the counts (the skips of
/// `validator_findings` as far as the runs have counted them).
#[test]
fn trial_counts_add_up() {
    // The trials and skips are counted as the trials are built.
    trials();
    println!("{}", rules::table());
    let cases = rules::trials_of("handle");
    let mut wrong = Vec::new();
    for entry in ENTRIES {
        let trials = rules::trials_of(entry);
        let per_case = if entry == "executor_stream" {
            CUTS.len()
        } else {
            1
        };
        if trials == 0 {
            wrong.push(format!("{entry} has no trials"));
        }
        if !trials.is_multiple_of(per_case) || trials / per_case + rules::skips_of(entry) != cases {
            wrong.push(format!(
                "{entry}: {trials} trials ({per_case} a case) and {} skips for {cases} cases",
                rules::skips_of(entry)
            ));
        }
    }
    assert!(wrong.is_empty(), "{}\n{}", wrong.join("\n"), rules::table());
}

/// The trials of one triage batch, each reading its line of the shared results.
fn triage_trials(slot: TriageSlot) -> Vec<Trial> {
    let batch = Arc::new(slot.batch);
    let mut trials = Vec::new();
    for (index, case) in slot.cases.into_iter().enumerate() {
        let batch = Arc::clone(&batch);
        let line = index as u64 + 1;
        trials.push(
            case.trial("cli_triage", case.provider.to_string(), move |case| {
                let triaged = batch.result()?;
                if let Kind::Text(_) | Kind::Wrapper(_) = case.vector.kind {
                    return text_triaged(case, triaged, line);
                }
                if let Some(outcome) = triaged.outcomes.get(&line) {
                    if case.provider.read_call(&case.call).is_err() {
                        return Err(format!(
                            "triage gave an outcome for a call not in the {} shape: {outcome}",
                            case.provider
                        ));
                    }
                    return agree(
                        "cli_triage",
                        &case.schema_reference(),
                        outcome,
                        &all_fields(),
                    );
                }
                match triaged.malformed.get(&line) {
                    Some(reason) => refusal_agrees(case, "cli_triage", reason),
                    None if triaged.malformed_count as usize > triaged.malformed.len() => {
                        Err(format!(
                    "triage wrote no outcome for line {line}, and its summary lists only the \
                     first {} of {} malformed lines",
                    triaged.malformed.len(),
                    triaged.malformed_count
                ))
                    }
                    None => Err(format!(
                        "triage wrote no outcome for line {line} and did not count it malformed"
                    )),
                }
            }),
        );
    }
    trials
}

/// Triage's verdict on a text case's response line (or a wrapper case's call line): the
/// outcome it wrote for the line, or
/// none found when it wrote none, did not count the line malformed, and counted every line
/// without an outcome as holding no submit call.
fn text_triaged(case: &Case, triaged: &cli::Triaged, line: u64) -> Result<(), String> {
    let observed = match triaged.outcomes.get(&line) {
        Some(outcome) => outcome.clone(),
        None => {
            if let Some(reason) = triaged.malformed.get(&line) {
                return Err(format!(
                    "triage counted the response line malformed: {reason}"
                ));
            }
            let without = triaged.lines - triaged.outcomes.len() as u64 - triaged.malformed_count;
            if triaged.without_call != without {
                return Err(format!(
                    "triage wrote no outcome for {without} of its lines, and counted {} \
                     without a submit call",
                    triaged.without_call
                ));
            }
            corpus::not_found()
        }
    };
    agree(
        "cli_triage",
        &case.schema_reference(),
        &observed,
        &all_fields(),
    )
}

/// The trials of one MCP batch, each reading its call's answer from the shared results.
fn mcp_trials(slot: McpSlot) -> Vec<Trial> {
    let batch = Arc::new(slot.batch);
    let entry = batch.transport.entry();
    let mut trials = Vec::new();
    for (index, case) in slot.cases {
        let batch = Arc::clone(&batch);
        trials.push(case.trial(entry, case.provider.to_string(), move |case| {
            let observed = mcp::observed(&batch.answer(index)?)?;
            let exposed: &[&str] = if observed["accepted"] == json!(true) {
                ACCEPTED
            } else {
                &["accepted", "tool_result"]
            };
            agree(entry, &mcp_reference(case), &observed, exposed)
        }));
    }
    trials
}

/// The reference verdict of an MCP call: the schema-driven reference, but for an OpenAI
/// argument text that is a JSON string. As an MCP `arguments` that string is read as a string
/// `input` is (the parsing rules, "Where the arguments come from" in
/// `submit-core/docs/parsing.md`), not as argument text encoded twice: its reference is
/// `handle` on the Claude call carrying it.
fn mcp_reference(case: &Case) -> Value {
    let text = match mcp::arguments(case.provider, &case.call) {
        Ok(Some(text)) if text.trim_start().starts_with('"') => text,
        _ => return case.schema_reference(),
    };
    match (case.provider, serde_json::from_str::<Value>(&text)) {
        (Provider::OpenAiChat | Provider::OpenAiResponses, Ok(input)) => {
            let call = json!({"type": "tool_use", "id": "toolu_01",
                              "name": corpus::tool_name(&case.vector.options), "input": input});
            corpus::outcome_json(&case.schema_tool.handle(Provider::Claude, &call))
        }
        _ => case.schema_reference(),
    }
}

/// The trials of one case (the batch entry points' cases are added to their batches).
fn case_trials(
    case: &Arc<Case>,
    schema: &Path,
    flags: &[String],
    batches: &mut Batches,
) -> Vec<Trial> {
    let provider = case.provider;
    let call = &case.call;
    let options = &case.vector.options;
    let mut trials = Vec::new();

    trials.push(case.trial("handle", provider.to_string(), |case| {
        let wrong = corpus::check_expected(&case.reference(), &case.vector);
        if wrong.is_empty() {
            Ok(())
        } else {
            Err(format!(
                "the reference disagrees with `expected`:\n  {}\noutcome: {}",
                wrong.join("\n  "),
                compare::pretty(&case.reference())
            ))
        }
    }));
    if !matches!(case.vector.kind, Kind::Calls) {
        trials.extend(found::trials(case, schema, flags, batches));
        return trials;
    }

    let shape_error = rules::shape_error(provider, call);
    if !skipped("executor_body", &[(shape_error, Rule::ShapeError)]) {
        trials.push(case.trial("executor_body", provider.to_string(), |case| {
            let body = wire::body(case.provider, &case.call, case.vector.stop).to_string();
            executor_agrees(case, "executor_body", Answer::Body(body.as_bytes()))
        }));
    }

    let text_streamed = provider != Provider::Gemini;
    if !skipped(
        "executor_stream",
        &[
            (shape_error, Rule::ShapeError),
            (
                text_streamed && rules::arguments_absent(provider, call),
                Rule::ArgumentsAbsent,
            ),
            (
                rules::claude_input_not_object(provider, call),
                Rule::ClaudeInputNotObject,
            ),
            (
                rules::arguments_not_text(provider, call),
                Rule::ArgumentsNotText,
            ),
        ],
    ) {
        for cut in CUTS {
            trials.push(case.trial(
                "executor_stream",
                format!("{provider},{cut}"),
                move |case| {
                    let stream = wire::stream(
                        case.provider,
                        &case.call,
                        &streamed_text(case),
                        case.vector.stop,
                    );
                    executor_agrees(
                        case,
                        "executor_stream",
                        Answer::Stream(stream.as_bytes(), cut),
                    )
                },
            ));
        }
    }

    let no_strict = rules::gemini_has_no_strict(provider, options);
    if !skipped("cli_parse", &[(no_strict, Rule::GeminiHasNoStrict)]) {
        let (schema, flags) = (schema.to_path_buf(), flags.to_vec());
        trials.push(case.trial(
            "cli_parse",
            provider.to_string(),
            move |case| match cli::parse(
                case.provider,
                &schema,
                &flags,
                cli::ParseInput::Call(&case.call),
                None,
            )? {
                cli::Parsed::Outcome(outcome) => {
                    if case.provider.read_call(&case.call).is_err() {
                        return Err(format!(
                            "parse printed an outcome for a call not in the {} shape: {outcome}",
                            case.provider
                        ));
                    }
                    agree(
                        "cli_parse",
                        &case.schema_reference(),
                        &outcome,
                        &all_fields(),
                    )
                }
                cli::Parsed::Refused(stderr) => refusal_agrees(case, "cli_parse", &stderr),
            },
        ));
    }

    if !skipped("cli_triage", &[(no_strict, Rule::GeminiHasNoStrict)]) {
        let key = (tool_key(schema, flags), provider.as_str(), "call");
        let slot = batches.triage.entry(key).or_insert_with(|| TriageSlot {
            batch: cli::TriageBatch::new(provider, schema.to_path_buf(), flags.to_vec(), "call"),
            cases: Vec::new(),
        });
        slot.batch.lines.push(call.clone());
        slot.cases.push(Arc::clone(case));
    }

    // The MCP server, over each transport: the call's arguments as an MCP `arguments` value.
    let arguments = mcp::arguments(provider, call);
    for transport in mcp::Transport::ALL {
        if skipped(
            transport.entry(),
            &[
                (shape_error, Rule::ShapeError),
                (
                    rules::mcp_arguments_not_json(provider, call),
                    Rule::McpArgumentsNotJson,
                ),
                (
                    transport == mcp::Transport::Stdio && rules::stdio_line_break(provider, call),
                    Rule::StdioLineBreak,
                ),
            ],
        ) {
            continue;
        }
        let text = arguments.clone().unwrap_or_default();
        let name = corpus::tool_name(options);
        let slot = batches
            .mcp
            .entry((tool_key(schema, flags), transport))
            .or_insert_with(|| McpSlot {
                batch: mcp::McpBatch::new(transport, schema.to_path_buf(), flags.to_vec(), name),
                indices: HashMap::new(),
                cases: Vec::new(),
            });
        let key = text.clone().unwrap_or_else(|| "\u{0}absent".to_owned());
        let next = slot.batch.calls.len();
        let index = *slot.indices.entry(key).or_insert(next);
        if index == next {
            slot.batch.calls.push(text);
        }
        slot.cases.push((index, Arc::clone(case)));
    }

    let openai_rules = [
        (rules::not_openai(provider), Rule::NotOpenAi),
        (shape_error, Rule::ShapeError),
        (
            rules::arguments_absent(provider, call),
            Rule::ArgumentsAbsent,
        ),
        (
            rules::arguments_not_text(provider, call),
            Rule::ArgumentsNotText,
        ),
    ];
    if !skipped("rig", &openai_rules) {
        trials.push(case.trial("rig", provider.to_string(), |case| {
            let reference = case.reference();
            let text = streamed_text(case);
            let observed = with_tool!(&case.tool, tool => rig_tool::call(tool, &text))?;
            let exposed: &[&str] = if observed["accepted"] == json!(true) {
                ACCEPTED
            } else {
                &["accepted", "tool_result"]
            };
            agree("rig", &reference, &observed, exposed)?;
            rig_tool::check_message(&reference, &observed)
        }));
    }
    if !skipped("async_openai", &openai_rules) {
        trials.push(case.trial("async_openai", provider.to_string(), |case| {
            let observed = with_tool!(&case.tool, tool =>
                openai_types::handle(tool, case.provider, &case.call))?;
            agree("async_openai", &case.reference(), &observed, &all_fields())
        }));
    }
    trials
}
