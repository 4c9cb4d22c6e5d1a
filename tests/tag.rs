//! The tag grammar at run time: `Options::from_tag` and `Metadata::from_tag`.

use serde_json::{json, Value};
use submit_result::{BuildError, Metadata, MetadataError, MetadataKey, Options, SubmitTool};

/// The tool built from a tag, for what it answers of its options.
fn tool(tag: &str) -> SubmitTool<Value> {
    let schema = json!({"type": "object", "properties": {"x": {"type": "string"}}});
    SubmitTool::from_json_schema(schema, Options::from_tag(tag).unwrap()).unwrap()
}

fn errors(tag: &str) -> Vec<MetadataError> {
    match Metadata::from_tag(tag) {
        Ok(metadata) => panic!("expected errors for {tag:?}, got {metadata:?}"),
        Err(errors) => errors.0,
    }
}

#[test]
fn escaped_comma_is_a_literal_comma() {
    let tool = tool("payloadDescription=Escalate\\, block\\, or approve.");
    assert_eq!(tool.payload_description(), "Escalate, block, or approve.");
}

#[test]
fn trailing_escape_keeps_the_comma() {
    let metadata = Metadata::from_tag("description=Submit it\\,").unwrap();
    assert_eq!(metadata.description.as_deref(), Some("Submit it,"));
}

#[test]
fn lone_backslash_is_kept() {
    let metadata = Metadata::from_tag("description=C:\\temp\\x,name=a").unwrap();
    assert_eq!(metadata.description.as_deref(), Some("C:\\temp\\x"));
    assert_eq!(metadata.name.as_deref(), Some("a"));
}

#[test]
fn double_backslash_before_comma_is_backslash_then_escaped_comma() {
    let metadata = Metadata::from_tag("description=a\\\\,b").unwrap();
    assert_eq!(metadata.description.as_deref(), Some("a\\,b"));
}

#[test]
fn value_may_contain_equals() {
    let tool = tool("description=Use x=1 and y=2.");
    assert_eq!(tool.description(), "Use x=1 and y=2.");
}

#[test]
fn keys_are_case_insensitive() {
    let tool = tool("NAME=submit_a,PayLoad=out,FLAT,OmitReasoning=TRUE");
    assert_eq!(tool.name(), "submit_a");
    assert_eq!(tool.payload_field(), "out");
    assert!(tool.is_flat());
    assert!(tool.omits_reasoning());
}

#[test]
fn parts_and_values_are_trimmed() {
    let tool = tool("  name =  submit_a  ,  success = Done. ");
    assert_eq!(tool.name(), "submit_a");
    assert_eq!(tool.success_message(), "Done.");
}

#[test]
fn empty_parts_are_skipped() {
    let metadata = Metadata::from_tag(",, name=a ,, ,").unwrap();
    assert_eq!(metadata.name.as_deref(), Some("a"));
    assert_eq!(Metadata::from_tag("").unwrap(), Metadata::EMPTY);
}

#[test]
fn both_spellings_of_payload_description() {
    for key in [
        "payloadDescription",
        "payload_description",
        "PAYLOADDESCRIPTION",
    ] {
        let metadata = Metadata::from_tag(&format!("{key}=The plan.")).unwrap();
        assert_eq!(
            metadata.payload_description.as_deref(),
            Some("The plan."),
            "{key}"
        );
    }
}

#[test]
fn both_spellings_of_omit_reasoning() {
    for key in ["omitReasoning", "omit_reasoning", "omitreasoning"] {
        assert!(Metadata::from_tag(key).unwrap().omit_reasoning, "{key}");
        assert!(
            !Metadata::from_tag(&format!("{key}=false"))
                .unwrap()
                .omit_reasoning
        );
    }
}

#[test]
fn two_spellings_of_one_key_are_a_duplicate() {
    assert_eq!(
        errors("payloadDescription=a,payload_description=b"),
        [MetadataError::DuplicateKey(MetadataKey::PayloadDescription)]
    );
}

#[test]
fn flags_are_bare_or_boolean() {
    let metadata = Metadata::from_tag("flat=False,omit_reasoning=true").unwrap();
    assert!(!metadata.flat);
    assert!(metadata.omit_reasoning);
}

