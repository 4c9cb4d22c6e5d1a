//! A tool as the model sees it: name, description, schemas, and the exact per-provider form.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use submit_core::Provider;

/// A tool as the model sees it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolDefinition {
    /// The tool's name.
    pub name: String,
    /// What it does.
    pub description: String,
    /// The JSON Schema of its input.
    pub input_schema: Value,
    /// The JSON Schema of its output, when typed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    /// The JSON Schema of its resume data (`{"type":"object"}` for a plain tool).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resume_schema: Option<Value>,
    /// The exact definition each provider receives, in [`Provider::ALL`] order; a transport
    /// sends its provider's entry as is instead of building one from the fields above.
    /// Filled for the submit tool from [`SubmitTool::definition`](submit_core::SubmitTool::definition).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wire: Option<Arc<[Value; 4]>>,
}

impl ToolDefinition {
    /// This definition with a per-provider wire definition made by `definition`.
    ///
    /// ```
    /// use serde_json::json;
    /// use submit_agent::ToolDefinition;
    /// use submit_core::Provider;
    ///
    /// let tool = ToolDefinition {
    ///     name: "lookup".into(),
    ///     description: "Looks a city up.".into(),
    ///     input_schema: json!({"type": "object"}),
    ///     output_schema: None,
    ///     resume_schema: None,
    ///     wire: None,
    /// }
    /// .with_wire(|provider| json!({"name": "lookup", "for": provider.as_str()}));
    /// assert_eq!(
    ///     tool.wire_definition(Provider::Gemini),
    ///     Some(&json!({"name": "lookup", "for": "gemini"}))
    /// );
    /// ```
    pub fn with_wire(mut self, mut definition: impl FnMut(Provider) -> Value) -> Self {
        self.wire = Some(Arc::new(Provider::ALL.map(&mut definition)));
        self
    }

    /// The exact definition `provider` receives, when one is set.
    pub fn wire_definition(&self, provider: Provider) -> Option<&Value> {
        let wire = self.wire.as_deref()?;
        Provider::ALL
            .iter()
            .zip(wire.iter())
            .find_map(|(p, d)| (*p == provider).then_some(d))
    }
}
