//! `triage`: calls, batch results, responses or conversations, one a line, streamed in
//! bounded memory, summarized.
//!
//! The files, by what they hold:
//!
//! - `input.rs`: the input opened, a gzip or Zstandard archive decompressed as it is read.
//! - `read.rs`: the bounded line reader, which drives the rest over a whole input: chunks of
//!   lines handled on as many threads as asked, counted and written in input order.
//! - `detect.rs`: what a line holds, told from its top-level members; `chat.rs`: a line that is
//!   one OpenAI Chat call and nothing else, told and read in one pass.
//! - `line.rs`, `found.rs`, `calls.rs`, `response.rs`: what a line holds and where its calls
//!   are (a bare call, a batch entry, a whole response or a conversation); the calls in each
//!   provider's message shapes, each with how its turn ended; and the visible text of a
//!   response's turn that made none.
//! - `handler.rs`: each call found handled by the submit tool, and each such text read for a
//!   call written as text.
//! - `summary.rs`: the running counts, and the malformed lines kept by number.
//! - `report.rs`: the counts as shares of the calls, as JSON or as a table; `html.rs` the
//!   report as a static HTML page with a chart.
//! - `progress.rs`: the progress line on a terminal.

mod calls;
mod chat;
mod detect;
mod found;
mod handler;
mod html;
mod input;
mod line;
mod progress;
mod read;
mod report;
mod response;
mod summary;
#[cfg(test)]
mod test_support;

pub use handler::{handler, reader, Handled};
pub use html::html;
pub use input::{open, Compression, OpenError};
pub use read::{run, run_limited, Input, StreamError, MAX_LINE_BYTES, MAX_THREADS};
