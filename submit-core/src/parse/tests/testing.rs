//! A submit tool built directly from a small configuration, for the parser's unit tests.

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::options::Options;
use crate::schema::property::{Property, Types};
use crate::tool::{Inner, SubmitTool};

/// What a test tool looks like.
#[derive(Clone, Debug)]
pub(crate) struct TestTool {
    pub(crate) options: Options,
    pub(crate) properties: Vec<Property>,
    pub(crate) schema: Option<Value>,
}

impl TestTool {
    /// A tool with payload `payload` and the sample properties: `summary` (required),
    /// `blocked` and `tags` (optional).
    pub(crate) fn new(payload: &str) -> Self {
        TestTool {
            options: Options::new().payload_field_name(payload.to_owned()),
            properties: vec![
                typed("summary", true, Types::STRING),
                typed("blocked", false, Types::BOOLEAN.with(Types::NULL)),
                typed("tags", false, Types::ARRAY.with(Types::NULL)),
            ],
            schema: None,
        }
    }

    pub(crate) fn options(mut self, adjust: impl FnOnce(Options) -> Options) -> Self {
        self.options = adjust(self.options);
        self
    }

    #[allow(dead_code, reason = "for tests that need other properties")]
    pub(crate) fn properties(mut self, properties: &[(&str, bool)]) -> Self {
        self.properties = properties
            .iter()
            .map(|(name, required)| property(name, *required))
            .collect();
        self
    }

    /// Validate the payload at step *Decode* against this JSON Schema document.
    pub(crate) fn schema(mut self, schema: Value) -> Self {
        self.schema = Some(schema);
        self
    }

    pub(crate) fn build<R: DeserializeOwned>(self) -> SubmitTool<R> {
        let validator = self
            .schema
            .as_ref()
            .map(|schema| jsonschema::validator_for(schema).expect("valid test schema"));
        let closed = self
            .schema
            .as_ref()
            .is_some_and(|schema| schema["additionalProperties"] == Value::Bool(false));
        SubmitTool::from_inner(Inner {
            options: self.options,
            payload_schema: self.schema.unwrap_or_else(sample_schema),
            properties: self.properties,
            closed,
            definitions: [Value::Null, Value::Null, Value::Null, Value::Null],
            validator,
        })
    }
}

/// The sample's payload schema, as schemars writes it for `summary: String`,
/// `blocked: Option<bool>` and `tags: Option<Vec<String>>`.
fn sample_schema() -> Value {
    serde_json::json!({"type": "object", "properties": {
        "summary": {"type": "string"},
        "blocked": {"type": ["boolean", "null"]},
        "tags": {"type": ["array", "null"], "items": {"type": "string"}}},
        "required": ["summary"]})
}

fn property(name: &str, required: bool) -> Property {
    Property {
        name: name.to_owned(),
        required,
        types: None,
    }
}

/// A property whose schema admits exactly `types` (the sample's `Option<bool>` is
/// `["boolean", "null"]`, its `Option<Vec<String>>` `["array", "null"]`).
fn typed(name: &str, required: bool, types: Types) -> Property {
    Property {
        types: Some(types),
        ..property(name, required)
    }
}

/// Arguments a unit test hands to a step: a value, or argument text.
pub(crate) trait TestArguments<'a> {
    fn arguments(self) -> crate::parse::Arguments<'a>;
}

impl<'a> TestArguments<'a> for &'a Value {
    fn arguments(self) -> crate::parse::Arguments<'a> {
        crate::parse::Arguments::Value(self)
    }
}

impl<'a> TestArguments<'a> for &'a str {
    fn arguments(self) -> crate::parse::Arguments<'a> {
        crate::parse::Arguments::Text(self)
    }
}

/// The arguments object step *The arguments as a whole* reads out of `arguments` (which must be
/// one), every member as written.
pub(crate) fn object_of<'a>(
    arguments: impl TestArguments<'a>,
) -> crate::parse::arguments::Object<'a> {
    match crate::parse::arguments::read::<serde::de::IgnoredAny>(arguments.arguments(), None) {
        Ok(crate::parse::arguments::AsWhole::Object(read)) => read.object,
        _ => panic!("the test arguments are one JSON object"),
    }
}
