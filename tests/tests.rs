//! The integration tests of `submit-result`: one test binary, a module per topic. Helpers are
//! plain modules (`support`, `transport`); a module that needs a feature is declared under it.

#![allow(
    clippy::duplicate_mod,
    reason = "the examples `agent_loop` and `mcp` each load `examples/common/conversation.rs`"
)]

// Helpers.
mod support;
#[cfg(any(
    feature = "claude",
    feature = "gemini",
    feature = "openai-chat",
    feature = "openai-responses"
))]
mod transport;

// Topics.
mod agent_example;
mod agent_executor;
mod agent_executor_submit;
mod agent_loop;
#[cfg(feature = "mcp")]
mod agent_mcp;
mod agent_middleware;
mod agent_resume;
mod agent_stages;
mod agent_tracing;
mod agent_verbs;
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
mod loop_text;
mod loop_verdict;
mod options;
mod parse;
mod quickstart;
mod receive;
mod rig;
mod tag;
mod trace;
mod trace_logs;
mod transport_claude;
mod transport_gemini;
mod transport_limits;
mod transport_logging;
mod transport_openai_chat;
mod transport_openai_responses;
mod transport_replay;
