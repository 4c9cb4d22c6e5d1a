//! Prints a conversation a line a part, as the examples show it.

use serde_json::Value;
use submit_result::agent::message::{Message, PartKind, Role};

/// Prints `messages` under `title`: each part on its own line, after its role; a held call
/// shows what holds it.
pub fn print_conversation(title: &str, messages: &[Message]) {
    println!("--- {title} ---");
    for message in messages {
        let role = match message.role {
            Role::System => "system",
            Role::User => "user",
            Role::Model => "model",
            Role::Tool => "tool",
        };
        for part in &message.content {
            let line = match &part.kind {
                PartKind::Text(t) => t.clone(),
                PartKind::ToolRequest(r) => {
                    let mut line = format!("calls {}({})", r.name, r.input);
                    if let Some(i) = r.interrupt.as_ref().filter(|i| !i.resolved) {
                        let data = i.data.clone().map(Value::Object).unwrap_or(Value::Null);
                        line.push_str(&format!("  [held by {:?}: {data}]", i.raised_by));
                    }
                    if r.pending.is_some() {
                        line.push_str("  [completed, pending]");
                    }
                    line
                }
                PartKind::ToolResponse(r) => format!(
                    "{} answered {}",
                    r.name,
                    r.output.clone().unwrap_or(Value::Null)
                ),
                other => format!("{other:?}"),
            };
            println!("{role:>6}: {line}");
        }
    }
    println!();
}
