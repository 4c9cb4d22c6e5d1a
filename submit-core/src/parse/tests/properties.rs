//! Property tests of the parser: generated payloads are recovered exactly from every accepted
//! shape, and nothing but closing tokens may follow them; and the parser with its fast paths
//! against the parser without them, on generated and damaged calls.

use proptest::prelude::*;
use serde_json::{json, Map, Value};

use super::testing::TestTool;
use crate::error::ParameterCause;
use crate::metadata::Metadata;
use crate::options::Options;
use crate::outcome::{Outcome, RecoveryKind};
use crate::provider::Provider;
use crate::tool::SubmitTool;

/// The test tool with its payload parameter named `analysis`, read as any JSON value.
fn value_tool() -> SubmitTool<serde_json::Value> {
    TestTool::new("analysis").build()
}

/// Strings that stress the scanners: quotes, backslashes, markup, braces, unicode, controls.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z ]{0,12}",
        "[\"\\\\<>{}\\[\\]:,/ a-z]{0,16}",
        "\\PC{0,12}",
        Just("<parameter name=\"analysis\">".to_owned()),
        Just("</analysis></invoke>".to_owned()),
        Just("\"analysis\": {".to_owned()),
        Just("\u{1b}[31m\u{0}".to_owned()),
    ]
}

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        prop::sample::select(vec![0.5, -2.25, 1e10, 3.0, -0.125, 6.02e23]).prop_map(Value::from),
        text().prop_map(Value::from),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    scalar().prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::from),
            prop::collection::vec((text(), inner), 0..6)
                .prop_map(|members| Value::Object(members.into_iter().collect())),
        ]
    })
}

/// A payload: always a JSON object.
fn payload() -> impl Strategy<Value = Value> {
    prop::collection::vec((text(), value()), 0..6)
        .prop_map(|members| Value::Object(members.into_iter().collect::<Map<_, _>>()))
}

/// Closing tokens in any mix: `}`, `]`, whitespace and closing tags `</NAME>`.
fn closing() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            Just("}".to_owned()),
            Just("]".to_owned()),
            Just(" ".to_owned()),
            Just("\t".to_owned()),
            Just("\r".to_owned()),
            Just("\n".to_owned()),
            "[A-Za-z0-9_]{1,12}".prop_map(|name| format!("</{name}>")),
        ],
        0..8,
    )
    .prop_map(|tokens| tokens.concat())
}

/// Text that is not closing tokens: closing tokens, then something that cannot continue them,
/// then anything.
fn not_closing() -> impl Strategy<Value = String> {
    let breaker = prop_oneof![
        "[^}\\] \t\r\n<]",
        Just("<".to_owned()),
        Just("</>".to_owned()),
        Just("</ x>".to_owned()),
        Just("</x >".to_owned()),
        Just("</a-b>".to_owned()),
        Just("</a:b>".to_owned()),
        Just("</x".to_owned()),
        Just("<parameter name=\"reasoning\">".to_owned()),
        Just("{}".to_owned()),
    ];
    // The space keeps the tail from completing a breaker into a closing tag (`</x` + `>`).
    (closing(), breaker, "\\PC{0,10}")
        .prop_map(|(head, breaker, tail)| format!("{head}{breaker} {tail}"))
}

/// Prose without marks: no quote, no `<`, no `{`.
fn prose() -> impl Strategy<Value = String> {
    "[A-Za-z0-9 .,;!?()'\t\né漢🚀-]{0,40}"
}

fn trim_end_space(text: &str) -> &str {
    text.trim_end_matches([' ', '\t', '\r', '\n'])
}

/// The outcome of `arguments` in every provider's call shape.
fn outcomes(arguments: &Value) -> Vec<(Provider, Outcome<Value>)> {
    let tool = value_tool();
    Provider::ALL
        .into_iter()
        .map(|provider| {
            let call = provider.call("s", Some("c"), arguments);
            (provider, tool.handle(provider, &call))
        })
        .collect()
}

