//! Inlining of local references (`#`, `#/$defs/X`, `#/definitions/X`, any `#/…` pointer).
//!
//! Every local `$ref` is replaced by a copy of its target, with the reference's sibling keywords
//! laid over it. A reference met again while its own target is being expanded is recursion: it
//! stays a reference, rewritten to `#/$defs/<name>`, and the target is kept once under the
//! result's `$defs`. References that are not local (`https://…`) are left as they are.
//!
//! Expansion is bounded: a document whose references fan out into more than [`NODE_LIMIT`]
//! schema nodes is refused rather than grown without end.

use serde_json::{Map, Value};

use super::keywords::{LIST_KEYWORDS, MAP_KEYWORDS, SINGLE_KEYWORDS};
use crate::options::BuildError;

/// The most schema nodes an inlined schema may hold.
pub(crate) const NODE_LIMIT: usize = 100_000;

struct Inliner<'a> {
    root: &'a Value,
    /// References being expanded, innermost last.
    stack: Vec<String>,
    /// References kept for recursion: (reference, name under `$defs`).
    kept: Vec<(String, String)>,
    root_name: &'a str,
    nodes: usize,
}

/// Inlines the local references of `document`; `root_name` names the document itself under
/// `$defs` when it refers to itself (`"$ref": "#"`).
pub(crate) fn inline(document: &Value, root_name: &str) -> Result<Value, BuildError> {
    let mut inliner = Inliner {
        root: document,
        stack: vec!["#".to_owned()],
        kept: Vec::new(),
        root_name,
        nodes: 0,
    };
    let mut schema = inliner.expand(document)?;
    let mut defs = Map::new();
    let mut done = 0;
    while let Some((reference, name)) = inliner.kept.get(done).cloned() {
        done += 1;
        let target = inliner.resolve(&reference)?;
        inliner.stack = vec![reference];
        let mut expanded = inliner.expand(target)?;
        if let Value::Object(map) = &mut expanded {
            strip_document_keys(map);
        }
        defs.insert(name, expanded);
    }
    if let Value::Object(map) = &mut schema {
        map.remove("$defs");
        map.remove("definitions");
        if !defs.is_empty() {
            map.insert("$defs".into(), Value::Object(defs));
        }
    }
    Ok(schema)
}

impl<'a> Inliner<'a> {
    fn resolve(&self, reference: &str) -> Result<&'a Value, BuildError> {
        let pointer = reference.strip_prefix('#').unwrap_or(reference);
        let pointer = percent_decode(pointer);
        self.root.pointer(&pointer).ok_or_else(|| {
            BuildError::InvalidSchema(format!(
                "`$ref` `{reference}` points at nothing in the document: fix the reference"
            ))
        })
    }

    fn count(&mut self) -> Result<(), BuildError> {
        self.nodes += 1;
        if self.nodes > NODE_LIMIT {
            return Err(BuildError::InvalidSchema(format!(
                "inlining its references grows the schema past {NODE_LIMIT} nodes: \
                 share fewer definitions or make the schema smaller"
            )));
        }
        Ok(())
    }

    /// The name a kept (recursive) reference gets under `$defs`.
    fn keep(&mut self, reference: &str) -> String {
        if let Some((_, name)) = self.kept.iter().find(|(r, _)| r == reference) {
            return name.clone();
        }
        let base = if reference == "#" {
            self.root_name.to_owned()
        } else {
            let last = reference.rsplit('/').next().unwrap_or(reference);
            percent_decode(last).replace("~1", "/").replace("~0", "~")
        };
        let mut base: String = base
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        if base.is_empty() {
            base.push_str("Schema");
        }
        let mut name = base.clone();
        let mut n = 2;
        while self.kept.iter().any(|(_, taken)| *taken == name) {
            name = format!("{base}{n}");
            n += 1;
        }
        self.kept.push((reference.to_owned(), name.clone()));
        name
    }

    fn expand(&mut self, node: &Value) -> Result<Value, BuildError> {
        self.count()?;
        let Value::Object(map) = node else {
            return Ok(node.clone());
        };
        let reference = map
            .get("$ref")
            .and_then(Value::as_str)
            .filter(|r| r.starts_with('#'));
        let Some(reference) = reference else {
            return self.expand_keywords(map).map(Value::Object);
        };
        let siblings: Map<String, Value> = map
            .iter()
            .filter(|(k, _)| k.as_str() != "$ref")
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let siblings = self.expand_keywords(&siblings)?;
        if self.stack.iter().any(|r| r == reference) {
            let name = self.keep(reference);
            let mut out = Map::new();
            out.insert("$ref".into(), Value::String(format!("#/$defs/{name}")));
            out.extend(siblings);
            return Ok(Value::Object(out));
        }
        let target = self.resolve(reference)?;
        self.stack.push(reference.to_owned());
        let expanded = self.expand(target);
        self.stack.pop();
        match expanded? {
            Value::Object(mut out) => {
                strip_document_keys(&mut out);
                out.extend(siblings);
                Ok(Value::Object(out))
            }
            Value::Bool(true) => Ok(Value::Object(siblings)),
            other if siblings.is_empty() => Ok(other),
            other => {
                let mut out = Map::new();
                out.insert("allOf".into(), Value::Array(vec![other]));
                out.extend(siblings);
                Ok(Value::Object(out))
            }
        }
    }

    fn expand_keywords(
        &mut self,
        map: &Map<String, Value>,
    ) -> Result<Map<String, Value>, BuildError> {
        let mut out = Map::with_capacity(map.len());
        for (key, value) in map {
            let k = key.as_str();
            let expanded = if k == "$defs" || k == "definitions" {
                // Definitions are reached through references; their own copies are dropped.
                value.clone()
            } else if MAP_KEYWORDS.contains(&k) {
                match value {
                    Value::Object(children) => {
                        let mut expanded = Map::with_capacity(children.len());
                        for (name, child) in children {
                            expanded.insert(name.clone(), self.expand(child)?);
                        }
                        Value::Object(expanded)
                    }
                    other => other.clone(),
                }
            } else if LIST_KEYWORDS.contains(&k) && value.is_array() {
                match value {
                    Value::Array(children) => Value::Array(
                        children
                            .iter()
                            .map(|child| self.expand(child))
                            .collect::<Result<_, _>>()?,
                    ),
                    other => other.clone(),
                }
            } else if SINGLE_KEYWORDS.contains(&k) {
                self.expand(value)?
            } else {
                value.clone()
            };
            out.insert(key.clone(), expanded);
        }
        Ok(out)
    }
}

