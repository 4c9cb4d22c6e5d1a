//! The payload's property table: its top-level properties in schema order, each with whether
//! the original schema requires it and the JSON types its schema admits.
//!
//! Built once with the tool from the full payload schema; the parse steps read it (strict
//! mode's optional `null`s, the test for a wrapper around the arguments, the flat payload).

use serde_json::Value;

use super::top_properties;

/// A top-level payload property, in schema order.
#[derive(Clone, Debug)]
pub(crate) struct Property {
    pub(crate) name: String,
    /// Required by the original (not strict-rewritten) schema.
    pub(crate) required: bool,
    /// The JSON types its schema admits, when the schema says exactly (`type`, or every branch
    /// of `anyOf`/`oneOf` typed); `None` when it may admit anything.
    pub(crate) types: Option<Types>,
}

/// A set of JSON Schema types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Types(u8);

impl Types {
    /// No type: a schema no value satisfies.
    pub(crate) const NONE: Types = Types(0);
    /// Every type: a schema that says nothing of the type.
    pub(crate) const ALL: Types = Types(127);
    pub(crate) const NULL: Types = Types(1);
    pub(crate) const BOOLEAN: Types = Types(2);
    pub(crate) const INTEGER: Types = Types(4);
    pub(crate) const NUMBER: Types = Types(8);
    pub(crate) const STRING: Types = Types(16);
    pub(crate) const ARRAY: Types = Types(32);
    pub(crate) const OBJECT: Types = Types(64);

    /// The union of two sets.
    pub(crate) fn with(self, other: Types) -> Types {
        Types(self.0 | other.0)
    }

    /// The intersection of two sets.
    pub(crate) fn and(self, other: Types) -> Types {
        Types(self.0 & other.0)
    }

    /// The set without the types of `other`.
    pub(crate) fn without(self, other: Types) -> Types {
        Types(self.0 & !other.0)
    }

    /// Whether every type of `other` is in the set.
    pub(crate) fn has(self, other: Types) -> bool {
        self.0 & other.0 == other.0
    }

    /// The type a JSON Schema `type` name stands for.
    pub(crate) fn named(name: &str) -> Option<Types> {
        Some(match name {
            "null" => Types::NULL,
            "boolean" => Types::BOOLEAN,
            "integer" => Types::INTEGER,
            "number" => Types::NUMBER,
            "string" => Types::STRING,
            "array" => Types::ARRAY,
            "object" => Types::OBJECT,
            _ => return None,
        })
    }

    /// The types a property schema admits, when it says exactly.
    pub(crate) fn of_schema(schema: &Value) -> Option<Types> {
        match schema.get("type") {
            Some(Value::String(name)) => return Types::named(name),
            Some(Value::Array(names)) => {
                return names.iter().try_fold(Types(0), |set, name| {
                    Some(set.with(Types::named(name.as_str()?)?))
                });
            }
            Some(_) => return None,
            None => {}
        }
        let branches = schema
            .get("anyOf")
            .or_else(|| schema.get("oneOf"))?
            .as_array()?;
        if branches.is_empty() {
            return None;
        }
        branches.iter().try_fold(Types(0), |set, branch| {
            Some(set.with(Types::of_schema(branch)?))
        })
    }
}

/// The table of `payload_schema` (the full, un-omitted schema).
pub(crate) fn table(payload_schema: &Value) -> Vec<Property> {
    top_properties(payload_schema)
        .into_iter()
        .map(|p| Property {
            types: payload_schema
                .get("properties")
                .and_then(|properties| properties.get(&p.name))
                .and_then(Types::of_schema),
            name: p.name,
            required: p.required,
        })
        .collect()
}