fn assert_accepted(
    arguments: &Value,
    response: &Value,
    reasoning: &str,
    recovery: Option<RecoveryKind>,
) -> Result<(), TestCaseError> {
    for (provider, outcome) in outcomes(arguments) {
        match outcome {
            Outcome::Accepted(accepted) => {
                prop_assert_eq!(&accepted.response, response, "{}", provider);
                prop_assert_eq!(&accepted.reasoning, reasoning, "{}", provider);
                prop_assert_eq!(accepted.recovery(), recovery, "{}", provider);
            }
            Outcome::Rejected(rejected) => {
                prop_assert!(
                    false,
                    "{} rejected {}: {}",
                    provider,
                    arguments,
                    rejected.error
                )
            }
        }
    }
    Ok(())
}

fn assert_rejected(arguments: &Value, cause: ParameterCause) -> Result<(), TestCaseError> {
    for (provider, outcome) in outcomes(arguments) {
        match outcome {
            Outcome::Rejected(rejected) => {
                prop_assert_eq!(rejected.error.cause(), Some(cause), "{}", provider)
            }
            Outcome::Accepted(accepted) => prop_assert!(
                false,
                "{} accepted {} as {}",
                provider,
                arguments,
                accepted.response
            ),
        }
    }
    Ok(())
}

/// Invariants of every outcome, whatever the input.
fn assert_well_formed(outcome: &Outcome<Value>) -> Result<(), TestCaseError> {
    match outcome {
        Outcome::Accepted(accepted) => {
            prop_assert_eq!(&accepted.tool_result["success"], &json!(true));
        }
        Outcome::Rejected(rejected) => {
            let error = &rejected.error;
            prop_assert_eq!(&rejected.tool_result, &json!({ "error": error.message() }));
            prop_assert_eq!(
                error.cause().is_none(),
                error.trace_text().starts_with("payload error: ")
            );
        }
    }
    Ok(())
}

/// Argument text worth fuzzing: arbitrary text, or a valid call cut and spliced with it.
fn fuzzed_text() -> impl Strategy<Value = String> {
    let valid = (payload(), prose()).prop_map(|(payload, prose)| {
        json!({"reasoning": format!("{prose}<parameter name=\"analysis\">{payload}"), "analysis": payload.to_string()})
            .to_string()
    });
    prop_oneof![
        "\\PC{0,64}",
        "[\\[\\]{}\":,<>/ a-z0-9\\\\]{0,64}",
        (valid, any::<prop::sample::Index>(), "\\PC{0,8}").prop_map(|(text, at, junk)| {
            let mut cut = at.index(text.len() + 1);
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            format!("{}{junk}{}", &text[..cut], &text[cut..])
        }),
    ]
}

