//! Options of a submit tool and the errors of building one.

use std::borrow::Cow;
use std::sync::{Arc, Mutex, PoisonError};

use crate::metadata::{
    Metadata, MetadataErrors, SubmitResult, DEFAULT_DESCRIPTION, DEFAULT_PAYLOAD_DESCRIPTION,
    DEFAULT_PAYLOAD_FIELD, DEFAULT_SUCCESS_MESSAGE, DEFAULT_TOOL_NAME,
};

/// Which form the Gemini definition's parameter schema takes.
///
/// ```
/// # extern crate submit_core as submit_result;
/// use submit_result::{GeminiSchema, Options, Provider, SubmitTool};
///
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct Answer {
///     text: Option<String>,
/// }
///
/// let legacy = SubmitTool::<Answer>::new(Options::new())?;
/// let definition = legacy.definition(Provider::Gemini);
/// assert_eq!(definition["parameters"]["properties"]["result"]["type"], "OBJECT");
///
/// let json = SubmitTool::<Answer>::new(Options::new().gemini_schema(GeminiSchema::JsonSchema))?;
/// let definition = json.definition(Provider::Gemini);
/// assert_eq!(definition["parametersJsonSchema"]["properties"]["result"]["type"], "object");
/// # Ok::<(), submit_result::BuildError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum GeminiSchema {
    /// `parameters`: the legacy OpenAPI 3.0 subset (upper-case types, `nullable`, no `$ref`).
    ///
    /// It has no references, so a recursive payload type cannot be expressed in it: building
    /// such a tool fails with [`BuildError::GeminiLegacy`] unless
    /// [`GeminiSchema::JsonSchema`] is chosen.
    #[default]
    Legacy,
    /// `parametersJsonSchema`: plain JSON Schema, `$defs` and `$ref` included.
    JsonSchema,
}

/// How a submit tool is named, described and laid out.
///
/// A builder: start from [`Options::new`] (every default), [`Options::for_response`] (the
/// type's `#[submit_result(...)]` metadata) or [`Options::from_tag`], then adjust with the
/// builder methods. Empty strings mean "use the default". Nothing is checked until the tool is
/// built; the [`SubmitTool`](crate::SubmitTool) built from them answers what they set.
///
/// ```
/// # extern crate submit_core as submit_result;
/// use submit_result::{Options, SubmitTool};
///
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct Review {
///     verdict: String,
/// }
///
/// let options = Options::new()
///     .tool_name("submit_review")
///     .payload_field_name("review")
///     .omit_reasoning(true);
/// let tool = SubmitTool::<Review>::new(options)?;
/// assert_eq!(tool.name(), "submit_review");
/// assert!(tool.omits_reasoning());
/// # Ok::<(), submit_result::BuildError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Options {
    pub(crate) tool_name: Cow<'static, str>,
    pub(crate) description: Cow<'static, str>,
    pub(crate) success_message: Cow<'static, str>,
    pub(crate) payload_field_name: Cow<'static, str>,
    pub(crate) payload_description: Cow<'static, str>,
    pub(crate) omit_reasoning: bool,
    pub(crate) omit_payload_fields: Vec<String>,
    pub(crate) flat_payload: bool,
    pub(crate) strict: bool,
    pub(crate) gemini_schema: GeminiSchema,
    /// Behind a mutex: schemars' transforms are `Send` but not `Sync`, and a built tool is
    /// shared across threads.
    pub(crate) schema_settings: Option<Arc<Mutex<schemars::generate::SchemaSettings>>>,
}

impl Default for Options {
    fn default() -> Self {
        Options::new()
    }
}

fn or_default(value: Option<Cow<'static, str>>, default: &'static str) -> Cow<'static, str> {
    value.unwrap_or(Cow::Borrowed(default))
}

impl Options {
    /// Options with every default: tool `submit_result`, payload `result`, reasoning on.
    pub fn new() -> Self {
        Options::from_metadata(&Metadata::EMPTY)
    }

