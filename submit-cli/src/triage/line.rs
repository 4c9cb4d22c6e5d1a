//! What a line of the input holds: the submit calls found in it, each with how its turn
//! ended, and the visible text of a response's turn that made none.

use std::borrow::Cow;

use serde_json::Value;
use submit_core::{Provider, StopReason};

/// A submit call found in a line.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Found<'a> {
    /// The provider whose call shape it is in.
    pub provider: Provider,
    /// The call object, as [`Provider::read_call`] reads it.
    pub call: &'a Value,
    /// Its message's index in a conversation.
    pub message: Option<usize>,
    /// How the turn that carried it ended, as it bears on this call:
    /// [`StopReason::OutputLimit`] only for the last tool call of a response that stopped at
    /// the output-token limit.
    pub end: StopReason,
}

/// The visible text of a turn of a whole response that made no call of the submit tool.
#[derive(Clone, Debug, PartialEq)]
pub struct FoundText<'a> {
    /// The provider whose response it is.
    pub provider: Provider,
    /// The text, its pieces joined (borrowed when it is one piece).
    pub text: Cow<'a, str>,
    /// How the turn ended, as it bears on the text: [`StopReason::OutputLimit`] only when the
    /// turn stopped at the output-token limit and no tool call follows the text.
    pub end: StopReason,
}

/// What one line holds.
#[derive(Clone, Debug, PartialEq)]
pub enum Line<'a> {
    /// An answer, with every submit call found in it (maybe none).
    Calls {
        /// The batch entry's `custom_id`.
        custom_id: Option<&'a str>,
        /// The calls, in the order they appear.
        calls: Vec<Found<'a>>,
        /// The visible text of each turn of a whole response that made no submit call and
        /// wrote some text, in the order the turns appear.
        texts: Vec<FoundText<'a>>,
    },
    /// A batch entry that holds no answer: errored, canceled, expired, or not HTTP 200.
    Failed {
        /// The batch entry's `custom_id`.
        custom_id: Option<&'a str>,
        /// Which batch and why, from a short fixed list (`anthropic batch: expired`,
        /// `openai batch: HTTP 500`), so the counts stay bounded.
        status: String,
    },
}
