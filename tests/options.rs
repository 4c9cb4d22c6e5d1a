//! Construction: defaults, and every construction error by name.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use submit_result::{BuildError, Options, Provider, SubmitTool};

/// A plan of work.
#[allow(dead_code, reason = "fields are read through the schema only")]
#[derive(Deserialize, JsonSchema)]
struct Plan {
    /// The steps, in order.
    steps: Vec<String>,
    /// Estimated hours.
    hours: Option<f64>,
    /// Free-form notes.
    #[serde(default)]
    notes: String,
}

/// A plan with a property that collides with the reasoning parameter under `flat`.
#[allow(dead_code, reason = "fields are read through the schema only")]
#[derive(Deserialize, JsonSchema)]
struct Argued {
    claim: String,
    reasoning: String,
}

/// A plan whose `why` field serializes as `reasoning`.
#[allow(dead_code, reason = "fields are read through the schema only")]
#[derive(Deserialize, JsonSchema)]
struct Renamed {
    claim: String,
    #[serde(rename = "reasoning")]
    why: String,
}

/// Not an object with properties.
#[allow(dead_code, reason = "variants are read through the schema only")]
#[derive(Deserialize, JsonSchema)]
enum Verdict {
    Approve,
    Block,
}

/// A map, which strict objects cannot express.
#[allow(dead_code, reason = "fields are read through the schema only")]
#[derive(Deserialize, JsonSchema)]
struct Tally {
    counts: std::collections::BTreeMap<String, u32>,
}

fn build(options: Options) -> Result<SubmitTool<Plan>, BuildError> {
    SubmitTool::<Plan>::new(options)
}

#[test]
fn defaults_apply_to_empty_strings() {
    let options = Options::new()
        .tool_name("")
        .description("")
        .success_message("")
        .payload_field_name("")
        .payload_description("");
    let tool = build(options).unwrap();
    assert_eq!(tool.name(), "submit_result");
    assert_eq!(tool.payload_field(), "result");
    assert_eq!(tool.success_message(), "Result submitted successfully.");
    assert_eq!(tool.payload_description(), "Structured result payload.");
    assert!(tool.description().starts_with("Submit the final result"));
    let definition = tool.definition(Provider::Claude);
    assert_eq!(definition["name"], "submit_result");
    assert_eq!(definition["description"], tool.description());
    assert_eq!(
        definition["input_schema"]["properties"]["result"]["description"],
        "Structured result payload."
    );
}

#[test]
fn options_set_are_kept_by_the_built_tool() {
    let tool = build(
        Options::new()
            .tool_name("submit_plan")
            .description("Submit the plan.")
            .success_message("Plan recorded.")
            .payload_field_name("plan")
            .payload_description("The plan."),
    )
    .unwrap();
    let definition = tool.definition(Provider::OpenAiResponses);
    assert_eq!(definition["name"], "submit_plan");
    assert_eq!(definition["description"], "Submit the plan.");
    assert_eq!(
        definition["parameters"]["properties"]["plan"]["description"],
        "The plan."
    );
    assert_eq!(tool.success_message(), "Plan recorded.");
}

#[test]
fn omit_unknown_field_fails_naming_it() {
    let error = build(Options::new().omit_payload_fields(["stepz"])).unwrap_err();
    assert_eq!(error, BuildError::OmitUnknownField("stepz".into()));
    assert!(error.to_string().contains("`stepz`"), "{error}");
}

#[test]
fn omit_duplicate_field_fails_naming_it() {
    let error = build(Options::new().omit_payload_fields(["notes", "hours", "notes"])).unwrap_err();
    assert_eq!(error, BuildError::OmitDuplicateField("notes".into()));
    assert!(error.to_string().contains("`notes`"), "{error}");
}

#[test]
fn omit_required_field_fails() {
    let error = build(Options::new().omit_payload_fields(["steps"])).unwrap_err();
    assert_eq!(error, BuildError::OmitRequiredField("steps".into()));
    let message = error.to_string();
    assert!(message.contains("`steps`"), "{message}");
    assert!(message.contains("serde default"), "{message}");
}

#[test]
fn omit_optional_and_defaulted_fields_builds() {
    let tool = build(Options::new().omit_payload_fields(["hours", "notes"])).unwrap();
    let definition = tool.definition(Provider::Claude);
    let payload = &definition["input_schema"]["properties"]["result"];
    assert_eq!(payload["properties"].as_object().unwrap().len(), 1);
    assert_eq!(payload["required"], json!(["steps"]));
}

