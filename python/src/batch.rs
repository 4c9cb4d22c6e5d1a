//! `SubmitTool.handle_batch`: a column of calls as JSON text, handled in one pass without the
//! interpreter's lock, answered as a column of outcomes. Arrays cross in and out through the
//! Arrow PyCapsule interface, so any Arrow library's string array is read without a copy.

use std::sync::Arc;

use arrow_array::builder::{BooleanBuilder, ListBuilder, StringBuilder};
use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, StructArray};
use arrow_schema::{ArrowError, DataType, Field, FieldRef, Fields};
use pyo3::exceptions::{PyModuleNotFoundError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3_arrow::{PyArray, PyChunkedArray};
use serde_json::Value;
use submit_core::{Outcome, ParameterCause, SubmitError};

use crate::outcome::refused_by_model;

/// A column `handle_batch` takes: one Arrow array, or the chunks of a chunked array (any
/// Arrow stream) with their field.
pub(crate) enum Column {
    Array(ArrayRef),
    Chunks(Vec<ArrayRef>, FieldRef),
}

impl Column {
    /// The column of any object that exports an Arrow array (`__arrow_c_array__`: a
    /// `pyarrow.Array`) or an Arrow stream (`__arrow_c_stream__`: a `pyarrow.ChunkedArray`);
    /// `what` names the argument in the error.
    pub(crate) fn of(value: &Bound<'_, PyAny>, what: &str) -> PyResult<Column> {
        if value.hasattr("__arrow_c_array__")? {
            return Ok(Column::Array(value.extract::<PyArray>()?.into_inner().0));
        }
        if value.hasattr("__arrow_c_stream__")? {
            let (chunks, field) = value.extract::<PyChunkedArray>()?.into_inner();
            return Ok(Column::Chunks(chunks, field));
        }
        Err(PyTypeError::new_err(format!(
            "{what} must be an Arrow array of strings (a pyarrow.Array or ChunkedArray, or any \
             library's array or stream with __arrow_c_array__ or __arrow_c_stream__), got {}; \
             pyarrow.array(...) makes one from a list",
            value.get_type().name()?
        )))
    }

    /// The rows of a string column (`what` names it in the error), chunk after chunk: each
    /// row's text, or `None` for a null row.
    pub(crate) fn texts(&self, what: &str) -> PyResult<Vec<Option<&str>>> {
        match self {
            Column::Array(array) => texts(array.as_ref(), what),
            Column::Chunks(chunks, field) => {
                if !is_text(field.data_type()) {
                    return Err(not_text(what, field.data_type()));
                }
                let mut rows = Vec::with_capacity(chunks.iter().map(|chunk| chunk.len()).sum());
                for chunk in chunks {
                    rows.extend(texts(chunk.as_ref(), what)?);
                }
                Ok(rows)
            }
        }
    }

    /// `answer`, a row for each of this column's rows, in this column's kind: a
    /// `pyarrow.Array` for an array, a `pyarrow.ChunkedArray` of the same chunks for a chunked
    /// array or stream.
    pub(crate) fn answer<'py>(
        &self,
        py: Python<'py>,
        answer: ArrayRef,
    ) -> PyResult<Bound<'py, PyAny>> {
        let exported = match self {
            Column::Array(_) => PyArray::from_array_ref(answer)
                .to_pyarrow(py)
                .map(Bound::unbind),
            Column::Chunks(chunks, _) => {
                let mut offset = 0;
                let mut pieces = Vec::with_capacity(chunks.len());
                for chunk in chunks {
                    pieces.push(answer.slice(offset, chunk.len()));
                    offset += chunk.len();
                }
                let field = Field::new("", answer.data_type().clone(), true);
                PyChunkedArray::try_new(pieces, Arc::new(field))?
                    .into_pyarrow(py)
                    .map(Bound::unbind)
            }
        };
        let exported = exported.map_err(|error| {
            if error.is_instance_of::<PyModuleNotFoundError>(py) {
                PyModuleNotFoundError::new_err(
                    "handle_batch answers in pyarrow's arrays, and pyarrow is not installed: \
                     pip install 'submit-result[arrow]'",
                )
            } else {
                error
            }
        })?;
        Ok(exported.into_bound(py))
    }
}