proptest! {
    #[test]
    fn fuzz_arbitrary_argument_text_and_calls_never_panic(text in fuzzed_text()) {
        let tool = value_tool();
        for provider in [Provider::OpenAiChat, Provider::OpenAiResponses] {
            let call = json!({"type": if provider == Provider::OpenAiChat { "function" } else { "function_call" },
                              "name": "s", "function": {"name": "s", "arguments": text}, "arguments": text});
            assert_well_formed(&tool.handle(provider, &call))?;
        }
        if let Ok(value) = serde_json::from_str::<Value>(&text) {
            for provider in Provider::ALL {
                assert_well_formed(&tool.handle(provider, &value))?;
            }
        }
    }

    #[test]
    fn fuzz_tag_grammar_never_panics(tag in "[a-zA-Z_=,\\\\ .]{0,48}") {
        let _ = Metadata::from_tag(&tag);
    }

    #[test]
    fn property_clean_call_is_accepted_with_the_exact_payload(payload in payload(), reasoning in text()) {
        let arguments = json!({"reasoning": reasoning, "analysis": payload});
        assert_accepted(&arguments, &payload, &reasoning, None)?;
    }

    #[test]
    fn property_stringified_payload_with_closing_tokens_is_recovered_exactly(
        payload in payload(), lead in "[ \t\r\n]{0,3}", tail in closing()
    ) {
        let arguments = json!({"reasoning": "r", "analysis": format!("{lead}{payload}{tail}")});
        assert_accepted(&arguments, &payload, "r", Some(RecoveryKind::Stringified))?;
    }

    #[test]
    fn property_payload_after_an_opener_in_reasoning_is_recovered_exactly(
        payload in payload(),
        prose in prose(),
        close in prop::sample::select(vec!["", "</reasoning>\n", "</parameter>\n", "\n", " </parameter></reasoning> "]),
        tail in closing(),
    ) {
        let reasoning = format!("{prose}{close}<parameter name=\"analysis\">{payload}{tail}");
        let arguments = json!({"reasoning": reasoning});
        assert_accepted(&arguments, &payload, trim_end_space(&prose), Some(RecoveryKind::ReasoningOpener))?;
        let arguments = json!({"reasoning": reasoning, "analysis": null});
        assert_accepted(&arguments, &payload, trim_end_space(&prose), Some(RecoveryKind::ReasoningOpener))?;
    }

    #[test]
    fn property_payload_as_a_json_member_in_reasoning_is_recovered_exactly(
        payload in payload(), prose in prose(), space in "[ \t\r\n]{0,3}", tail in closing()
    ) {
        let reasoning = format!("{prose}\",{space}\"analysis\"{space}:{space}{payload}}}{tail}");
        let arguments = json!({"reasoning": reasoning});
        assert_accepted(&arguments, &payload, &prose, Some(RecoveryKind::ReasoningMember))?;
    }

    #[test]
    fn property_whole_reasoning_object_is_recovered_exactly(payload in payload(), inner in text(), tail in closing()) {
        let reasoning = format!("{}{tail}", json!({"reasoning": inner, "analysis": payload}));
        let arguments = json!({"reasoning": reasoning});
        assert_accepted(&arguments, &payload, &inner, Some(RecoveryKind::ReasoningMember))?;
    }

    #[test]
    fn property_text_after_a_stringified_payload_that_is_not_closing_tokens_is_rejected(
        payload in payload(), junk in not_closing()
    ) {
        let arguments = json!({"reasoning": "r", "analysis": format!("{payload}{junk}")});
        assert_rejected(&arguments, ParameterCause::StringifiedDeclined)?;
    }

    #[test]
    fn property_text_after_a_payload_in_reasoning_that_is_not_closing_tokens_is_rejected(
        payload in payload(), prose in prose(), junk in not_closing(), member in any::<bool>()
    ) {
        let reasoning = if member {
            format!("{prose}\", \"analysis\": {payload}{junk}")
        } else {
            format!("{prose}</reasoning><parameter name=\"analysis\">{payload}{junk}")
        };
        let arguments = json!({"reasoning": reasoning});
        assert_rejected(&arguments, ParameterCause::ReasoningDeclined)?;
    }
}

/// The outcome of argument text in both OpenAI shapes, and of the same text as a string
/// `input`/`args` (read as argument text, recorded `stringified_arguments`).
fn text_outcomes(tool: &SubmitTool<Value>, text: &str) -> Vec<(Provider, bool, Outcome<Value>)> {
    [
        (Provider::OpenAiChat, false),
        (Provider::OpenAiResponses, false),
        (Provider::Claude, true),
        (Provider::Gemini, true),
    ]
    .into_iter()
    .map(|(provider, stringified)| {
        let call = provider.call("s", Some("c"), text);
        (provider, stringified, tool.handle(provider, &call))
    })
    .collect()
}

/// The kinds an accepted outcome recorded.
fn kinds(outcome: &Outcome<Value>) -> Vec<RecoveryKind> {
    outcome
        .accepted()
        .map(|accepted| accepted.recoveries.iter().map(|rule| rule.kind).collect())
        .unwrap_or_default()
}