#[test]
fn flat_property_named_reasoning_fails() {
    let error = SubmitTool::<Argued>::new(Options::new().flat_payload(true)).unwrap_err();
    assert_eq!(error, BuildError::FlatPropertyNamedReasoning);
    assert!(error.to_string().contains("`reasoning`"), "{error}");
    let error = SubmitTool::<Renamed>::new(Options::new().flat_payload(true)).unwrap_err();
    assert_eq!(error, BuildError::FlatPropertyNamedReasoning);
}

#[test]
fn flat_property_named_reasoning_builds_with_omit_reasoning() {
    let options = Options::new().flat_payload(true).omit_reasoning(true);
    let tool = SubmitTool::<Argued>::new(options).unwrap();
    let definition = tool.definition(Provider::OpenAiChat);
    assert_eq!(
        definition["function"]["parameters"]["required"],
        json!(["claim", "reasoning"])
    );
}

#[test]
fn payload_named_reasoning_fails() {
    let error = build(Options::new().payload_field_name("reasoning")).unwrap_err();
    assert_eq!(error, BuildError::PayloadNamedReasoning);
    let message = error.to_string();
    assert!(
        message.contains("`reasoning`") && message.contains("omit_reasoning"),
        "{message}"
    );
    let tool = build(
        Options::new()
            .payload_field_name("reasoning")
            .omit_reasoning(true),
    )
    .unwrap();
    assert_eq!(tool.payload_field(), "reasoning");
}

#[test]
fn invalid_tool_name_fails() {
    for name in [
        "submit result",
        "submit.result",
        "résultat",
        &"x".repeat(65),
    ] {
        let error = build(Options::new().tool_name(name.to_owned())).unwrap_err();
        assert_eq!(error, BuildError::InvalidToolName(name.to_owned()));
        assert!(error.to_string().contains(&format!("`{name}`")), "{error}");
    }
    assert!(build(Options::new().tool_name("x".repeat(64))).is_ok());
}

#[test]
fn invalid_payload_name_fails() {
    let error = build(Options::new().payload_field_name("the plan")).unwrap_err();
    assert_eq!(
        error,
        BuildError::InvalidPayloadFieldName("the plan".into())
    );
    assert!(error.to_string().contains("`the plan`"), "{error}");
}

#[test]
fn flat_on_non_object_fails() {
    let error = SubmitTool::<Verdict>::new(Options::new().flat_payload(true)).unwrap_err();
    assert!(matches!(error, BuildError::FlatNotAnObject(_)), "{error:?}");
    let message = error.to_string();
    assert!(message.contains("`string`"), "{message}");
    assert!(message.contains("turn flat off"), "{message}");
    let error = SubmitTool::<Vec<String>>::new(Options::new().flat_payload(true)).unwrap_err();
    assert!(error.to_string().contains("`array`"), "{error}");
    let schema = json!({"type": "object"});
    let error =
        SubmitTool::from_json_schema(schema, Options::new().flat_payload(true)).unwrap_err();
    assert!(
        error.to_string().contains("an object without properties"),
        "{error}"
    );
}

#[test]
fn strict_with_not_fails() {
    let schema = json!({"type": "object",
        "properties": {"name": {"type": "string", "not": {"const": "admin"}}}});
    let error = SubmitTool::from_json_schema(schema, Options::new().strict(true)).unwrap_err();
    let BuildError::NotStrict { provider, reason } = &error else {
        panic!("expected NotStrict, got {error:?}");
    };
    assert!(provider.supports_strict());
    assert!(
        reason.contains("/properties/result/properties/name/not"),
        "{reason}"
    );
    assert!(error.to_string().contains("turn strict off"), "{error}");
}

#[test]
fn strict_with_unmergeable_all_of_fails() {
    let schema = json!({"type": "object", "properties": {"n": {"allOf": [
        {"type": "integer"}, {"type": "string"}]}}});
    let error = SubmitTool::from_json_schema(schema, Options::new().strict(true)).unwrap_err();
    assert!(matches!(error, BuildError::NotStrict { .. }), "{error:?}");
    assert!(
        error
            .to_string()
            .contains("/properties/result/properties/n/allOf/1"),
        "{error}"
    );
}

