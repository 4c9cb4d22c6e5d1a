//! Text and wrapper vectors: a model's visible text turn, or a `multi_tool_use.parallel` call,
//! where a call of the tool may or may not be found. Their reference is
//! `SubmitTool::handle_text` or `SubmitTool::handle_parallel` (`null` for none found: compared
//! as `{"accepted": false, "found": false}`, what the command line prints), and they run at
//! every entry point that can carry them:
//!
//! - `executor_body[P]`, `executor_stream[P,n]`: a text vector as the provider's answer whose
//!   only content is the text (its stream sends the text in several deltas), read by the
//!   executor's terminal through `Terminal::handle_text`; a wrapper vector as an OpenAI answer
//!   with one `multi_tool_use.parallel` call, whose entries the loop runs (each other tool a
//!   stand-in answering `{}`), gating the tool's entry through `Terminal::handle_parallel_entry`.
//!   Under the vector's output-token limit, the answer stops at the provider's limit.
//! - `cli_parse[P]`: `submit-result parse --text` on the text, or `parse` on the wrapper call;
//!   `--finish-reason` gives the provider's limit when the vector's turn stopped at it.
//! - `cli_triage[P]`: a text vector as a whole response of the provider (`--input response`),
//!   whose visible text triage reads for a call.
//!
//! The MCP server, rig and async-openai take calls of the tool, neither text nor a wrapper;
//! triage reads no wrapper; and a wrapper the loop and `parse` read by different rules (not
//! exactly one entry of the tool) has no executor trial: each is a rule of `rules.rs`.

use std::path::Path;
use std::sync::Arc;

use super::Trial;
use serde_json::{json, Value};
use submit_result::{parallel_entries, StopReason};

use super::cli::{self, ParseInput, Parsed};
use super::compare::agree;
use super::corpus::{self, wrapper_arguments, Kind};
use super::executor::{Answer, Ran};
use super::rules::{self, Rule};
use super::wire;
use super::{all_fields, executor_agrees, skipped, streamed_text, tool_key, Batches, Case};
use super::{TriageSlot, CUTS};

/// The names of the tools a wrapper vector's entries call besides the vector's tool, each once
/// (none for other vectors): the stand-ins the executor registers.
pub fn stand_ins(case: &Case) -> Vec<String> {
    let Kind::Wrapper(wrapper) = &case.vector.kind else {
        return Vec::new();
    };
    let tool = corpus::tool_name(&case.vector.options);
    let mut names: Vec<String> = parallel_entries(wrapper_arguments(wrapper), tool)
        .unwrap_or_default()
        .into_iter()
        .map(|entry| entry.name)
        .filter(|name| name != tool)
        .collect();
    names.sort();
    names.dedup();
    names
}

/// Where the wrapper's one entry of the tool is among its entries (`None`: no such entry).
fn tool_entry(case: &Case) -> Option<usize> {
    let Kind::Wrapper(wrapper) = &case.vector.kind else {
        return None;
    };
    let tool = corpus::tool_name(&case.vector.options);
    parallel_entries(wrapper_arguments(wrapper), tool)
        .ok()?
        .iter()
        .position(|entry| entry.name == tool)
}

/// The outcome the executor's terminal gave for the case: the first for a call; the one
/// reading of a text turn (`found: false` when it held no call); for a wrapper, its entry of
/// the tool's, or none found when the terminal was never called.
pub fn executor_outcome(case: &Case, ran: &Ran) -> Result<Value, String> {
    match (&case.vector.kind, ran.outcomes.as_slice()) {
        (Kind::Calls, [first, ..]) => Ok(first.clone()),
        (Kind::Calls, []) => Err("the executor never handed the call to its terminal".to_owned()),
        (Kind::Text(_), [one]) => Ok(one.clone()),
        (Kind::Text(_), outcomes) => Err(format!(
            "the executor read the text turn {} times: {outcomes:?}",
            outcomes.len()
        )),
        (Kind::Wrapper(_), []) => Ok(corpus::not_found()),
        (Kind::Wrapper(_), [one]) => Ok(one.clone()),
        (Kind::Wrapper(_), outcomes) => Err(format!(
            "the executor gated {} entries of the tool: {outcomes:?}",
            outcomes.len()
        )),
    }
}

