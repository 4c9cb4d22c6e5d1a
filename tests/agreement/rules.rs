//! Which entry points a case applies to: every skip is one of the rules below, each decided
//! from the case (the provider, its native call, its text or wrapper, the vector's options),
//! never from a vector's name; and the count of trials per entry point and of skips per rule.

use std::collections::BTreeMap;
use std::sync::{Mutex, PoisonError};

use serde_json::Value;
use submit_result::{parallel_entries, Provider};

use super::corpus::{wrapper_arguments, Kind};

/// A rule that keeps a case away from an entry point.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Rule {
    /// See [`shape_error`].
    ShapeError,
    /// See [`arguments_absent`].
    ArgumentsAbsent,
    /// See [`arguments_not_text`].
    ArgumentsNotText,
    /// See [`claude_input_not_object`].
    ClaudeInputNotObject,
    /// See [`mcp_takes_no_text`].
    McpTakesNoText,
    /// See [`mcp_arguments_not_object`].
    McpArgumentsNotObject,
    /// See [`not_openai`].
    NotOpenAi,
    /// See [`gemini_has_no_strict`].
    GeminiHasNoStrict,
    /// See [`text_is_not_a_call`].
    TextIsNotACall,
    /// See [`wrapper_is_not_the_tools_call`].
    WrapperIsNotTheToolsCall,
    /// See [`wrapper_not_one_entry`].
    WrapperNotOneEntry,
    /// See [`validator_findings`].
    ValidatorFindings,
}

impl Rule {
    /// Every rule, in the order the counts list them.
    pub const ALL: [Rule; 12] = [
        Rule::ShapeError,
        Rule::ArgumentsAbsent,
        Rule::ArgumentsNotText,
        Rule::ClaudeInputNotObject,
        Rule::McpTakesNoText,
        Rule::McpArgumentsNotObject,
        Rule::NotOpenAi,
        Rule::GeminiHasNoStrict,
        Rule::TextIsNotACall,
        Rule::WrapperIsNotTheToolsCall,
        Rule::WrapperNotOneEntry,
        Rule::ValidatorFindings,
    ];

    /// The rule's name as the counts print it.
    pub fn name(self) -> &'static str {
        match self {
            Rule::ShapeError => "shape_error",
            Rule::ArgumentsAbsent => "arguments_absent",
            Rule::ArgumentsNotText => "arguments_not_text",
            Rule::ClaudeInputNotObject => "claude_input_not_object",
            Rule::McpTakesNoText => "mcp_takes_no_text",
            Rule::McpArgumentsNotObject => "mcp_arguments_not_object",
            Rule::NotOpenAi => "not_openai",
            Rule::GeminiHasNoStrict => "gemini_has_no_strict",
            Rule::TextIsNotACall => "text_is_not_a_call",
            Rule::WrapperIsNotTheToolsCall => "wrapper_is_not_the_tools_call",
            Rule::WrapperNotOneEntry => "wrapper_not_one_entry",
            Rule::ValidatorFindings => "validator_findings (commit check only)",
        }
    }
}

/// The member holding a call's arguments, `None` when the call has none (or is not an object
/// in the provider's shape).
fn arguments(provider: Provider, call: &Value) -> Option<&Value> {
    match provider {
        Provider::Claude => call.get("input"),
        Provider::Gemini => call.get("functionCall").unwrap_or(call).get("args"),
        Provider::OpenAiChat => call.get("function")?.get("arguments"),
        Provider::OpenAiResponses => call.get("arguments"),
    }
}

/// A call that is not in the provider's shape (`Provider::read_call` refuses it: a `text`
/// block, an array, a Chat call read as a Responses item) is rejected before its arguments are
/// read. Only the entry points that take the native call object as it is read that shape
/// (`handle`, and the command line, which refuses it with the same reason); an answer body or
/// stream, an MCP call, rig and async-openai carry a call only in its provider's shape.
pub fn shape_error(provider: Provider, call: &Value) -> bool {
    provider.read_call(call).is_err()
}

/// A call without its arguments member (Claude `input`, Chat `function.arguments`, Responses
/// `arguments`) has no argument text: a Claude, Chat or Responses stream cannot carry it (an
/// empty text is another call), nor can rig's or async-openai's argument string. Gemini sends
/// each call whole, so its streams carry absent `args` as they are.
pub fn arguments_absent(provider: Provider, call: &Value) -> bool {
    arguments(provider, call).is_none()
}

/// Chat and Responses carry `arguments` as text: their streams send it in text deltas, rig
/// passes it on as a string, and async-openai's tool call types hold it as a `String`. A call
/// whose `arguments` is not a JSON string (an object a gateway decoded) has no such text.
pub fn arguments_not_text(provider: Provider, call: &Value) -> bool {
    matches!(provider, Provider::OpenAiChat | Provider::OpenAiResponses)
        && arguments(provider, call).is_some_and(|arguments| !arguments.is_string())
}

/// A Claude stream carries `input` as `input_json_delta` text, the JSON text of the block's
/// input object; an `input` that is not a JSON object (a string, `null`) has no such text.
pub fn claude_input_not_object(provider: Provider, call: &Value) -> bool {
    provider == Provider::Claude && arguments(provider, call).is_some_and(|v| !v.is_object())
}

/// An MCP call's arguments are a JSON object the host has already decoded; OpenAI calls carry
/// argument text, which is read as text (duplicate members, trailing text, …), so an MCP call
/// is not the same call.
pub fn mcp_takes_no_text(provider: Provider) -> bool {
    matches!(provider, Provider::OpenAiChat | Provider::OpenAiResponses)
}

