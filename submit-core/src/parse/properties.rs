//! Property tests of the parser (`tests/properties/props.rs`), run through a tool built
//! directly (the facade's `tests/properties.rs` runs the same properties through the public
//! API); and the parser with its fast paths against the parser without them, on generated and
//! damaged calls.

use super::testing::TestTool;
use crate::error::ParameterCause;
use crate::metadata::Metadata;
use crate::options::Options;
use crate::outcome::{Outcome, RecoveryKind};
use crate::provider::Provider;
use crate::tool::SubmitTool;

fn value_tool() -> SubmitTool<serde_json::Value> {
    TestTool::new("analysis").build()
}

include!("../../../tests/properties/props.rs");

// One definition of each rule: the fast paths (step 1 reading the reasoning and decoding the
// payload in place, steps 5 and 6 decoding a recovered object as they find its end) are
// branches of the steps, so on every argument text, generated and damaged, the parser with them
// and without them must give the same outcome. The parser without them is the reference.

use std::sync::atomic::{AtomicUsize, Ordering};

use proptest::test_runner::{Config, TestRunner};

use super::arguments::{read_in_place, InPlace, PayloadRead};
use super::{Arguments, Parser};
use crate::error::SubmitError;
use crate::outcome::Accepted;

/// A clean call's argument text.
fn clean_text() -> impl Strategy<Value = String> {
    (payload(), text()).prop_map(|(payload, reasoning)| {
        json!({"reasoning": reasoning, "analysis": payload}).to_string()
    })
}

/// Argument text of every kind the fast paths may see: clean calls, stringified payloads with
/// or without closers, each damage of the arguments as a whole, members twice, missing or
/// mistyped members, junk after a call, cuts and insertions, and arbitrary text.
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
fn difference<R: PartialEq + std::fmt::Debug>(
    with: &Result<Accepted<R>, SubmitError>,
    reference: &Result<Accepted<R>, SubmitError>,
) -> Option<String> {
    match (with, reference) {
        (Ok(a), Ok(b)) => {
            let same = a.response == b.response
                && a.reasoning == b.reasoning
                && a.recovery() == b.recovery()
                && a.recoveries == b.recoveries
                && a.tool_result == b.tool_result;
            (!same).then(|| format!("accepted differently: {a:?} vs {b:?}"))
        }
        (Err(a), Err(b)) => (a != b).then(|| format!("rejected differently: {a:?} vs {b:?}")),
        (a, b) => Some(format!("one accepted, one rejected: {a:?} vs {b:?}")),
    }
}

/// What step 1's fast path read in place of `text`: the payload decoded, or the payload absent
/// or `null` (the steps go on to the recovery from reasoning with what it read).
fn count_in_place<R: serde::de::DeserializeOwned>(
    text: &str,
    omit_reasoning: bool,
    decoded: &AtomicUsize,
    without_payload: &AtomicUsize,
) {
    let names = InPlace {
        payload: "analysis",
        reasoning: !omit_reasoning,
    };
    match read_in_place::<R>(text, names).map(|read| read.payload) {
        Some(Some(PayloadRead::Decoded(_))) => decoded.fetch_add(1, Ordering::Relaxed),
        Some(None) => without_payload.fetch_add(1, Ordering::Relaxed),
        _ => 0,
    };
}

/// `parser` without its fast paths.
fn without_fast_paths<'t>(parser: Parser<'t>) -> Parser<'t> {
    Parser {
        fast_paths: false,
        ..parser
    }
}

