//! Comparing an entry point's outcome with the reference's, field by field.

use serde_json::{json, Value};

/// Every field of an accepted outcome.
pub const ACCEPTED: &[&str] = &[
    "accepted",
    "response",
    "reasoning",
    "recovery",
    "recoveries",
    "tool_result",
];

/// Every field of a rejected outcome, and `found` (`false` when no call of the tool was found
/// in a text or a wrapper).
pub const REJECTED: &[&str] = &[
    "accepted",
    "found",
    "class",
    "cause",
    "trace_error",
    "tool_result",
];

/// Compares `observed` (what `entry` exposes) with the `reference` outcome on the fields
/// `exposed` names; on a mismatch, an error listing the differing fields and both outcomes.
pub fn agree(
    entry: &str,
    reference: &Value,
    observed: &Value,
    exposed: &[&str],
) -> Result<(), String> {
    let fields = if reference["accepted"] == json!(true) {
        ACCEPTED
    } else {
        REJECTED
    };
    let mut wrong = Vec::new();
    for field in fields.iter().filter(|field| exposed.contains(field)) {
        let (want, got) = (&reference[*field], &observed[*field]);
        if want != got {
            wrong.push(format!("{field}: reference {want}, {entry} {got}"));
        }
        if *field == "accepted" && want != got {
            break;
        }
    }
    if wrong.is_empty() {
        return Ok(());
    }
    Err(format!(
        "{entry} disagrees with the reference (handle):\n  {}\nreference: {}\n{entry}: {}",
        wrong.join("\n  "),
        pretty(reference),
        pretty(observed)
    ))
}

/// A value as indented JSON.
pub fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string())
}
