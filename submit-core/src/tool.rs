//! `SubmitTool<R>`: built once, definitions cached, handles calls.

use std::marker::PhantomData;
use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::metadata::SubmitResult;
use crate::options::{BuildError, Options};
use crate::provider::Provider;

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
    pub(crate) required: bool,
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
    /// For a tool built from a JSON Schema document: the validator of step 7.
    pub(crate) validator: Option<jsonschema::Validator>,
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
    pub fn definition(&self, provider: Provider) -> Value {
        self.inner.definitions[provider.index()].clone()
    }
}

impl<R: DeserializeOwned + schemars::JsonSchema> SubmitTool<R> {
    /// Builds the tool from options.
    pub fn new(options: Options) -> Result<Self, BuildError> {
        let _ = options;
        todo!("schema reflection and definitions")
    }
}

impl<R: SubmitResult> SubmitTool<R> {
    /// Builds the tool from the metadata `#[derive(SubmitResult)]` recorded on `R`.
    pub fn for_response() -> Result<Self, BuildError> {
        SubmitTool::new(Options::for_response::<R>())
    }
}

impl SubmitTool<Value> {
    /// Builds a tool whose payload is described by a JSON Schema document instead of a Rust
    /// type; step 7 then validates the payload against it.
    pub fn from_json_schema(schema: Value, options: Options) -> Result<Self, BuildError> {
        let _ = (schema, options);
        todo!("dynamic schemas")
    }
}
