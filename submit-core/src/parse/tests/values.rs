//! Values of the wrong JSON type and enum values in the wrong letter case, repaired against the
//! payload schema, through a built tool in every provider's call shape.

use std::fmt::Debug;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{json, Value};

use super::handler::call;
use crate::error::{ErrorClass, SubmitError};
use crate::options::{GeminiSchema, Options};
use crate::outcome::{Outcome, Recovery, RecoveryKind};
use crate::provider::Provider;
use crate::tool::SubmitTool;

#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Format {
    Markdown,
    Html,
}

/// A documented enum: schemars writes one `const` branch per variant.
#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
enum Tone {
    /// Plain.
    Plain,
    /// Formal.
    Formal,
}

#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
struct Limits {
    max: u32,
    strict: bool,
    ratios: Vec<f64>,
}

#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
struct Report {
    summary: String,
    limits: Limits,
    #[serde(default)]
    format: Option<Format>,
    #[serde(default)]
    tone: Option<Tone>,
}

fn limits() -> Limits {
    Limits {
        max: 90,
        strict: true,
        ratios: vec![0.5, 1.0],
    }
}

fn report(format: Option<Format>, tone: Option<Tone>) -> Report {
    Report {
        summary: "s".into(),
        limits: limits(),
        format,
        tone,
    }
}

fn options() -> Options {
    Options::new().payload_field_name("analysis")
}

fn typed<R: DeserializeOwned + JsonSchema>(options: Options) -> SubmitTool<R> {
    SubmitTool::new(options).unwrap()
}

/// The JSON Schema document of `Report`, written by hand.
fn report_schema() -> Value {
    json!({"type": "object", "properties": {
        "summary": {"type": "string"},
        "limits": {"$ref": "#/$defs/Limits"},
        "format": {"type": ["string", "null"], "enum": ["markdown", "html", null]},
        "tone": {"anyOf": [{"oneOf": [{"const": "Plain"}, {"const": "Formal"}]},
                           {"type": "null"}]}},
        "required": ["summary", "limits"],
        "$defs": {"Limits": {"type": "object", "properties": {
            "max": {"type": "integer", "minimum": 0},
            "strict": {"type": "boolean"},
            "ratios": {"type": "array", "items": {"type": "number"}}},
            "required": ["max", "strict", "ratios"]}}})
}

fn dynamic(options: Options) -> SubmitTool<Value> {
    SubmitTool::from_json_schema(report_schema(), options).unwrap()
}

fn outcomes<R>(tool: &SubmitTool<R>, arguments: &Value) -> Vec<Outcome<R>>
where
    R: DeserializeOwned,
{
    Provider::ALL
        .into_iter()
        .map(|provider| tool.handle(provider, &call(provider, arguments)))
        .collect()
}

/// The response and the rules recorded, the same in every provider's call shape.
fn accepted<R>(tool: &SubmitTool<R>, arguments: Value) -> (R, Vec<Recovery>)
where
    R: DeserializeOwned + Debug + PartialEq,
{
    let mut all = outcomes(tool, &arguments).into_iter().map(|outcome| {
        let accepted = outcome
            .into_result()
            .unwrap_or_else(|r| panic!("rejected {arguments}: {}", r.error));
        (accepted.response, accepted.recoveries)
    });
    let first = all.next().unwrap();
    for other in all {
        assert_eq!(other, first, "providers disagree on {arguments}");
    }
    first
}

/// The rejection, the same in every provider's call shape.
fn rejected<R: DeserializeOwned>(tool: &SubmitTool<R>, arguments: Value) -> SubmitError {
    let mut all =
        outcomes(tool, &arguments)
            .into_iter()
            .map(|outcome| match outcome.into_result() {
                Ok(_) => panic!("accepted {arguments}"),
                Err(rejected) => rejected.error,
            });
    let first = all.next().unwrap();
    for other in all {
        assert_eq!(other, first, "providers disagree on {arguments}");
    }
    first
}

fn naming(kind: RecoveryKind, pointers: &[&str]) -> Recovery {
    Recovery::naming(kind, pointers.iter().map(|p| (*p).to_owned()).collect())
}

fn at_depth_two() -> Value {
    json!({"reasoning": "r", "analysis": {"summary": "s",
           "limits": {"max": "90", "strict": " true", "ratios": "[0.5, 1]"}}})
}

