//! The `SubmitTool` class: built from a schema and options, its definitions, and the handling
//! of a call (`handle`), of its arguments alone (`handle_arguments`), of a text turn
//! (`handle_text`) and of a column of calls (`handle_batch`).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple, PyType};
use serde_json::Value;
use submit_core::{
    Arguments, Incoming, Options, Outcome, Provider, StopReason, SubmitTool as CoreTool,
};

use crate::batch;
use crate::call::{call_value, not_a_call, Given};
use crate::convert::{quoted, quoted_list, to_json, to_python};
use crate::error::provider;
use crate::options::{build_error, field_names, schema_of, tag_metadata, Keywords};
use crate::outcome;

/// A terminal submit tool for a JSON Schema payload (or a Pydantic model's).
#[pyclass(module = "submit_result", frozen, name = "SubmitTool")]
pub(crate) struct SubmitTool {
    tool: CoreTool<Value>,
    /// The Pydantic model class the schema came from: an accepted response is validated into
    /// it.
    model: Option<Py<PyAny>>,
    /// The schema document as given (for a model, the one its class made): a pickled tool is
    /// built again from it.
    document: Value,
    /// Whether the definitions ask for strict schema adherence.
    strict: bool,
}

impl SubmitTool {
    /// Handles a call in `provider`'s shape through the core's door. A `multi_tool_use.parallel`
    /// call: its one entry of the tool is handled as that call; none when no entry names the
    /// tool. A call not in the shape is rejected as `handle` rejects it.
    fn dispatch(
        &self,
        provider: Provider,
        call: &Value,
        end: StopReason,
    ) -> Option<Outcome<Value>> {
        match self.tool.receive(Incoming::call(provider, call).stop(end)) {
            Ok(found) => found,
            Err(_) => Some(self.tool.handle(provider, call)),
        }
    }

    /// A tool for `schema` with the options of `base` and the keywords given over them.
    fn build(schema: &Bound<'_, PyAny>, base: Options, keywords: Keywords) -> PyResult<Self> {
        let (document, model) = schema_of(schema)?;
        let strict = keywords.strict.unwrap_or(false);
        let options = keywords.over(base).strict(strict);
        let tool = CoreTool::from_json_schema(document.clone(), options).map_err(build_error)?;
        Ok(SubmitTool {
            tool,
            model,
            document,
            strict,
        })
    }

    /// An outcome as the Python object of its kind.
    fn outcome(&self, py: Python<'_>, outcome: Outcome<Value>) -> PyResult<Py<PyAny>> {
        outcome::object(py, self.model.as_ref(), outcome)
    }
}

