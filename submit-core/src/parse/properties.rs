//! Property tests of the parser (`tests/properties/props.rs`), run through a tool built
//! directly. `tests/test_properties.rs` runs the same properties through the public API.

use super::testing::TestTool;
use crate::error::ParameterCause;
use crate::metadata::Metadata;
use crate::options::Options;
use crate::outcome::{Outcome, Recovery, RecoveryKind};
use crate::provider::Provider;
use crate::tool::SubmitTool;

fn value_tool() -> SubmitTool<serde_json::Value> {
    TestTool::new("analysis").build()
}

include!("../../../tests/properties/props.rs");

// One definition of each rule: the one pass (`clean.rs`) is a shortcut for the steps,
// so on every argument text, generated and damaged, the parser with the one pass and the
// steps alone must give the same outcome. The steps alone are the reference.

use std::sync::atomic::{AtomicUsize, Ordering};

use proptest::test_runner::{Config, TestRunner};

use super::clean::{self, OnePass};
use super::Arguments;
use crate::error::SubmitError;
use crate::outcome::Accepted;

/// A clean call's argument text.
fn clean_text() -> impl Strategy<Value = String> {
    (payload(), text()).prop_map(|(payload, reasoning)| {
        json!({"reasoning": reasoning, "analysis": payload}).to_string()
    })
}

/// Argument text of every kind the one pass may see: clean calls, stringified payloads with
/// or without closers, each §10.1 damage, members twice, missing or mistyped members, junk
/// after a call, cuts and insertions, and arbitrary text.
fn any_call_text() -> impl Strategy<Value = String> {
    let clean = clean_text;
    let stringified = (payload(), text(), prop_oneof![closing(), not_closing()]).prop_map(
        |(payload, reasoning, tail)| {
            json!({"reasoning": reasoning, "analysis": format!("{payload}{tail}")}).to_string()
        },
    );
    let damaged = (payload(), text(), damage()).prop_map(|(payload, reasoning, damage)| {
        damaged(
            &json!({"reasoning": reasoning, "analysis": payload}),
            &damage,
        )
        .0
    });
    let odd_members = (value(), value(), any::<bool>()).prop_map(|(reasoning, payload, both)| {
        if both {
            json!({"reasoning": reasoning, "analysis": payload}).to_string()
        } else {
            json!({"analysis": payload}).to_string()
        }
    });
    let twice = (payload(), text()).prop_map(|(payload, reasoning)| {
        let reasoning = Value::from(reasoning).to_string();
        format!("{{\"reasoning\":{reasoning},\"analysis\":{payload},\"reasoning\":{reasoning}}}")
    });
    let cut = (clean(), any::<prop::sample::Index>(), "\\PC{0,4}").prop_map(|(text, at, junk)| {
        let mut cut = at.index(text.len() + 1);
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        format!("{}{junk}", &text[..cut])
    });
    let junk_after = (clean(), not_closing()).prop_map(|(text, junk)| format!("{text}{junk}"));
    prop_oneof![
        clean(),
        stringified,
        damaged,
        odd_members,
        twice,
        cut,
        junk_after,
        fuzzed_text(),
    ]
}

/// Where two outcomes of the same call differ, if they do.
fn difference(
    with: &Result<Accepted<Value>, SubmitError>,
    reference: &Result<Accepted<Value>, SubmitError>,
) -> Option<String> {
    match (with, reference) {
        (Ok(a), Ok(b)) => {
            let same = a.response == b.response
                && a.reasoning == b.reasoning
                && a.recovery == b.recovery
                && a.recoveries == b.recoveries
                && a.tool_result == b.tool_result;
            (!same).then(|| format!("accepted differently: {a:?} vs {b:?}"))
        }
        (Err(a), Err(b)) => (a != b).then(|| format!("rejected differently: {a:?} vs {b:?}")),
        (a, b) => Some(format!("one accepted, one rejected: {a:?} vs {b:?}")),
    }
}

#[test]
fn the_one_pass_and_the_steps_agree_on_every_call() {
    let accepted = AtomicUsize::new(0);
    let handed_over = AtomicUsize::new(0);
    let mut runner = TestRunner::new(Config {
        cases: 2048,
        failure_persistence: None,
        ..Config::default()
    });
    let result = runner.run(&any_call_text(), |text| {
        for tool in [
            value_tool(),
            TestTool::new("analysis")
                .options(|o| o.omit_reasoning(true))
                .build(),
        ] {
            let parser = tool.parser();
            match clean::decode::<Value>(&text, "analysis", parser.options.omit_reasoning) {
                OnePass::Accepted(..) => accepted.fetch_add(1, Ordering::Relaxed),
                OnePass::Members(..) => handed_over.fetch_add(1, Ordering::Relaxed),
                OnePass::Steps => 0,
            };
            let as_value = Value::String(text.clone());
            for arguments in [Arguments::Text(&text), Arguments::Value(&as_value)] {
                let with = parser.parse_with::<Value>(arguments, Vec::new(), true);
                let reference = parser.parse_with::<Value>(arguments, Vec::new(), false);
                if let Some(difference) = difference(&with, &reference) {
                    return Err(TestCaseError::fail(format!("{text:?}: {difference}")));
                }
            }
        }
        Ok(())
    });
    if let Err(failure) = result {
        panic!("the one pass and the steps disagree: {failure}");
    }
    // The cases reach both of the one pass's own answers, not only its hand-over to the steps.
    let (accepted, handed_over) = (accepted.into_inner(), handed_over.into_inner());
    assert!(
        accepted > 200,
        "the one pass accepted only {accepted} of the generated calls"
    );
    assert!(
        handed_over > 20,
        "the one pass handed over members only {handed_over} times"
    );
}
