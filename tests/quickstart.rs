//! The quickstart (the README's main job) runs, and each of its sample calls ends as it says.

use submit_result::{Outcome, ParameterCause, RecoveryKind};

#[path = "../examples/quickstart.rs"]
#[allow(clippy::module_inception, reason = "the module is the example")]
mod quickstart;

#[test]
fn quickstart_runs_to_the_end() {
    quickstart::main().unwrap();
}

#[test]
fn quickstart_samples_show_a_clean_call_each_recovery_and_a_decline() {
    let tool = quickstart::build_tool().unwrap();
    let got: Vec<_> = quickstart::sample_calls()
        .into_iter()
        .map(
            |(what, provider, call)| match tool.handle(provider, &call) {
                Outcome::Accepted(accepted) => (
                    what,
                    Ok(accepted.recovery()),
                    accepted
                        .recoveries
                        .iter()
                        .map(|applied| applied.kind.as_str())
                        .collect::<Vec<_>>(),
                ),
                Outcome::Rejected(rejected) => (what, Err(rejected.error.cause()), Vec::new()),
            },
        )
        .map(|(what, outcome, kinds)| (what.split(':').next().unwrap_or(what), outcome, kinds))
        .collect();
    assert_eq!(
        got,
        vec![
            ("a clean call", Ok(None), vec![]),
            (
                "the payload JSON-encoded into a string, closed with stray tags",
                Ok(Some(RecoveryKind::Stringified)),
                vec!["stringified"],
            ),
            (
                "the payload written inside the reasoning",
                Ok(Some(RecoveryKind::ReasoningOpener)),
                vec!["reasoning_opener"],
            ),
            (
                "the whole arguments JSON-encoded twice and followed by a stray brace",
                Ok(None),
                vec!["stringified_arguments", "trailing_closers"],
            ),
            (
                "a string with prose after the object",
                Err(Some(ParameterCause::StringifiedDeclined)),
                vec![],
            ),
        ]
    );
}
