//! `SubmitTool<R>`: built once, definitions cached, handles calls.

use std::marker::PhantomData;
use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::metadata::{SubmitResult, REASONING};
use crate::options::{BuildError, Options};
use crate::provider::Provider;
use crate::schema;

/// A terminal submit tool for the response type `R`.
///
/// Building it reflects the payload schema, validates the options and computes the four
/// provider definitions once; cloning it is cheap.
pub struct SubmitTool<R> {
    pub(crate) inner: Arc<Inner>,
    _response: PhantomData<fn() -> R>,
}

impl<R> Clone for SubmitTool<R> {
    fn clone(&self) -> Self {
        SubmitTool {
            inner: Arc::clone(&self.inner),
            _response: PhantomData,
        }
    }
}

impl<R> std::fmt::Debug for SubmitTool<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SubmitTool")
            .field("name", &self.inner.options.tool_name)
            .field("payload", &self.inner.options.payload_field_name)
            .finish_non_exhaustive()
    }
}

/// A top-level payload property, in schema order.
#[derive(Clone, Debug)]
pub(crate) struct Property {
    pub(crate) name: String,
    /// Required by the original (not strict-rewritten) schema.
    #[allow(dead_code, reason = "read by the submit parser")]
    pub(crate) required: bool,
    /// The JSON types its schema admits, when the schema says exactly (`type`, or every branch
    /// of `anyOf`/`oneOf` typed); `None` when it may admit anything.
    pub(crate) types: Option<Types>,
}

/// A set of JSON Schema types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Types(u8);

impl Types {
    pub(crate) const NULL: Types = Types(1);
    pub(crate) const BOOLEAN: Types = Types(2);
    pub(crate) const INTEGER: Types = Types(4);
    pub(crate) const NUMBER: Types = Types(8);
    pub(crate) const STRING: Types = Types(16);
    pub(crate) const ARRAY: Types = Types(32);
    pub(crate) const OBJECT: Types = Types(64);

    /// The union of two sets.
    pub(crate) fn with(self, other: Types) -> Types {
        Types(self.0 | other.0)
    }

    /// Whether every type of `other` is in the set.
    pub(crate) fn has(self, other: Types) -> bool {
        self.0 & other.0 == other.0
    }

    fn named(name: &str) -> Option<Types> {
        Some(match name {
            "null" => Types::NULL,
            "boolean" => Types::BOOLEAN,
            "integer" => Types::INTEGER,
            "number" => Types::NUMBER,
            "string" => Types::STRING,
            "array" => Types::ARRAY,
            "object" => Types::OBJECT,
            _ => return None,
        })
    }

    /// The types a property schema admits, when it says exactly.
    pub(crate) fn of_schema(schema: &Value) -> Option<Types> {
        match schema.get("type") {
            Some(Value::String(name)) => return Types::named(name),
            Some(Value::Array(names)) => {
                return names.iter().try_fold(Types(0), |set, name| {
                    Some(set.with(Types::named(name.as_str()?)?))
                });
            }
            Some(_) => return None,
            None => {}
        }
        let branches = schema
            .get("anyOf")
            .or_else(|| schema.get("oneOf"))?
            .as_array()?;
        if branches.is_empty() {
            return None;
        }
        branches.iter().try_fold(Types(0), |set, branch| {
            Some(set.with(Types::of_schema(branch)?))
        })
    }
}

/// Everything a built tool computed once.
pub(crate) struct Inner {
    /// The options with defaults applied and validated.
    pub(crate) options: Options,
    /// The full, un-omitted payload schema (subschemas inlined, root description set).
    pub(crate) payload_schema: Value,
    /// The payload's top-level properties in schema order (full schema).
    #[allow(dead_code, reason = "read by the submit parser")]
    pub(crate) properties: Vec<Property>,
    /// The definitions, indexed by `Provider::index`.
    pub(crate) definitions: [Value; 4],
    /// For a tool built from a JSON Schema document: the validator of step 7.
    #[allow(dead_code, reason = "read by the submit parser")]
    pub(crate) validator: Option<jsonschema::Validator>,
    /// The payload schema is closed (`additionalProperties: false`): under `flat`, an unknown
    /// argument is rejected (SUBMIT.md §10.3c).
    pub(crate) closed: bool,
}