#[test]
fn strict_with_mergeable_all_of_builds() {
    let schema = json!({"type": "object", "allOf": [
        {"properties": {"a": {"type": "string"}}, "required": ["a"]},
        {"properties": {"b": {"type": "integer"}}}]});
    let tool = SubmitTool::from_json_schema(schema, Options::new().strict(true)).unwrap();
    let definition = tool.definition(Provider::Claude);
    let payload = &definition["input_schema"]["properties"]["result"];
    assert_eq!(payload["required"], json!(["a"]));
    assert!(payload.get("allOf").is_none());
    assert_eq!(payload["additionalProperties"], false);
}

#[test]
fn strict_with_open_map_fails() {
    let error = SubmitTool::<Tally>::new(Options::new().strict(true)).unwrap_err();
    assert!(matches!(error, BuildError::NotStrict { .. }), "{error:?}");
    let message = error.to_string();
    assert!(
        message.contains("/properties/result/properties/counts/additionalProperties"),
        "{message}"
    );
    assert!(
        SubmitTool::<Tally>::new(Options::new()).is_ok(),
        "fine without strict"
    );
}

#[test]
fn strict_on_recursive_type_fails_for_anthropic() {
    /// A tree.
    #[allow(dead_code, reason = "fields are read through the schema only")]
    #[derive(Deserialize, JsonSchema)]
    struct Node {
        children: Vec<Node>,
    }
    let options = Options::new()
        .strict(true)
        .gemini_schema(submit_result::GeminiSchema::JsonSchema);
    let error = SubmitTool::<Node>::new(options).unwrap_err();
    assert!(
        matches!(
            error,
            BuildError::NotStrict {
                provider: Provider::Claude,
                ..
            }
        ),
        "{error:?}"
    );
    assert!(error.to_string().contains("`Node`"), "{error}");
}

#[test]
fn name_errors_come_before_schema_errors() {
    let error = build(
        Options::new()
            .tool_name("bad name")
            .omit_payload_fields(["zzz"]),
    )
    .unwrap_err();
    assert_eq!(error, BuildError::InvalidToolName("bad name".into()));
}

#[test]
fn invalid_json_schema_fails() {
    let schema = json!({"type": "object", "properties": {"n": {"minimum": "zero"}}});
    let error = SubmitTool::from_json_schema(schema, Options::new()).unwrap_err();
    assert!(matches!(error, BuildError::InvalidSchema(_)), "{error:?}");
    assert!(
        error.to_string().contains("/properties/n/minimum"),
        "{error}"
    );
}

#[test]
fn dangling_reference_in_json_schema_fails() {
    let schema = json!({"type": "object", "properties": {"n": {"$ref": "#/$defs/Missing"}}});
    let error = SubmitTool::from_json_schema(schema, Options::new()).unwrap_err();
    assert!(matches!(error, BuildError::InvalidSchema(_)), "{error:?}");
    assert!(error.to_string().contains("/$defs/Missing"), "{error}");
}

#[test]
fn recursive_type_with_gemini_legacy_fails() {
    /// A linked list.
    #[allow(dead_code, reason = "fields are read through the schema only")]
    #[derive(Deserialize, JsonSchema)]
    struct Link {
        value: i32,
        next: Option<Box<Link>>,
    }
    let error = SubmitTool::<Link>::new(Options::new()).unwrap_err();
    assert!(matches!(error, BuildError::GeminiLegacy(_)), "{error:?}");
    assert!(error.to_string().contains("`Link`"), "{error}");
    let options = Options::new().gemini_schema(submit_result::GeminiSchema::JsonSchema);
    assert!(SubmitTool::<Link>::new(options).is_ok());
}

mod arbitrary_documents {
    use proptest::prelude::*;
    use serde_json::{json, Map, Value};
    use submit_result::{GeminiSchema, Options, Provider, SubmitTool};

    const NAMES: [&str; 4] = ["a", "b", "reasoning", "a/b~c"];
    const TYPES: [&str; 7] = [
        "object", "string", "null", "integer", "number", "array", "boolean",
    ];
    const REFS: [&str; 6] = [
        "#",
        "#/$defs/a",
        "#/$defs/b",
        "#/properties/a",
        "#/$defs/a~1b~0c",
        "#/x",
    ];
    const FORMATS: [&str; 4] = ["uint8", "int32", "date-time", "uint"];