/// An MCP call's arguments are a JSON object or absent; a Claude `input` or Gemini `args` that
/// is anything else (a string, `null`, an array) cannot be sent as MCP arguments.
pub fn mcp_arguments_not_object(provider: Provider, call: &Value) -> bool {
    arguments(provider, call).is_some_and(|arguments| !arguments.is_object())
}

/// The rig tool and the async-openai conversions take OpenAI argument text (rig's tool
/// argument string, async-openai's Chat and Responses call types); Claude and Gemini calls
/// are not theirs.
pub fn not_openai(provider: Provider) -> bool {
    !matches!(provider, Provider::OpenAiChat | Provider::OpenAiResponses)
}

/// The command line refuses `--strict` with `--provider gemini` (Gemini has no strict mode),
/// so a vector with `strict` options has no Gemini command line; the library builds that tool.
pub fn gemini_has_no_strict(provider: Provider, options: &Value) -> bool {
    provider == Provider::Gemini && options["strict"].as_bool().unwrap_or(false)
}

/// A model's text turn is no call: the MCP server, the rig tool and the async-openai
/// conversions each take a call of the tool (an MCP `tools/call`, rig's argument string,
/// async-openai's call types), never the text a model wrote, so a text vector is not theirs.
pub fn text_is_not_a_call(kind: &Kind) -> bool {
    matches!(kind, Kind::Text(_))
}

/// A `multi_tool_use.parallel` call is not a call of the tool: an MCP host calls the server's
/// tool by its name, rig's tool set runs the tool the call names (none is named
/// `multi_tool_use.parallel`), and the async-openai conversions handle a call the caller has
/// already routed to the tool by its name. None of them reads a wrapper.
pub fn wrapper_is_not_the_tools_call(kind: &Kind) -> bool {
    matches!(kind, Kind::Wrapper(_))
}

/// The loop and `parse` read a wrapper by different rules where it does not hold exactly one
/// entry of the tool: the loop runs every entry as a call of its own, gating each entry of the
/// tool (so two are two outcomes, the second told a result was already accepted when the first
/// committed) and answering a wrapper not of the shape with its message without calling the
/// terminal; `parse` (`SubmitTool::handle_parallel`) declines both as a whole, with one
/// outcome. Such a wrapper is compared at `handle` and the command line only. A wrapper with no
/// entry of the tool is the same under both (nothing found: the terminal is never called), and
/// is compared everywhere.
pub fn wrapper_not_one_entry(kind: &Kind, tool: &str) -> bool {
    let Kind::Wrapper(wrapper) = kind else {
        return false;
    };
    match parallel_entries(wrapper_arguments(wrapper), tool) {
        Ok(entries) => entries.iter().filter(|entry| entry.name == tool).count() > 1,
        Err(_) => true,
    }
}

/// The executor's built-in result validator checks an accepted response against the payload
/// schema (required members aside) before it commits. When it raises findings, the run sends
/// them back instead of committing: the verdict is still compared, the commit check is not.
/// Decided when the run ends (the answered tool result holds `findings`), and counted.
pub fn validator_findings(answered: &[Value]) -> bool {
    answered
        .iter()
        .any(|output| output.get("findings").is_some())
}

/// [`validator_findings`] for a text turn, which has no tool result: the nudge the loop sends
/// after it tells the model of the findings (`… raised N finding(s) …`).
pub fn text_findings(told: &[String]) -> bool {
    told.iter().any(|message| message.contains("finding(s)"))
}

/// The trials made per entry point and the skips per (entry point, rule).
#[derive(Debug, Default)]
pub struct Counts {
    /// Trials per entry point.
    pub trials: BTreeMap<&'static str, usize>,
    /// Skips per entry point and rule.
    pub skips: BTreeMap<(&'static str, Rule), usize>,
}

static COUNTS: Mutex<Counts> = Mutex::new(Counts {
    trials: BTreeMap::new(),
    skips: BTreeMap::new(),
});

fn counts() -> std::sync::MutexGuard<'static, Counts> {
    COUNTS.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Counts one trial of `entry`.
pub fn count_trial(entry: &'static str) {
    *counts().trials.entry(entry).or_default() += 1;
}

/// Counts one case `rule` kept away from `entry`.
pub fn count_skip(entry: &'static str, rule: Rule) {
    *counts().skips.entry((entry, rule)).or_default() += 1;
}

/// The counts as a table.
pub fn table() -> String {
    let counts = counts();
    let mut out = String::from("agreement: trials per entry point\n");
    for (entry, n) in &counts.trials {
        out.push_str(&format!("  {entry:<18} {n:>6}\n"));
    }
    out.push_str(&format!(
        "  {:<18} {:>6}\n",
        "total",
        counts.trials.values().sum::<usize>()
    ));
    out.push_str("agreement: cases skipped per rule (entry point: count)\n");
    for rule in Rule::ALL {
        let entries: Vec<(&str, usize)> = counts
            .skips
            .iter()
            .filter(|((_, r), _)| *r == rule)
            .map(|((entry, _), n)| (*entry, *n))
            .collect();
        let total: usize = entries.iter().map(|(_, n)| n).sum();
        let list: Vec<String> = entries.iter().map(|(e, n)| format!("{e}: {n}")).collect();
        out.push_str(&format!(
            "  {:<40} {total:>6}  ({})\n",
            rule.name(),
            list.join(", ")
        ));
    }
    out
}

/// The trials counted for `entry`.
pub fn trials_of(entry: &str) -> usize {
    counts().trials.get(entry).copied().unwrap_or(0)
}

/// The cases the rules decided before the run kept away from `entry` (every rule but
/// [`validator_findings`], which is decided when a run ends and skips no trial).
pub fn skips_of(entry: &str) -> usize {
    counts()
        .skips
        .iter()
        .filter(|((e, rule), _)| *e == entry && *rule != Rule::ValidatorFindings)
        .map(|(_, n)| n)
        .sum()
}