#[test]
fn a_number_a_boolean_and_an_array_as_strings_at_depth_two_are_recovered_with_their_pointers() {
    let (response, applied) = accepted(&typed::<Report>(options()), at_depth_two());
    assert_eq!(response, report(None, None));
    let pointers = ["/limits/max", "/limits/strict", "/limits/ratios"];
    assert_eq!(applied, [naming(RecoveryKind::StringifiedValue, &pointers)]);
}

#[test]
fn values_at_depth_are_recovered_through_a_json_schema_tool() {
    let (response, applied) = accepted(&dynamic(options()), at_depth_two());
    assert_eq!(
        response,
        json!({"summary": "s", "limits": {"max": 90, "strict": true, "ratios": [0.5, 1]}})
    );
    let pointers = ["/limits/max", "/limits/strict", "/limits/ratios"];
    assert_eq!(applied, [naming(RecoveryKind::StringifiedValue, &pointers)]);
}

#[test]
fn an_enum_in_the_wrong_case_is_folded_with_its_pointer() {
    let arguments = json!({"reasoning": "r", "analysis": {"summary": "s",
        "limits": {"max": 90, "strict": true, "ratios": [0.5, 1]}, "format": "HTML"}});
    let (response, applied) = accepted(&typed::<Report>(options()), arguments.clone());
    assert_eq!(response, report(Some(Format::Html), None));
    assert_eq!(applied, [naming(RecoveryKind::EnumCase, &["/format"])]);
    let (response, applied) = accepted(&dynamic(options()), arguments);
    assert_eq!(response["format"], "html");
    assert_eq!(applied, [naming(RecoveryKind::EnumCase, &["/format"])]);
}

#[test]
fn option_enum_as_schemars_writes_it_folds_case() {
    // `Option<Format>` is one node with a `null` member; `Option<Tone>` a union whose
    // branches are a `oneOf` of consts and `null`.
    let arguments = json!({"reasoning": "r", "analysis": {"summary": "s",
        "limits": {"max": 90, "strict": true, "ratios": [0.5, 1]},
        "format": "Markdown", "tone": "formal"}});
    let (response, applied) = accepted(&typed::<Report>(options()), arguments.clone());
    assert_eq!(response, report(Some(Format::Markdown), Some(Tone::Formal)));
    let folded = naming(RecoveryKind::EnumCase, &["/format", "/tone"]);
    assert_eq!(applied, std::slice::from_ref(&folded));
    let (response, applied) = accepted(&dynamic(options()), arguments);
    assert_eq!(response["tone"], "Formal");
    assert_eq!(applied, [folded]);
    // `null` is still `None`, and a member in its own case needs nothing.
    let arguments = json!({"reasoning": "r", "analysis": {"summary": "s",
        "limits": {"max": "90", "strict": true, "ratios": []}, "format": null,
        "tone": "Plain"}});
    let (response, applied) = accepted(&typed::<Report>(options()), arguments);
    assert_eq!((response.format, response.tone), (None, Some(Tone::Plain)));
    assert_eq!(
        applied,
        [naming(RecoveryKind::StringifiedValue, &["/limits/max"])]
    );
}

#[test]
fn stringified_values_are_recorded_before_enum_case_and_after_the_payload_s_own_recovery() {
    let payload = json!({"format": "HTML", "summary": "s",
        "limits": {"ratios": ["0.5", 1], "max": 90, "strict": "true"}});
    let arguments = json!({"reasoning": "r", "analysis": payload.to_string()});
    let (response, applied) = accepted(&typed::<Report>(options()), arguments);
    assert_eq!(response, report(Some(Format::Html), None));
    assert_eq!(
        applied,
        [
            Recovery::naming(RecoveryKind::Stringified, vec!["analysis".into()]),
            naming(
                RecoveryKind::StringifiedValue,
                &["/limits/ratios/0", "/limits/strict"]
            ),
            naming(RecoveryKind::EnumCase, &["/format"]),
        ]
    );
    // A payload recovered from reasoning is decoded where its end is found; mended too.
    let reasoning = format!("done</reasoning><parameter name=\"analysis\">{payload}");
    let tool = typed::<Report>(options());
    for outcome in outcomes(&tool, &json!({"reasoning": reasoning})) {
        let accepted = outcome.into_result().unwrap();
        assert_eq!(accepted.recovery(), Some(RecoveryKind::ReasoningOpener));
        assert_eq!(accepted.reasoning, "done");
        let kinds: Vec<_> = accepted.recoveries.iter().map(|r| r.kind).collect();
        assert_eq!(
            kinds,
            [
                RecoveryKind::ReasoningOpener,
                RecoveryKind::StringifiedValue,
                RecoveryKind::EnumCase
            ]
        );
    }
}

