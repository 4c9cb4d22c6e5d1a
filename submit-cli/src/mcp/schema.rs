//! The `inputSchema` the server lists: the parameters object, with the payload schema in it as
//! the schema file has it.
//!
//! A provider definition inlines the payload's references and drops `$schema`, because the
//! providers take one dialect and no references from outside the tool. An MCP host validates
//! with the dialect `$schema` names (JSON Schema 2020-12 when it names none), so the listing
//! keeps `$schema` (and `$id`) at its root, the document's `$defs` and `definitions` there
//! too, and every reference as a reference. Inlining is not exact in every dialect: a `$ref`'s
//! sibling keywords are ignored before 2019-09 and apply beside it after, and a subschema's
//! `$id` moves the base of the references under it; a kept reference means what it meant.
//! References into `$defs` or `definitions` still point there; one to another place in the
//! document is rewritten to where that place now is in the parameters object.
//!
//! The payload keeps the document's keywords but those that belong to a document's root
//! (`$schema`, `$id`, `$defs`, `definitions`, `title`); its `description` is the tool's
//! payload description, and `--omit-field` withholds properties, as in every definition.
//! `--strict` rewrites a provider's schema for that provider's strict mode and does not apply
//! here: MCP has no strict mode, and the rewrite changes what the schema admits.

use rmcp::model::JsonObject;
use serde_json::{Map, Value};
use submit_core::{Provider, SubmitTool};

/// Members of the document that belong to the parameters object's root.
const ROOT_ONLY: [&str; 5] = ["$schema", "$id", "$defs", "definitions", "title"];

/// Where definitions are kept, at the document's root and the listing's.
const DEFINITIONS: [&str; 2] = ["$defs", "definitions"];

/// Keywords whose values are data, not schemas: a `$ref` inside them is not a reference.
const DATA: [&str; 5] = ["const", "enum", "default", "examples", "example"];

/// The name under the listing's `$defs` of a copy of the payload, when a flat listing has a
/// reference to a place in the payload that is not one of its properties.
const PAYLOAD_DEF: &str = "payload";

/// The name of the reasoning parameter.
const REASONING: &str = "reasoning";

/// The `inputSchema` of `tool`, built from `document` (the schema file's JSON).
pub fn input_schema(tool: &SubmitTool<Value>, document: &Value) -> JsonObject {
    let field = tool.payload_field();
    let flat = tool.is_flat();
    // What the provider definitions agree on beyond the payload: the reasoning parameter and
    // the required list.
    let definition = tool.definition(Provider::Claude);
    let parameters = definition.get("input_schema");
    let Value::Object(document) = document else {
        // A boolean schema (`true`): no keyword, no reference, nothing to keep.
        return match parameters {
            Some(Value::Object(parameters)) => parameters.clone(),
            _ => JsonObject::new(),
        };
    };

    let mut payload = Map::new();
    payload.insert("description".into(), tool.payload_description().into());
    for (key, value) in document {
        if !ROOT_ONLY.contains(&key.as_str()) && key != "description" {
            payload.insert(key.clone(), value.clone());
        }
    }
    if let Some(Value::Object(properties)) = payload.get_mut("properties") {
        properties.retain(|name, _| !tool.omitted_payload_fields().contains(name));
    }

    let mut rewrite = Rewrite {
        id: document.get("$id").and_then(Value::as_str),
        field,
        flat,
        payload_copied: false,
    };
    let mut listed = Map::new();
    for key in ["$schema", "$id"] {
        if let Some(value) = document.get(key) {
            listed.insert(key.into(), value.clone());
        }
    }
    listed.insert("type".into(), "object".into());
    let mut properties = Map::new();
    if let Some(reasoning) = parameters
        .and_then(|p| p.get("properties"))
        .and_then(|p| p.get(REASONING))
    {
        properties.insert(REASONING.into(), reasoning.clone());
    }
    let mut payload = Value::Object(payload);
    rewrite.schema(&mut payload);
    if flat {
        if let Some(Value::Object(payload_properties)) = payload.get("properties") {
            properties.extend(payload_properties.clone());
        }
    } else {
        properties.insert(field.to_owned(), payload.clone());
    }
    listed.insert("properties".into(), Value::Object(properties));
    if let Some(required) = parameters.and_then(|p| p.get("required")) {
        listed.insert("required".into(), required.clone());
    }
    if flat && document.get("additionalProperties") == Some(&Value::Bool(false)) {
        listed.insert("additionalProperties".into(), Value::Bool(false));
    }
    for key in DEFINITIONS {
        if let Some(mut definitions) = document.get(key).cloned() {
            if let Value::Object(map) = &mut definitions {
                for definition in map.values_mut() {
                    rewrite.schema(definition);
                }
            }
            listed.insert(key.into(), definitions);
        }
    }
    if rewrite.payload_copied {
        let defs = listed
            .entry("$defs")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(defs) = defs {
            defs.insert(PAYLOAD_DEF.into(), payload);
        }
    }
    listed
}

/// Rewrites the references of the document's subschemas for where they stand in the listing.
struct Rewrite<'a> {
    /// The document's `$id`: a reference to it with a fragment is a reference in the document.
    id: Option<&'a str>,
    /// The payload parameter's name.
    field: &'a str,
    /// Whether the payload's properties are the listing's own.
    flat: bool,
    /// Whether a reference now points at a copy of the payload under `$defs`.
    payload_copied: bool,
}

