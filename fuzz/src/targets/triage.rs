//! The CLI's `triage` line reader, each line's format told by its shape (bare calls, batch
//! entries, responses, conversations). The input is a whole file. Beyond "no panic": every
//! line is counted, as calls, as malformed, as a failed batch entry or as holding no call;
//! `--out` holds one outcome line per call, tagged with its input line, in order; the counts of kinds and causes add up; a line
//! past the line limit (1 KiB here, `MAX_LINE_BYTES` in the tool) is malformed, not held. Three
//! threads give the counts and `--out` of one.

use std::sync::OnceLock;

use serde_json::{json, Value};
use submit_cli::__private::InputFormat;
use submit_cli::__private::{reader, run_limited, Input};
use submit_result::{Options, Provider, SubmitTool};

const MAX_LINE: usize = 1024;

fn tool() -> &'static SubmitTool<Value> {
    static TOOL: OnceLock<SubmitTool<Value>> = OnceLock::new();
    TOOL.get_or_init(|| {
        let schema = json!({"type": "object", "properties": {"summary": {"type": "string"}},
                            "required": ["summary"]});
        match SubmitTool::from_json_schema(schema, Options::new()) {
            Ok(tool) => tool,
            Err(error) => panic!("the fuzz tool is valid: {error}"),
        }
    })
}

pub fn run(data: &[u8]) {
    let [provider, file @ ..] = data else {
        return;
    };
    let provider = Provider::ALL[usize::from(*provider) % Provider::ALL.len()];
    let triage = |threads: usize| {
        let input = Input::new(std::io::BufReader::with_capacity(64, file)).threads(threads);
        let mut out = Vec::new();
        match run_limited(
            input,
            Some(&mut out),
            reader(tool(), provider, InputFormat::Auto),
            MAX_LINE,
        ) {
            Ok(summary) => (summary, out),
            Err(error) => panic!("reading memory cannot fail: {error:?}"),
        }
    };
    let (summary, out) = triage(1);
    // Three threads count and write exactly what one does.
    let (other, other_out) = triage(3);
    assert_eq!(
        format!("{:?}", other.report(10)),
        format!("{:?}", summary.report(10))
    );
    assert!(other_out == out, "another --out on three threads");
    // Every line counted: each `\n` ends one, and bytes after the last one are one more.
    let lines = file.split(|b| *b == b'\n').count() as u64
        - u64::from(file.last().is_none_or(|b| *b == b'\n'));
    assert_eq!(summary.lines, lines);
    let failed: u64 = summary.failed_entries.values().sum();
    assert!(summary.malformed + summary.without_call + failed <= summary.lines);
    // One outcome line per call, tagged with its input line, in order (a line may hold several).
    let written: Vec<Value> = out
        .split(|b| *b == b'\n')
        .filter(|line| !line.is_empty())
        .map(|line| {
            serde_json::from_slice(line)
                .unwrap_or_else(|error| panic!("--out line not JSON: {error}"))
        })
        .collect();
    assert_eq!(written.len() as u64, summary.calls());
    let numbers: Vec<u64> = written
        .iter()
        .filter_map(|line| line["line"].as_u64())
        .collect();
    assert_eq!(numbers.len(), written.len());
    assert!(
        numbers.windows(2).all(|pair| pair[0] <= pair[1]),
        "{numbers:?}"
    );
    assert!(numbers.iter().all(|n| (1..=summary.lines).contains(n)));
    // The counts add up.
    assert_eq!(
        summary.accepted + summary.payload + summary.parameter,
        summary.calls()
    );
    let kinds = summary.clean
        + summary.stringified
        + summary.reasoning_opener
        + summary.reasoning_member
        + summary.trailing_closers
        + summary.stringified_arguments
        + summary.fenced_arguments
        + summary.wrapped_arguments
        + summary.stringified_property
        + summary.closing_markup
        + summary.call_in_text
        + summary.parallel_wrapper
        + summary.wrapped_call
        + summary.stringified_value
        + summary.enum_case;
    // Every accepted call is clean or counts each recovery it took, one or more.
    assert!(kinds >= summary.accepted, "{summary:?}");
    let causes = summary.undecodable_arguments
        + summary.absent_or_mistyped
        + summary.stringified_declined
        + summary.reasoning_declined
        + summary.swallowed_parameter;
    assert_eq!(causes, summary.parameter, "{summary:?}");
}