/// What the run told the model of the terminal's `outcome` must be its tool result: a call's
/// tool message; the wrapper's one answer, the entries' results in order (the tool's entry's
/// slot holding it); after a text turn, no tool message, and unless it committed, one nudge
/// (holding a rejection's message). Returns whether the validator raised findings instead of
/// committing an accepted outcome (see [`rules::validator_findings`]).
pub fn told_agrees(case: &Case, entry: &str, ran: &Ran, outcome: &Value) -> Result<bool, String> {
    let tool_result = &outcome["tool_result"];
    match &case.vector.kind {
        Kind::Calls => {
            let findings = rules::validator_findings(&ran.answered);
            if !findings && ran.answered.first() != Some(tool_result) {
                return Err(format!(
                    "{entry}: the model was answered {:?}, the outcome's tool result is \
                     {tool_result}",
                    ran.answered
                ));
            }
            Ok(findings)
        }
        Kind::Wrapper(wrapper) => {
            let tool = corpus::tool_name(&case.vector.options);
            let entries = parallel_entries(wrapper_arguments(wrapper), tool).map_or(0, |e| e.len());
            let [Value::Array(answers)] = ran.answered.as_slice() else {
                return Err(format!(
                    "{entry}: the wrapper was not answered once with its entries' results: \
                     {:?}",
                    ran.answered
                ));
            };
            if answers.len() != entries {
                return Err(format!(
                    "{entry}: the wrapper's {entries} entries were answered {answers:?}"
                ));
            }
            let Some(at) = tool_entry(case) else {
                return Ok(false);
            };
            let answer = &answers[at];
            let findings = rules::validator_findings(std::slice::from_ref(answer));
            if !findings && answer != tool_result {
                return Err(format!(
                    "{entry}: the tool's entry {at} was answered {answer}, the outcome's tool \
                     result is {tool_result}"
                ));
            }
            Ok(findings)
        }
        Kind::Text(_) => {
            if !ran.answered.is_empty() {
                return Err(format!(
                    "{entry}: a text turn got tool results {:?}",
                    ran.answered
                ));
            }
            let committed = ran.committed.is_some();
            match (committed, ran.told.as_slice()) {
                (true, []) => Ok(false),
                (true, told) => Err(format!("{entry}: a committed text turn was told {told:?}")),
                (false, [nudge]) => {
                    let error = tool_result["error"].as_str().unwrap_or_default();
                    if !nudge.contains(error) {
                        return Err(format!(
                            "{entry}: the nudge {nudge:?} does not tell the rejection {error:?}"
                        ));
                    }
                    Ok(outcome["accepted"] == json!(true) && rules::text_findings(&ran.told))
                }
                (false, told) => Err(format!(
                    "{entry}: a text turn that did not commit was told {told:?}, not one nudge"
                )),
            }
        }
    }
}

/// The provider's stop reason for the vector's turn, as `parse --finish-reason` takes it: its
/// output-token limit when the turn stopped there; none otherwise.
fn finish_reason(case: &Case) -> Option<&'static str> {
    (case.vector.stop == StopReason::OutputLimit).then(|| wire::limit_reason(case.provider))
}

/// The provider's whole answer for a text or wrapper case.
fn answer_body(case: &Case) -> Value {
    match &case.vector.kind {
        Kind::Text(text) => wire::text_body(case.provider, text, case.vector.stop),
        _ => wire::body(case.provider, &case.call, case.vector.stop),
    }
}

/// The provider's event stream for a text or wrapper case.
fn answer_stream(case: &Case) -> String {
    match &case.vector.kind {
        Kind::Text(text) => wire::text_stream(case.provider, text, case.vector.stop),
        _ => wire::stream(
            case.provider,
            &case.call,
            &streamed_text(case),
            case.vector.stop,
        ),
    }
}