#[test]
fn a_string_that_is_not_exactly_one_value_of_an_admitted_type_keeps_the_original_payload_error() {
    let tool = typed::<Report>(options());
    for (max, strict, ratios) in [
        (json!("90 units"), json!(true), json!([0.5])),
        (json!("9.5"), json!(true), json!([0.5])),
        (json!(90), json!("yes"), json!([0.5])),
        (json!(90), json!(true), json!("[0.5] and 1")),
        (json!(90), json!(true), json!("[0.5], [1]")),
        (json!("\"90\""), json!(true), json!([0.5])),
    ] {
        let limits = json!({"max": max, "strict": strict, "ratios": ratios});
        let payload = json!({"summary": "s", "limits": limits});
        let error = rejected(&tool, json!({"reasoning": "r", "analysis": payload}));
        assert_eq!(error.class(), ErrorClass::Payload, "{payload}");
        assert!(
            error
                .message()
                .starts_with("failed to decode payload: invalid "),
            "{error}"
        );
    }
    // One value mended and another still wrong: the first decode's error, nothing else.
    let payload = json!({"summary": "s", "limits": {"max": "90", "strict": "yes",
                        "ratios": []}});
    let error = rejected(&tool, json!({"reasoning": "r", "analysis": payload}));
    assert_eq!(
        error.message(),
        "failed to decode payload: invalid type: string \"90\", expected u32"
    );
    // An enum value that matches no member, or two in another case, is not folded.
    let payload = json!({"summary": "s", "limits": limits_value(), "format": "htm"});
    let error = rejected(&tool, json!({"reasoning": "r", "analysis": payload}));
    assert!(error.message().contains("unknown variant `htm`"), "{error}");
}

fn limits_value() -> Value {
    json!({"max": 90, "strict": true, "ratios": [0.5, 1]})
}

#[test]
fn a_string_that_is_not_exactly_one_value_of_an_admitted_type_keeps_the_original_payload_error_through_a_json_schema_tool(
) {
    let tool = dynamic(options());
    let payload = json!({"summary": "s", "limits": {"max": "90", "strict": "yes",
                        "ratios": []}});
    let error = rejected(&tool, json!({"reasoning": "r", "analysis": payload}));
    assert_eq!(
        error.message(),
        "failed to decode payload: at \"/limits/max\": \"90\" is not of type \"integer\""
    );
    let payload = json!({"summary": "s", "limits": {"max": "-1", "strict": true,
                        "ratios": []}});
    let error = rejected(&tool, json!({"reasoning": "r", "analysis": payload}));
    assert_eq!(
        error.message(),
        "failed to decode payload: at \"/limits/max\": \"-1\" is not of type \"integer\""
    );
}

#[test]
fn a_string_replaced_is_not_walked_into() {
    // `limits` arrives as its JSON text, and inside it `max` as a string: one level only.
    let inner = json!({"max": "90", "strict": true, "ratios": [0.5, 1]}).to_string();
    let payload = json!({"summary": "s", "limits": inner});
    let tool = typed::<Report>(options());
    let error = rejected(&tool, json!({"reasoning": "r", "analysis": payload}));
    assert_eq!(
        error.message(),
        "failed to decode payload: invalid type: string \"{\\\"max\\\":\\\"90\\\",\\\"strict\\\":true,\\\"ratios\\\":[0.5,1]}\", expected struct Limits"
    );
    let inner = limits_value().to_string();
    let payload = json!({"summary": "s", "limits": inner});
    let (response, applied) = accepted(&tool, json!({"reasoning": "r", "analysis": payload}));
    assert_eq!(response, report(None, None));
    assert_eq!(
        applied,
        [naming(RecoveryKind::StringifiedValue, &["/limits"])]
    );
}