    fn name() -> impl Strategy<Value = String> {
        prop::sample::select(&NAMES[..]).prop_map(str::to_owned)
    }

    fn scalar() -> impl Strategy<Value = Value> {
        prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            (-3i64..70).prop_map(Value::from),
            name().prop_map(Value::from),
        ]
    }

    /// One keyword with a value of the right shape, built from `inner` subschemas.
    fn keyword(inner: BoxedStrategy<Value>) -> impl Strategy<Value = (String, Value)> {
        let schemas = prop::collection::vec(inner.clone(), 1..3).prop_map(Value::Array);
        let named = prop::collection::vec((name(), inner.clone()), 0..3)
            .prop_map(|entries| Value::Object(entries.into_iter().collect()))
            .boxed();
        prop_oneof![
            prop::sample::select(&TYPES[..]).prop_map(|t| ("type".to_owned(), json!(t))),
            prop::collection::vec(prop::sample::select(&TYPES[..]), 1..3)
                .prop_map(|t| ("type".to_owned(), json!(t))),
            named.clone().prop_map(|v| ("properties".to_owned(), v)),
            named.prop_map(|v| ("$defs".to_owned(), v)),
            prop::collection::vec(name(), 0..3).prop_map(|r| ("required".to_owned(), json!(r))),
            (
                prop::sample::select(&["items", "not", "additionalProperties", "if"][..]),
                inner
            )
                .prop_map(|(k, v)| (k.to_owned(), v)),
            (
                prop::sample::select(&["anyOf", "oneOf", "allOf", "prefixItems"][..]),
                schemas
            )
                .prop_map(|(k, v)| (k.to_owned(), v)),
            prop::collection::vec(scalar(), 1..4).prop_map(|v| ("enum".to_owned(), json!(v))),
            scalar().prop_map(|v| ("const".to_owned(), v)),
            prop::collection::vec(scalar(), 0..3).prop_map(|v| ("examples".to_owned(), json!(v))),
            prop::sample::select(&REFS[..]).prop_map(|r| ("$ref".to_owned(), json!(r))),
            prop::sample::select(&FORMATS[..]).prop_map(|f| ("format".to_owned(), json!(f))),
            (0u32..9).prop_map(|n| ("maxLength".to_owned(), json!(n))),
            (-2i32..9).prop_map(|n| ("minimum".to_owned(), json!(n))),
            name().prop_map(|d| ("description".to_owned(), json!(d))),
        ]
    }

    fn schema() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            any::<bool>().prop_map(Value::Bool),
            prop::sample::select(&TYPES[..]).prop_map(|t| json!({ "type": t })),
            prop::sample::select(&REFS[..]).prop_map(|r| json!({ "$ref": r })),
        ];
        leaf.prop_recursive(4, 48, 4, |inner| {
            prop::collection::vec(keyword(inner.boxed()), 0..5)
                .prop_map(|entries| Value::Object(entries.into_iter().collect::<Map<_, _>>()))
        })
    }

    /// An object document: properties and definitions drawn from `schema()`.
    fn document() -> impl Strategy<Value = Value> {
        (
            prop::collection::vec((name(), schema()), 0..4),
            prop::collection::vec((name(), schema()), 0..3),
            prop::collection::vec(name(), 0..3),
        )
            .prop_map(|(properties, defs, required)| {
                let properties: Map<String, Value> = properties.into_iter().collect();
                let defs: Map<String, Value> = defs.into_iter().collect();
                json!({"type": "object", "properties": properties, "required": required,
                    "$defs": defs})
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 512,
            failure_persistence: None,
            ..ProptestConfig::default()
        })]

        #[test]
        fn construction_never_panics_on_arbitrary_documents(
            document in document(),
            flat: bool,
            strict: bool,
            omit_reasoning: bool,
            json_form: bool,
        ) {
            let form = if json_form { GeminiSchema::JsonSchema } else { GeminiSchema::Legacy };
            let options = Options::new()
                .flat_payload(flat)
                .strict(strict)
                .omit_reasoning(omit_reasoning)
                .gemini_schema(form);
            let built = SubmitTool::from_json_schema(document, options);
            if let Ok(tool) = built {
                for provider in Provider::ALL {
                    prop_assert!(tool.definition(provider).is_object());
                }
            }
        }
    }
}