#[pymethods]
impl SubmitTool {
    #[new]
    #[pyo3(signature = (schema, *, name=None, description=None, payload=None,
                        payload_description=None, success=None, flat=false,
                        omit_reasoning=false, omit_fields=None, strict=false))]
    #[allow(
        clippy::too_many_arguments,
        reason = "one parameter per keyword argument of the Python constructor"
    )]
    fn new(
        schema: &Bound<'_, PyAny>,
        name: Option<String>,
        description: Option<String>,
        payload: Option<String>,
        payload_description: Option<String>,
        success: Option<String>,
        flat: bool,
        omit_reasoning: bool,
        omit_fields: Option<&Bound<'_, PyAny>>,
        strict: bool,
    ) -> PyResult<Self> {
        let keywords = Keywords {
            name,
            description,
            payload,
            payload_description,
            success,
            flat: Some(flat),
            omit_reasoning: Some(omit_reasoning),
            omit_fields: omit_fields.map(field_names).transpose()?,
            strict: Some(strict),
        };
        SubmitTool::build(schema, Options::new(), keywords)
    }

    /// A tool from a tag string (`"name=submit_plan,payload=plan,flat"`) and a schema, taking
    /// every keyword argument `SubmitTool(...)` takes: each one given overrides the tag's value
    /// (`flat=False` turns off a tag's `flat`), as the command-line tool's flags override
    /// `--tag`.
    #[classmethod]
    #[pyo3(signature = (tag, schema, *, name=None, description=None, payload=None,
                        payload_description=None, success=None, flat=None,
                        omit_reasoning=None, omit_fields=None, strict=None))]
    #[allow(
        clippy::too_many_arguments,
        reason = "one parameter per keyword argument of the Python constructor"
    )]
    fn from_tag(
        _class: &Bound<'_, PyType>,
        tag: &str,
        schema: &Bound<'_, PyAny>,
        name: Option<String>,
        description: Option<String>,
        payload: Option<String>,
        payload_description: Option<String>,
        success: Option<String>,
        flat: Option<bool>,
        omit_reasoning: Option<bool>,
        omit_fields: Option<&Bound<'_, PyAny>>,
        strict: Option<bool>,
    ) -> PyResult<Self> {
        let keywords = Keywords {
            name,
            description,
            payload,
            payload_description,
            success,
            flat,
            omit_reasoning,
            omit_fields: omit_fields.map(field_names).transpose()?,
            strict,
        };
        let overridden = keywords.payload.is_some() || keywords.omit_reasoning == Some(true);
        let metadata = tag_metadata(tag, overridden)?;
        SubmitTool::build(schema, Options::from_metadata(&metadata), keywords)
    }

    /// The Pydantic model class the tool was built from (an accepted response is an instance
    /// of it); `None` for a tool built from a JSON Schema dict.
    #[getter]
    fn model(&self, py: Python<'_>) -> Option<Py<PyAny>> {
        self.model.as_ref().map(|model| model.clone_ref(py))
    }

    /// Whether the definitions ask for strict schema adherence (OpenAI, Anthropic).
    #[getter]
    fn strict(&self) -> bool {
        self.strict
    }

    /// How the tool pickles (and so travels to Spark's and Ray's workers): as
    /// `SubmitTool(schema, **options)` with every option it was built with, the schema
    /// document exactly, or the Pydantic model class by reference (as Python pickles a class).
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let make = py.import("copyreg")?.getattr("__newobj_ex__")?;
        let schema = match &self.model {
            Some(model) => model.bind(py).clone(),
            None => to_python(py, &self.document)?,
        };
        let options = PyDict::new(py);
        options.set_item("name", self.tool.name())?;
        options.set_item("description", self.tool.description())?;
        options.set_item("payload", self.tool.payload_field())?;
        options.set_item("payload_description", self.tool.payload_description())?;
        options.set_item("success", self.tool.success_message())?;
        options.set_item("flat", self.tool.is_flat())?;
        options.set_item("omit_reasoning", self.tool.omits_reasoning())?;
        options.set_item(
            "omit_fields",
            PyList::new(py, self.tool.omitted_payload_fields())?,
        )?;
        options.set_item("strict", self.strict)?;
        let arguments = (py.get_type::<SubmitTool>(), (schema,), options);
        (make, arguments).into_pyobject(py)
    }

    /// The tool's name.
    #[getter]
    fn name(&self) -> &str {
        self.tool.name()
    }

    /// The payload parameter's name.
    #[getter]
    fn payload(&self) -> &str {
        self.tool.payload_field()
    }

    /// The tool's description.
    #[getter]
    fn description(&self) -> &str {
        self.tool.description()
    }

    /// The payload parameter's description.
    #[getter]
    fn payload_description(&self) -> &str {
        self.tool.payload_description()
    }

    /// The `message` of the tool result an accepted call gets.
    #[getter]
    fn success(&self) -> &str {
        self.tool.success_message()
    }

    /// Whether each payload property is its own parameter.
    #[getter]
    fn flat(&self) -> bool {
        self.tool.is_flat()
    }

    /// Whether the `reasoning` parameter is dropped.
    #[getter]
    fn omit_reasoning(&self) -> bool {
        self.tool.omits_reasoning()
    }

    /// The payload properties withheld from the advertised schema.
    #[getter]
    fn omit_fields<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.tool.omitted_payload_fields())
    }

    /// The full payload schema (before omitted fields are withheld).
    #[getter]
    fn payload_schema<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_python(py, self.tool.payload_schema())
    }

    /// The tool definition in `provider`'s wire format, as the provider's SDK takes it.
    fn definition<'py>(&self, py: Python<'py>, provider: &str) -> PyResult<Bound<'py, PyAny>> {
        let provider = self::provider(provider)?;
        to_python(py, &self.tool.definition(provider))
    }

    /// Handles a call in `provider`'s shape; `finish_reason` is how the turn ended, in the
    /// provider's spelling (`max_tokens`, `length`, `MAX_TOKENS`, …).
    ///
    /// A `multi_tool_use.parallel` call is read as the command-line tool reads it: its one entry
    /// naming this tool is handled as that call, and `None` is returned when no entry names it
    /// (the call is then of other tools only). Any other call returns `Accepted` or `Rejected`.
    #[pyo3(signature = (provider, call, *, finish_reason=None))]
    fn handle(
        &self,
        py: Python<'_>,
        provider: &str,
        call: &Bound<'_, PyAny>,
        finish_reason: Option<&str>,
    ) -> PyResult<Option<Py<PyAny>>> {
        let provider = self::provider(provider)?;
        let end = finish_reason.map_or(StopReason::Complete, |reason| provider.stop_reason(reason));
        let outcome = match call_value(provider, call)? {
            Given::Json(value) => py.detach(|| self.dispatch(provider, &value, end)),
            Given::Sdk(value) => {
                match py.detach(|| {
                    self.tool
                        .receive(Incoming::call(provider, &value).stop(end))
                }) {
                    Ok(found) => found,
                    Err(shape) => {
                        let why = format!(", which is no call: {}", shape.reason);
                        return Err(not_a_call(provider, call, &why));
                    }
                }
            }
        };
        outcome.map(|outcome| self.outcome(py, outcome)).transpose()
    }

    /// Handles a call's arguments alone, as an agent framework hands them over.
    ///
    /// >>> from submit_result import SubmitTool
    /// >>> tool = SubmitTool({"type": "object", "properties": {"answer": {"type": "string"}}})
    /// >>> tool.handle_arguments('{"reasoning": "r", "result": "{\\"answer\\": \\"42\\"}"}')
    /// Accepted(response={'answer': '42'}, recovery='stringified', recoveries=['stringified'])
    /// >>> tool.handle_arguments({"reasoning": "r", "result": {"answer": "42"}},
    /// ...                       finish_reason="MAX_TOKENS").cause
    /// 'truncated_call'
    ///
    /// For LangChain's `tool_calls`, the OpenAI Agents SDK's argument string, ADK's `args`: no
    /// provider's envelope around them. A `str` is the argument text the model wrote, read by
    /// the parser as written (so a member given twice is seen); a dict (or any other JSON
    /// data) is the arguments object as the framework decoded it; `None` is no arguments at
    /// all, read as `{}`. `name` is the name the call was made under, where it is known: a call
    /// named `multi_tool_use.parallel` is read as that wrapper (its one entry naming this tool
    /// handled as that call; `None` returned when no entry names it); any other name is this
    /// tool's call. `finish_reason` is how the turn ended, in any provider's spelling
    /// (`max_tokens`, `length`, `max_output_tokens`, `MAX_TOKENS`, …): a call cut off at the
    /// output-token limit is never accepted. Arguments that are no JSON data (a float that is
    /// not finite, a value of another type) are the caller's mistake: `ValueError` or
    /// `TypeError`.
    #[pyo3(signature = (arguments, *, name=None, finish_reason=None))]
    fn handle_arguments(
        &self,
        py: Python<'_>,
        arguments: &Bound<'_, PyAny>,
        name: Option<&str>,
        finish_reason: Option<&str>,
    ) -> PyResult<Option<Py<PyAny>>> {
        let end = finish_reason.map_or(StopReason::Complete, StopReason::of_any_provider);
        let judge = |arguments: Arguments<'_>| {
            py.detach(|| {
                self.tool
                    .receive(Incoming::arguments(name, arguments).stop(end))
            })
        };
        let outcome = if let Ok(text) = arguments.cast::<PyString>() {
            judge(Arguments::Text(&text.to_cow()?))
        } else if arguments.is_none() {
            judge(Arguments::Missing)
        } else {
            judge(Arguments::Value(&to_json(arguments, "arguments")?))
        };
        // Arguments alone are never out of a provider's shape; the door's error is kept all
        // the same, as a caller's mistake.
        let outcome = outcome.map_err(|shape| PyValueError::new_err(shape.to_string()))?;
        outcome.map(|outcome| self.outcome(py, outcome)).transpose()
    }

    /// Handles a column of calls in one pass, without holding the interpreter's lock: `calls`
    /// is an Arrow array or chunked array of strings (pyarrow's, or any library's that exports
    /// the Arrow PyCapsule interface, `__arrow_c_array__` or `__arrow_c_stream__`), each the
    /// JSON text of a call in `provider`'s shape; the answer is a `pyarrow.StructArray` of the
    /// same length (for a chunked array or stream, a `pyarrow.ChunkedArray` of the same chunks)
    /// with the columns `accepted`, `response` (the response as JSON text), `reasoning`,
    /// `recoveries` (their kinds), `error_class`, `cause` and `message`. Each row is read from
    /// its own bytes, so a member written twice is seen. A null call, or a
    /// `multi_tool_use.parallel` call with no entry of this tool, gives a null row; text that
    /// is no JSON is rejected as undecodable.
    /// `finish_reasons`, when given, is a string array of the same length: each row's finish
    /// reason in the provider's spelling.
    ///
    /// The rows are handled on up to `threads` threads (by default one per core, each with at
    /// least 2,048 rows); `threads=1` keeps the batch on the calling thread, for an engine
    /// that already runs a worker per core.
    #[pyo3(signature = (provider, calls, *, finish_reasons=None, threads=None))]
    fn handle_batch<'py>(
        &self,
        py: Python<'py>,
        provider: &str,
        calls: &Bound<'py, PyAny>,
        finish_reasons: Option<&Bound<'py, PyAny>>,
        threads: Option<usize>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let provider = self::provider(provider)?;
        let calls = batch::Column::of(calls, "calls")?;
        let texts = calls.texts("calls")?;
        let reasons = finish_reasons
            .map(|reasons| batch::Column::of(reasons, "finish_reasons"))
            .transpose()?;
        let reasons = match &reasons {
            Some(column) => {
                let reasons = column.texts("finish_reasons")?;
                if reasons.len() != texts.len() {
                    return Err(PyValueError::new_err(format!(
                        "finish_reasons has {} rows and calls {}: give one finish reason (or \
                         null) for each call",
                        reasons.len(),
                        texts.len()
                    )));
                }
                reasons
            }
            None => vec![None; texts.len()],
        };
        let threads = batch::threads(threads)?;
        let rows: Vec<(Option<&str>, Option<&str>)> = texts.into_iter().zip(reasons).collect();
        let outcome = |(text, reason): &(Option<&str>, Option<&str>)| {
            let end = reason.map_or(StopReason::Complete, |reason| provider.stop_reason(reason));
            text.and_then(|text| {
                // The call read from its own bytes, in place.
                let incoming = Incoming::call_json(provider, text.as_bytes()).stop(end);
                match self.tool.receive(incoming) {
                    Ok(found) => found,
                    // Not a call in the shape, or no JSON at all: the verdict `handle` gives
                    // the row's JSON value, or the rejection of text that is none.
                    Err(_) => match batch::call_of(text) {
                        Ok(call) => self.dispatch(provider, &call, end),
                        Err(error) => Some(Outcome::Rejected(submit_core::Rejected::new(error))),
                    },
                }
            })
        };
        let array = match &self.model {
            // Each outcome goes straight into its chunk's columns.
            None => py.detach(|| {
                batch::in_chunks(threads, &rows, |chunk| {
                    let bytes = chunk.iter().filter_map(|row| row.0).map(str::len).sum();
                    let mut columns = batch::Columns::with_capacity(chunk.len(), bytes);
                    let mut scratch = Vec::new();
                    for row in chunk {
                        columns.push_outcome(outcome(row), &mut scratch);
                    }
                    columns.finish()
                })
            }),
            // The accepted responses go through the model's own validation first, which
            // needs the interpreter.
            Some(model) => {
                let chunks = py.detach(|| {
                    batch::map_chunks(threads, &rows, |chunk| {
                        chunk
                            .iter()
                            .map(|row| batch::Row::of(outcome(row)))
                            .collect::<Vec<_>>()
                    })
                });
                let mut rows: Vec<batch::Row> = chunks.into_iter().flatten().collect();
                batch::validate_rows(model.bind(py), &mut rows)?;
                py.detach(|| {
                    let mut columns = batch::Columns::with_capacity(rows.len(), 0);
                    for row in &rows {
                        columns.push(row);
                    }
                    columns.finish()
                })
            }
        };
        let array = array.map_err(batch::arrow_error)?;
        calls.answer(py, array)
    }

    /// Reads a model's visible text turn for a call of this tool written as text (a chat
    /// template's tool-call syntax) and handles it; `None` when the text holds no such call.
    /// `finish_reason` is read in `provider`'s spelling, or in any provider's when none is
    /// named.
    #[pyo3(signature = (text, *, finish_reason=None, provider=None))]
    fn handle_text(
        &self,
        py: Python<'_>,
        text: &str,
        finish_reason: Option<&str>,
        provider: Option<&str>,
    ) -> PyResult<Option<Py<PyAny>>> {
        let provider = provider.map(self::provider).transpose()?;
        let end = match (finish_reason, provider) {
            (None, _) => StopReason::Complete,
            (Some(reason), Some(provider)) => provider.stop_reason(reason),
            (Some(reason), None) => StopReason::of_any_provider(reason),
        };
        let outcome = py.detach(|| self.tool.handle_text(text, end));
        outcome.map(|outcome| self.outcome(py, outcome)).transpose()
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let mut text = format!(
            "SubmitTool(name={}, payload={}",
            quoted(py, self.tool.name())?,
            quoted(py, self.tool.payload_field())?
        );
        if self.tool.is_flat() {
            text.push_str(", flat=True");
        }
        if self.tool.omits_reasoning() {
            text.push_str(", omit_reasoning=True");
        }
        let omitted = self.tool.omitted_payload_fields();
        if !omitted.is_empty() {
            text.push_str(&format!(", omit_fields={}", quoted_list(py, omitted)?));
        }
        text.push(')');
        Ok(text)
    }
}
