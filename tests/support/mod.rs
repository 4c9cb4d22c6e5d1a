//! Helpers more than one topic uses, or that stand apart from the topics.

#[cfg(any(feature = "async-openai", feature = "rig"))]
pub mod submit_cases;
