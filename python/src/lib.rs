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
mod call;
mod convert;
mod error;
mod options;
mod outcome;
mod tool;

use pyo3::prelude::*;

use error::{BuildError, UnknownProviderError};
use outcome::{Accepted, RecoveryInfo, Rejected};
use tool::SubmitTool;

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
