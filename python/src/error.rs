//! The package's errors: a tool that could not be built, a provider name that is none of the
//! four.

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use submit_core::Provider;

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
pub(crate) fn provider(name: &str) -> PyResult<Provider> {
    name.parse::<Provider>()
        .map_err(|error| UnknownProviderError::new_err(error.to_string()))
}