/// How a clean call's argument text is damaged by one mistake of the arguments as a whole.
#[derive(Clone, Debug)]
enum Damage {
    Closers(String),
    EncodedTwice(String),
    Fenced(&'static str, &'static str),
    Wrapped(&'static str),
}

fn damage() -> impl Strategy<Value = Damage> {
    prop_oneof![
        closing()
            .prop_filter("closers that are not only whitespace", |tail| {
                !trim_end_space(tail).is_empty()
            })
            .prop_map(Damage::Closers),
        closing().prop_map(Damage::EncodedTwice),
        (
            prop::sample::select(vec!["", "json", "JSON", "json5", "c++", "x_y-z"]),
            prop::sample::select(vec!["\n", "\r\n"])
        )
            .prop_map(|(tag, line)| Damage::Fenced(tag, line)),
        prop::sample::select(vec!["arguments", "input", "params", "tool_input"])
            .prop_map(Damage::Wrapped),
    ]
}

/// The damaged text and the kinds its recovery records after the string-input kind (if any).
fn damaged(clean: &Value, damage: &Damage) -> (String, Vec<RecoveryKind>, bool) {
    let text = clean.to_string();
    match damage {
        Damage::Closers(tail) => (
            format!("{text}{tail}"),
            vec![RecoveryKind::TrailingClosers],
            true,
        ),
        Damage::EncodedTwice(tail) => {
            let mut kinds = vec![RecoveryKind::StringifiedArguments];
            if !trim_end_space(tail).is_empty() {
                kinds.push(RecoveryKind::TrailingClosers);
            }
            (
                Value::from(format!("{text}{tail}")).to_string(),
                kinds,
                false,
            )
        }
        Damage::Fenced(tag, line) => (
            format!("```{tag}{line}{text}{line}```"),
            vec![RecoveryKind::FencedArguments],
            true,
        ),
        Damage::Wrapped(name) => (
            json!({ *name: clean }).to_string(),
            vec![RecoveryKind::WrappedArguments],
            false,
        ),
    }
}

/// A flat tool: `text` (a required string), `n` (integer), `flag` (boolean), `list` (array).
fn flat_tool() -> SubmitTool<Value> {
    SubmitTool::from_json_schema(
        json!({"type": "object",
               "properties": {"text": {"type": "string"}, "n": {"type": "integer"},
                              "flag": {"type": "boolean"}, "list": {"type": "array"}},
               "required": ["text"]}),
        Options::new().flat_payload(true),
    )
    .expect("the flat schema builds")
}

fn flat_payload() -> impl Strategy<Value = (String, i64, bool, Vec<Value>)> {
    (
        prose(),
        any::<i64>(),
        any::<bool>(),
        prop::collection::vec(scalar(), 0..4),
    )
}

proptest! {
    #[test]
    fn property_a_clean_call_damaged_by_an_arguments_mistake_recovers_to_the_same_response(
        payload in payload(), reasoning in text(), damage in damage()
    ) {
        let clean = json!({"reasoning": reasoning, "analysis": payload});
        let (text, expected, as_input) = damaged(&clean, &damage);
        let tool = value_tool();
        for (provider, string_input, outcome) in text_outcomes(&tool, &text) {
            if string_input && !as_input {
                continue;
            }
            let Outcome::Accepted(accepted) = &outcome else {
                return Err(TestCaseError::fail(format!("{provider} rejected {text:?}: {:?}", outcome.error())));
            };
            prop_assert_eq!(&accepted.response, &payload, "{}", provider);
            prop_assert_eq!(&accepted.reasoning, &reasoning, "{}", provider);
            let mut want = Vec::new();
            if string_input {
                want.push(RecoveryKind::StringifiedArguments);
            }
            want.extend(expected.iter().copied());
            prop_assert_eq!(kinds(&outcome), want, "{}", provider);
        }
    }

    #[test]
    fn property_any_other_damage_to_the_arguments_is_rejected(
        payload in payload(), reasoning in text(), junk in not_closing(), how in 0..3usize
    ) {
        let clean = json!({"reasoning": reasoning, "analysis": payload}).to_string();
        let text = match how {
            0 => format!("{clean}{junk}"),
            1 => Value::from(format!("{clean}{junk}")).to_string(),
            _ => format!("```json\n{clean}\n```{junk}"),
        };
        let tool = value_tool();
        for (provider, _, outcome) in text_outcomes(&tool, &text) {
            if provider == Provider::Claude || provider == Provider::Gemini {
                continue;
            }
            prop_assert_eq!(
                outcome.error().and_then(|error| error.cause()),
                Some(ParameterCause::UndecodableArguments),
                "{} {:?}", provider, text
            );
        }
    }

    #[test]
    fn property_a_member_written_twice_is_rejected(payload in payload(), reasoning in text(), top in any::<bool>()) {
        let reasoning_text = Value::from(reasoning.clone()).to_string();
        let payload_text = payload.to_string();
        let text = match (top, payload.as_object().and_then(|members| members.iter().next())) {
            (false, Some((name, value))) => {
                let repeated = format!("{}:{value},", Value::from(name.clone()));
                format!("{{\"reasoning\":{reasoning_text},\"analysis\":{{{repeated}{}}}", &payload_text[1..])
            }
            _ => format!("{{\"reasoning\":{reasoning_text},\"analysis\":{payload_text},\"reasoning\":{reasoning_text}}}"),
        };
        let tool = value_tool();
        for (provider, _, outcome) in text_outcomes(&tool, &text) {
            let error = outcome.error();
            prop_assert_eq!(error.and_then(|e| e.cause()), Some(ParameterCause::UndecodableArguments), "{} {}", provider, text);
            prop_assert!(error.is_some_and(|e| e.message().ends_with("appears twice; send each parameter once")));
        }
    }

    #[test]
    fn property_a_flat_call_damaged_by_a_property_mistake_recovers_to_the_same_response(
        (text, n, flag, list) in flat_payload(), reasoning in prose(),
        stringify in any::<[bool; 3]>(), space in "[ \t\r\n]{0,2}",
        tail in prop::sample::select(vec!["", "</invoke>", "</parameter>\n</invoke>\n", "</text></invoke></function_calls>"]),
    ) {
        let clean = json!({"text": text, "n": n, "flag": flag, "list": list});
        let mut arguments = json!({"reasoning": reasoning, "text": format!("{text}{tail}"), "n": n, "flag": flag, "list": list});
        let mut expected = Vec::new();
        let mut touched = Vec::new();
        for (name, on) in ["n", "flag", "list"].into_iter().zip(stringify) {
            if on {
                arguments[name] = Value::from(format!("{space}{}{space}", clean[name]));
                touched.push(name);
            }
        }
        if !touched.is_empty() {
            expected.push(RecoveryKind::StringifiedProperty);
        }
        if !tail.is_empty() {
            expected.push(RecoveryKind::ClosingMarkup);
        }
        let tool = flat_tool();
        for (provider, outcome) in Provider::ALL.into_iter().map(|provider| {
            let call = provider.call("s", Some("c"), &arguments);
            (provider, tool.handle(provider, &call))
        }) {
            let Outcome::Accepted(accepted) = &outcome else {
                return Err(TestCaseError::fail(format!("{provider} rejected {arguments}: {:?}", outcome.error())));
            };
            prop_assert_eq!(&accepted.response, &clean, "{}", provider);
            prop_assert_eq!(kinds(&outcome), expected.clone(), "{}", provider);
        }
    }

    #[test]
    fn property_a_flat_property_damaged_otherwise_is_rejected(
        (text, n, flag, list) in flat_payload(), junk in "[a-z]{1,6}", which in 0..3usize
    ) {
        let mut arguments = json!({"reasoning": "r", "text": text, "n": n, "flag": flag, "list": list});
        let name = ["n", "flag", "list"][which];
        arguments[name] = Value::from(format!("{} {junk}", arguments[name]));
        let tool = flat_tool();
        let outcome = tool.handle(Provider::Claude, &json!({"type": "tool_use", "name": "s", "input": arguments}));
        prop_assert!(outcome.error().is_some_and(|e| e.cause().is_none()), "{:?}", outcome.error());
    }
}

// One definition of each rule: the fast paths (step *The arguments as a whole* reading the
// reasoning and decoding the payload in place, step *Nested payload* decoding an object
// recovered from the reasoning or from a string as it finds its end) are branches of the steps,
// so on every argument text, generated and damaged, the parser with them and without them must
// give the same outcome. The parser without them is the reference.

use std::sync::atomic::{AtomicUsize, Ordering};

use proptest::test_runner::{Config, TestRunner};

use crate::error::SubmitError;
use crate::outcome::Accepted;
use crate::parse::arguments::{read_in_place, InPlace, PayloadRead};
use crate::parse::{Arguments, Parser};

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

/// A tool built from a JSON Schema document, its payload `analysis`: it reads its payload in
/// place as JSON and validates it at step *Decode*.
fn document_tool(schema: Value) -> SubmitTool<Value> {
    SubmitTool::from_json_schema(schema, Options::new().payload_field_name("analysis"))
        .expect("the document tool builds")
}

#[test]
fn a_document_tool_reads_the_payload_in_place_as_the_text_holds_it() {
    let tool = document_tool(json!({"type": "object", "properties": {"n": {"type": "integer"}}}));
    let parser = tool.parser();
    let reference_parser = without_fast_paths(tool.parser());
    for text in [
        r#"{"reasoning":"r","analysis":{"n":1,"tags":["a"]}}"#,
        // A member repeated at depth: the in-place read gives up, the general reading decides.
        r#"{"reasoning":"r","analysis":{"a":{"x":1,"x":2},"n":3}}"#,
        r#"{"reasoning":"r","analysis":{"a":{"x":1,"x":2},"n":"3"}}"#,
        // A value at depth mended at step *Decode*.
        r#"{"reasoning":"r","analysis":{"n":"3"}}"#,
        r#"{"reasoning":"r","analysis":{"n":1,"n":2}}"#,
        r#"{"reasoning":"r","analysis":{"n":1.5}}"#,
    ] {
        let with = parser.parse(Arguments::Text(text), None, tool.from_value);
        let reference = reference_parser.parse(Arguments::Text(text), None, tool.from_value);
        assert_eq!(difference(&with, &reference), None, "{text}");
    }
    let read = read_in_place::<Value>(
        r#"{"reasoning":"r","analysis":{"n":1}}"#,
        InPlace {
            payload: "analysis",
            reasoning: true,
            as_json: true,
        },
    );
    assert!(matches!(
        read.and_then(|read| read.payload),
        Some(PayloadRead::Json(value)) if value == json!({"n": 1})
    ));
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

/// What the fast path of step *The arguments as a whole* read in place of `text`: the payload
/// decoded, or the payload absent or `null` (the steps go on to the recovery from reasoning with
/// what it read).
fn count_in_place<R: serde::de::DeserializeOwned>(
    text: &str,
    omit_reasoning: bool,
    decoded: &AtomicUsize,
    without_payload: &AtomicUsize,
) {
    let names = InPlace {
        payload: "analysis",
        reasoning: !omit_reasoning,
        as_json: false,
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
            document_tool(json!({"type": "object"})),
            document_tool(
                json!({"type": "object", "properties": {"summary": {"type": "string"}},
                "required": ["summary"]}),
            ),
        ] {
            let parser = tool.parser();
            let omit_reasoning = parser.options.omit_reasoning;
            count_in_place::<Value>(&text, omit_reasoning, &accepted, &handed_over);
            let reference_parser = without_fast_paths(tool.parser());
            let as_value = Value::String(text.clone());
            for arguments in [Arguments::Text(&text), Arguments::Value(&as_value)] {
                let with = parser.parse(arguments, None, tool.from_value);
                let reference = reference_parser.parse(arguments, None, tool.from_value);
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
    // place fails and step *Decode* mends the payload.
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
            let with = parser.parse(arguments, None, tool.from_value);
            let reference = reference_parser.parse(arguments, None, tool.from_value);
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
    // The cases reach both things the fast path of step *The arguments as a whole* reads in
    // place, not only its fall-back to the general reading.
    let (accepted, handed_over) = (accepted.into_inner(), handed_over.into_inner());
    assert!(
        accepted > 200,
        "the fast path decoded the payload in place in only {accepted} of the generated calls"
    );
    assert!(
        handed_over > 20,
        "the fast path read a call without its payload in place only {handed_over} times"
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