/// Whether a column of `kind` holds strings.
fn is_text(kind: &DataType) -> bool {
    matches!(
        kind,
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
    )
}

fn not_text(what: &str, kind: &DataType) -> PyErr {
    PyTypeError::new_err(format!(
        "{what} must be an Arrow array of strings (utf8, large_utf8 or utf8_view); got an array \
         of {kind}"
    ))
}

/// The rows of a string array (`what` names it in the error): each row's text, or `None` for
/// a null row.
fn texts<'a>(array: &'a dyn Array, what: &str) -> PyResult<Vec<Option<&'a str>>> {
    if let Some(strings) = array.as_string_opt::<i32>() {
        return Ok(strings.iter().collect());
    }
    if let Some(strings) = array.as_string_opt::<i64>() {
        return Ok(strings.iter().collect());
    }
    if let Some(strings) = array.as_string_view_opt() {
        return Ok(strings.iter().collect());
    }
    Err(not_text(what, array.data_type()))
}

/// A row's call read from its JSON text: the call, or the rejection of text that is no JSON.
pub(crate) fn call_of(text: &str) -> Result<Value, SubmitError> {
    serde_json::from_str(text).map_err(|error| {
        SubmitError::parameter(
            ParameterCause::UndecodableArguments,
            format!("failed to parse tool call: {error}"),
        )
    })
}

/// One row's outcome, its response as JSON text.
pub(crate) enum Row {
    /// A null call, or a call of other tools only.
    None,
    Accepted {
        response: String,
        reasoning: String,
        recoveries: Vec<&'static str>,
    },
    Rejected(SubmitError),
}

impl Row {
    /// The row of an outcome.
    pub(crate) fn of(outcome: Option<Outcome<Value>>) -> Row {
        match outcome {
            None => Row::None,
            Some(Outcome::Accepted(accepted)) => match written(&accepted.response, &mut Vec::new())
            {
                Ok(response) => Row::Accepted {
                    response: response.to_owned(),
                    recoveries: accepted
                        .recoveries
                        .iter()
                        .map(|rule| rule.kind.as_str())
                        .collect(),
                    reasoning: accepted.reasoning,
                },
                Err(error) => Row::Rejected(error),
            },
            Some(Outcome::Rejected(rejected)) => Row::Rejected(rejected.error),
        }
    }
}

/// A batch's accepted rows through a Pydantic model's own validation, as `handle` validates
/// a response: each response becomes the JSON of the model instance, and a response the model
/// refuses becomes a payload rejection.
pub(crate) fn validate_rows(model: &Bound<'_, PyAny>, rows: &mut [Row]) -> PyResult<()> {
    let py = model.py();
    for row in rows.iter_mut() {
        let Row::Accepted { response, .. } = row else {
            continue;
        };
        match model.call_method1("model_validate_json", (response.as_str(),)) {
            Ok(instance) => *response = instance.call_method0("model_dump_json")?.extract()?,
            Err(error) if error.is_instance_of::<PyValueError>(py) => {
                *row = Row::Rejected(refused_by_model(py, &error));
            }
            Err(error) => return Err(error),
        }
    }
    Ok(())
}

/// `response` as JSON text, written into `scratch`. A JSON value always serializes, as UTF-8;
/// a failure is kept as a rejection rather than a panic.
fn written<'s>(response: &Value, scratch: &'s mut Vec<u8>) -> Result<&'s str, SubmitError> {
    scratch.clear();
    let text = match serde_json::to_writer(&mut *scratch, response) {
        Ok(()) => std::str::from_utf8(scratch).map_err(|error| error.to_string()),
        Err(error) => Err(error.to_string()),
    };
    text.map_err(|why| {
        SubmitError::payload(format!(
            "failed to decode payload: the response could not be written as JSON: {why}"
        ))
    })
}

