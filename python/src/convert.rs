//! Python values as JSON and back: a dict given as a call or a schema read as JSON data
//! (bounded as serde_json bounds text), and JSON built as Python values (member names shared
//! as `json.loads` shares them).

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::Value;

/// How deep a Python value may nest to be read as JSON: serde_json's own limit when it parses
/// text, so a call given as a dict is bounded as one given as text is.
const MAX_DEPTH: usize = 128;

/// A Python value (dict, list, tuple, str, int, float, bool, None) as JSON; `what` names it in
/// the error.
pub(crate) fn to_json(value: &Bound<'_, PyAny>, what: &str) -> PyResult<Value> {
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

pub(crate) fn type_name(value: &Bound<'_, PyAny>) -> String {
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

/// JSON as the Python value of the same shape (objects as dicts in their order, arrays as
/// lists).
pub(crate) fn to_python<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
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

/// `text` as Python writes a string literal (`'it\\'s'`).
pub(crate) fn quoted(py: Python<'_>, text: &str) -> PyResult<String> {
    Ok(PyString::new(py, text).repr()?.to_string())
}

/// `items` as Python writes a list of string literals.
pub(crate) fn quoted_list(py: Python<'_>, items: &[String]) -> PyResult<String> {
    let items = items
        .iter()
        .map(|item| quoted(py, item))
        .collect::<PyResult<Vec<_>>>()?;
    Ok(format!("[{}]", items.join(", ")))
}

/// A fresh copy of a small JSON-shaped Python value, so a caller's change never reaches the
/// outcome.
pub(crate) fn deep_copy<'py>(value: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let py = value.py();
    let json = to_json(value, "tool result")?;
    to_python(py, &json)
}
