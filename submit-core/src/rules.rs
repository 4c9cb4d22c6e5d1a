//! The rules the parser applies to a submit call, written for users: what it reads, in which
//! order, what it recovers, what it declines and with which message. One page per family of
//! rules; the same pages are in the crate's `docs/` folder.

#[doc = include_str!("../docs/parsing.md")]
pub mod parsing {}

#[doc = include_str!("../docs/recoveries.md")]
pub mod recoveries {}

#[doc = include_str!("../docs/rejections.md")]
pub mod rejections {}

#[doc = include_str!("../docs/calls_in_text.md")]
pub mod calls_in_text {}

#[doc = include_str!("../docs/values.md")]
pub mod values {}

#[doc = include_str!("../docs/definitions.md")]
pub mod definitions {}

#[cfg(test)]
mod vocabulary;
