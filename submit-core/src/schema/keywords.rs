//! The JSON Schema keywords that hold subschemas: what the walk over a schema and the inlining
//! of references both descend into.

/// Keywords whose value is a map from names to subschemas.
pub(crate) const MAP_KEYWORDS: [&str; 5] = [
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];

/// Keywords whose value is one subschema.
pub(crate) const SINGLE_KEYWORDS: [&str; 11] = [
    "additionalProperties",
    "items",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
    "additionalItems",
];

/// Keywords whose value is a list of subschemas (`items` too, in its old tuple form).
pub(crate) const LIST_KEYWORDS: [&str; 5] = ["anyOf", "oneOf", "allOf", "prefixItems", "items"];
