//! What a `SubmitTool` is built from: the schema (a dict or a Pydantic model class), the
//! keyword arguments, and a tag's metadata under them.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyType};
use serde_json::Value;
use submit_core::{BuildError as CoreBuildError, Metadata, MetadataErrors, Options, Overrides};

use crate::convert::to_json;
use crate::error::BuildError;

/// The schema document and the model class, from a dict or a Pydantic model class.
pub(crate) fn schema_of(schema: &Bound<'_, PyAny>) -> PyResult<(Value, Option<Py<PyAny>>)> {
    if schema.is_instance_of::<PyType>() && schema.hasattr("model_json_schema")? {
        let document = schema.call_method0("model_json_schema")?;
        return Ok((
            to_json(&document, "the model's JSON Schema")?,
            Some(schema.clone().unbind()),
        ));
    }
    if !schema.is_instance_of::<PyDict>() {
        return Err(PyTypeError::new_err(format!(
            "schema must be a JSON Schema dict or a Pydantic model class, got {}",
            schema.get_type().name()?
        )));
    }
    Ok((to_json(schema, "schema")?, None))
}

pub(crate) fn build_error(error: CoreBuildError) -> PyErr {
    BuildError::new_err(error.to_string())
}

/// The keyword arguments `SubmitTool(...)` and `SubmitTool.from_tag(...)` take, each `None`
/// when not given.
pub(crate) struct Keywords {
    pub(crate) name: Option<String>,
    pub(crate) description: Option<String>,
    pub(crate) payload: Option<String>,
    pub(crate) payload_description: Option<String>,
    pub(crate) success: Option<String>,
    pub(crate) flat: Option<bool>,
    pub(crate) omit_reasoning: Option<bool>,
    pub(crate) omit_fields: Option<Vec<String>>,
    pub(crate) strict: Option<bool>,
}

impl Keywords {
    /// `options` with every keyword given set over it (the core's [`Overrides`]).
    pub(crate) fn over(self, options: Options) -> Options {
        options.with_overrides(Overrides {
            name: self.name,
            description: self.description,
            payload: self.payload,
            payload_description: self.payload_description,
            success: self.success,
            flat: self.flat,
            omit_reasoning: self.omit_reasoning,
            omit_fields: self.omit_fields,
            strict: self.strict,
        })
    }
}

/// The metadata a tag sets. A tag naming its payload `reasoning` is not refused when a keyword
/// overrides what makes that a mistake (`payload=...`, `omit_reasoning=True`), as the
/// command-line tool's flags override it; building checks the final combination again.
pub(crate) fn tag_metadata(tag: &str, overridden: bool) -> PyResult<Metadata> {
    let mut builder = submit_meta::Builder::default();
    for part in submit_meta::split_tag(tag) {
        builder.tag_part(&part, ());
    }
    let (metadata, errors) = builder.finish_located();
    let errors: Vec<_> = errors
        .into_iter()
        .map(|(error, ())| error)
        .filter(|error| !(overridden && *error == submit_meta::Error::PayloadNamedReasoning))
        .collect();
    if errors.is_empty() {
        Ok(metadata)
    } else {
        Err(build_error(CoreBuildError::Metadata(MetadataErrors(
            errors,
        ))))
    }
}

/// `omit_fields` as names: a sequence of strings (a lone string is refused, not split).
pub(crate) fn field_names(fields: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    if fields.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err(
            "omit_fields must be a sequence of property names, not one string",
        ));
    }
    let mut names = Vec::new();
    for item in fields.try_iter()? {
        let item = item?;
        names.push(item.extract::<String>().map_err(|_| {
            PyTypeError::new_err("omit_fields must be a sequence of property names (str)")
        })?);
    }
    Ok(names)
}