/// The columns of the struct array `handle_batch` returns, in order.
fn fields() -> Fields {
    Fields::from(vec![
        Field::new("accepted", DataType::Boolean, false),
        Field::new("response", DataType::Utf8, true),
        Field::new("reasoning", DataType::Utf8, true),
        Field::new(
            "recoveries",
            DataType::List(Arc::new(Field::new_list_field(DataType::Utf8, false))),
            true,
        ),
        Field::new("error_class", DataType::Utf8, true),
        Field::new("cause", DataType::Utf8, true),
        Field::new("message", DataType::Utf8, true),
    ])
}

/// The outcomes, a row each, built into the struct array's columns.
pub(crate) struct Columns {
    accepted: BooleanBuilder,
    response: StringBuilder,
    reasoning: StringBuilder,
    recoveries: ListBuilder<StringBuilder>,
    error_class: StringBuilder,
    cause: StringBuilder,
    message: StringBuilder,
    /// Whether each row holds an outcome (`false`: a null call, or no call of the tool).
    valid: Vec<bool>,
}

impl Columns {
    /// Columns for `rows` rows whose calls hold `bytes` bytes of text in all (a response is
    /// about as long as its call).
    pub(crate) fn with_capacity(rows: usize, bytes: usize) -> Self {
        let item = Field::new_list_field(DataType::Utf8, false);
        Columns {
            accepted: BooleanBuilder::with_capacity(rows),
            response: StringBuilder::with_capacity(rows, bytes),
            reasoning: StringBuilder::with_capacity(rows, rows * 16),
            recoveries: ListBuilder::with_capacity(StringBuilder::new(), rows)
                .with_field(Arc::new(item)),
            error_class: StringBuilder::with_capacity(rows, 0),
            cause: StringBuilder::with_capacity(rows, 0),
            message: StringBuilder::with_capacity(rows, 0),
            valid: Vec::with_capacity(rows),
        }
    }

    /// A row without an outcome.
    fn push_none(&mut self) {
        self.accepted.append_value(false);
        self.response.append_null();
        self.reasoning.append_null();
        self.recoveries.append_null();
        self.error_class.append_null();
        self.cause.append_null();
        self.message.append_null();
        self.valid.push(false);
    }

    /// An accepted row whose response is `response` (JSON text).
    fn push_accepted(
        &mut self,
        response: &str,
        reasoning: &str,
        recoveries: impl IntoIterator<Item = &'static str>,
    ) {
        self.accepted.append_value(true);
        self.response.append_value(response);
        self.reasoning.append_value(reasoning);
        for kind in recoveries {
            self.recoveries.values().append_value(kind);
        }
        self.recoveries.append(true);
        self.error_class.append_null();
        self.cause.append_null();
        self.message.append_null();
        self.valid.push(true);
    }

    /// A rejected row.
    fn push_rejected(&mut self, error: &SubmitError) {
        self.accepted.append_value(false);
        self.response.append_null();
        self.reasoning.append_null();
        self.recoveries.append_null();
        self.error_class.append_value(error.class().as_str());
        self.cause
            .append_option(error.cause().map(|cause| cause.as_str()));
        self.message.append_value(error.message());
        self.valid.push(true);
    }

    /// A row of `outcome`, its response written as JSON through `scratch` (a buffer kept
    /// from row to row, so a batch makes no string per row).
    pub(crate) fn push_outcome(&mut self, outcome: Option<Outcome<Value>>, scratch: &mut Vec<u8>) {
        match outcome {
            None => self.push_none(),
            Some(Outcome::Accepted(accepted)) => match written(&accepted.response, scratch) {
                Ok(response) => {
                    let kinds = accepted.recoveries.iter().map(|rule| rule.kind.as_str());
                    self.push_accepted(response, &accepted.reasoning, kinds);
                }
                Err(error) => self.push_rejected(&error),
            },
            Some(Outcome::Rejected(rejected)) => self.push_rejected(&rejected.error),
        }
    }