impl<R: DeserializeOwned> SubmitTool<R> {
    pub(crate) fn from_inner(inner: Inner) -> Self {
        SubmitTool {
            inner: Arc::new(inner),
            _response: PhantomData,
        }
    }

    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.inner.options.tool_name
    }

    /// The payload parameter's name.
    pub fn payload_field(&self) -> &str {
        &self.inner.options.payload_field_name
    }

    /// The options the tool was built with, defaults applied.
    pub fn options(&self) -> &Options {
        &self.inner.options
    }

    /// The full payload schema (before omitted fields are withheld).
    pub fn payload_schema(&self) -> &Value {
        &self.inner.payload_schema
    }

    /// The tool definition in `provider`'s wire format, computed when the tool was built.
    ///
    /// Each call returns a copy of the cached value; nothing is reflected or converted again.
    ///
    /// ```
    /// use submit_result::{Options, Provider, SubmitTool};
    ///
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Answer {
    ///     text: String,
    /// }
    ///
    /// let tool = SubmitTool::<Answer>::new(Options::new())?;
    /// let responses = tool.definition(Provider::OpenAiResponses);
    /// assert_eq!(responses["strict"], false);
    /// let gemini = tool.definition(Provider::Gemini);
    /// assert_eq!(gemini["parameters"]["properties"]["reasoning"]["type"], "STRING");
    /// # Ok::<(), submit_result::BuildError>(())
    /// ```
    pub fn definition(&self, provider: Provider) -> Value {
        self.inner.definitions[provider.index()].clone()
    }
}

