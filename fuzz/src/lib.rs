//! Fuzz targets for everything that reads hostile bytes. Each target is a plain
//! `fn run(data: &[u8])` that panics when an invariant breaks, so the same function runs under
//! libFuzzer (`fuzz/run`, the `libfuzzer` feature) and as an ordinary test over the saved
//! corpus (`cargo test --manifest-path fuzz/Cargo.toml`).
//!
//! - [`targets::handle`]: the submit parser, all four providers, text and value arguments;
//! - [`targets::tag`]: the tag grammar against the derive's reading;
//! - [`targets::stream`]: SSE framing and each provider's stream assembler, and JSON bodies;
//! - [`targets::triage`]: the CLI's line reader;
//! - [`targets::mcp`]: the MCP server's request handling;
//! - [`targets::text`]: calls written as text in a model's turn, and the parallel wrapper.

pub mod seeds;
pub mod targets {
    pub mod handle;
    pub mod mcp;
    pub mod stream;
    pub mod tag;
    pub mod text;
    pub mod triage;
}

/// The targets by name, as `fuzz/run` and the corpus test know them.
pub const TARGETS: [(&str, fn(&[u8])); 6] = [
    ("handle", targets::handle::run),
    ("tag", targets::tag::run),
    ("stream", targets::stream::run),
    ("triage", targets::triage::run),
    ("mcp", targets::mcp::run),
    ("text", targets::text::run),
];
