//! `triage`: calls, batch results, responses or conversations, one a line, streamed in
//! bounded memory, summarized.
//!
//! Read bottom to top: each file uses only the ones listed before it.
//!
//! 1. `summary.rs`: the running counts, and the malformed lines kept by number.
//! 2. `report.rs`: the counts as shares of the calls, as JSON or as a table.
//! 3. `html.rs`: the report as a static HTML page with a chart.
//! 4. `line.rs`, `calls.rs`, `response.rs`, `found.rs`: what a line holds (the submit calls,
//!    each with how its turn ended, and the visible text of a response's turn that made none);
//!    the calls in each provider's message shapes; what a whole response holds; and where the
//!    calls are in a line: a bare call, a batch entry, a whole response or a conversation.
//! 5. `handler.rs`: each call found handled by the submit tool, and each such text read for a
//!    call written as text.
//! 6. `progress.rs`: the progress line on a terminal.
//! 7. `read.rs`: the bounded line reader, which runs the rest over a whole input.

mod calls;
mod found;
mod handler;
mod html;
mod line;
mod progress;
mod read;
mod report;
mod response;
mod summary;
#[cfg(test)]
mod test_support;

pub use found::{find, Found, FoundText, Line};
pub use handler::{handler, reader, Entry, Handled};
pub use html::html;
pub use read::{run, run_limited, Input, StreamError, MAX_LINE_BYTES};
pub use report::{
    Causes, Classes, DeclinedShape, FailedEntries, Malformed, Recoveries, Report, Row, RowKind,
    Share,
};
pub use summary::{MalformedLine, Summary, MALFORMED_KEPT};
