//! `SubmitTool<R>`: built once, definitions cached, handles calls.

use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde_json::Value;

#[cfg(doc)]
use crate::error::ParameterCause;
use crate::error::SubmitError;
use crate::metadata::{SubmitResult, REASONING};
use crate::options::{BuildError, Options};
use crate::outcome::{Outcome, Rejected};
use crate::parse::{Arguments, FromValue, Parser};
use crate::provider::Provider;
use crate::receive::{self, Incoming};
use crate::schema;
use crate::schema::property::Property;
use crate::stop::StopReason;

/// A terminal submit tool for the response type `R`.
///
/// Building it reflects the payload schema, validates the options and computes the four
/// provider definitions once; cloning it is cheap.
pub struct SubmitTool<R> {
    pub(crate) inner: Arc<Inner>,
    /// The response from a validated JSON payload: serde's decode, or for a tool built from a
    /// JSON Schema document (whose response is that JSON) the payload itself, moved.
    pub(crate) from_value: FromValue<R>,
}

impl<R> Clone for SubmitTool<R> {
    fn clone(&self) -> Self {
        SubmitTool {
            inner: Arc::clone(&self.inner),
            from_value: self.from_value,
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

/// Everything a built tool computed once.
pub(crate) struct Inner {
    /// The options with defaults applied and validated.
    pub(crate) options: Options,
    /// The full, un-omitted payload schema (subschemas inlined, root description set).
    pub(crate) payload_schema: Value,
    /// The payload's top-level properties in schema order (full schema).
    pub(crate) properties: Vec<Property>,
    /// The definitions, indexed by `Provider::index`.
    pub(crate) definitions: [Value; 4],
    /// For a tool built from a JSON Schema document: the validator of step *Decode*.
    pub(crate) validator: Option<jsonschema::Validator>,
    /// The payload schema is closed (`additionalProperties: false`): under `flat`, an unknown
    /// argument is rejected.
    pub(crate) closed: bool,
}

impl<R: DeserializeOwned> SubmitTool<R> {
    pub(crate) fn from_inner(inner: Inner) -> Self {
        SubmitTool {
            inner: Arc::new(inner),
            from_value: serde_json::from_value::<R>,
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

    /// The tool's description.
    pub fn description(&self) -> &str {
        &self.inner.options.description
    }

    /// The `message` of the tool result an accepted call gets.
    ///
    /// ```
    /// # extern crate submit_core as submit_result;
    /// use submit_result::{Options, SubmitTool};
    ///
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Plan {
    ///     steps: Vec<String>,
    /// }
    ///
    /// let tool = SubmitTool::<Plan>::new(Options::new())?;
    /// assert_eq!(tool.success_message(), "Result submitted successfully.");
    /// # Ok::<(), submit_result::BuildError>(())
    /// ```
    pub fn success_message(&self) -> &str {
        &self.inner.options.success_message
    }

    /// The payload parameter's description.
    pub fn payload_description(&self) -> &str {
        &self.inner.options.payload_description
    }

    /// Whether the `reasoning` parameter is dropped.
    pub fn omits_reasoning(&self) -> bool {
        self.inner.options.omit_reasoning
    }

    /// The payload properties withheld from the advertised schema.
    pub fn omitted_payload_fields(&self) -> &[String] {
        &self.inner.options.omit_payload_fields
    }

    /// Whether each payload property is advertised as its own parameter.
    pub fn is_flat(&self) -> bool {
        self.inner.options.flat_payload
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
    /// # extern crate submit_core as submit_result;
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

    /// Handles a call in `provider`'s native shape (a `tool_use` block, a `functionCall` part,
    /// a Chat tool call, a Responses `function_call` item), as a complete call.
    ///
    /// This is [`SubmitTool::receive`] for a call as a value, its answers all outcomes: a call
    /// that is not in the provider's shape (see [`Provider::read_call`]) is rejected like
    /// arguments that do not decode (cause [`ParameterCause::UndecodableArguments`], message
    /// `failed to parse tool arguments: not a tool call in the <provider> shape: <what is
    /// wrong>`), and so is a `multi_tool_use.parallel` wrapper without an entry naming this
    /// tool. Where the turn's stop reason or the call's bytes are known, use
    /// [`SubmitTool::receive`]. Never panics, whatever the input.
    ///
    /// ```
    /// # extern crate submit_core as submit_result;
    /// # fn main() -> Result<(), submit_result::BuildError> {
    /// use serde_json::json;
    /// use submit_result::{Options, Outcome, Provider, RecoveryKind, SubmitTool};
    ///
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Analysis {
    ///     summary: String,
    /// }
    ///
    /// let tool = SubmitTool::<Analysis>::new(Options::new().payload_field_name("analysis"))?;
    /// let call = json!({
    ///     "id": "call_1", "type": "function",
    ///     "function": {"name": "submit_result",
    ///                  "arguments": r#"{"reasoning":"done","analysis":"{\"summary\":\"ok\"}</analysis>"}"#}
    /// });
    /// let Outcome::Accepted(accepted) = tool.handle(Provider::OpenAiChat, &call) else {
    ///     panic!("rejected");
    /// };
    /// assert_eq!(accepted.response.summary, "ok");
    /// assert_eq!(accepted.recovery(), Some(RecoveryKind::Stringified));
    /// # Ok(())
    /// # }
    /// ```
    pub fn handle(&self, provider: Provider, call: &Value) -> Outcome<R> {
        match self.receive(Incoming::call(provider, call)) {
            Ok(Some(outcome)) => outcome,
            Ok(None) => self.reject(receive::no_entry()),
            Err(shape) => self.reject(receive::not_a_call(&shape)),
        }
    }

    /// Handles a call's arguments directly, as a complete call.
    ///
    /// ```
    /// # extern crate submit_core as submit_result;
    /// # fn main() -> Result<(), submit_result::BuildError> {
    /// use submit_result::{Arguments, ErrorClass, Options, Outcome, ParameterCause, SubmitTool};
    ///
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Analysis {
    ///     summary: String,
    /// }
    ///
    /// let tool = SubmitTool::<Analysis>::new(Options::new())?;
    /// let outcome = tool.handle_arguments(Arguments::Text(r#"{"result":{"summary":"ok"}}"#));
    /// let Outcome::Rejected(rejected) = outcome else { panic!("accepted") };
    /// assert_eq!(rejected.error.class(), ErrorClass::Parameter);
    /// assert_eq!(rejected.error.cause(), Some(ParameterCause::AbsentOrMistyped));
    /// assert_eq!(rejected.tool_result["error"], "reasoning parameter is required");
    /// # Ok(())
    /// # }
    /// ```
    pub fn handle_arguments(&self, arguments: Arguments<'_>) -> Outcome<R> {
        self.verdict(arguments, StopReason::Complete)
    }

    /// What the parse steps read of the tool.
    pub(crate) fn parser(&self) -> Parser<'_> {
        Parser {
            options: &self.inner.options,
            properties: &self.inner.properties,
            validator: self.inner.validator.as_ref(),
            payload_schema: &self.inner.payload_schema,
            closed: self.inner.closed,
            #[cfg(test)]
            fast_paths: true,
        }
    }

    pub(crate) fn reject(&self, error: SubmitError) -> Outcome<R> {
        tracing::info!(
            tool = %self.inner.options.tool_name,
            class = ?error.class(),
            cause = ?error.cause(),
            error = %error.trace_text(),
            "rejected submit"
        );
        Outcome::Rejected(Rejected::new(error))
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
    /// # extern crate submit_core as submit_result;
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
    /// # extern crate submit_core as submit_result;
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
    /// type; step *Decode* of the [parsing rules](crate::rules::parsing) then validates the
    /// payload against it.
    ///
    /// The document gets the same treatment as a reflected schema (local references inlined,
    /// no `$schema`/`$id`/`title` at the root, the root description set to the payload
    /// description, foreign integer formats removed). A document that is not a valid JSON
    /// Schema, or whose references point outside it, fails with [`BuildError::InvalidSchema`];
    /// nothing is fetched over the network.
    ///
    /// ```
    /// # extern crate submit_core as submit_result;
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
        Ok(SubmitTool {
            inner: Arc::new(inner),
            from_value: Ok,
        })
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
    let properties = schema::property::table(&payload_schema);
    let closed = payload_schema.get("additionalProperties") == Some(&Value::Bool(false));
    if options.flat_payload {
        if let Some(problem) = schema::flat_schema_problem(&payload_schema) {
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
        schema::Layout {
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
