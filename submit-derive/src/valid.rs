//! Rules across the metadata and the shape of the type.

use submit_meta::REASONING;
use syn::ext::IdentExt;
use syn::LitStr;

use crate::ast::{Data, Field, Input};
use crate::ctxt::Ctxt;

pub fn check(cx: &Ctxt, input: &Input) {
    check_flat_shape(cx, input);
    check_flat_fields(cx, input);
}

/// `flat` advertises each property of the payload as a parameter, so the payload must be an
/// object with known properties: a struct with named fields.
fn check_flat_shape(cx: &Ctxt, input: &Input) {
    let Some(flat) = &input.attrs.flat else {
        return;
    };
    if !input.attrs.metadata.flat {
        return;
    }
    let shape = match input.data {
        Data::NamedStruct(_) => return,
        Data::TupleStruct => "a tuple struct",
        Data::UnitStruct => "a unit struct",
        Data::Enum => "an enum",
        Data::Union => "a union",
    };
    cx.error_spanned_by(
        &flat.key,
        format_args!(
            "`flat` needs a struct with named fields, but `{}` is {shape}: remove `flat`, or \
             submit a struct with named fields",
            input.original.ident,
        ),
    );
}

/// Under `flat`, the payload's properties sit beside the `reasoning` parameter, so none may
/// be advertised as `reasoning` unless that parameter is omitted.
fn check_flat_fields(cx: &Ctxt, input: &Input) {
    let metadata = &input.attrs.metadata;
    if !metadata.flat || metadata.omit_reasoning {
        return;
    }
    let Data::NamedStruct(fields) = &input.data else {
        return;
    };
    let serde_rule = input.serde.rename_all.as_ref();
    let schemars_rule = input.schemars.rename_all.as_ref().or(serde_rule);
    for field in fields {
        if field.serde.skip || field.schemars.skip || field.serde.flatten || field.schemars.flatten
        {
            continue;
        }
        // The name serde reads, then the name schemars advertises.
        let serde_name = wire_name(field, field.serde.rename.as_ref(), serde_rule);
        let schema_rename = field
            .schemars
            .rename
            .as_ref()
            .or(field.serde.rename.as_ref());
        let schema_name = wire_name(field, schema_rename, schemars_rule);
        if let Some(named) = [serde_name, schema_name]
            .into_iter()
            .find(|n| n.name == REASONING)
        {
            report_collision(cx, field, &named);
        }
    }
}

/// How a field came by its name.
enum Source<'a> {
    Ident,
    Rename(&'a LitStr),
    RenameAll(&'a LitStr),
}

struct WireName<'a> {
    name: String,
    source: Source<'a>,
}

fn wire_name<'a>(
    field: &Field,
    rename: Option<&'a LitStr>,
    rule: Option<&'a LitStr>,
) -> WireName<'a> {
    if let Some(rename) = rename {
        return WireName {
            name: rename.value(),
            source: Source::Rename(rename),
        };
    }
    let ident = field.ident.unraw().to_string();
    match rule.and_then(|lit| Some((lit, RenameRule::from_str(&lit.value())?))) {
        Some((lit, rule)) if rule.apply_to_field(&ident) != ident => WireName {
            name: rule.apply_to_field(&ident),
            source: Source::RenameAll(lit),
        },
        _ => WireName {
            name: ident,
            source: Source::Ident,
        },
    }
}

fn report_collision(cx: &Ctxt, field: &Field, named: &WireName) {
    let ident = field.ident.unraw();
    match named.source {
        Source::Ident => cx.error_spanned_by(
            field.ident,
            format_args!(
                "field `{ident}` collides with the `reasoning` parameter under `flat`: rename \
                 it with `#[serde(rename = \"...\")]`, or set `omit_reasoning`"
            ),
        ),
        Source::Rename(lit) => cx.error_spanned_by(
            lit,
            format_args!(
                "field `{ident}` is renamed to `reasoning`, which collides with the `reasoning` \
                 parameter under `flat`: choose another name, or set `omit_reasoning`"
            ),
        ),
        Source::RenameAll(lit) => cx.error_spanned_by(
            field.ident,
            format_args!(
                "field `{ident}` becomes `reasoning` under `rename_all = {}`, which collides \
                 with the `reasoning` parameter under `flat`: rename the field, or set \
                 `omit_reasoning`",
                lit.token(),
            ),
        ),
    }
}

/// The case conventions of serde's `rename_all`, as they apply to a field name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RenameRule {
    Lower,
    Upper,
    Pascal,
    Camel,
    Snake,
    ScreamingSnake,
    Kebab,
    ScreamingKebab,
}

impl RenameRule {
    fn from_str(rule: &str) -> Option<Self> {
        Some(match rule {
            "lowercase" => RenameRule::Lower,
            "UPPERCASE" => RenameRule::Upper,
            "PascalCase" => RenameRule::Pascal,
            "camelCase" => RenameRule::Camel,
            "snake_case" => RenameRule::Snake,
            "SCREAMING_SNAKE_CASE" => RenameRule::ScreamingSnake,
            "kebab-case" => RenameRule::Kebab,
            "SCREAMING-KEBAB-CASE" => RenameRule::ScreamingKebab,
            _ => return None,
        })
    }

    /// Field names are taken to be snake_case already, as serde does.
    fn apply_to_field(self, field: &str) -> String {
        match self {
            RenameRule::Lower | RenameRule::Snake => field.to_owned(),
            RenameRule::Upper | RenameRule::ScreamingSnake => field.to_ascii_uppercase(),
            RenameRule::Pascal => {
                let mut out = String::with_capacity(field.len());
                let mut capitalize = true;
                for c in field.chars() {
                    if c == '_' {
                        capitalize = true;
                    } else if capitalize {
                        out.push(c.to_ascii_uppercase());
                        capitalize = false;
                    } else {
                        out.push(c);
                    }
                }
                out
            }
            RenameRule::Camel => {
                let pascal = RenameRule::Pascal.apply_to_field(field);
                let mut chars = pascal.chars();
                match chars.next() {
                    Some(first) => first.to_ascii_lowercase().to_string() + chars.as_str(),
                    None => pascal,
                }
            }
            RenameRule::Kebab => field.replace('_', "-"),
            RenameRule::ScreamingKebab => field.to_ascii_uppercase().replace('_', "-"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rename_rules_apply_to_fields() {
        let cases = [
            ("lowercase", "why_not"),
            ("UPPERCASE", "WHY_NOT"),
            ("PascalCase", "WhyNot"),
            ("camelCase", "whyNot"),
            ("snake_case", "why_not"),
            ("SCREAMING_SNAKE_CASE", "WHY_NOT"),
            ("kebab-case", "why-not"),
            ("SCREAMING-KEBAB-CASE", "WHY-NOT"),
        ];
        for (rule, expected) in cases {
            let rule = RenameRule::from_str(rule).unwrap();
            assert_eq!(rule.apply_to_field("why_not"), expected, "{rule:?}");
        }
    }

    #[test]
    fn camel_case_turns_a_trailing_underscore_into_reasoning() {
        assert_eq!(RenameRule::Camel.apply_to_field("reasoning_"), "reasoning");
        assert_eq!(RenameRule::Camel.apply_to_field("_reasoning"), "reasoning");
    }

    #[test]
    fn unknown_rule_is_left_to_serde() {
        assert_eq!(RenameRule::from_str("Title Case"), None);
    }
}
