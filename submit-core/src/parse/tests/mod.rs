//! The parser's tests through a built tool, a module per topic; the unit tests of each step sit
//! beside its code.
//!
//! - `handler`: the handler end to end, through every provider's call shape.
//! - `corpus`: every vector of the corpus of model mistakes (`tests/corpus/*.json`).
//! - `properties`: generated payloads recovered exactly, and the parser with its fast paths
//!   against the parser without them.
//! - `fast_path`: step *The arguments as a whole* reading argument text in one pass.
//! - `values`, `whole`: the repairs of values and the recoveries of the arguments as a whole,
//!   through a built tool.
//! - `testing`: the small tool the tests build, and the arguments object a step reads.

mod corpus;
mod fast_path;
mod handler;
mod properties;
pub(crate) mod testing;
mod values;
mod whole;
