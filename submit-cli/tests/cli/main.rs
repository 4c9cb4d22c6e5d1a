//! The tests of `submit-cli`: one test binary, a module per topic.

// Helpers.
mod counting_alloc;

// Topics.
mod commands;
#[cfg(feature = "mcp-test-client")]
mod mcp;
mod triage_formats;
mod triage_html;
mod triage_memory;
mod triage_scale;
mod vocabulary;
