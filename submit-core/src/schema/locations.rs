//! What the payload schema admits at each location of a payload: the JSON types, and, where
//! the schema lists them (`enum`, `const`), the only strings. Read by the parser when a
//! payload did not decode, to find strings that stand for a value of another type and enum
//! values in the wrong letter case.
//!
//! A location's schema is every subschema that applies there. `properties`,
//! `additionalProperties`, `prefixItems` and `items` (also the older tuple `items` with
//! `additionalItems`) lead from a location to its members and items. `$ref` into the schema's
//! own definitions and `allOf` add subschemas that all apply (what the location admits is the
//! intersection); `anyOf` and `oneOf` add alternatives (the union), of which only those that
//! admit the container's type lead on to its members. Keywords not read here (`not`,
//! `if`/`then`/`else`, `patternProperties`, …) can only narrow what a location admits, so
//! leaving them out errs towards admitting more, and replacing less. Where applicators nest
//! deeper or fan out wider than fixed bounds, the location admits anything.

use std::collections::HashMap;
use std::rc::Rc;

use serde_json::{Map, Value};

use super::property::Types;

/// Applicators (`$ref`, `allOf`, `anyOf`, `oneOf`) are followed this deep from one subschema.
const NESTING: usize = 32;

/// A location combines at most this many subschemas.
const FAN_OUT: usize = 64;

