//! The submit parser as a Python extension module (`submit_result._submit_result`): a tool
//! built from a JSON Schema document (or a Pydantic model's), its four provider definitions,
//! and the handling of a call as each provider's SDK gives it.
//!
//! The Python package `submit_result` re-exports everything here; its `__init__.pyi` is the
//! typed surface.

/// The extension's own allocations (the parsed JSON, its validation) through mimalloc:
/// a call's many small maps and strings cost less to make and free than with the C library's
/// allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod batch;

use pyo3::create_exception;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple, PyType};
use serde_json::Value;
use submit_core::{
    Arguments, BuildError as CoreBuildError, Incoming, Metadata, MetadataErrors, Options, Outcome,
    Provider, Recovery, StopReason, SubmitTool as CoreTool,
};

create_exception!(
    submit_result,
    BuildError,
    PyValueError,
    "The submit tool could not be built: the message says what to change."
);
create_exception!(
    submit_result,
    UnknownProviderError,
    PyValueError,
    "A provider name that is not one of `claude`, `gemini`, `openai-chat`, `openai-responses`."
);

/// `provider` as a provider, or the error naming the four.
fn provider(name: &str) -> PyResult<Provider> {
    name.parse::<Provider>()
        .map_err(|error| UnknownProviderError::new_err(error.to_string()))
}

/// How deep a Python value may nest to be read as JSON: serde_json's own limit when it parses
/// text, so a call given as a dict is bounded as one given as text is.
const MAX_DEPTH: usize = 128;

/// A Python value (dict, list, tuple, str, int, float, bool, None) as JSON; `what` names it in
/// the error.
fn to_json(value: &Bound<'_, PyAny>, what: &str) -> PyResult<Value> {
    json_of(value, 0).map_err(|problem| match problem {
        NotJson::Python(error) => error,
        NotJson::Type(type_name) => PyTypeError::new_err(format!(
            "{what} must be JSON data (dict with str keys, list, tuple, str, int, float, bool, \
             None), but holds a value of type {type_name}"
        )),
        NotJson::Key(type_name) => PyTypeError::new_err(format!(
            "{what} must be JSON data, but holds a dict key of type {type_name}: keys must be str"
        )),
        NotJson::Float => PyValueError::new_err(format!(
            "{what} must be JSON data, but holds a float that is not finite (nan or inf)"
        )),
        NotJson::Deep => PyValueError::new_err(format!(
            "{what} nests deeper than {MAX_DEPTH} levels of dicts and lists"
        )),
    })
}

/// Why a Python value is not JSON.
enum NotJson {
    Python(PyErr),
    Type(String),
    Key(String),
    Float,
    Deep,
}

impl From<PyErr> for NotJson {
    fn from(error: PyErr) -> Self {
        NotJson::Python(error)
    }
}

fn type_name(value: &Bound<'_, PyAny>) -> String {
    value.get_type().name().map_or_else(
        |_| "value of unknown type".to_owned(),
        |name| name.to_string(),
    )
}

fn json_of(value: &Bound<'_, PyAny>, depth: usize) -> Result<Value, NotJson> {
    if value.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(text) = value.cast::<PyString>() {
        return Ok(Value::String(text.to_cow()?.into_owned()));
    }
    if let Ok(flag) = value.cast::<PyBool>() {
        return Ok(Value::Bool(flag.is_true()));
    }
    if value.is_instance_of::<PyInt>() {
        if let Ok(number) = value.extract::<i64>() {
            return Ok(Value::from(number));
        }
        if let Ok(number) = value.extract::<u64>() {
            return Ok(Value::from(number));
        }
        // Beyond 64 bits, as serde_json reads such a number in text: the nearest float.
        let number = value.extract::<f64>()?;
        return serde_json::Number::from_f64(number)
            .map(Value::Number)
            .ok_or(NotJson::Float);
    }
    if let Ok(number) = value.cast::<PyFloat>() {
        return serde_json::Number::from_f64(number.value())
            .map(Value::Number)
            .ok_or(NotJson::Float);
    }
    if depth >= MAX_DEPTH {
        return Err(NotJson::Deep);
    }
    if let Ok(dict) = value.cast::<PyDict>() {
        let mut map = serde_json::Map::with_capacity(dict.len());
        for (key, item) in dict.iter() {
            let key = match key.cast::<PyString>() {
                Ok(key) => key.to_cow()?.into_owned(),
                Err(_) => return Err(NotJson::Key(type_name(&key))),
            };
            map.insert(key, json_of(&item, depth + 1)?);
        }
        return Ok(Value::Object(map));
    }
    if let Ok(list) = value.cast::<PyList>() {
        return list
            .iter()
            .map(|item| json_of(&item, depth + 1))
            .collect::<Result<_, _>>()
            .map(Value::Array);
    }
    if let Ok(tuple) = value.cast::<PyTuple>() {
        return tuple
            .iter()
            .map(|item| json_of(&item, depth + 1))
            .collect::<Result<_, _>>()
            .map(Value::Array);
    }
    Err(NotJson::Type(type_name(value)))
}

