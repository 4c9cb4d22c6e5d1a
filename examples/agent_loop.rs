//! The tool loop end to end with a scripted model: a tool held for approval, the approval,
//! a submit rejected by a result validator, and the corrected resubmit that commits.
//!
//! Run with `cargo run --example agent_loop`.

use futures::executor::block_on;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;
use submit_result::agent::{
    executor::{validator_fn, BoxError, Execution, Executor, Finding, GateStatus},
    hook::{ToolApproval, ToolCallDecision},
    message::{Message, Part},
    model::ScriptedModel,
    run::{Agent, Resume},
    tool::{Tool, ToolContext, ToolError},
};
use submit_result::{SubmitResult, SubmitTool};

/// The final answer the run must produce.
#[derive(Debug, Serialize, Deserialize, JsonSchema, SubmitResult)]
#[submit_result(
    name = "submit_refund",
    description = "Submit the refund you made. This call ends the run.",
    success = "Refund recorded."
)]
struct Refund {
    /// The invoice refunded.
    invoice: String,
    /// The amount refunded, in cents.
    amount_cents: u64,
    /// ISO 4217 currency code.
    currency: String,
}

#[derive(Deserialize, JsonSchema)]
struct InvoiceId {
    invoice: String,
}

#[path = "common/conversation.rs"]
mod conversation;
use conversation::print_conversation;

/// Runs the scenario; `Err` when any step does not go as described.
pub fn main() -> Result<(), Box<dyn std::error::Error>> {
    let lookup = Tool::new(
        "lookup_invoice",
        "Finds an invoice.",
        |_ctx: ToolContext, id: InvoiceId| async move {
            Ok::<_, ToolError>(
                json!({"invoice": id.invoice, "total_cents": 4000, "currency": "EUR"}),
            )
        },
    );
    let refund = Tool::new(
        "issue_refund",
        "Refunds an invoice.",
        |_ctx: ToolContext, id: InvoiceId| async move {
            Ok::<_, ToolError>(json!({"refunded": id.invoice}))
        },
    );

    let model = ScriptedModel::new()
        .then_message(vec![
            Part::text("Let me look at the invoice and refund it."),
            Part::tool_request("lookup_invoice", None, json!({"invoice": "INV-7"})),
            Part::tool_request("issue_refund", None, json!({"invoice": "INV-7"})),
        ])
        .then_message(vec![Part::tool_request(
            "submit_refund",
            None,
            json!({"reasoning": "Refunded in full.",
                   "result": {"invoice": "INV-7", "amount_cents": 4000, "currency": "eur"}}),
        )])
        .then_message(vec![Part::tool_request(
            "submit_refund",
            None,
            json!({"reasoning": "Refunded in full; currency as an ISO code.",
                   "result": {"invoice": "INV-7", "amount_cents": 4000, "currency": "EUR"}}),
        )]);

    let agent = Agent::new(model)
        .hook(ToolApproval::new(["lookup_invoice"]))
        .tool(lookup)
        .tool(refund)
        .max_turns(10);
    let executor =
        Executor::new(agent, SubmitTool::<Refund>::for_response()?)?.validator(validator_fn(
            |refund: &Refund, _reasoning: &str| -> Result<Vec<Finding>, BoxError> {
                let iso = refund.currency.len() == 3
                    && refund.currency.chars().all(|c| c.is_ascii_uppercase());
                Ok(if iso {
                    vec![]
                } else {
                    vec![Finding::new(
                        "currency-code",
                        format!(
                            "{:?} is not an ISO 4217 code such as \"EUR\"",
                            refund.currency
                        ),
                    )]
                })
            },
        ));

    let conversation = vec![Message::user("Refund invoice INV-7 in full.")];
    let paused = match block_on(executor.run(conversation))? {
        Execution::Interrupted(paused) => paused,
        Execution::Committed(_) => return Err("expected the refund to be held".into()),
    };
    print_conversation("paused for approval", &paused.history());

    // The conversation can be stored as JSON here and resumed later, anywhere.
    let stored = serde_json::to_string(&paused.history())?;
    let history: Vec<Message> = serde_json::from_str(&stored)?;
    let held = history
        .last()
        .and_then(|m| m.content.iter().find(|p| p.is_interrupt()))
        .ok_or("no held call")?;
    let approve = held.to_tool_restart(Some(serde_json::to_value(ToolCallDecision::approve())?))?;
    println!("operator approves issue_refund\n");

    let done = block_on(executor.resume(history, Resume::new().restart(approve)))?
        .committed()
        .ok_or("expected a committed refund")?;
    print_conversation("after approval", &done.messages);
    for record in &done.trace {
        println!("trace: {record}");
    }
    let statuses: Vec<_> = done.trace.iter().map(|r| &r.status).collect();
    if !matches!(
        statuses.as_slice(),
        [GateStatus::Findings(1), GateStatus::Committed { .. }]
    ) {
        return Err("expected one rejected submit, then the committed one".into());
    }
    println!("committed: {:?}", done.response);
    println!("reasoning: {}", done.reasoning);
    Ok(())
}