    /// A row.
    pub(crate) fn push(&mut self, row: &Row) {
        match row {
            Row::None => self.push_none(),
            Row::Accepted {
                response,
                reasoning,
                recoveries,
            } => self.push_accepted(response, reasoning, recoveries.iter().copied()),
            Row::Rejected(error) => self.push_rejected(error),
        }
    }

    pub(crate) fn finish(mut self) -> Result<ArrayRef, ArrowError> {
        let columns: Vec<ArrayRef> = vec![
            Arc::new(self.accepted.finish()),
            Arc::new(self.response.finish()),
            Arc::new(self.reasoning.finish()),
            Arc::new(self.recoveries.finish()),
            Arc::new(self.error_class.finish()),
            Arc::new(self.cause.finish()),
            Arc::new(self.message.finish()),
        ];
        let nulls = self
            .valid
            .iter()
            .any(|valid| !valid)
            .then(|| self.valid.into());
        Ok(Arc::new(StructArray::try_new(fields(), columns, nulls)?))
    }
}

/// The fewest rows a thread of a batch handles: enough that the thread outweighs its start.
const CHUNK: usize = 2048;

/// How many threads a batch runs on (`None`: one per core).
pub(crate) fn threads(threads: Option<usize>) -> PyResult<usize> {
    match threads {
        None => Ok(std::thread::available_parallelism().map_or(1, usize::from)),
        Some(0) => Err(PyValueError::new_err(
            "threads must be at least 1 (or None for one thread per core)",
        )),
        Some(threads) => Ok(threads),
    }
}

/// `work` on each chunk of `rows`, in order, on up to `threads` threads (the calling thread
/// and scoped threads started for this batch): one chunk per thread, of at least [`CHUNK`]
/// rows. Each chunk's columns are copied once more when the chunks are joined, so fewer,
/// larger chunks make less memory to fill.
pub(crate) fn map_chunks<T, U, F>(threads: usize, rows: &[T], work: F) -> Vec<U>
where
    T: Sync,
    U: Send,
    F: Fn(&[T]) -> U + Sync,
{
    let size = rows.len().div_ceil(threads.max(1)).max(CHUNK);
    let mut chunks = rows.chunks(size);
    let Some(first) = chunks.next() else {
        return Vec::new();
    };
    let work = &work;
    std::thread::scope(|scope| {
        let started: Vec<_> = chunks
            .map(|chunk| scope.spawn(move || work(chunk)))
            .collect();
        let mut done = vec![work(first)];
        for thread in started {
            match thread.join() {
                Ok(chunk) => done.push(chunk),
                // A panic in a chunk is the parser's bug; it reaches the caller as one.
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        done
    })
}

/// The struct array of the chunks `work` builds, one after the other.
pub(crate) fn in_chunks<T, F>(threads: usize, rows: &[T], work: F) -> Result<ArrayRef, ArrowError>
where
    T: Sync,
    F: Fn(&[T]) -> Result<ArrayRef, ArrowError> + Sync,
{
    let chunks = map_chunks(threads, rows, work)
        .into_iter()
        .collect::<Result<Vec<_>, _>>()?;
    match chunks.as_slice() {
        [] => Columns::with_capacity(0, 0).finish(),
        [one] => Ok(Arc::clone(one)),
        many => {
            let many: Vec<&dyn Array> = many.iter().map(|chunk| chunk.as_ref()).collect();
            arrow_select::concat::concat(&many)
        }
    }
}

/// An Arrow error as Python's `ValueError`.
pub(crate) fn arrow_error(error: ArrowError) -> PyErr {
    PyValueError::new_err(format!("the outcome column could not be built: {error}"))
}
