//! A tool as the model sees it: name, description, schemas, and the exact per-provider form.

use std::fmt;
use std::sync::Arc;

use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use submit_core::Provider;

/// A tool as the model sees it.
///
/// ```
/// use serde_json::json;
/// use submit_agent::tool::ToolDefinition;
///
/// let lookup = ToolDefinition::new("lookup", "Looks a city up.", json!({"type": "object"}));
/// assert_eq!(lookup.name, "lookup");
/// assert_eq!(lookup.output_schema, None);
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
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
    /// The exact definition each provider receives; a transport sends its provider's entry as
    /// is instead of building one from the fields above. Filled for the submit tool from
    /// [`SubmitTool::definition`](submit_core::SubmitTool::definition).
    #[serde(default, skip_serializing_if = "WireDefinitions::is_empty")]
    pub wire: WireDefinitions,
}

impl ToolDefinition {
    /// A definition with a name, a description and an input schema; no output or resume
    /// schema, and no per-provider form.
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        input_schema: Value,
    ) -> Self {
        ToolDefinition {
            name: name.into(),
            description: description.into(),
            input_schema,
            output_schema: None,
            resume_schema: None,
            wire: WireDefinitions::default(),
        }
    }

    /// This definition with an output schema.
    pub fn with_output_schema(mut self, schema: Value) -> Self {
        self.output_schema = Some(schema);
        self
    }

    /// This definition with a resume schema.
    pub fn with_resume_schema(mut self, schema: Value) -> Self {
        self.resume_schema = Some(schema);
        self
    }

    /// This definition with a per-provider wire definition made by `definition`, for every
    /// provider.
    ///
    /// ```
    /// use serde_json::json;
    /// use submit_agent::tool::ToolDefinition;
    /// use submit_core::Provider;
    ///
    /// let tool = ToolDefinition::new("lookup", "Looks a city up.", json!({"type": "object"}))
    ///     .with_wire(|provider| json!({"name": "lookup", "for": provider.as_str()}));
    /// assert_eq!(
    ///     tool.wire_definition(Provider::Gemini),
    ///     Some(&json!({"name": "lookup", "for": "gemini"}))
    /// );
    /// ```
    pub fn with_wire(mut self, definition: impl FnMut(Provider) -> Value) -> Self {
        self.wire = WireDefinitions::from_fn(definition);
        self
    }

    /// The exact definition `provider` receives, when one is set.
    pub fn wire_definition(&self, provider: Provider) -> Option<&Value> {
        self.wire.get(provider)
    }
}

/// The exact definition each provider receives, keyed by [`Provider`]. Cheap to clone.
///
/// It serializes as an object keyed by the providers' names (`claude`, `gemini`,
/// `openai-chat`, `openai-responses`).
///
/// ```
/// use serde_json::json;
/// use submit_agent::tool::WireDefinitions;
/// use submit_core::Provider;
///
/// let wire = WireDefinitions::from_fn(|provider| json!({"for": provider.as_str()}));
/// assert_eq!(wire.get(Provider::Claude), Some(&json!({"for": "claude"})));
/// assert_eq!(serde_json::to_value(&wire).unwrap()["gemini"], json!({"for": "gemini"}));
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WireDefinitions {
    entries: Arc<[(Provider, Value)]>,
}

impl WireDefinitions {
    /// A definition for every provider, made by `definition`.
    pub fn from_fn(mut definition: impl FnMut(Provider) -> Value) -> Self {
        WireDefinitions {
            entries: Provider::ALL
                .iter()
                .map(|&provider| (provider, definition(provider)))
                .collect(),
        }
    }

    /// The definition `provider` receives, when one is set.
    pub fn get(&self, provider: Provider) -> Option<&Value> {
        self.entries
            .iter()
            .find_map(|(p, definition)| (*p == provider).then_some(definition))
    }

    /// True when no provider has a definition.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

impl Serialize for WireDefinitions {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.entries.len()))?;
        for (provider, definition) in self.entries.iter() {
            map.serialize_entry(provider.as_str(), definition)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for WireDefinitions {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Entries;

        impl<'de> Visitor<'de> for Entries {
            type Value = WireDefinitions;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object keyed by provider names")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut entries: Vec<(Provider, Value)> = Vec::new();
                while let Some((provider, definition)) = map.next_entry::<Provider, Value>()? {
                    entries.retain(|(p, _)| *p != provider);
                    entries.push((provider, definition));
                }
                entries.sort_by_key(|(p, _)| Provider::ALL.iter().position(|a| a == p));
                Ok(WireDefinitions {
                    entries: entries.into(),
                })
            }
        }

        deserializer.deserialize_map(Entries)
    }
}
