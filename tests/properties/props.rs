// Property tests of the parser, shared by `tests/properties.rs` (public API) and the
// parser's unit tests in `submit-core`. The including module provides `value_tool()` (a
// `SubmitTool<serde_json::Value>` whose payload parameter is `analysis` and which accepts any
// object), `Metadata`, `Options`, `Outcome`, `ParameterCause`, `Provider`, `RecoveryKind`,
// `RecoveryKind` and `SubmitTool`.

use proptest::prelude::*;
use serde_json::{json, Map, Value};

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
    let text = arguments.to_string();
    let calls = [
        (
            Provider::Claude,
            json!({"type": "tool_use", "id": "t", "name": "s", "input": arguments}),
        ),
        (
            Provider::Gemini,
            json!({"functionCall": {"name": "s", "args": arguments}}),
        ),
        (
            Provider::OpenAiChat,
            json!({"id": "c", "type": "function", "function": {"name": "s", "arguments": text}}),
        ),
        (
            Provider::OpenAiResponses,
            json!({"type": "function_call", "call_id": "c", "name": "s", "arguments": text}),
        ),
    ];
    calls
        .into_iter()
        .map(|(provider, call)| (provider, tool.handle(provider, &call)))
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
    vec![
        (
            Provider::OpenAiChat,
            false,
            tool.handle(
                Provider::OpenAiChat,
                &json!({"id": "c", "type": "function", "function": {"name": "s", "arguments": text}}),
            ),
        ),
        (
            Provider::OpenAiResponses,
            false,
            tool.handle(
                Provider::OpenAiResponses,
                &json!({"type": "function_call", "call_id": "c", "name": "s", "arguments": text}),
            ),
        ),
        (
            Provider::Claude,
            true,
            tool.handle(
                Provider::Claude,
                &json!({"type": "tool_use", "id": "t", "name": "s", "input": text}),
            ),
        ),
        (
            Provider::Gemini,
            true,
            tool.handle(Provider::Gemini, &json!({"functionCall": {"name": "s", "args": text}})),
        ),
    ]
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
            let text = arguments.to_string();
            let call = match provider {
                Provider::Claude => json!({"type": "tool_use", "id": "t", "name": "s", "input": arguments}),
                Provider::Gemini => json!({"functionCall": {"name": "s", "args": arguments}}),
                Provider::OpenAiChat => json!({"id": "c", "type": "function", "function": {"name": "s", "arguments": text}}),
                Provider::OpenAiResponses => json!({"type": "function_call", "call_id": "c", "name": "s", "arguments": text}),
            };
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
