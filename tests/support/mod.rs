//! Helpers more than one topic uses, or that stand apart from the topics.

// The allocator that counts, for `transport_limits`.
#[cfg(all(
    feature = "claude",
    feature = "gemini",
    feature = "openai-chat",
    feature = "openai-responses"
))]
pub mod counting_alloc;
#[cfg(any(feature = "async-openai", feature = "rig"))]
pub mod submit_cases;