/// The subschemas that apply at one location of a payload.
#[derive(Clone, Debug)]
pub(crate) enum Location<'s> {
    /// Nothing is known: every value is admitted.
    Any,
    /// No value is admitted (a `false` schema, or a member a closed object does not list).
    Nothing,
    /// One subschema, with whatever it combines.
    Schema(&'s Value),
    /// All of these apply.
    All(Vec<Location<'s>>),
    /// One of these applies.
    Union(Vec<Location<'s>>),
}

/// What a location admits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Admitted<'s> {
    /// The JSON types (`number` includes `integer`).
    pub(crate) types: Types,
    /// When `types` holds strings: the only strings admitted, or `None` for any string.
    pub(crate) strings: Option<Rc<[&'s str]>>,
}

impl<'s> Admitted<'s> {
    const ANY: Admitted<'static> = Admitted {
        types: Types::ALL,
        strings: None,
    };

    const NOTHING: Admitted<'static> = Admitted {
        types: Types::NONE,
        strings: None,
    };

    /// Both apply.
    fn and(self, other: Admitted<'s>) -> Admitted<'s> {
        let types = self.types.and(other.types);
        let strings = match (self.strings, other.strings) {
            (Some(a), Some(b)) => Some(a.iter().filter(|s| b.contains(s)).copied().collect()),
            (a, None) => a,
            (None, b) => b,
        };
        Admitted::restricted(types, strings)
    }

    /// Either applies.
    fn or(self, other: Admitted<'s>) -> Admitted<'s> {
        let strings = match (
            self.types.has(Types::STRING),
            other.types.has(Types::STRING),
        ) {
            (true, true) => match (self.strings, other.strings) {
                (Some(a), Some(b)) => Some(a.iter().chain(b.iter()).copied().collect()),
                _ => None,
            },
            (true, false) => self.strings,
            (false, true) => other.strings,
            (false, false) => None,
        };
        Admitted::restricted(self.types.with(other.types), strings)
    }

    /// `types` with `strings` kept only where strings are admitted; an empty list admits none.
    fn restricted(types: Types, strings: Option<Rc<[&'s str]>>) -> Admitted<'s> {
        match strings {
            _ if !types.has(Types::STRING) => Admitted {
                types,
                strings: None,
            },
            Some(strings) if strings.is_empty() => Admitted {
                types: types.without(Types::STRING),
                strings: None,
            },
            strings => Admitted { types, strings },
        }
    }

    /// The one member `text` stands for in another ASCII letter case, when `text` is not a
    /// member and exactly one member equals it so compared.
    pub(crate) fn member_in_case(&self, text: &str) -> Option<&'s str> {
        let members = self.strings.as_ref()?;
        if members.contains(&text) {
            return None;
        }
        let mut found: Option<&'s str> = None;
        for member in members.iter().filter(|m| m.eq_ignore_ascii_case(text)) {
            match found {
                Some(earlier) if earlier != *member => return None,
                _ => found = Some(member),
            }
        }
        found
    }
}

/// One step from a container to what it holds.
#[derive(Clone, Copy, Debug)]
enum Step<'k> {
    Member(&'k str),
    Item(usize),
}

impl Step<'_> {
    /// The container's type.
    fn container(self) -> Types {
        match self {
            Step::Member(_) => Types::OBJECT,
            Step::Item(_) => Types::ARRAY,
        }
    }
}

/// A payload schema being read, with what its subschemas admit kept as they are computed.
pub(crate) struct Schema<'s> {
    root: &'s Value,
    /// What each subschema admits, by address. A subschema being computed is entered as
    /// admitting anything, so a reference back to it ends there.
    admitted: HashMap<*const Value, Admitted<'s>>,
}

impl<'s> Schema<'s> {
    pub(crate) fn new(root: &'s Value) -> Self {
        Schema {
            root,
            admitted: HashMap::new(),
        }
    }

    /// The location of the payload itself.
    pub(crate) fn root(&self) -> Location<'s> {
        Location::Schema(self.root)
    }

    /// What `location` admits.
    pub(crate) fn admitted(&mut self, location: &Location<'s>) -> Admitted<'s> {
        match location {
            Location::Any => Admitted::ANY,
            Location::Nothing => Admitted::NOTHING,
            Location::Schema(schema) => self.admitted_by(schema, 0),
            Location::All(parts) => parts
                .iter()
                .fold(Admitted::ANY, |acc, part| acc.and(self.admitted(part))),
            Location::Union(branches) => branches.iter().fold(Admitted::NOTHING, |acc, branch| {
                acc.or(self.admitted(branch))
            }),
        }
    }

    /// The location of member `name` of an object at `location`.
    pub(crate) fn member(&mut self, location: &Location<'s>, name: &str) -> Location<'s> {
        self.child(location, Step::Member(name))
    }

    /// The location of item `index` of an array at `location`.
    pub(crate) fn item(&mut self, location: &Location<'s>, index: usize) -> Location<'s> {
        self.child(location, Step::Item(index))
    }

    fn child(&mut self, location: &Location<'s>, step: Step<'_>) -> Location<'s> {
        match location {
            Location::Any => Location::Any,
            Location::Nothing => Location::Nothing,
            Location::Schema(schema) => self.child_of(schema, step, 0),
            Location::All(parts) => {
                let parts = parts.iter().map(|part| self.child(part, step)).collect();
                all(parts)
            }
            Location::Union(branches) => {
                let mut children = Vec::with_capacity(branches.len());
                for branch in branches {
                    if self.admitted(branch).types.has(step.container()) {
                        children.push(self.child(branch, step));
                    }
                }
                union(children)
            }
        }
    }

    /// What `schema` admits: its `type`, `enum` and `const`, with its `$ref` and `allOf`
    /// intersected and its `anyOf` and `oneOf` each a union.
    fn admitted_by(&mut self, schema: &'s Value, depth: usize) -> Admitted<'s> {
        let map = match schema {
            Value::Object(map) => map,
            Value::Bool(false) => return Admitted::NOTHING,
            _ => return Admitted::ANY,
        };
        let key: *const Value = schema;
        if let Some(known) = self.admitted.get(&key) {
            return known.clone();
        }
        if depth > NESTING {
            return Admitted::ANY;
        }
        self.admitted.insert(key, Admitted::ANY);
        let mut admitted = Admitted::ANY;
        if let Some(types) = map.get("type") {
            admitted = admitted.and(of_type(types));
        }
        if let Some(Value::Array(values)) = map.get("enum") {
            admitted = admitted.and(of_values(values));
        }
        if let Some(value) = map.get("const") {
            admitted = admitted.and(of_values(std::slice::from_ref(value)));
        }
        if let Some(target) = self.target(map) {
            admitted = admitted.and(self.admitted_by(target, depth + 1));
        }
        if let Some(Value::Array(parts)) = map.get("allOf") {
            for part in parts {
                admitted = admitted.and(self.admitted_by(part, depth + 1));
            }
        }
        for keyword in ["anyOf", "oneOf"] {
            if let Some(Value::Array(branches)) = map.get(keyword) {
                if branches.is_empty() {
                    continue;
                }
                let mut any = Admitted::NOTHING;
                for branch in branches {
                    any = any.or(self.admitted_by(branch, depth + 1));
                }
                admitted = admitted.and(any);
            }
        }
        self.admitted.insert(key, admitted.clone());
        admitted
    }

    /// The location one `step` into a value at `schema`.
    fn child_of(&mut self, schema: &'s Value, step: Step<'_>, depth: usize) -> Location<'s> {
        let map = match schema {
            Value::Object(map) => map,
            Value::Bool(false) => return Location::Nothing,
            _ => return Location::Any,
        };
        if depth > NESTING {
            return Location::Any;
        }
        let mut parts = vec![direct(map, step)];
        if let Some(target) = self.target(map) {
            parts.push(self.child_of(target, step, depth + 1));
        }
        if let Some(Value::Array(all_of)) = map.get("allOf") {
            for part in all_of {
                parts.push(self.child_of(part, step, depth + 1));
            }
        }
        for keyword in ["anyOf", "oneOf"] {
            let Some(Value::Array(branches)) = map.get(keyword) else {
                continue;
            };
            let mut children = Vec::with_capacity(branches.len());
            for branch in branches {
                if self
                    .admitted_by(branch, depth + 1)
                    .types
                    .has(step.container())
                {
                    children.push(self.child_of(branch, step, depth + 1));
                }
            }
            if !branches.is_empty() {
                parts.push(union(children));
            }
        }
        all(parts)
    }

    /// The subschema a local `$ref` (`#`, `#/$defs/…`, `#/definitions/…`, any `#/…` pointer)
    /// points to; `None` for no reference, or one that points elsewhere.
    fn target(&self, map: &Map<String, Value>) -> Option<&'s Value> {
        let reference = map.get("$ref")?.as_str()?;
        self.root.pointer(reference.strip_prefix('#')?)
    }
}

/// What `properties`, `additionalProperties`, `prefixItems`, `items` and `additionalItems` of
/// one subschema say of the value one `step` in.
fn direct<'s>(map: &'s Map<String, Value>, step: Step<'_>) -> Location<'s> {
    match step {
        Step::Member(name) => {
            if let Some(schema) = map.get("properties").and_then(|p| p.get(name)) {
                Location::Schema(schema)
            } else if map.contains_key("patternProperties") {
                // A pattern may apply; it is not evaluated here.
                Location::Any
            } else {
                map.get("additionalProperties")
                    .map_or(Location::Any, Location::Schema)
            }
        }
        Step::Item(index) => match (map.get("prefixItems"), map.get("items")) {
            (Some(Value::Array(prefix)), items) => prefix
                .get(index)
                .or(items)
                .map_or(Location::Any, Location::Schema),
            (_, Some(Value::Array(tuple))) => tuple
                .get(index)
                .or_else(|| map.get("additionalItems"))
                .map_or(Location::Any, Location::Schema),
            (_, Some(items)) => Location::Schema(items),
            (_, None) => Location::Any,
        },
    }
}

/// All of `parts`, simplified; a location past the fan-out bound admits anything.
fn all(parts: Vec<Location<'_>>) -> Location<'_> {
    let mut kept = Vec::with_capacity(parts.len());
    for part in parts {
        match part {
            Location::Any => {}
            Location::Nothing => return Location::Nothing,
            Location::All(inner) => kept.extend(inner),
            other => kept.push(other),
        }
    }
    bounded(kept, Location::Any, Location::All)
}

/// One of `branches`, simplified; a location past the fan-out bound admits anything.
fn union(branches: Vec<Location<'_>>) -> Location<'_> {
    let mut kept = Vec::with_capacity(branches.len());
    for branch in branches {
        match branch {
            Location::Nothing => {}
            Location::Any => return Location::Any,
            Location::Union(inner) => kept.extend(inner),
            other => kept.push(other),
        }
    }
    bounded(kept, Location::Nothing, Location::Union)
}

/// `empty` for no location, the one location, or `combined` of several within the bound.
fn bounded<'s>(
    mut locations: Vec<Location<'s>>,
    empty: Location<'s>,
    combined: fn(Vec<Location<'s>>) -> Location<'s>,
) -> Location<'s> {
    match locations.len() {
        0 => empty,
        1 => locations.pop().unwrap_or(Location::Any),
        _ if locations.iter().map(size).sum::<usize>() > FAN_OUT => Location::Any,
        _ => combined(locations),
    }
}

/// How many subschemas a location combines.
fn size(location: &Location<'_>) -> usize {
    match location {
        Location::Any | Location::Nothing | Location::Schema(_) => 1,
        Location::All(parts) | Location::Union(parts) => parts.iter().map(size).sum(),
    }
}

/// What a `type` keyword admits; a name it does not know admits anything.
fn of_type(types: &Value) -> Admitted<'static> {
    let named = |name: &Value| {
        name.as_str()
            .and_then(Types::named)
            .map(with_integers)
            .unwrap_or(Types::ALL)
    };
    let types = match types {
        Value::String(_) => named(types),
        Value::Array(names) => names
            .iter()
            .fold(Types::NONE, |set, name| set.with(named(name))),
        _ => Types::ALL,
    };
    Admitted {
        types,
        strings: None,
    }
}

/// What an `enum` (or a `const`, as one value) admits: the types of its values, and its
/// strings as the only strings.
fn of_values(values: &[Value]) -> Admitted<'_> {
    let mut types = Types::NONE;
    let mut strings = Vec::new();
    for value in values {
        types = types.with(match value {
            Value::Null => Types::NULL,
            Value::Bool(_) => Types::BOOLEAN,
            Value::Number(number) if number.as_f64().is_some_and(|n| n.fract() == 0.0) => {
                Types::INTEGER.with(Types::NUMBER)
            }
            Value::Number(_) => Types::NUMBER,
            Value::String(text) => {
                strings.push(text.as_str());
                Types::STRING
            }
            Value::Array(_) => Types::ARRAY,
            Value::Object(_) => Types::OBJECT,
        });
    }
    Admitted::restricted(types, Some(strings.into()))
}