#[test]
fn the_fast_paths_and_the_general_reading_agree_on_every_call() {
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
            let omit_reasoning = parser.options.omit_reasoning;
            count_in_place::<Value>(&text, omit_reasoning, &accepted, &handed_over);
            let reference_parser = without_fast_paths(tool.parser());
            let as_value = Value::String(text.clone());
            for arguments in [Arguments::Text(&text), Arguments::Value(&as_value)] {
                let with = parser.parse::<Value>(arguments, None);
                let reference = reference_parser.parse::<Value>(arguments, None);
                if let Some(difference) = difference(&with, &reference) {
                    return Err(TestCaseError::fail(format!("{text:?}: {difference}")));
                }
            }
        }
        Ok(())
    });
    if let Err(failure) = result {
        panic!("the fast paths and the general reading disagree: {failure}");
    }
    // The same for a typed payload, clean or with values at depth damaged, where the decode in
    // place fails and step 7 mends the payload.
    let tool = typed_tool();
    let parser = tool.parser();
    let reference_parser = without_fast_paths(tool.parser());
    let mended = AtomicUsize::new(0);
    let mut runner = TestRunner::new(Config {
        cases: 1024,
        failure_persistence: None,
        ..Config::default()
    });
    let result = runner.run(&typed_call_text(), |text| {
        count_in_place::<Typed>(&text, false, &accepted, &handed_over);
        let as_value = Value::String(text.clone());
        for arguments in [Arguments::Text(&text), Arguments::Value(&as_value)] {
            let with = parser.parse::<Typed>(arguments, None);
            let reference = reference_parser.parse::<Typed>(arguments, None);
            if let Some(difference) = difference(&with, &reference) {
                return Err(TestCaseError::fail(format!("{text:?}: {difference}")));
            }
            let at_depth = |rule: &crate::outcome::Recovery| {
                matches!(
                    rule.kind,
                    RecoveryKind::StringifiedValue | RecoveryKind::EnumCase
                )
            };
            if with.is_ok_and(|accepted| accepted.recoveries.iter().any(at_depth)) {
                mended.fetch_add(1, Ordering::Relaxed);
            }
        }
        Ok(())
    });
    if let Err(failure) = result {
        panic!("the fast paths and the general reading disagree on a typed payload: {failure}");
    }
    let mended = mended.into_inner();
    assert!(
        mended > 200,
        "values at depth were mended only {mended} times"
    );
    // The cases reach both things the fast path of step 1 reads in place, not only its
    // fall-back to the general reading.
    let (accepted, handed_over) = (accepted.into_inner(), handed_over.into_inner());
    assert!(
        accepted > 200,
        "step 1 decoded the payload in place in only {accepted} of the generated calls"
    );
    assert!(
        handed_over > 20,
        "step 1 read a call without its payload in place only {handed_over} times"
    );
}

// Values at depth: a typed payload whose values below the top arrive as their JSON text, or
// whose enum values arrive in another letter case, decodes to the clean payload's response.

use schemars::JsonSchema;
use serde::Deserialize;

use crate::outcome::Recovery;

#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Level {
    Low,
    High,
    VeryHigh,
}

#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
struct Item {
    n: i64,
    ok: bool,
    ratio: f64,
    tags: Vec<String>,
    level: Option<Level>,
}

#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
struct Limits {
    max: u32,
    strict: bool,
}

#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
struct Typed {
    title: String,
    level: Level,
    items: Vec<Item>,
    limits: Option<Limits>,
}

fn typed_tool() -> SubmitTool<Typed> {
    SubmitTool::new(Options::new().payload_field_name("analysis")).expect("the typed tool builds")
}

fn level() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec!["low", "high", "very_high"])
}

fn item() -> impl Strategy<Value = Value> {
    (
        any::<i64>(),
        any::<bool>(),
        prop::sample::select(vec![0.5, -2.25, 1e10, 3.0, -0.125, 6.02e23]),
        prop::collection::vec(text(), 0..3),
        prop::option::of(level()),
    )
        .prop_map(|(n, ok, ratio, tags, level)| {
            json!({"n": n, "ok": ok, "ratio": ratio, "tags": tags, "level": level})
        })
}

/// A clean payload of [`Typed`], as JSON.
fn typed_payload() -> impl Strategy<Value = Value> {
    (
        text(),
        level(),
        prop::collection::vec(item(), 0..4),
        prop::option::of((any::<u32>(), any::<bool>())),
    )
        .prop_map(|(title, level, items, limits)| {
            let limits = limits.map(|(max, strict)| json!({"max": max, "strict": strict}));
            json!({"title": title, "level": level, "items": items, "limits": limits})
        })
}

