//! The integration tests of `submit-agent`: one test binary, a module per topic (the loop, its
//! executor and gate, hooks and resume, MCP tools, the provider transports). Helpers are plain
//! modules (`transport`); a module that needs a feature is declared under it.

// The allocator that counts, for `transport_limits`: the test binary allocates through it.
#[cfg(all(
    feature = "claude",
    feature = "gemini",
    feature = "openai-chat",
    feature = "openai-responses"
))]
#[global_allocator]
static ALLOCATOR: submit_test_kit::counting_alloc::Counting =
    submit_test_kit::counting_alloc::Counting;

// Helpers.
#[cfg(any(
    feature = "claude",
    feature = "gemini",
    feature = "openai-chat",
    feature = "openai-responses"
))]
mod transport;

// Topics.
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
mod loop_text;
mod loop_verdict;
mod transport_claude;
mod transport_gemini;
mod transport_limits;
mod transport_logging;
mod transport_openai_chat;
mod transport_openai_responses;
mod transport_replay;
