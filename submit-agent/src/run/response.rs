//! What a run returns, and what one turn of it ended with.

use serde::{Deserialize, Serialize};

use crate::message::{Message, Part};
use crate::model::{FinishReason, Usage};

/// What a run returned.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Response {
    /// The conversation before `message`.
    pub messages: Vec<Message>,
    /// The final message: the model's last message; for an interrupted run the revised model
    /// message carrying the interrupts and the pending outputs of completed calls; for a run
    /// that committed a terminal result, the tool message answering it.
    pub message: Option<Message>,
    /// Why the run stopped.
    pub finish_reason: FinishReason,
    /// A note on the finish reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish_message: Option<String>,
    /// Tokens used by every model call of the run.
    #[serde(default)]
    pub usage: Usage,
}

impl Response {
    /// The final message's text.
    pub fn text(&self) -> String {
        self.message.as_ref().map(Message::text).unwrap_or_default()
    }

    /// The unresolved interrupts of the final message.
    pub fn interrupts(&self) -> Vec<&Part> {
        self.message
            .iter()
            .flat_map(|m| m.content.iter())
            .filter(|p| p.is_interrupt())
            .collect()
    }

    /// The whole conversation, `messages` then `message`: store it to resume later.
    pub fn history(&self) -> Vec<Message> {
        let mut all = self.messages.clone();
        all.extend(self.message.clone());
        all
    }
}

/// What a turn ended with.
#[derive(Debug)]
pub(crate) enum TurnOutcome {
    Continue,
    Done(Response),
}