/// `number` admits integers too.
fn with_integers(types: Types) -> Types {
    if types.has(Types::NUMBER) {
        types.with(Types::INTEGER)
    } else {
        types
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn admitted_at<'s>(schema: &mut Schema<'s>, path: &[Result<&str, usize>]) -> Admitted<'s> {
        let mut location = schema.root();
        for step in path {
            location = match step {
                Ok(name) => schema.member(&location, name),
                Err(index) => schema.item(&location, *index),
            };
        }
        schema.admitted(&location)
    }

    fn strings(admitted: &Admitted<'_>) -> Option<Vec<String>> {
        admitted
            .strings
            .as_ref()
            .map(|s| s.iter().map(|s| (*s).to_owned()).collect())
    }

    #[test]
    fn properties_items_and_additional_properties_lead_to_their_schemas() {
        let root = json!({"type": "object", "properties": {
            "n": {"type": "integer"},
            "list": {"type": "array", "items": {"type": "boolean"}},
            "tuple": {"type": "array", "prefixItems": [{"type": "number"}, {"type": "string"}]},
            "map": {"type": "object", "additionalProperties": {"type": "array"}},
            "closed": {"type": "object", "properties": {"a": {}}, "additionalProperties": false}}});
        let mut schema = Schema::new(&root);
        let types =
            |schema: &mut Schema<'_>, path: &[Result<&str, usize>]| admitted_at(schema, path).types;
        assert_eq!(types(&mut schema, &[Ok("n")]), Types::INTEGER);
        assert_eq!(types(&mut schema, &[Ok("list"), Err(3)]), Types::BOOLEAN);
        let number = Types::NUMBER.with(Types::INTEGER);
        assert_eq!(types(&mut schema, &[Ok("tuple"), Err(0)]), number);
        assert_eq!(types(&mut schema, &[Ok("tuple"), Err(1)]), Types::STRING);
        assert_eq!(types(&mut schema, &[Ok("tuple"), Err(2)]), Types::ALL);
        assert_eq!(types(&mut schema, &[Ok("map"), Ok("x")]), Types::ARRAY);
        assert_eq!(types(&mut schema, &[Ok("closed"), Ok("b")]), Types::NONE);
        assert_eq!(types(&mut schema, &[Ok("other")]), Types::ALL);
    }

    #[test]
    fn unions_take_the_branches_that_admit_the_container() {
        // `Option<Inner>` as a union with `null`, and an internally tagged enum.
        let root = json!({"properties": {
            "inner": {"anyOf": [{"type": "object", "properties": {"n": {"type": "integer"}}},
                                {"type": "null"}]},
            "tagged": {"oneOf": [
                {"type": "object", "properties": {"kind": {"const": "A"}, "n": {"type": "integer"}},
                 "additionalProperties": false},
                {"type": "object", "properties": {"kind": {"const": "B"}, "s": {"type": "string"}},
                 "additionalProperties": false}]}}});
        let mut schema = Schema::new(&root);
        assert_eq!(
            admitted_at(&mut schema, &[Ok("inner"), Ok("n")]).types,
            Types::INTEGER
        );
        let kind = admitted_at(&mut schema, &[Ok("tagged"), Ok("kind")]);
        assert_eq!(kind.types, Types::STRING);
        assert_eq!(strings(&kind), Some(vec!["A".into(), "B".into()]));
        assert_eq!(
            admitted_at(&mut schema, &[Ok("tagged"), Ok("n")]).types,
            Types::INTEGER
        );
    }

    #[test]
    fn all_of_and_references_intersect() {
        let root = json!({"properties": {
            "n": {"allOf": [{"type": ["number", "string"]}, {"type": "integer"}]},
            "e": {"$ref": "#/$defs/E", "type": ["string", "null"]},
            "tree": {"$ref": "#/$defs/T"}},
            "$defs": {"E": {"enum": ["markdown", "html", null, 1]},
                      "T": {"type": "object", "properties": {
                          "v": {"type": "boolean"},
                          "kids": {"type": "array", "items": {"$ref": "#/$defs/T"}}}}}});
        let mut schema = Schema::new(&root);
        assert_eq!(admitted_at(&mut schema, &[Ok("n")]).types, Types::INTEGER);
        let e = admitted_at(&mut schema, &[Ok("e")]);
        assert_eq!(e.types, Types::STRING.with(Types::NULL));
        assert_eq!(strings(&e), Some(vec!["markdown".into(), "html".into()]));
        let path = [Ok("tree"), Ok("kids"), Err(0), Ok("kids"), Err(4), Ok("v")];
        assert_eq!(admitted_at(&mut schema, &path).types, Types::BOOLEAN);
    }

    #[test]
    fn enums_of_strings_in_a_union_limit_the_strings_to_their_members() {
        // `Option<Enum>` as schemars writes it, with a documented variant per branch.
        let root = json!({"properties": {
            "plain": {"type": ["string", "null"], "enum": ["markdown", "html", null]},
            "documented": {"anyOf": [
                {"oneOf": [{"type": "string", "const": "Alpha"}, {"type": "string", "const": "Beta"}]},
                {"type": "null"}]},
            "open": {"anyOf": [{"enum": ["a"]}, {"type": "string"}]}}});
        let mut schema = Schema::new(&root);
        let plain = admitted_at(&mut schema, &[Ok("plain")]);
        assert_eq!(plain.member_in_case("MarkDown"), Some("markdown"));
        assert_eq!(plain.member_in_case("html"), None);
        assert_eq!(plain.member_in_case("htm"), None);
        let documented = admitted_at(&mut schema, &[Ok("documented")]);
        assert_eq!(documented.member_in_case("alpha"), Some("Alpha"));
        let open = admitted_at(&mut schema, &[Ok("open")]);
        assert_eq!(open.strings, None);
        assert_eq!(open.member_in_case("A"), None);
    }

    #[test]
    fn a_member_two_members_match_is_not_folded() {
        let root = json!({"enum": ["Draft", "DRAFT", "final"]});
        let mut schema = Schema::new(&root);
        let admitted = schema.admitted(&schema.root());
        assert_eq!(admitted.member_in_case("draft"), None);
        assert_eq!(admitted.member_in_case("FINAL"), Some("final"));
    }

    #[test]
    fn references_in_a_loop_and_unknown_targets_admit_anything() {
        let root = json!({"properties": {"a": {"$ref": "#/$defs/A"}, "b": {"$ref": "#/nowhere"},
                                         "c": {"$ref": "https://example.com/c"}},
                          "$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"$ref": "#/$defs/A"}}});
        let mut schema = Schema::new(&root);
        for name in ["a", "b", "c"] {
            assert_eq!(admitted_at(&mut schema, &[Ok(name)]).types, Types::ALL);
            assert_eq!(
                admitted_at(&mut schema, &[Ok(name), Ok("x")]).types,
                Types::ALL
            );
        }
    }

    #[test]
    fn a_location_past_the_fan_out_bound_admits_anything() {
        let branches: Vec<Value> = (0..100)
            .map(|i| json!({"type": "object", "properties": {"n": {"type": "integer", "minimum": i}}}))
            .collect();
        let root = json!({"anyOf": branches});
        let mut schema = Schema::new(&root);
        assert_eq!(admitted_at(&mut schema, &[Ok("n")]).types, Types::ALL);
    }
}