/// Removes the keys that only mean something at a document's root.
fn strip_document_keys(map: &mut Map<String, Value>) {
    map.remove("$schema");
    map.remove("$id");
    map.remove("$defs");
    map.remove("definitions");
}

/// Decodes `%XX` escapes of a URI fragment; malformed escapes are kept as written.
fn percent_decode(text: &str) -> String {
    if !text.contains('%') {
        return text.to_owned();
    }
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (b, hex) {
            (b'%', Some(decoded)) => {
                out.push(decoded);
                i += 3;
            }
            _ => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).unwrap_or_else(|_| text.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn plain_definitions_are_inlined_with_siblings_on_top() {
        let document = json!({"type": "object",
            "properties": {"a": {"$ref": "#/$defs/A", "description": "outer"}},
            "$defs": {"A": {"type": "string", "description": "inner"}}});
        let schema = inline(&document, "Root").unwrap();
        assert_eq!(
            schema,
            json!({"type": "object",
                "properties": {"a": {"type": "string", "description": "outer"}}})
        );
    }

    #[test]
    fn self_reference_keeps_the_root_under_defs() {
        let document = json!({"type": "object",
            "properties": {"children": {"type": "array", "items": {"$ref": "#"}}}});
        let schema = inline(&document, "Node").unwrap();
        assert_eq!(
            schema["properties"]["children"]["items"],
            json!({"$ref": "#/$defs/Node"})
        );
        assert_eq!(
            schema["$defs"]["Node"]["properties"]["children"]["items"],
            json!({"$ref": "#/$defs/Node"})
        );
    }

    #[test]
    fn recursive_definition_is_kept_once() {
        let document = json!({"type": "object", "properties": {"tree": {"$ref": "#/$defs/T"}},
            "$defs": {"T": {"type": "object",
                "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/T"}}}}}});
        let schema = inline(&document, "Root").unwrap();
        assert_eq!(
            schema["properties"]["tree"]["properties"]["kids"]["items"],
            json!({"$ref": "#/$defs/T"})
        );
        assert_eq!(schema["$defs"].as_object().unwrap().len(), 1);
    }

    #[test]
    fn fan_out_past_the_limit_is_refused() {
        let mut defs = Map::new();
        defs.insert("D0".into(), json!({"type": "string"}));
        for i in 1..40 {
            let prev = format!("#/$defs/D{}", i - 1);
            defs.insert(
                format!("D{i}"),
                json!({"type": "object", "properties": {"a": {"$ref": prev}, "b": {"$ref": prev}}}),
            );
        }
        let document = json!({"$ref": "#/$defs/D39", "$defs": defs});
        assert!(matches!(
            inline(&document, "R"),
            Err(BuildError::InvalidSchema(_))
        ));
    }

    #[test]
    fn dangling_reference_is_an_error() {
        let document = json!({"properties": {"a": {"$ref": "#/$defs/Missing"}}});
        let error = inline(&document, "R").unwrap_err();
        assert!(error.to_string().contains("#/$defs/Missing"));
    }
}
