//! The tests of `submit-cli`: one test binary, a module per topic.

// The allocator that counts, for `triage_memory`: the test binary allocates through it.
#[global_allocator]
static ALLOCATOR: submit_test_kit::counting_alloc::Counting =
    submit_test_kit::counting_alloc::Counting;

// Topics.
mod commands;
#[cfg(feature = "mcp-test-client")]
mod mcp;
mod triage_formats;
mod triage_html;
mod triage_memory;
mod triage_scale;
mod vocabulary;