/// How one value of a typed payload is damaged.
#[derive(Clone, Copy, Debug)]
enum AtDepth {
    /// A value that is no string, replaced by its JSON text with this padding around it.
    Stringified(&'static str),
    /// An enum value in upper case, or with its first letter in upper case.
    Case(bool),
}

fn at_depth() -> impl Strategy<Value = AtDepth> {
    prop_oneof![
        prop::sample::select(vec!["", " ", "\n"]).prop_map(AtDepth::Stringified),
        any::<bool>().prop_map(AtDepth::Case),
    ]
}

/// The locations a damage of this kind can reach in `payload`, in document order: values that
/// are no string (nor `null`) below the top for a string, enum values for a case.
fn reachable(payload: &Value, damage: AtDepth) -> Vec<String> {
    let mut found = Vec::new();
    let mut pending = vec![(String::new(), payload, false)];
    while let Some((pointer, value, is_enum)) = pending.pop() {
        let fits = match (damage, value) {
            (_, Value::Null) => false,
            (AtDepth::Case(_), Value::String(_)) => is_enum,
            (AtDepth::Stringified(_), Value::String(_)) => false,
            (AtDepth::Stringified(_), _) => !pointer.is_empty(),
            (AtDepth::Case(_), _) => false,
        };
        if fits {
            found.push(pointer.clone());
        }
        let children: Vec<(String, &Value, bool)> = match value {
            Value::Object(members) => members
                .iter()
                .map(|(name, child)| (format!("{pointer}/{name}"), child, name == "level"))
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

/// `payload` with the value at `pointer` damaged.
fn damage_at(payload: &Value, pointer: &str, damage: AtDepth) -> Value {
    let mut damaged = payload.clone();
    if let Some(value) = damaged.pointer_mut(pointer) {
        *value = match (damage, &*value) {
            (AtDepth::Stringified(pad), value) => Value::String(format!("{pad}{value}{pad}")),
            (AtDepth::Case(true), Value::String(text)) => Value::String(text.to_uppercase()),
            (AtDepth::Case(false), Value::String(text)) => {
                let mut chars = text.chars();
                let first = chars.next().map(|c| c.to_ascii_uppercase());
                Value::String(first.into_iter().chain(chars).collect())
            }
            (_, value) => value.clone(),
        };
    }
    damaged
}

/// A clean typed payload, a damage and where it lands (when the payload has such a value).
fn damaged_at_depth() -> impl Strategy<Value = (Value, Option<(String, AtDepth)>)> {
    (typed_payload(), at_depth(), any::<prop::sample::Index>()).prop_map(|(payload, damage, at)| {
        let places = reachable(&payload, damage);
        let place = (!places.is_empty()).then(|| places[at.index(places.len())].clone());
        (payload, place.map(|pointer| (pointer, damage)))
    })
}

/// A typed call's arguments.
fn typed_call(payload: &Value, reasoning: &str) -> Value {
    json!({"reasoning": reasoning, "analysis": payload})
}

/// A typed payload damaged at depth (or clean, when it has no value the damage can reach).
fn damaged_payload() -> impl Strategy<Value = Value> {
    damaged_at_depth().prop_map(|(payload, place)| match place {
        Some((pointer, damage)) => damage_at(&payload, &pointer, damage),
        None => payload,
    })
}

/// Argument text of a typed call: clean, damaged at depth, and so damaged inside a stringified
/// payload, behind a damage of the arguments as a whole, or cut.
fn typed_call_text() -> impl Strategy<Value = String> {
    prop_oneof![
        (typed_payload(), text()).prop_map(|(p, r)| typed_call(&p, &r).to_string()),
        (damaged_payload(), text()).prop_map(|(p, r)| typed_call(&p, &r).to_string()),
        (damaged_payload(), text())
            .prop_map(|(p, r)| typed_call(&Value::from(p.to_string()), &r).to_string()),
        (damaged_payload(), text(), damage()).prop_map(|(p, r, damage)| damaged(
            &typed_call(&p, &r),
            &damage
        )
        .0),
        (damaged_payload(), text(), any::<prop::sample::Index>()).prop_map(|(p, r, at)| {
            let text = typed_call(&p, &r).to_string();
            let mut cut = at.index(text.len() + 1);
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            text[..cut].to_owned()
        }),
    ]
}

proptest! {
    #[test]
    fn property_a_clean_payload_damaged_at_depth_recovers_to_the_clean_response(
        (payload, place) in damaged_at_depth(), reasoning in text()
    ) {
        let tool = typed_tool();
        let clean = json!({"reasoning": reasoning, "analysis": payload});
        let Outcome::Accepted(clean) = tool.handle_arguments(Arguments::Value(&clean)) else {
            return Err(TestCaseError::fail(format!("the clean call was rejected: {clean}")));
        };
        prop_assert!(clean.recoveries.is_empty());
        let Some((pointer, damage)) = place else {
            return Ok(());
        };
        let damaged = json!({"reasoning": reasoning,
                             "analysis": damage_at(&payload, &pointer, damage)});
        let text = damaged.to_string();
        for arguments in [Arguments::Value(&damaged), Arguments::Text(&text)] {
            let outcome = tool.handle_arguments(arguments);
            let Outcome::Accepted(mended) = &outcome else {
                return Err(TestCaseError::fail(format!(
                    "damaged at {pointer} and rejected: {text}: {:?}", outcome.error()
                )));
            };
            prop_assert_eq!(&mended.response, &clean.response);
            prop_assert_eq!(&mended.reasoning, &clean.reasoning);
            let kind = match damage {
                AtDepth::Stringified(_) => RecoveryKind::StringifiedValue,
                AtDepth::Case(_) => RecoveryKind::EnumCase,
            };
            prop_assert_eq!(
                &mended.recoveries,
                &vec![Recovery::naming(kind, vec![pointer.clone()])]
            );
        }
    }
}