/// What `handle` takes as a call of `provider`, named in the error of an object that is none.
fn calls_taken(provider: Provider) -> &'static str {
    match provider {
        Provider::Claude => {
            "a `tool_use` content block, as a dict or the anthropic SDK's ToolUseBlock (an item \
             of a Message's content)"
        }
        Provider::Gemini => {
            "a `functionCall` part or the function call itself, as a dict or google-genai's Part \
             or FunctionCall (an item of a response's function_calls)"
        }
        Provider::OpenAiChat => {
            "a tool call, as a dict or the openai SDK's ChatCompletionMessageToolCall (an item \
             of a message's tool_calls)"
        }
        Provider::OpenAiResponses => {
            "a `function_call` output item, as a dict or the openai SDK's \
             ResponseFunctionToolCall (an item of a Response's output)"
        }
    }
}

/// A call given to `handle`, as the JSON of its wire shape. JSON data (a dict, as a rule) is
/// taken as it is: whatever it holds, the parser judges it, as it judges a call read from a
/// log. A provider SDK's object (a Pydantic model: Anthropic's `ToolUseBlock`, OpenAI's Chat
/// tool call and Responses `ResponseFunctionToolCall`, google-genai's `FunctionCall` or
/// `Part`) is dumped as the SDK would send it (`model_dump(mode="json", by_alias=True)`), and
/// must be a call in the provider's shape, which the door checks: a whole message or response,
/// a text block, or any other object is the caller's mistake, a `TypeError` saying what is
/// taken.
fn call_value(provider: Provider, call: &Bound<'_, PyAny>) -> PyResult<Given> {
    let is_json = call.is_none()
        || call.is_instance_of::<PyDict>()
        || call.is_instance_of::<PyList>()
        || call.is_instance_of::<PyTuple>()
        || call.is_instance_of::<PyString>()
        || call.is_instance_of::<PyBool>()
        || call.is_instance_of::<PyInt>()
        || call.is_instance_of::<PyFloat>();
    if is_json {
        return Ok(Given::Json(to_json(call, "call")?));
    }
    if !call.hasattr("model_dump")? {
        return Err(not_a_call(provider, call, ""));
    }
    let py = call.py();
    let options = PyDict::new(py);
    options.set_item("mode", "json")?;
    options.set_item("by_alias", true)?;
    let dumped = call.call_method("model_dump", (), Some(&options))?;
    Ok(Given::Sdk(to_json(&dumped, "call")?))
}

/// A call as `handle` was given it, as JSON.
enum Given {
    /// JSON data: the parser judges whatever it holds.
    Json(Value),
    /// A provider SDK's object: it must be a call in the provider's shape.
    Sdk(Value),
}

/// The `TypeError` of an object given as a call of `provider` that is none (`why` says what
/// is wrong with its shape, when it has one).
fn not_a_call(provider: Provider, call: &Bound<'_, PyAny>, why: &str) -> PyErr {
    PyTypeError::new_err(format!(
        "handle takes a call in the {provider} shape: {}; got {}{why}",
        calls_taken(provider),
        type_name(call)
    ))
}

