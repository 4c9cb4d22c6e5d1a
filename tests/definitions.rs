//! The wire JSON of the four providers' definitions.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};
use submit_result::{BuildError, GeminiSchema, Options, Provider, SubmitResult, SubmitTool};

/// A review of a code change.
#[allow(dead_code, reason = "fields are read through the schema only")]
#[derive(Deserialize, JsonSchema, SubmitResult)]
#[submit_result(
    name = "submit_review",
    payload = "review",
    payload_description = "The review of the change."
)]
struct Review {
    /// One-paragraph summary of the change.
    summary: String,
    /// How risky it is to merge the change.
    risk: Risk,
    /// Findings, most severe first.
    findings: Vec<Finding>,
    /// Number of lines the change touches.
    lines_changed: u32,
    /// Notes for the author, if any.
    notes: Option<String>,
}

/// Risk of merging.
#[allow(dead_code, reason = "variants are read through the schema only")]
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Risk {
    /// Safe to merge as it is.
    Low,
    /// Worth a careful read.
    Medium,
    /// Needs a second reviewer.
    High,
}

/// One problem found in the change.
#[allow(dead_code, reason = "fields are read through the schema only")]
#[derive(Deserialize, JsonSchema)]
struct Finding {
    /// Path of the file, relative to the repository root.
    file: String,
    /// 1-based line number, when the finding is about one line.
    line: Option<u64>,
    /// What is wrong and how to fix it.
    message: String,
    /// Severity from 1 (nit) to 5 (blocker).
    #[schemars(range(min = 1, max = 5))]
    severity: u8,
}

/// The decision on an escalation.
#[allow(dead_code, reason = "fields are read through the schema only")]
#[derive(Deserialize, JsonSchema, SubmitResult)]
#[submit_result(
    "name=submit_decision,description=Submit the decision\\, once.,payloadDescription=Escalate\\, block\\, or approve.,flat"
)]
struct Decision {
    /// `escalate`, `block` or `approve`.
    verdict: String,
    /// Who should look next.
    assignee: Option<String>,
}

fn review_tool(options: Options) -> SubmitTool<Review> {
    SubmitTool::<Review>::new(options).unwrap()
}

fn review_options() -> Options {
    Options::for_response::<Review>()
}

fn snapshot_all<R: serde::de::DeserializeOwned>(variant: &str, tool: &SubmitTool<R>) {
    for provider in Provider::ALL {
        insta::assert_json_snapshot!(format!("{variant}__{provider}"), tool.definition(provider));
    }
}

/// Every object node of a JSON value, with a pointer, for whole-tree assertions.
fn visit(value: &Value, pointer: String, f: &mut dyn FnMut(&str, &serde_json::Map<String, Value>)) {
    match value {
        Value::Object(map) => {
            f(&pointer, map);
            for (key, child) in map {
                visit(child, format!("{pointer}/{key}"), f);
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                visit(child, format!("{pointer}/{i}"), f);
            }
        }
        _ => {}
    }
}

#[test]
fn snapshot_default() {
    snapshot_all("default", &review_tool(review_options()));
}

#[test]
fn snapshot_flat() {
    snapshot_all("flat", &review_tool(review_options().flat_payload(true)));
}

#[test]
fn snapshot_omit_reasoning() {
    snapshot_all(
        "omit_reasoning",
        &review_tool(review_options().omit_reasoning(true)),
    );
}

#[test]
fn snapshot_omitted_fields() {
    snapshot_all(
        "omitted_fields",
        &review_tool(review_options().omit_payload_fields(["notes"])),
    );
}

#[test]
fn snapshot_strict() {
    snapshot_all("strict", &review_tool(review_options().strict(true)));
}

#[test]
fn snapshot_tag_form_metadata() {
    snapshot_all(
        "tag_form_metadata",
        &SubmitTool::<Decision>::for_response().unwrap(),
    );
}

#[test]
fn snapshot_gemini_json_schema_form() {
    let tool = review_tool(review_options().gemini_schema(GeminiSchema::JsonSchema));
    insta::assert_json_snapshot!(
        "gemini_json_schema__gemini",
        tool.definition(Provider::Gemini)
    );
}