impl<R: DeserializeOwned + schemars::JsonSchema> SubmitTool<R> {
    /// Builds the tool from options: applies the defaults, reflects `R`'s schema, validates
    /// the options against it and computes the four definitions.
    ///
    /// A recursive `R` keeps its recursion under `$defs` for the JSON Schema providers; the
    /// Gemini legacy form ([`GeminiSchema::Legacy`](crate::GeminiSchema::Legacy), the default)
    /// has no references, so such a type needs
    /// [`GeminiSchema::JsonSchema`](crate::GeminiSchema::JsonSchema) to build.
    ///
    /// ```
    /// use submit_result::{Options, Provider, SubmitTool};
    ///
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Answer {
    ///     /// The answer, in one sentence.
    ///     text: String,
    /// }
    ///
    /// let tool = SubmitTool::<Answer>::new(Options::new().payload_field_name("answer"))?;
    /// let definition = tool.definition(Provider::Claude);
    /// assert_eq!(definition["name"], "submit_result");
    /// assert_eq!(definition["input_schema"]["required"][1], "answer");
    /// # Ok::<(), submit_result::BuildError>(())
    /// ```
    pub fn new(options: Options) -> Result<Self, BuildError> {
        let options = options.with_defaults();
        check_names(&options)?;
        let settings = options.schema_settings_clone().unwrap_or_else(|| {
            schemars::generate::SchemaSettings::draft2020_12().with(|s| s.inline_subschemas = true)
        });
        let document = settings.into_generator().into_root_schema_for::<R>();
        let inner = build(options, document.as_value(), &R::schema_name(), None)?;
        Ok(SubmitTool::from_inner(inner))
    }
}

impl<R: SubmitResult> SubmitTool<R> {
    /// Builds the tool from the metadata `#[derive(SubmitResult)]` recorded on `R`.
    ///
    /// ```
    /// use submit_result::{Metadata, Provider, SubmitResult, SubmitTool};
    ///
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Verdict {
    ///     approve: bool,
    /// }
    ///
    /// impl SubmitResult for Verdict {
    ///     fn metadata() -> Metadata {
    ///         Metadata::from_tag("name=submit_verdict,omitReasoning").unwrap()
    ///     }
    /// }
    ///
    /// let tool = SubmitTool::<Verdict>::for_response()?;
    /// assert_eq!(tool.definition(Provider::OpenAiResponses)["name"], "submit_verdict");
    /// # Ok::<(), submit_result::BuildError>(())
    /// ```
    pub fn for_response() -> Result<Self, BuildError> {
        SubmitTool::new(Options::for_response::<R>())
    }
}

impl SubmitTool<Value> {
    /// Builds a tool whose payload is described by a JSON Schema document instead of a Rust
    /// type; step 7 then validates the payload against it.
    ///
    /// The document gets the same treatment as a reflected schema (local references inlined,
    /// no `$schema`/`$id`/`title` at the root, the root description set to the payload
    /// description, foreign integer formats removed). A document that is not a valid JSON
    /// Schema, or whose references point outside it, fails with [`BuildError::InvalidSchema`];
    /// nothing is fetched over the network.
    ///
    /// ```
    /// use serde_json::json;
    /// use submit_result::{Options, Provider, SubmitTool};
    ///
    /// let schema = json!({"type": "object",
    ///     "properties": {"verdict": {"enum": ["approve", "block"]}},
    ///     "required": ["verdict"]});
    /// let tool = SubmitTool::from_json_schema(schema, Options::new().flat_payload(true))?;
    /// let definition = tool.definition(Provider::OpenAiChat);
    /// assert_eq!(
    ///     definition["function"]["parameters"]["required"],
    ///     json!(["reasoning", "verdict"])
    /// );
    /// # Ok::<(), submit_result::BuildError>(())
    /// ```
    pub fn from_json_schema(schema: Value, options: Options) -> Result<Self, BuildError> {
        let options = options.with_defaults();
        check_names(&options)?;
        let validator = jsonschema::validator_for(&schema).map_err(|error| {
            let at = match error.instance_path().as_str() {
                "" => "the root".to_owned(),
                pointer => format!("`{pointer}`"),
            };
            BuildError::InvalidSchema(format!("at {at}: {error}; fix the document"))
        })?;
        let root_name = schema
            .get("title")
            .and_then(Value::as_str)
            .filter(|title| !title.is_empty())
            .unwrap_or("Payload")
            .to_owned();
        let inner = build(options, &schema, &root_name, Some(validator))?;
        Ok(SubmitTool::from_inner(inner))
    }
}

/// Checks the names and the reasoning collision that do not depend on the schema.
fn check_names(options: &Options) -> Result<(), BuildError> {
    if !submit_meta::is_valid_name(&options.tool_name) {
        return Err(BuildError::InvalidToolName(options.tool_name.to_string()));
    }
    if !submit_meta::is_valid_name(&options.payload_field_name) {
        return Err(BuildError::InvalidPayloadFieldName(
            options.payload_field_name.to_string(),
        ));
    }
    if options.payload_field_name == REASONING && !options.omit_reasoning {
        return Err(BuildError::PayloadNamedReasoning);
    }
    Ok(())
}

/// Everything after reflection: payload schema, validation against it, definitions.
fn build(
    options: Options,
    document: &Value,
    root_name: &str,
    validator: Option<jsonschema::Validator>,
) -> Result<Inner, BuildError> {
    let payload_schema = schema::payload_schema(document, root_name, &options.payload_description)?;
    let properties: Vec<Property> = schema::top_properties(&payload_schema)
        .into_iter()
        .map(|p| Property {
            types: payload_schema
                .get("properties")
                .and_then(|properties| properties.get(&p.name))
                .and_then(Types::of_schema),
            name: p.name,
            required: p.required,
        })
        .collect();
    let closed = payload_schema.get("additionalProperties") == Some(&Value::Bool(false));
    if options.flat_payload {
        if let Some(problem) = schema::flat_shape_problem(&payload_schema) {
            return Err(BuildError::FlatNotAnObject(problem));
        }
        if !options.omit_reasoning && properties.iter().any(|p| p.name == REASONING) {
            return Err(BuildError::FlatPropertyNamedReasoning);
        }
    }
    let mut advertised = payload_schema.clone();
    schema::omit_fields(&mut advertised, &options.omit_payload_fields)?;
    let parameters = schema::parameters(
        &advertised,
        schema::Shape {
            payload_field: &options.payload_field_name,
            omit_reasoning: options.omit_reasoning,
            flat: options.flat_payload,
        },
    );
    let input = schema::DefinitionInput {
        name: &options.tool_name,
        description: &options.description,
        parameters: &parameters,
        strict: options.strict,
        gemini_schema: options.gemini_schema,
    };
    let mut definitions: [Value; 4] = Default::default();
    for provider in Provider::ALL {
        let definition = provider.build_definition(&input)?;
        if let Some(slot) = definitions.get_mut(provider.index()) {
            *slot = definition;
        }
    }
    Ok(Inner {
        options,
        payload_schema,
        properties,
        definitions,
        validator,
        closed,
    })
}
