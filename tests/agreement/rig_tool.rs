//! The rig tool: the submit tool registered in a rig `ToolSet` and called by name with the
//! model's argument text, as rig's agent loop calls a tool.

use futures::executor::block_on;
use rig_agent::tool::{RegisteredTool, ToolSet};
use rig_core::tool::{ToolContext, ToolErrorKind};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};
use submit_result::rig::RigSubmitTool;
use submit_result::SubmitTool;

use super::corpus::outcome_json;

/// Calls a fresh rig tool of `tool` with `arguments`; what the call exposes, in the outcome's
/// fields: whether it succeeded, the output the model reads (`tool_result`), and, for an
/// accepted call, the accepted submit the tool handed over (response, reasoning, recovery,
/// recoveries); for a rejected call, the error's kind must be `InvalidArgs` and its message
/// the error's display (`<class> error: <message>`), kept as `trace_error`'s first part.
pub fn call<R>(tool: &SubmitTool<R>, arguments: &str) -> Result<Value, String>
where
    R: DeserializeOwned + Serialize + Send + Sync + 'static,
{
    let submit = RigSubmitTool::new(tool.clone());
    let accepted = submit.accepted();
    let mut tools = ToolSet::default();
    tools.add_registered_tool(
        RegisteredTool::from_handler(submit)
            .map_err(|e| format!("rig does not register the tool: {e:?}"))?,
    );
    let result = block_on(tools.execute(tool.name(), arguments, &mut ToolContext::new()));
    let output = result
        .output()
        .as_json()
        .cloned()
        .ok_or_else(|| format!("rig's output is not JSON: {}", result.output().render()))?;
    if result.is_success() {
        let taken = accepted
            .take()
            .ok_or("rig answered a success but the tool holds no accepted submit")?;
        return Ok(json!({
            "accepted": true,
            "response": outcome_json(&taken.response),
            "reasoning": taken.reasoning,
            "recovery": outcome_json(&taken.recovery()),
            "recoveries": outcome_json(&taken.recoveries),
            "tool_result": output,
        }));
    }
    if accepted.is_committed() {
        return Err("rig answered an error but the tool committed".to_owned());
    }
    let error = result
        .error()
        .ok_or_else(|| format!("rig's result is neither a success nor an error: {result:?}"))?;
    if !result.is_error_kind(ToolErrorKind::InvalidArgs) {
        return Err(format!("rig's error is not InvalidArgs: {result:?}"));
    }
    Ok(json!({
        "accepted": false,
        "tool_result": output,
        "error_message": error.message(),
    }))
}

/// Checks a rejected rig call's error message against the reference outcome: the error's
/// display, `<class> error: <message>`.
pub fn check_message(reference: &Value, observed: &Value) -> Result<(), String> {
    if observed["accepted"] != json!(false) || reference["accepted"] != json!(false) {
        return Ok(());
    }
    let want = format!(
        "{} error: {}",
        reference["class"].as_str().unwrap_or_default(),
        reference["tool_result"]["error"]
            .as_str()
            .unwrap_or_default()
    );
    match observed["error_message"].as_str() {
        Some(got) if got == want => Ok(()),
        got => Err(format!(
            "rig's error message is {got:?}, the reference's error displays as {want:?}"
        )),
    }
}
