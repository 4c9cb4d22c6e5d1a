//! The submit calls the integration tests (async-openai, rig) carry in another crate's types:
//! a clean call and the four payload mistakes (stringified, stringified with closing tags, after
//! an opener in the reasoning, as a member in the reasoning), and the real cases of the corpus.

use serde_json::{json, Value};
use submit_result::{Options, RecoveryKind, SubmitTool};

/// A clean call and the four payload mistakes, as argument text for a tool whose payload field
/// is `analysis` and whose payload is `{"summary": "disk full"}` (written here by hand; the
/// real cases are in [`real_cases`]).
pub fn payload_mistakes() -> Vec<(&'static str, String, Option<RecoveryKind>)> {
    let payload = r#"{"summary":"disk full"}"#;
    vec![
        (
            "clean",
            json!({"reasoning": "r", "analysis": {"summary": "disk full"}}).to_string(),
            None,
        ),
        (
            "stringified payload",
            json!({"reasoning": "r", "analysis": payload}).to_string(),
            Some(RecoveryKind::Stringified),
        ),
        (
            "stringified payload with closing tags",
            json!({"reasoning": "r", "analysis": format!("{payload}</analysis>\n</invoke>")})
                .to_string(),
            Some(RecoveryKind::Stringified),
        ),
        (
            "payload after a parameter opener in the reasoning",
            json!({"reasoning": format!("r</reasoning>\n<parameter name=\"analysis\">{payload}")})
                .to_string(),
            Some(RecoveryKind::ReasoningOpener),
        ),
        (
            "payload as a member inside the reasoning",
            json!({"reasoning": format!("r\", \"analysis\": {payload}}}")}).to_string(),
            Some(RecoveryKind::ReasoningMember),
        ),
    ]
}

/// One real case of `submit-core/tests/corpus/13_real_cases.json` that has argument text.
pub struct RealCase {
    pub name: String,
    /// The tool the case's options and schema describe.
    pub tool: SubmitTool<Value>,
    pub arguments: String,
    /// The vector's `expected` object.
    pub expected: Value,
}

/// The real cases with argument text (25), each with its tool built from the vector's options.
pub fn real_cases() -> Vec<RealCase> {
    let vectors = submit_test_kit::corpus::file("13_real_cases.json").unwrap();
    vectors
        .iter()
        .filter_map(|vector| {
            let arguments = vector["arguments_text"].as_str()?.to_owned();
            let o = &vector["options"];
            let flag = |key: &str| o[key].as_bool().unwrap_or(false);
            let options = Options::new()
                .payload_field_name(o["payload"].as_str().unwrap_or("analysis").to_owned())
                .flat_payload(flag("flat"))
                .omit_reasoning(flag("omit_reasoning"))
                .strict(flag("strict"));
            let schema = o
                .get("schema")
                .cloned()
                .unwrap_or_else(|| json!({"type": "object"}));
            Some(RealCase {
                name: vector["name"].as_str().unwrap().to_owned(),
                tool: SubmitTool::from_json_schema(schema, options).unwrap(),
                arguments,
                expected: vector["expected"].clone(),
            })
        })
        .collect()
}
