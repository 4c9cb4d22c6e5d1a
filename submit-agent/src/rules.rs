//! The rules of the tool loop, written for users: turns and rounds, tools and their context,
//! hooks, interrupts and resume, stop reasons, the run's budget, and the executor's gate. The
//! same page is in the crate's `docs/` folder; the rules of a submit call itself are in
//! [`submit_core::rules`].

#[doc = include_str!("../docs/tool_loop.md")]
pub mod tool_loop {}