    /// Options from metadata, with defaults for what it leaves out.
    pub fn from_metadata(metadata: &Metadata) -> Self {
        Options {
            tool_name: or_default(metadata.name.clone(), DEFAULT_TOOL_NAME),
            description: or_default(metadata.description.clone(), DEFAULT_DESCRIPTION),
            success_message: or_default(metadata.success.clone(), DEFAULT_SUCCESS_MESSAGE),
            payload_field_name: or_default(metadata.payload.clone(), DEFAULT_PAYLOAD_FIELD),
            payload_description: or_default(
                metadata.payload_description.clone(),
                DEFAULT_PAYLOAD_DESCRIPTION,
            ),
            omit_reasoning: metadata.omit_reasoning,
            omit_payload_fields: Vec::new(),
            flat_payload: metadata.flat,
            strict: false,
            gemini_schema: GeminiSchema::default(),
            schema_settings: None,
        }
    }

    /// Options from the metadata `#[derive(SubmitResult)]` recorded on `R`.
    ///
    /// The derive comes with the `submit-result` crate (its crate-level example shows it); here
    /// the metadata trait is implemented by hand, with the metadata the attribute
    /// `#[submit_result(name = "submit_analysis", payload = "analysis")]` records.
    ///
    /// ```
    /// # extern crate submit_core as submit_result;
    /// use submit_result::{Metadata, Options, SubmitResult};
    ///
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Analysis {
    ///     summary: String,
    /// }
    ///
    /// impl SubmitResult for Analysis {
    ///     fn metadata() -> Metadata {
    ///         Metadata::from_tag("name=submit_analysis,payload=analysis").unwrap()
    ///     }
    /// }
    ///
    /// let tool = submit_result::SubmitTool::<Analysis>::new(Options::for_response::<Analysis>())?;
    /// assert_eq!(tool.payload_field(), "analysis");
    /// # Ok::<(), submit_result::BuildError>(())
    /// ```
    pub fn for_response<R: SubmitResult>() -> Self {
        Options::from_metadata(&R::metadata())
    }

    /// Options from a tag string in the metadata grammar, the one `#[submit_result("...")]`
    /// reads: comma-separated `key=value` parts, `\,` for a literal comma, bare
    /// `flat`/`omit_reasoning` flags.
    ///
    /// Keys are `name`, `description`, `success`, `payload`, `payloadDescription`, `flat` and
    /// `omitReasoning` (also `payload_description`, `omit_reasoning`), matched without regard
    /// to case. Every mistake is reported.
    ///
    /// ```
    /// # extern crate submit_core as submit_result;
    /// use submit_result::{Options, SubmitTool};
    ///
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Decision {
    ///     approve: bool,
    /// }
    ///
    /// let options = Options::from_tag("name=submit_decision,payloadDescription=a\\, b,flat")?;
    /// let tool = SubmitTool::<Decision>::new(options)?;
    /// assert_eq!(tool.name(), "submit_decision");
    /// assert_eq!(tool.payload_description(), "a, b");
    ///
    /// let error = Options::from_tag("nmae=x").unwrap_err();
    /// assert!(error.to_string().contains("did you mean `name`?"));
    /// # Ok::<(), submit_result::BuildError>(())
    /// ```
    pub fn from_tag(tag: &str) -> Result<Self, BuildError> {
        Ok(Options::from_metadata(&Metadata::from_tag(tag)?))
    }

    /// Sets the tool name (default `submit_result`).
    pub fn tool_name(mut self, name: impl Into<Cow<'static, str>>) -> Self {
        self.tool_name = name.into();
        self
    }

    /// Sets the tool description (default: a text saying the call is terminal and final).
    pub fn description(mut self, description: impl Into<Cow<'static, str>>) -> Self {
        self.description = description.into();
        self
    }

    /// Sets the `message` of the success tool result (default `Result submitted successfully.`).
    pub fn success_message(mut self, message: impl Into<Cow<'static, str>>) -> Self {
        self.success_message = message.into();
        self
    }

    /// Sets the payload parameter's name (default `result`).
    pub fn payload_field_name(mut self, name: impl Into<Cow<'static, str>>) -> Self {
        self.payload_field_name = name.into();
        self
    }

    /// Sets the payload parameter's description (default `Structured result payload.`).
    pub fn payload_description(mut self, description: impl Into<Cow<'static, str>>) -> Self {
        self.payload_description = description.into();
        self
    }

    /// Drops the `reasoning` parameter; the accepted reasoning is then `""`.
    pub fn omit_reasoning(mut self, omit: bool) -> Self {
        self.omit_reasoning = omit;
        self
    }

    /// Withholds top-level payload properties from the advertised schema (decoding still
    /// reads them). Each name must be a property of the schema and not required.
    pub fn omit_payload_fields<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.omit_payload_fields = names.into_iter().map(Into::into).collect();
        self
    }

    /// Advertises each payload property as its own parameter beside `reasoning`.
    pub fn flat_payload(mut self, flat: bool) -> Self {
        self.flat_payload = flat;
        self
    }

    /// Asks OpenAI and Anthropic for strict schema adherence (off by default).
    ///
    /// OpenAI's definitions then carry `"strict": true` with every object closed and every
    /// property required (optional ones made nullable); Anthropic's carry `"strict": true`
    /// with every object closed and the constraints it does not enforce moved into the
    /// descriptions. Gemini has no strict mode: its definition stays the ordinary one (see
    /// [`Provider::supports_strict`](crate::Provider::supports_strict)). A schema that cannot be
    /// made strict (`not`, an `allOf` whose branches conflict, a map with open keys, and for
    /// Anthropic a recursive type) fails to build with [`BuildError::NotStrict`].
    ///
    /// ```
    /// # extern crate submit_core as submit_result;
    /// use submit_result::{Options, Provider, SubmitTool};
    ///
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Answer {
    ///     text: String,
    ///     source: Option<String>,
    /// }
    ///
    /// let tool = SubmitTool::<Answer>::new(Options::new().strict(true))?;
    /// let chat = tool.definition(Provider::OpenAiChat);
    /// assert_eq!(chat["function"]["strict"], true);
    /// let payload = &chat["function"]["parameters"]["properties"]["result"];
    /// assert_eq!(payload["required"], serde_json::json!(["text", "source"]));
    /// assert_eq!(payload["additionalProperties"], false);
    /// # Ok::<(), submit_result::BuildError>(())
    /// ```
    pub fn strict(mut self, strict: bool) -> Self {
        self.strict = strict;
        self
    }

    /// Sets each option `overrides` gives over these, leaving the others: how a front end (the
    /// command line's flags, a binding's keyword arguments) lays what its caller gave over a
    /// tag or the defaults.
    ///
    /// ```
    /// # extern crate submit_core as submit_result;
    /// use submit_result::{Options, Overrides};
    ///
    /// let options = Options::from_tag("name=submit_plan,payload=plan,flat")?
    ///     .with_overrides(Overrides {
    ///         name: Some("submit_review".into()),
    ///         flat: Some(false),
    ///         ..Overrides::default()
    ///     });
    /// let tool = submit_result::SubmitTool::<serde_json::Value>::new(options)?;
    /// assert_eq!((tool.name(), tool.payload_field(), tool.is_flat()), ("submit_review", "plan", false));
    /// # Ok::<(), submit_result::BuildError>(())
    /// ```
    pub fn with_overrides(mut self, overrides: Overrides) -> Self {
        let Overrides {
            name,
            description,
            payload,
            payload_description,
            success,
            flat,
            omit_reasoning,
            omit_fields,
            strict,
        } = overrides;
        if let Some(name) = name {
            self = self.tool_name(name);
        }
        if let Some(description) = description {
            self = self.description(description);
        }
        if let Some(payload) = payload {
            self = self.payload_field_name(payload);
        }
        if let Some(text) = payload_description {
            self = self.payload_description(text);
        }
        if let Some(text) = success {
            self = self.success_message(text);
        }
        if let Some(flat) = flat {
            self = self.flat_payload(flat);
        }
        if let Some(omit) = omit_reasoning {
            self = self.omit_reasoning(omit);
        }
        if let Some(fields) = omit_fields {
            self = self.omit_payload_fields(fields);
        }
        if let Some(strict) = strict {
            self = self.strict(strict);
        }
        self
    }

    /// Picks the form of Gemini's parameter schema (default [`GeminiSchema::Legacy`]).
    pub fn gemini_schema(mut self, form: GeminiSchema) -> Self {
        self.gemini_schema = form;
        self
    }

    /// Sets the schemars settings used to reflect the payload type (default: draft 2020-12).
    pub fn schema_settings(mut self, settings: schemars::generate::SchemaSettings) -> Self {
        self.schema_settings = Some(Arc::new(Mutex::new(settings)));
        self
    }

    /// The schemars settings to reflect with, if any were set.
    pub(crate) fn schema_settings_clone(&self) -> Option<schemars::generate::SchemaSettings> {
        self.schema_settings.as_ref().map(|settings| {
            settings
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .clone()
        })
    }

    /// These options with the defaults applied to every empty string.
    pub(crate) fn with_defaults(mut self) -> Self {
        fn fill(value: &mut Cow<'static, str>, default: &'static str) {
            if value.is_empty() {
                *value = Cow::Borrowed(default);
            }
        }
        fill(&mut self.tool_name, DEFAULT_TOOL_NAME);
        fill(&mut self.description, DEFAULT_DESCRIPTION);
        fill(&mut self.success_message, DEFAULT_SUCCESS_MESSAGE);
        fill(&mut self.payload_field_name, DEFAULT_PAYLOAD_FIELD);
        fill(&mut self.payload_description, DEFAULT_PAYLOAD_DESCRIPTION);
        self
    }
}

/// Why a submit tool could not be built. Each message says what to change.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// The metadata (a tag string) has mistakes.
    #[error("invalid submit_result metadata: {0}")]
    Metadata(#[from] MetadataErrors),
    /// A tool name outside `^[A-Za-z0-9_-]{1,64}$`.
    #[error(
        "invalid tool name `{0}`: use 1 to 64 characters from `A-Z`, `a-z`, `0-9`, `_` and `-`"
    )]
    InvalidToolName(String),
    /// A payload field name outside `^[A-Za-z0-9_-]{1,64}$`.
    #[error("invalid payload field name `{0}`: use 1 to 64 characters from `A-Z`, `a-z`, `0-9`, `_` and `-`")]
    InvalidPayloadFieldName(String),
    /// The payload parameter is named `reasoning` while reasoning is advertised.
    #[error("the payload field cannot be named `reasoning` while the reasoning parameter is advertised: choose another payload field name, or set omit_reasoning")]
    PayloadNamedReasoning,
    /// Under `flat`, a payload property named `reasoning` while reasoning is advertised.
    #[error("flat payload property `reasoning` collides with the reasoning parameter: rename the property, or set omit_reasoning")]
    FlatPropertyNamedReasoning,
    /// `flat` on a payload whose schema is not an object with properties.
    #[error("flat payload needs a struct with named fields, but the payload schema is {0}: turn flat off")]
    FlatNotAnObject(String),
    /// `omit_payload_fields` names a property the schema does not have.
    #[error("cannot omit payload field `{0}`: the payload schema has no such top-level property")]
    OmitUnknownField(String),
    /// `omit_payload_fields` names a property twice.
    #[error("cannot omit payload field `{0}` twice: list each field once")]
    OmitDuplicateField(String),
    /// `omit_payload_fields` names a required property: every submit would then fail to decode.
    #[error("cannot omit payload field `{0}`: it is required, so every submit would fail to decode; give it a serde default or make it an Option")]
    OmitRequiredField(String),
    /// The payload schema could not be made strict for a provider.
    #[error("cannot make the payload schema strict for {provider}: {reason}; turn strict off or change the type")]
    NotStrict {
        /// The provider whose strict mode cannot express the schema.
        provider: crate::Provider,
        /// What in the schema stands in the way, with its JSON pointer.
        reason: String,
    },
    /// The schema cannot be expressed in Gemini's legacy subset.
    #[error("cannot express the payload schema in Gemini's legacy schema subset: {0}; use GeminiSchema::JsonSchema")]
    GeminiLegacy(String),
    /// A JSON Schema document given for the payload that is not a valid schema.
    #[error("invalid payload JSON Schema: {0}")]
    InvalidSchema(String),
}

/// Options a front end's caller gave, each `None` when not given, laid over a tool's options by
/// [`Options::with_overrides`]. The fields name the options as the command line's flags do.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Overrides {
    /// The tool's name ([`Options::tool_name`]).
    pub name: Option<String>,
    /// The tool's description ([`Options::description`]).
    pub description: Option<String>,
    /// The payload parameter's name ([`Options::payload_field_name`]).
    pub payload: Option<String>,
    /// The payload parameter's description ([`Options::payload_description`]).
    pub payload_description: Option<String>,
    /// The message of an accepted call's tool result ([`Options::success_message`]).
    pub success: Option<String>,
    /// Each payload property a parameter of its own ([`Options::flat_payload`]).
    pub flat: Option<bool>,
    /// No `reasoning` parameter ([`Options::omit_reasoning`]).
    pub omit_reasoning: Option<bool>,
    /// Payload fields left out of the schema ([`Options::omit_payload_fields`]).
    pub omit_fields: Option<Vec<String>>,
    /// Strict schema adherence ([`Options::strict`]).
    pub strict: Option<bool>,
}