#[test]
fn unknown_key_suggests_the_nearest() {
    let found = errors("nmae=submit_x");
    let [MetadataError::UnknownKey {
        key, suggestion, ..
    }] = found.as_slice()
    else {
        panic!("{found:?}");
    };
    assert_eq!(key, "nmae");
    assert_eq!(*suggestion, Some("name"));
    let message = Options::from_tag("nmae=submit_x").unwrap_err().to_string();
    assert!(
        message.contains("`nmae`") && message.contains("did you mean `name`?"),
        "{message}"
    );
    assert!(
        message.contains("`payloadDescription`"),
        "tag spelling listed: {message}"
    );
}

#[test]
fn unknown_key_far_from_any_has_no_suggestion() {
    let found = errors("colour=red");
    assert!(
        matches!(
            found.as_slice(),
            [MetadataError::UnknownKey {
                suggestion: None,
                ..
            }]
        ),
        "{found:?}"
    );
}

#[test]
fn duplicate_key_fails() {
    assert_eq!(
        errors("name=a,name=b"),
        [MetadataError::DuplicateKey(MetadataKey::Name)]
    );
    let message = Options::from_tag("name=a,NAME=b").unwrap_err().to_string();
    assert!(
        message.contains("duplicate") && message.contains("`name`"),
        "{message}"
    );
}

#[test]
fn empty_value_fails() {
    assert_eq!(
        errors("name="),
        [MetadataError::EmptyValue(MetadataKey::Name)]
    );
    assert_eq!(
        errors("success"),
        [MetadataError::EmptyValue(MetadataKey::Success)]
    );
    assert_eq!(
        errors("flat="),
        [MetadataError::EmptyValue(MetadataKey::Flat)]
    );
    let message = Options::from_tag("description=").unwrap_err().to_string();
    assert!(
        message.contains("empty value for `description`"),
        "{message}"
    );
}

#[test]
fn non_boolean_flag_fails() {
    assert_eq!(
        errors("flat=yes"),
        [MetadataError::NotBoolean {
            key: MetadataKey::Flat,
            value: "yes".into()
        }]
    );
    let message = Options::from_tag("omitReasoning=1")
        .unwrap_err()
        .to_string();
    assert!(
        message.contains("`omit_reasoning`") && message.contains("`1`"),
        "{message}"
    );
}

#[test]
fn invalid_tool_name_in_tag_fails() {
    assert_eq!(
        errors("name=submit result"),
        [MetadataError::InvalidName {
            key: MetadataKey::Name,
            value: "submit result".into()
        }]
    );
    let message = Options::from_tag("name=a.b").unwrap_err().to_string();
    assert!(message.contains("invalid tool name `a.b`"), "{message}");
}

#[test]
fn invalid_payload_name_in_tag_fails() {
    assert_eq!(
        errors("payload=the result"),
        [MetadataError::InvalidName {
            key: MetadataKey::Payload,
            value: "the result".into()
        }]
    );
}

#[test]
fn payload_named_reasoning_in_tag_fails() {
    assert_eq!(
        errors("payload=reasoning"),
        [MetadataError::PayloadNamedReasoning]
    );
    let metadata = Metadata::from_tag("payload=reasoning,omitReasoning").unwrap();
    assert_eq!(metadata.payload.as_deref(), Some("reasoning"));
}

#[test]
fn every_mistake_is_reported_together() {
    let found = errors("nmae=x,name=,flat=maybe,flat");
    assert_eq!(found.len(), 4, "{found:?}");
    let error = Options::from_tag("nmae=x,name=,flat=maybe,flat").unwrap_err();
    let BuildError::Metadata(errors) = &error else {
        panic!("expected metadata errors, got {error:?}");
    };
    assert_eq!(errors.0.len(), 4, "{error}");
    for part in [
        "`nmae`",
        "empty value for `name`",
        "got `maybe`",
        "duplicate",
    ] {
        assert!(
            error.to_string().contains(part),
            "{part} missing from {error}"
        );
    }
}

#[test]
fn tag_options_build_a_tool() {
    #[allow(dead_code, reason = "fields are read through the schema only")]
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    struct Decision {
        verdict: String,
    }
    let options = Options::from_tag(
        "name=submit_decision,payloadDescription=Escalate\\, block\\, or approve.",
    )
    .unwrap();
    let tool = submit_result::SubmitTool::<Decision>::new(options).unwrap();
    let definition = tool.definition(submit_result::Provider::Claude);
    assert_eq!(definition["name"], "submit_decision");
    assert_eq!(
        definition["input_schema"]["properties"]["result"]["description"],
        "Escalate, block, or approve."
    );
}