/// The trials of a text or wrapper case (its `handle` trial aside); its triage line is added
/// to its batch.
pub fn trials(
    case: &Arc<Case>,
    schema: &Path,
    flags: &[String],
    batches: &mut Batches,
) -> Vec<Trial> {
    let provider = case.provider;
    let kind = &case.vector.kind;
    let tool = corpus::tool_name(&case.vector.options);
    let mut trials = Vec::new();

    let not_one_entry = rules::wrapper_not_one_entry(kind, tool);
    if !skipped(
        "executor_body",
        &[(not_one_entry, Rule::WrapperNotOneEntry)],
    ) {
        trials.push(case.trial("executor_body", provider.to_string(), |case| {
            let body = answer_body(case).to_string();
            executor_agrees(case, "executor_body", Answer::Body(body.as_bytes()))
        }));
    }
    if !skipped(
        "executor_stream",
        &[(not_one_entry, Rule::WrapperNotOneEntry)],
    ) {
        for cut in CUTS {
            trials.push(case.trial(
                "executor_stream",
                format!("{provider},{cut}"),
                move |case| {
                    let stream = answer_stream(case);
                    executor_agrees(
                        case,
                        "executor_stream",
                        Answer::Stream(stream.as_bytes(), cut),
                    )
                },
            ));
        }
    }

    let no_strict = rules::gemini_has_no_strict(provider, &case.vector.options);
    if !skipped("cli_parse", &[(no_strict, Rule::GeminiHasNoStrict)]) {
        let (schema, flags) = (schema.to_path_buf(), flags.to_vec());
        trials.push(case.trial("cli_parse", provider.to_string(), move |case| {
            let input = match &case.vector.kind {
                Kind::Text(text) => ParseInput::Text(text),
                _ => ParseInput::Call(&case.call),
            };
            match cli::parse(case.provider, &schema, &flags, input, finish_reason(case))? {
                Parsed::Outcome(outcome) => agree(
                    "cli_parse",
                    &case.schema_reference(),
                    &outcome,
                    &all_fields(),
                ),
                Parsed::Refused(stderr) => Err(format!("parse refused the input: {stderr}")),
            }
        }));
    }

    if !skipped("cli_triage", &[(no_strict, Rule::GeminiHasNoStrict)]) {
        if let Kind::Wrapper(_) = kind {
            // The wrapper call on a line of its own, read for its entry of the tool.
            let key = (tool_key(schema, flags), provider.as_str(), "call");
            let slot = batches.triage.entry(key).or_insert_with(|| TriageSlot {
                batch: cli::TriageBatch::new(
                    provider,
                    schema.to_path_buf(),
                    flags.to_vec(),
                    "call",
                ),
                cases: Vec::new(),
            });
            slot.batch.lines.push(case.call.clone());
            slot.cases.push(Arc::clone(case));
        }
        if let Kind::Text(text) = kind {
            let key = (tool_key(schema, flags), provider.as_str(), "response");
            let slot = batches.triage.entry(key).or_insert_with(|| TriageSlot {
                batch: cli::TriageBatch::new(
                    provider,
                    schema.to_path_buf(),
                    flags.to_vec(),
                    "response",
                ),
                cases: Vec::new(),
            });
            slot.batch
                .lines
                .push(wire::text_body(provider, text, case.vector.stop));
            slot.cases.push(Arc::clone(case));
        }
    }

    // The MCP server, rig and async-openai take calls of the tool only (a case none of these
    // rules skips has no trial there, which the counts check reports).
    let calls_only = [
        (rules::text_is_not_a_call(kind), Rule::TextIsNotACall),
        (
            rules::wrapper_is_not_the_tools_call(kind),
            Rule::WrapperIsNotTheToolsCall,
        ),
    ];
    for entry in ["mcp", "rig", "async_openai"] {
        skipped(entry, &calls_only);
    }
    trials
}
