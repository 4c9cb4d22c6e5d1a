//! The integration tests of `submit-result`: one test binary, a module per topic. Helpers are
//! plain modules (`support`); a module that needs a feature is declared under it. The tool
//! loop's tests (its executor, hooks, MCP tools and transports) are `submit-agent`'s, in
//! `submit-agent/tests/`.

// Helpers.
mod support;

// Topics.
mod agent_example;
#[cfg(all(
    feature = "claude",
    feature = "gemini",
    feature = "openai-chat",
    feature = "openai-responses",
    feature = "mcp",
    feature = "rig",
    feature = "async-openai"
))]
mod agreement;
mod async_openai;
mod compiletest;
mod definitions;
mod derive;
mod features;
mod gen;
// `pub`: the generated impls are checked as a library's public items, which the lints of this
// module (`missing_docs`, `unreachable_pub`) look at.
pub mod lints;
mod options;
mod parse;
mod quickstart;
mod receive;
mod rig;
mod tag;
mod trace;
mod trace_logs;