#[test]
fn parameters_and_payload_properties_keep_declaration_order() {
    let tool = review_tool(review_options());
    let definition = tool.definition(Provider::Claude);
    let parameters = &definition["input_schema"];
    let top: Vec<&String> = parameters["properties"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(top, ["reasoning", "review"]);
    let payload: Vec<&String> = parameters["properties"]["review"]["properties"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(
        payload,
        ["summary", "risk", "findings", "lines_changed", "notes"]
    );
    let finding: Vec<&String> = parameters["properties"]["review"]["properties"]["findings"]
        ["items"]["properties"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(finding, ["file", "line", "message", "severity"]);
    assert_eq!(
        parameters["required"],
        json!(["reasoning", "review"]),
        "reasoning first, then the payload"
    );
}

#[test]
fn no_ref_or_defs_in_any_definition() {
    for options in [
        review_options(),
        review_options().flat_payload(true),
        review_options().strict(true),
    ] {
        let tool = review_tool(options);
        for provider in Provider::ALL {
            let text = tool.definition(provider).to_string();
            assert!(!text.contains("$ref"), "{provider}: {text}");
            assert!(!text.contains("$defs"), "{provider}: {text}");
            assert!(!text.contains("$schema"), "{provider}: {text}");
        }
    }
}

#[test]
fn unsigned_integer_formats_are_removed() {
    let tool = review_tool(review_options());
    for provider in Provider::ALL {
        visit(
            &tool.definition(provider),
            String::new(),
            &mut |pointer, node| {
                if let Some(format) = node.get("format").and_then(Value::as_str) {
                    assert!(
                        format == "int32" || format == "int64",
                        "{provider}: format `{format}` left at {pointer}"
                    );
                }
            },
        );
    }
    let lines = &tool.payload_schema()["properties"]["lines_changed"];
    assert_eq!(
        lines,
        &json!({"description": "Number of lines the change touches.",
        "type": "integer", "minimum": 0})
    );
}

#[test]
fn payload_root_description_is_the_payload_description() {
    let tool = review_tool(review_options());
    let schema = tool.payload_schema();
    assert_eq!(schema["description"], "The review of the change.");
    assert!(schema.get("title").is_none());
    assert!(schema.get("$schema").is_none());
    let definition = tool.definition(Provider::OpenAiChat);
    assert_eq!(
        definition["function"]["parameters"]["properties"]["review"]["description"],
        "The review of the change."
    );
}

#[test]
fn doc_comments_become_descriptions() {
    let tool = review_tool(review_options());
    let properties = &tool.payload_schema()["properties"];
    assert_eq!(
        properties["summary"]["description"],
        "One-paragraph summary of the change."
    );
    assert_eq!(
        properties["findings"]["items"]["properties"]["message"]["description"],
        "What is wrong and how to fix it."
    );
}

#[test]
fn gemini_types_are_upper_case_with_property_ordering() {
    let tool = review_tool(review_options());
    let definition = tool.definition(Provider::Gemini);
    let parameters = &definition["parameters"];
    assert_eq!(parameters["type"], "OBJECT");
    assert_eq!(
        parameters["propertyOrdering"],
        json!(["reasoning", "review"])
    );
    let mut types = Vec::new();
    visit(parameters, String::new(), &mut |pointer, node| {
        if let Some(t) = node.get("type") {
            let t = t
                .as_str()
                .unwrap_or_else(|| panic!("type at {pointer} is {t}"));
            assert_eq!(t, t.to_ascii_uppercase(), "lower-case type at {pointer}");
            types.push(t.to_owned());
        }
        if node.contains_key("properties") && pointer.ends_with("/properties") {
            return;
        }
        if let Some(Value::Object(properties)) = node.get("properties") {
            let ordering: Vec<Value> = properties.keys().map(|k| json!(k)).collect();
            assert_eq!(
                node.get("propertyOrdering"),
                Some(&Value::Array(ordering)),
                "{pointer}"
            );
        }
    });
    for expected in ["OBJECT", "STRING", "ARRAY", "INTEGER"] {
        assert!(
            types.iter().any(|t| t == expected),
            "{expected} missing from {types:?}"
        );
    }
    let review = &parameters["properties"]["review"]["properties"];
    assert_eq!(review["notes"]["type"], "STRING");
    assert_eq!(review["notes"]["nullable"], true);
    assert_eq!(review["risk"]["type"], "STRING");
    assert_eq!(review["risk"]["enum"], json!(["low", "medium", "high"]));
    assert_eq!(
        review["risk"]["description"],
        "How risky it is to merge the change.\nlow: Safe to merge as it is.\n\
         medium: Worth a careful read.\nhigh: Needs a second reviewer."
    );
}

#[test]
fn responses_strict_false_is_always_present() {
    let tool = review_tool(review_options());
    let definition = tool.definition(Provider::OpenAiResponses);
    assert_eq!(definition.get("strict"), Some(&Value::Bool(false)));
    assert_eq!(definition["type"], "function");
    let strict = review_tool(review_options().strict(true));
    assert_eq!(strict.definition(Provider::OpenAiResponses)["strict"], true);
}

#[test]
fn chat_has_no_strict_unless_asked() {
    let tool = review_tool(review_options());
    let definition = tool.definition(Provider::OpenAiChat);
    assert!(
        definition["function"].get("strict").is_none(),
        "{definition}"
    );
    assert!(definition.get("strict").is_none());
    let strict = review_tool(review_options().strict(true));
    assert_eq!(
        strict.definition(Provider::OpenAiChat)["function"]["strict"],
        true
    );
}

#[test]
fn anthropic_has_no_strict_unless_asked() {
    let tool = review_tool(review_options());
    assert!(tool.definition(Provider::Claude).get("strict").is_none());
    let strict = review_tool(review_options().strict(true));
    assert_eq!(strict.definition(Provider::Claude)["strict"], true);
}

#[test]
fn definitions_are_cached() {
    let tool = review_tool(review_options());
    let clone = tool.clone();
    for provider in Provider::ALL {
        let first = tool.definition(provider);
        let second = tool.definition(provider);
        assert_eq!(first, second);
        assert_eq!(clone.definition(provider), first);
    }
    assert!(std::ptr::eq(tool.payload_schema(), clone.payload_schema()));
}

#[test]
fn omit_reasoning_removes_it_everywhere() {
    let tool = review_tool(review_options().omit_reasoning(true));
    for provider in Provider::ALL {
        let text = tool.definition(provider).to_string();
        assert!(!text.contains("\"reasoning\""), "{provider}: {text}");
    }
    let definition = tool.definition(Provider::Claude);
    assert_eq!(definition["input_schema"]["required"], json!(["review"]));
}

#[test]
fn omitted_field_is_withheld_by_every_provider() {
    let tool = review_tool(review_options().omit_payload_fields(["notes"]));
    for provider in Provider::ALL {
        let text = tool.definition(provider).to_string();
        assert!(!text.contains("\"notes\""), "{provider}: {text}");
    }
    assert!(
        tool.payload_schema()["properties"].get("notes").is_some(),
        "the full payload schema keeps the omitted field"
    );
}

#[test]
fn flat_replaces_payload_with_its_properties() {
    let tool = review_tool(review_options().flat_payload(true));
    let definition = tool.definition(Provider::OpenAiResponses);
    let parameters = &definition["parameters"];
    let names: Vec<&String> = parameters["properties"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(
        names,
        [
            "reasoning",
            "summary",
            "risk",
            "findings",
            "lines_changed",
            "notes"
        ]
    );
    assert_eq!(
        parameters["required"],
        json!(["reasoning", "summary", "risk", "findings", "lines_changed"])
    );
    assert!(!parameters.to_string().contains("The review of the change."));
}

#[test]
fn strict_openai_requires_all_and_makes_optional_nullable() {
    let tool = review_tool(review_options().strict(true));
    let definition = tool.definition(Provider::OpenAiChat);
    let review = &definition["function"]["parameters"]["properties"]["review"];
    assert_eq!(
        review["required"],
        json!(["summary", "risk", "findings", "lines_changed", "notes"])
    );
    assert_eq!(
        review["properties"]["notes"]["type"],
        json!(["string", "null"])
    );
    visit(
        &definition["function"]["parameters"],
        String::new(),
        &mut |pointer, node| {
            if node.get("type") == Some(&json!("object")) {
                assert_eq!(
                    node.get("additionalProperties"),
                    Some(&json!(false)),
                    "{pointer}"
                );
            }
            assert!(!node.contains_key("oneOf"), "{pointer}");
        },
    );
}

#[test]
fn strict_anthropic_closes_objects_and_keeps_optional() {
    let tool = review_tool(review_options().strict(true));
    let definition = tool.definition(Provider::Claude);
    let review = &definition["input_schema"]["properties"]["review"];
    assert_eq!(
        review["required"],
        json!(["summary", "risk", "findings", "lines_changed"])
    );
    assert_eq!(review["additionalProperties"], false);
    let severity = &review["properties"]["findings"]["items"]["properties"]["severity"];
    assert_eq!(severity["type"], "integer");
    assert!(severity.get("minimum").is_none());
    let description = severity["description"].as_str().unwrap();
    assert!(description.starts_with("Severity from 1 (nit) to 5 (blocker)."));
    assert!(
        description.contains("minimum: 1") && description.contains("maximum: 5"),
        "{description}"
    );
}

#[test]
fn strict_leaves_gemini_ordinary() {
    let plain = review_tool(review_options());
    let strict = review_tool(review_options().strict(true));
    assert_eq!(
        strict.definition(Provider::Gemini),
        plain.definition(Provider::Gemini)
    );
    assert!(!Provider::Gemini.supports_strict());
    assert!(Provider::ALL.iter().filter(|p| p.supports_strict()).count() == 3);
}

/// A tree of comments.
#[allow(dead_code, reason = "fields are read through the schema only")]
#[derive(Deserialize, JsonSchema)]
struct Thread {
    /// The comment's text.
    text: String,
    /// Replies to it.
    replies: Vec<Thread>,
}

#[test]
fn recursive_type_keeps_defs_for_json_schema_providers() {
    let options = Options::new().gemini_schema(GeminiSchema::JsonSchema);
    let tool = SubmitTool::<Thread>::new(options).unwrap();
    for provider in [Provider::Claude, Provider::OpenAiResponses] {
        let definition = tool.definition(provider);
        let parameters = definition
            .get("input_schema")
            .or_else(|| definition.get("parameters"))
            .unwrap();
        assert_eq!(
            parameters["properties"]["result"]["properties"]["replies"]["items"],
            json!({"$ref": "#/$defs/Thread"})
        );
        assert_eq!(
            parameters["$defs"]["Thread"]["properties"]["replies"]["items"],
            json!({"$ref": "#/$defs/Thread"})
        );
    }
    let gemini = tool.definition(Provider::Gemini);
    assert!(gemini["parametersJsonSchema"]["$defs"]["Thread"].is_object());
    assert!(gemini.get("parameters").is_none());
}

#[test]
fn snapshot_recursive_type() {
    let options = Options::new()
        .gemini_schema(GeminiSchema::JsonSchema)
        .omit_reasoning(true);
    let tool = SubmitTool::<Thread>::new(options).unwrap();
    insta::assert_json_snapshot!("recursive__claude", tool.definition(Provider::Claude));
    insta::assert_json_snapshot!("recursive__gemini", tool.definition(Provider::Gemini));
}

#[test]
fn any_value_payload_builds() {
    let tool = SubmitTool::<Value>::new(Options::new()).unwrap();
    assert_eq!(
        tool.payload_schema(),
        &json!({"description": "Structured result payload."})
    );
}

#[test]
fn recursive_type_fails_for_gemini_legacy_form() {
    let error = SubmitTool::<Thread>::new(Options::new()).unwrap_err();
    assert!(matches!(error, BuildError::GeminiLegacy(_)), "{error:?}");
    let message = error.to_string();
    assert!(message.contains("`Thread`"), "{message}");
    assert!(message.contains("GeminiSchema::JsonSchema"), "{message}");
}

#[test]
fn json_schema_document_gets_the_same_treatment() {
    let document = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Ticket",
        "description": "A support ticket.",
        "type": "object",
        "properties": {
            "priority": {"$ref": "#/$defs/Priority"},
            "count": {"type": "integer", "format": "uint16", "minimum": 0}
        },
        "required": ["priority"],
        "$defs": {"Priority": {"type": "string", "enum": ["p1", "p2"]}}
    });
    let tool = SubmitTool::from_json_schema(document, Options::new()).unwrap();
    assert_eq!(
        tool.payload_schema(),
        &json!({
            "description": "Structured result payload.",
            "type": "object",
            "properties": {
                "priority": {"type": "string", "enum": ["p1", "p2"]},
                "count": {"type": "integer", "minimum": 0}
            },
            "required": ["priority"]
        })
    );
    let gemini = tool.definition(Provider::Gemini);
    assert_eq!(
        gemini["parameters"]["properties"]["result"]["properties"]["priority"],
        json!({"type": "STRING", "enum": ["p1", "p2"]})
    );
}

#[test]
fn invalid_json_schema_document_fails() {
    let error =
        SubmitTool::from_json_schema(json!({"type": "strnig"}), Options::new()).unwrap_err();
    assert!(matches!(error, BuildError::InvalidSchema(_)), "{error:?}");
    assert!(error.to_string().contains("`/type`"), "{error}");
    let error = SubmitTool::from_json_schema(
        json!({"type": "object", "properties": {"a": {"$ref": "https://example.com/a.json"}}}),
        Options::new(),
    )
    .unwrap_err();
    assert!(matches!(error, BuildError::InvalidSchema(_)), "{error:?}");
}

#[test]
fn built_tool_is_send_and_sync() {
    fn shared<T: Send + Sync + Clone + 'static>() {}
    shared::<SubmitTool<Review>>();
    shared::<SubmitTool<Value>>();
    shared::<Options>();
}

#[test]
fn custom_schema_settings_are_used_and_normalised() {
    for settings in [
        schemars::generate::SchemaSettings::draft07(),
        schemars::generate::SchemaSettings::openapi3(),
    ] {
        let tool = review_tool(review_options().schema_settings(settings));
        let schema = tool.payload_schema();
        let text = schema.to_string();
        assert!(!text.contains("$ref"), "{text}");
        assert!(schema.get("components").is_none(), "{text}");
        assert!(schema.get("definitions").is_none(), "{text}");
        assert_eq!(
            schema["properties"]["findings"]["items"]["properties"]["file"]["type"],
            "string"
        );
    }
}
