//! `triage`: one call a line, streamed in constant memory, summarized.
//!
//! Read bottom to top: each file uses only the ones listed before it.
//!
//! 1. `summary.rs`: the running counts, and the malformed lines kept by number.
//! 2. `report.rs`: the counts as shares of the calls, as JSON or as a table.
//! 3. `handler.rs`: a call handled by the submit tool.
//! 4. `progress.rs`: the progress line on a terminal.
//! 5. `read.rs`: the bounded line reader, which runs the rest over a whole input.

mod handler;
mod progress;
mod read;
mod report;
mod summary;
#[cfg(test)]
mod test_support;

pub use handler::{handler, Handled};
pub use read::{run, run_limited, Input, StreamError, MAX_LINE_BYTES};
pub use report::{Causes, Classes, DeclinedShape, Malformed, Recoveries, Report, Share};
pub use summary::{MalformedLine, Summary, MALFORMED_KEPT};