impl Rewrite<'_> {
    /// Rewrites every reference in `schema` and the subschemas under it.
    fn schema(&mut self, schema: &mut Value) {
        match schema {
            Value::Object(map) => {
                for (key, value) in map.iter_mut() {
                    if key == "$ref" {
                        if let Value::String(reference) = value {
                            if let Some(moved) = self.reference(reference) {
                                *reference = moved;
                            }
                        }
                    } else if !DATA.contains(&key.as_str()) {
                        self.schema(value);
                    }
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|item| self.schema(item)),
            _ => {}
        }
    }

    /// Where `reference` points in the listing, when that is not where it pointed.
    fn reference(&mut self, reference: &str) -> Option<String> {
        let local = match self.id {
            Some(id) => reference.strip_prefix(id).unwrap_or(reference),
            None => reference,
        };
        let pointer = local.strip_prefix('#')?;
        if pointer.starts_with('/') || pointer.is_empty() {
            let kept = DEFINITIONS.iter().any(|key| {
                let container = format!("/{key}");
                pointer == container || pointer.starts_with(&format!("{container}/"))
            });
            if kept {
                return (local != reference).then(|| local.to_owned());
            }
            if !self.flat {
                return Some(format!("#/properties/{}{pointer}", escape(self.field)));
            }
            if pointer.starts_with("/properties/") {
                return (local != reference).then(|| local.to_owned());
            }
            self.payload_copied = true;
            return Some(format!("#/$defs/{PAYLOAD_DEF}{pointer}"));
        }
        // A named anchor (`#name`) names the same subschema wherever it stands.
        None
    }
}

/// One JSON Pointer segment (`~` → `~0`, `/` → `~1`).
fn escape(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use submit_core::{GeminiSchema, Options};

    fn listed(document: Value, options: Options) -> Value {
        let options = options.gemini_schema(GeminiSchema::JsonSchema);
        let tool = SubmitTool::from_json_schema(document.clone(), options).unwrap();
        Value::Object(input_schema(&tool, &document))
    }

    #[test]
    fn a_plain_schema_lists_as_the_definition_does() {
        let document = json!({"type": "object", "properties": {"s": {"type": "string"}},
                              "required": ["s"]});
        let tool = SubmitTool::from_json_schema(document.clone(), Options::new()).unwrap();
        assert_eq!(
            Value::Object(input_schema(&tool, &document)),
            tool.definition(Provider::Claude)["input_schema"]
        );
    }

    #[test]
    fn a_draft_07_schema_keeps_its_dialect_definitions_and_references() {
        let document = json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "title": "Pair",
            "type": "object",
            "properties": {
                "pair": {"type": "array", "items": [{"type": "string"}, {"$ref": "#/definitions/n"}],
                         "additionalItems": false},
                "again": {"$ref": "#/properties/pair"}
            },
            "required": ["pair"],
            "definitions": {"n": {"type": "integer", "const": {"$ref": "#/not/a/reference"}}}
        });
        let listed = listed(document, Options::new());
        assert_eq!(listed["$schema"], "http://json-schema.org/draft-07/schema#");
        let payload = &listed["properties"]["result"];
        assert_eq!(
            payload["properties"]["pair"]["items"][1]["$ref"],
            "#/definitions/n"
        );
        assert_eq!(
            payload["properties"]["again"]["$ref"],
            "#/properties/result/properties/pair"
        );
        assert_eq!(payload.get("title"), None);
        assert_eq!(
            listed["definitions"],
            json!({"n": {"type": "integer", "const": {"$ref": "#/not/a/reference"}}})
        );
        assert_eq!(listed["required"], json!(["reasoning", "result"]));
    }

    #[test]
    fn a_flat_listing_copies_the_payload_for_a_reference_to_its_root() {
        let document = json!({
            "type": "object",
            "properties": {"name": {"type": "string"}, "child": {"$ref": "#"},
                           "sibling": {"$ref": "#/properties/name"}},
            "required": ["name"],
            "additionalProperties": false
        });
        let listed = listed(document, Options::new().flat_payload(true));
        assert_eq!(listed["properties"]["child"]["$ref"], "#/$defs/payload");
        assert_eq!(listed["properties"]["sibling"]["$ref"], "#/properties/name");
        assert_eq!(
            listed["$defs"]["payload"]["properties"]["child"]["$ref"],
            "#/$defs/payload"
        );
        assert_eq!(listed["additionalProperties"], false);
        assert_eq!(listed["required"], json!(["reasoning", "name"]));
    }

    #[test]
    fn references_by_the_documents_id_and_omitted_fields() {
        let document = json!({
            "$id": "https://example.com/order",
            "type": "object",
            "properties": {"a": {"$ref": "https://example.com/order#/$defs/A"},
                           "note": {"type": "string"}},
            "required": ["a"],
            "$defs": {"A": {"type": "integer"}}
        });
        let listed = listed(document, Options::new().omit_payload_fields(["note"]));
        assert_eq!(listed["$id"], "https://example.com/order");
        let payload = &listed["properties"]["result"]["properties"];
        assert_eq!(payload["a"]["$ref"], "#/$defs/A");
        assert_eq!(payload.get("note"), None);
        assert_eq!(listed["$defs"], json!({"A": {"type": "integer"}}));
    }
}
