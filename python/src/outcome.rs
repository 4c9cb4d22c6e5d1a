//! The outcome classes `handle` returns: `Accepted` (with its `Recovery` items) and
//! `Rejected`.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};
use serde_json::Value;
use submit_core::{Outcome, Recovery};

use crate::convert::{deep_copy, quoted, quoted_list, to_python};

/// One recovery that applied: its kind, the parameters (or JSON Pointers) it touched, and
/// for a call written as text, its format.
#[pyclass(module = "submit_result", frozen, name = "Recovery", eq)]
#[derive(PartialEq)]
pub(crate) struct RecoveryInfo {
    #[pyo3(get)]
    kind: &'static str,
    parameters: Vec<String>,
    #[pyo3(get)]
    format: Option<&'static str>,
}

impl From<&Recovery> for RecoveryInfo {
    fn from(recovery: &Recovery) -> Self {
        RecoveryInfo {
            kind: recovery.kind.as_str(),
            parameters: recovery.parameters.clone(),
            format: recovery.format.map(|format| format.as_str()),
        }
    }
}

#[pymethods]
impl RecoveryInfo {
    /// The parameters or JSON Pointers the recovery touched.
    #[getter]
    fn parameters<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, &self.parameters)
    }

    /// The recovery as the JSON the command-line tool prints (`{"kind", "parameters",
    /// "format"?}`).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        dict.set_item("kind", self.kind)?;
        dict.set_item("parameters", PyList::new(py, &self.parameters)?)?;
        if let Some(format) = self.format {
            dict.set_item("format", format)?;
        }
        Ok(dict)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let mut text = format!(
            "Recovery({}, parameters={}",
            quoted(py, self.kind)?,
            quoted_list(py, &self.parameters)?
        );
        if let Some(format) = self.format {
            text.push_str(&format!(", format={}", quoted(py, format)?));
        }
        text.push(')');
        Ok(text)
    }
}

/// An accepted submit: the response, the reasoning, and every recovery that applied.
#[pyclass(module = "submit_result", frozen)]
pub(crate) struct Accepted {
    /// The response: a dict, or the Pydantic model the tool was built from.
    #[pyo3(get)]
    response: Py<PyAny>,
    /// The final reasoning (`""` under `omit_reasoning`).
    #[pyo3(get)]
    reasoning: String,
    /// Where the payload was found when it was not the payload parameter's object.
    #[pyo3(get)]
    recovery: Option<&'static str>,
    /// Every recovery that applied, in the order applied.
    #[pyo3(get)]
    recoveries: Py<PyTuple>,
    /// `{"success": True, "message": …}`, the tool result to send back.
    tool_result: Py<PyAny>,
}

#[pymethods]
impl Accepted {
    /// Always true.
    #[getter]
    fn accepted(&self) -> bool {
        true
    }

    /// The tool result to send back to the model (a fresh copy).
    #[getter]
    fn tool_result<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        deep_copy(self.tool_result.bind(py))
    }

    fn __bool__(&self) -> bool {
        true
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let response = self.response.bind(py).repr()?;
        let mut text = format!("Accepted(response={response}");
        if let Some(recovery) = self.recovery {
            text.push_str(&format!(", recovery={}", quoted(py, recovery)?));
        }
        let recoveries = self.recoveries.bind(py);
        if !recoveries.is_empty() {
            let kinds = recoveries
                .iter()
                .map(|item| item.getattr("kind")?.extract::<String>())
                .collect::<PyResult<Vec<_>>>()?;
            text.push_str(&format!(", recoveries={}", quoted_list(py, &kinds)?));
        }
        text.push(')');
        Ok(text)
    }
}

/// A rejected submit: its class and cause, the message the model reads, the trace text, and
/// the tool result to send back.
#[pyclass(module = "submit_result", frozen)]
pub(crate) struct Rejected {
    /// `"parameter"` or `"payload"`.
    #[pyo3(get)]
    error_class: &'static str,
    /// The parameter cause (`"absent_or_mistyped"`, …); `None` for a payload error.
    #[pyo3(get)]
    cause: Option<&'static str>,
    /// The message the model reads.
    #[pyo3(get)]
    message: String,
    /// What the trace records: the class, the message, and the bounded echo of a declined
    /// string.
    #[pyo3(get)]
    trace: String,
    /// `{"error": <message>}`.
    tool_result: Py<PyAny>,
}

#[pymethods]
impl Rejected {
    /// Always false.
    #[getter]
    fn accepted(&self) -> bool {
        false
    }

    /// The tool result to send back to the model (a fresh copy).
    #[getter]
    fn tool_result<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        deep_copy(self.tool_result.bind(py))
    }

    fn __bool__(&self) -> bool {
        false
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let mut text = format!("Rejected(error_class={}", quoted(py, self.error_class)?);
        if let Some(cause) = self.cause {
            text.push_str(&format!(", cause={}", quoted(py, cause)?));
        }
        text.push_str(&format!(", message={})", quoted(py, &self.message)?));
        Ok(text)
    }
}

/// An outcome as the Python object of its kind; for a tool built from a Pydantic `model`, an
/// accepted response is validated into it.
pub(crate) fn object(
    py: Python<'_>,
    model: Option<&Py<PyAny>>,
    outcome: Outcome<Value>,
) -> PyResult<Py<PyAny>> {
    match outcome {
        Outcome::Accepted(accepted) => {
            let mut response = to_python(py, &accepted.response)?;
            if let Some(model) = model {
                match model.bind(py).call_method1("model_validate", (response,)) {
                    Ok(validated) => response = validated,
                    // The payload passed the schema but not the model's own validation
                    // (a validator the schema does not carry): a payload error, as a Rust
                    // type's failed decode is.
                    Err(error) if error.is_instance_of::<PyValueError>(py) => {
                        return object(
                            py,
                            None,
                            Outcome::Rejected(submit_core::Rejected::new(refused_by_model(
                                py, &error,
                            ))),
                        );
                    }
                    Err(error) => return Err(error),
                }
            }
            let recoveries = accepted
                .recoveries
                .iter()
                .map(RecoveryInfo::from)
                .collect::<Vec<_>>();
            let recoveries = PyTuple::new(py, recoveries)?.unbind();
            let value = Accepted {
                response: response.unbind(),
                reasoning: accepted.reasoning.clone(),
                recovery: accepted.recovery().map(|kind| kind.as_str()),
                recoveries,
                tool_result: to_python(py, &accepted.tool_result)?.unbind(),
            };
            Ok(Py::new(py, value)?.into_any())
        }
        Outcome::Rejected(rejected) => {
            let value = Rejected {
                error_class: rejected.error.class().as_str(),
                cause: rejected.error.cause().map(|cause| cause.as_str()),
                message: rejected.error.message().to_owned(),
                trace: rejected.error.trace_text(),
                tool_result: to_python(py, &rejected.tool_result)?.unbind(),
            };
            Ok(Py::new(py, value)?.into_any())
        }
    }
}

/// The payload error of a response the schema passed and the Pydantic model's own validation
/// (a validator the schema does not carry) refused, as a Rust type's failed decode is one.
pub(crate) fn refused_by_model(py: Python<'_>, error: &PyErr) -> submit_core::SubmitError {
    submit_core::SubmitError::payload(format!("failed to decode payload: {}", error.value(py)))
}