#[test]
fn a_flat_tool_keeps_its_own_rule_at_the_top_and_folds_case_there() {
    let tool = typed::<Report>(options().flat_payload(true));
    let arguments = json!({"reasoning": "r", "summary": "s", "format": "HTML",
        "limits": {"max": "90", "strict": true, "ratios": [0.5, 1]}});
    let (response, applied) = accepted(&tool, arguments);
    assert_eq!(response, report(Some(Format::Html), None));
    assert_eq!(
        applied,
        [
            naming(RecoveryKind::StringifiedValue, &["/limits/max"]),
            naming(RecoveryKind::EnumCase, &["/format"]),
        ]
    );
    // A property the flat rule read from its string is not walked into.
    let limits = json!({"max": "90", "strict": true, "ratios": []}).to_string();
    let arguments = json!({"reasoning": "r", "summary": "s", "limits": limits});
    let error = rejected(&tool, arguments);
    assert_eq!(
        error.message(),
        "failed to decode payload: invalid type: string \"90\", expected u32"
    );
    // The flat rule alone, at the top.
    let limits = limits_value().to_string();
    let arguments = json!({"reasoning": "r", "summary": "s", "limits": limits,
                           "tone": "PLAIN"});
    let (response, applied) = accepted(&tool, arguments);
    assert_eq!(response, report(None, Some(Tone::Plain)));
    assert_eq!(
        applied,
        [
            Recovery::naming(RecoveryKind::StringifiedProperty, vec!["limits".into()]),
            naming(RecoveryKind::EnumCase, &["/tone"]),
        ]
    );
}

#[test]
fn a_recursive_type_is_walked_through_its_definitions() {
    #[derive(Debug, PartialEq, Deserialize, JsonSchema)]
    struct Node {
        value: i32,
        next: Option<Box<Node>>,
    }
    let tool = typed::<Node>(options().gemini_schema(GeminiSchema::JsonSchema));
    let arguments = json!({"reasoning": "r", "analysis": {"value": 1,
        "next": {"value": "2", "next": {"value": "3", "next": null}}}});
    let (response, applied) = accepted(&tool, arguments);
    assert_eq!(response.next.and_then(|n| n.next).map(|n| n.value), Some(3));
    assert_eq!(
        applied,
        [naming(
            RecoveryKind::StringifiedValue,
            &["/next/value", "/next/next/value"]
        )]
    );
}

#[test]
fn an_internally_tagged_variant_in_the_wrong_case_is_folded() {
    #[derive(Debug, PartialEq, Deserialize, JsonSchema)]
    #[serde(tag = "kind", rename_all = "snake_case")]
    enum Verdict {
        Approve,
        Block { reason: String },
    }
    let tool = typed::<Verdict>(options());
    let arguments = json!({"reasoning": "r", "analysis": {"kind": "Block", "reason": "x"}});
    let (response, applied) = accepted(&tool, arguments);
    assert_eq!(response, Verdict::Block { reason: "x".into() });
    assert_eq!(applied, [naming(RecoveryKind::EnumCase, &["/kind"])]);
}

#[test]
fn strict_mode_mends_values_after_removing_its_nulls() {
    let tool = typed::<Report>(options().strict(true));
    let arguments = json!({"reasoning": "r", "analysis": {"summary": "s",
        "limits": {"max": "90", "strict": true, "ratios": [0.5, 1]},
        "format": null, "tone": "formal"}});
    let (response, applied) = accepted(&tool, arguments);
    assert_eq!(response, report(None, Some(Tone::Formal)));
    assert_eq!(
        applied,
        [
            naming(RecoveryKind::StringifiedValue, &["/limits/max"]),
            naming(RecoveryKind::EnumCase, &["/tone"]),
        ]
    );
}

#[test]
fn a_member_twice_below_the_payload_s_top_is_not_mended() {
    let tool = typed::<Report>(options());
    let text = r#"{"reasoning":"r","analysis":{"summary":"s","limits":{"max":"90","max":"91","strict":true,"ratios":[]}}}"#;
    let outcome = tool.handle_arguments(crate::parse::Arguments::Text(text));
    let error = outcome.error().unwrap();
    assert_eq!(error.class(), ErrorClass::Payload);
    assert_eq!(
        error.message(),
        "failed to decode payload: invalid type: string \"90\", expected u32"
    );
}

#[test]
fn a_clean_call_records_nothing() {
    let arguments = json!({"reasoning": "r", "analysis": {"summary": "s",
        "limits": limits_value(), "format": "html"}});
    let (response, applied) = accepted(&typed::<Report>(options()), arguments);
    assert_eq!(response, report(Some(Format::Html), None));
    assert!(applied.is_empty());
}