/// JSON as the Python value of the same shape (objects as dicts in their order, arrays as
/// lists).
fn to_python<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    Builder {
        py,
        keys: Vec::new(),
    }
    .value(value)
}

/// How many distinct member names one conversion keeps as Python strings to reuse.
const KEPT_KEYS: usize = 64;

/// Builds Python values from JSON. A payload repeats its member names (an array of objects
/// names the same members in each), so each distinct name becomes one Python string, made and
/// hashed once and shared by every dict that has it, as `json.loads` shares them.
struct Builder<'py, 'v> {
    py: Python<'py>,
    keys: Vec<(&'v str, Bound<'py, PyString>)>,
}

impl<'py, 'v> Builder<'py, 'v> {
    fn value(&mut self, value: &'v Value) -> PyResult<Bound<'py, PyAny>> {
        let py = self.py;
        Ok(match value {
            Value::Null => py.None().into_bound(py),
            Value::Bool(flag) => PyBool::new(py, *flag).to_owned().into_any(),
            Value::Number(number) => {
                if let Some(int) = number.as_i64() {
                    int.into_pyobject(py)?.into_any()
                } else if let Some(int) = number.as_u64() {
                    int.into_pyobject(py)?.into_any()
                } else {
                    number
                        .as_f64()
                        .unwrap_or(f64::NAN)
                        .into_pyobject(py)?
                        .into_any()
                }
            }
            Value::String(text) => PyString::new(py, text).into_any(),
            Value::Array(items) => {
                let items = items
                    .iter()
                    .map(|item| self.value(item))
                    .collect::<PyResult<Vec<_>>>()?;
                PyList::new(py, items)?.into_any()
            }
            Value::Object(map) => {
                let dict = PyDict::new(py);
                for (key, item) in map {
                    let key = self.key(key);
                    dict.set_item(key, self.value(item)?)?;
                }
                dict.into_any()
            }
        })
    }

    /// The Python string of a member name: the one made before, or a new one.
    fn key(&mut self, name: &'v str) -> Bound<'py, PyString> {
        if let Some((_, key)) = self.keys.iter().find(|(kept, _)| *kept == name) {
            return key.clone();
        }
        let key = PyString::new(self.py, name);
        if self.keys.len() < KEPT_KEYS {
            self.keys.push((name, key.clone()));
        }
        key
    }
}

/// The payload error of a response the schema passed and the Pydantic model's own validation
/// (a validator the schema does not carry) refused, as a Rust type's failed decode is one.
fn refused_by_model(py: Python<'_>, error: &PyErr) -> submit_core::SubmitError {
    submit_core::SubmitError::payload(format!("failed to decode payload: {}", error.value(py)))
}

/// A batch's accepted rows through a Pydantic model's own validation, as `handle` validates
/// a response: each response becomes the JSON of the model instance, and a response the model
/// refuses becomes a payload rejection.
fn validate_rows(model: &Bound<'_, PyAny>, rows: &mut [batch::Row]) -> PyResult<()> {
    let py = model.py();
    for row in rows.iter_mut() {
        let batch::Row::Accepted { response, .. } = row else {
            continue;
        };
        match model.call_method1("model_validate_json", (response.as_str(),)) {
            Ok(instance) => *response = instance.call_method0("model_dump_json")?.extract()?,
            Err(error) if error.is_instance_of::<PyValueError>(py) => {
                *row = batch::Row::Rejected(refused_by_model(py, &error));
            }
            Err(error) => return Err(error),
        }
    }
    Ok(())
}

/// `text` as Python writes a string literal (`'it\\'s'`).
fn quoted(py: Python<'_>, text: &str) -> PyResult<String> {
    Ok(PyString::new(py, text).repr()?.to_string())
}

/// `items` as Python writes a list of string literals.
fn quoted_list(py: Python<'_>, items: &[String]) -> PyResult<String> {
    let items = items
        .iter()
        .map(|item| quoted(py, item))
        .collect::<PyResult<Vec<_>>>()?;
    Ok(format!("[{}]", items.join(", ")))
}

/// A terminal submit tool for a JSON Schema payload (or a Pydantic model's).
#[pyclass(module = "submit_result", frozen, name = "SubmitTool")]
struct SubmitTool {
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

/// The schema document and the model class, from a dict or a Pydantic model class.
fn schema_of(schema: &Bound<'_, PyAny>) -> PyResult<(Value, Option<Py<PyAny>>)> {
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

fn build_error(error: CoreBuildError) -> PyErr {
    BuildError::new_err(error.to_string())
}

/// The keyword arguments `SubmitTool(...)` and `SubmitTool.from_tag(...)` take, each `None`
/// when not given.
struct Keywords {
    name: Option<String>,
    description: Option<String>,
    payload: Option<String>,
    payload_description: Option<String>,
    success: Option<String>,
    flat: Option<bool>,
    omit_reasoning: Option<bool>,
    omit_fields: Option<Vec<String>>,
    strict: Option<bool>,
}

impl Keywords {
    /// `options` with every keyword given set over it.
    fn over(self, mut options: Options) -> Options {
        if let Some(name) = self.name {
            options = options.tool_name(name);
        }
        if let Some(description) = self.description {
            options = options.description(description);
        }
        if let Some(payload) = self.payload {
            options = options.payload_field_name(payload);
        }
        if let Some(text) = self.payload_description {
            options = options.payload_description(text);
        }
        if let Some(success) = self.success {
            options = options.success_message(success);
        }
        if let Some(flat) = self.flat {
            options = options.flat_payload(flat);
        }
        if let Some(omit) = self.omit_reasoning {
            options = options.omit_reasoning(omit);
        }
        if let Some(fields) = self.omit_fields {
            options = options.omit_payload_fields(fields);
        }
        options
    }
}

/// The metadata a tag sets. A tag naming its payload `reasoning` is not refused when a keyword
/// overrides what makes that a mistake (`payload=...`, `omit_reasoning=True`), as the
/// command-line tool's flags override it; building checks the final combination again.
fn tag_metadata(tag: &str, overridden: bool) -> PyResult<Metadata> {
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
fn field_names(fields: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
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
        match outcome {
            Outcome::Accepted(accepted) => {
                let mut response = to_python(py, &accepted.response)?;
                if let Some(model) = &self.model {
                    match model.bind(py).call_method1("model_validate", (response,)) {
                        Ok(validated) => response = validated,
                        // The payload passed the schema but not the model's own validation
                        // (a validator the schema does not carry): a payload error, as a Rust
                        // type's failed decode is.
                        Err(error) if error.is_instance_of::<PyValueError>(py) => {
                            return self.outcome(
                                py,
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
                validate_rows(model.bind(py), &mut rows)?;
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

/// One recovery that applied: its kind, the parameters (or JSON Pointers) it touched, and
/// for a call written as text, its format.
#[pyclass(module = "submit_result", frozen, name = "Recovery", eq)]
#[derive(PartialEq)]
struct RecoveryInfo {
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
struct Accepted {
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
struct Rejected {
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

/// A fresh copy of a small JSON-shaped Python value, so a caller's change never reaches the
/// outcome.
fn deep_copy<'py>(value: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let py = value.py();
    let json = to_json(value, "tool result")?;
    to_python(py, &json)
}

/// The submit parser: `SubmitTool`, its outcomes and its errors.
#[pymodule]
fn _submit_result(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<SubmitTool>()?;
    m.add_class::<Accepted>()?;
    m.add_class::<Rejected>()?;
    m.add_class::<RecoveryInfo>()?;
    m.add("BuildError", m.py().get_type::<BuildError>())?;
    m.add(
        "UnknownProviderError",
        m.py().get_type::<UnknownProviderError>(),
    )?;
    m.add("DEFAULT_TOOL_NAME", submit_core::DEFAULT_TOOL_NAME)?;
    m.add("DEFAULT_PAYLOAD_FIELD", submit_core::DEFAULT_PAYLOAD_FIELD)?;
    m.add(
        "DEFAULT_SUCCESS_MESSAGE",
        submit_core::DEFAULT_SUCCESS_MESSAGE,
    )?;
    Ok(())
}
