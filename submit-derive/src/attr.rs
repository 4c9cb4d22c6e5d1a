//! Reads attributes: `#[submit_result(...)]` in both spellings, and the few `serde` and
//! `schemars` keys that decide the name a field is advertised under.
//!
//! Nothing here returns early on a mistake: each one is recorded in the [`Ctxt`] and reading
//! goes on, so every mistake of a derive is reported at once.

use proc_macro2::{TokenStream, TokenTree};
use quote::ToTokens;
use submit_meta::{split_tag, suggest, Builder, Error, Key, Metadata};
use syn::meta::ParseNestedMeta;
use syn::parse::ParseStream;
use syn::{Attribute, LitBool, LitStr, Meta, Token};

use crate::ctxt::Ctxt;

/// The attribute this derive owns.
const SUBMIT_RESULT: &str = "submit_result";

/// Where a key and its value were written. Errors go on the key (unknown, duplicate) or on
/// the value (empty, not a boolean, invalid name); in the tag form both are the literal.
#[derive(Clone)]
pub struct Loc {
    pub key: TokenStream,
    pub value: TokenStream,
}

impl Loc {
    fn key_only(key: TokenStream) -> Self {
        Loc {
            value: key.clone(),
            key,
        }
    }
}

/// What `#[submit_result(...)]` says about the type.
pub struct Attrs {
    /// The metadata, with every valid key applied.
    pub metadata: Metadata,
    /// Where `flat` was written, if it was.
    pub flat: Option<Loc>,
    /// `crate = "..."`: the path generated code reaches the runtime through.
    pub crate_path: Option<syn::Path>,
}

/// Reads every `#[submit_result(...)]` of the type, in either spelling, in order.
pub fn submit_result(cx: &Ctxt, attrs: &[Attribute]) -> Attrs {
    let mut builder = Builder::<Loc>::default();
    let mut crate_path = None;
    for attr in attrs {
        // Attributes of other derives are theirs to check.
        if !attr.path().is_ident(SUBMIT_RESULT) {
            continue;
        }
        match tag_literal(attr) {
            Ok(Some(tag)) => {
                // #[submit_result("name=submit_x,payloadDescription=a\, b,flat")]
                let loc = Loc::key_only(tag.to_token_stream());
                for part in split_tag(&tag.value()) {
                    builder.tag_part(&part, loc.clone());
                }
                report(cx, &mut builder);
            }
            Ok(None) => {
                let parsed = attr
                    .parse_nested_meta(|meta| key_value(cx, &mut builder, &mut crate_path, &meta));
                if let Err(error) = parsed {
                    cx.syn_error(error);
                }
            }
            Err(error) => cx.syn_error(error),
        }
    }
    let flat = builder.location(Key::Flat).cloned();
    let (metadata, errors) = builder.finish_located();
    for (error, loc) in errors {
        report_one(cx, error, &loc);
    }
    Attrs {
        metadata,
        flat,
        crate_path,
    }
}

/// The tag string of `#[submit_result("...")]`, `None` for the `key = value` spelling.
fn tag_literal(attr: &Attribute) -> syn::Result<Option<LitStr>> {
    let Meta::List(list) = &attr.meta else {
        return Ok(None);
    };
    let Some(TokenTree::Literal(_)) = list.tokens.clone().into_iter().next() else {
        return Ok(None);
    };
    let alone = |input: ParseStream| {
        let tag: LitStr = input.parse()?;
        // A trailing comma, as rustfmt may leave after a long literal.
        if input.peek(Token![,]) {
            input.parse::<Token![,]>()?;
        }
        Ok(tag)
    };
    list.parse_args_with(alone).map(Some).map_err(|_| {
        syn::Error::new_spanned(
            &list.tokens,
            "expected one tag string alone, `#[submit_result(\"name=submit_x,flat\")]`, \
                 or `key = value` pairs, `#[submit_result(name = \"submit_x\", flat)]`",
        )
    })
}

/// Reads one `key = value` of the attribute spelling.
fn key_value(
    cx: &Ctxt,
    builder: &mut Builder<Loc>,
    crate_path: &mut Option<syn::Path>,
    meta: &ParseNestedMeta,
) -> syn::Result<()> {
    if meta.path.is_ident("name") {
        // name = "submit_analysis"
        text(cx, builder, Key::Name, meta)
    } else if meta.path.is_ident("description") {
        // description = "Submit the analysis."
        text(cx, builder, Key::Description, meta)
    } else if meta.path.is_ident("success") {
        // success = "Analysis recorded."
        text(cx, builder, Key::Success, meta)
    } else if meta.path.is_ident("payload") {
        // payload = "analysis"
        text(cx, builder, Key::Payload, meta)
    } else if meta.path.is_ident("payload_description") {
        // payload_description = "The analysis."
        text(cx, builder, Key::PayloadDescription, meta)
    } else if meta.path.is_ident("flat") {
        // flat, flat = true, flat = false
        flag(cx, builder, Key::Flat, meta)
    } else if meta.path.is_ident("omit_reasoning") {
        // omit_reasoning, omit_reasoning = true, omit_reasoning = false
        flag(cx, builder, Key::OmitReasoning, meta)
    } else if meta.path.is_ident("crate") {
        // crate = "path::to::submit_result"
        let key = meta.path.to_token_stream();
        match value(meta)? {
            Value::Str(_) if crate_path.is_some() => {
                cx.error_spanned_by(key, "duplicate submit_result attribute `crate`")
            }
            Value::Str(lit) => match lit.parse::<syn::Path>() {
                Ok(path) => *crate_path = Some(path),
                Err(_) => cx.error_spanned_by(
                    &lit,
                    "expected submit_result `crate` attribute to be a path: \
                     `crate = \"path::to::submit_result\"`",
                ),
            },
            other => cx.error_spanned_by(other.tokens(&key), expected_string("crate")),
        }
        Ok(())
    } else {
        let written = meta.path.to_token_stream().to_string().replace(' ', "");
        let mut candidates: Vec<&'static str> = Key::ALL.iter().map(|k| k.as_str()).collect();
        candidates.push("crate");
        let error = Error::UnknownKey {
            suggestion: suggest(&written, &candidates),
            key: written,
            tag: false,
        };
        // Step over the value so the keys after it are still read.
        value(meta)?;
        builder.error(error, Loc::key_only(meta.path.to_token_stream()));
        report(cx, builder);
        Ok(())
    }
}

/// The value after a key, as written.
enum Value {
    /// `key` alone.
    Bare,
    /// `key =` and nothing after.
    Empty(Token![=]),
    Str(LitStr),
    Bool(LitBool),
    /// Anything else, up to the next comma.
    Other(TokenStream),
}

impl Value {
    /// The tokens to place an error on.
    fn tokens(&self, key: &TokenStream) -> TokenStream {
        match self {
            Value::Bare => key.clone(),
            Value::Empty(eq) => eq.to_token_stream(),
            Value::Str(lit) => lit.to_token_stream(),
            Value::Bool(lit) => lit.to_token_stream(),
            Value::Other(tokens) => tokens.clone(),
        }
    }
}

fn value(meta: &ParseNestedMeta) -> syn::Result<Value> {
    let input = meta.input;
    if input.is_empty() || input.peek(Token![,]) {
        return Ok(Value::Bare);
    }
    if !input.peek(Token![=]) {
        // `key(...)` or another shape: keep it whole for the error.
        return Ok(Value::Other(rest_of_entry(input)?));
    }
    let eq: Token![=] = input.parse()?;
    if input.peek(LitStr) {
        return Ok(Value::Str(input.parse()?));
    }
    if input.peek(LitBool) {
        return Ok(Value::Bool(input.parse()?));
    }
    let rest = rest_of_entry(input)?;
    if rest.is_empty() {
        return Ok(Value::Empty(eq));
    }
    Ok(Value::Other(rest))
}

/// The tokens up to the next top-level comma.
fn rest_of_entry(input: ParseStream) -> syn::Result<TokenStream> {
    let mut tokens = TokenStream::new();
    while !input.is_empty() && !input.peek(Token![,]) {
        tokens.extend([input.parse::<TokenTree>()?]);
    }
    Ok(tokens)
}

fn expected_string(key: &str) -> String {
    format!("expected submit_result `{key}` attribute to be a string: `{key} = \"...\"`")
}

/// A key that takes text: `key = "..."`.
fn text(
    cx: &Ctxt,
    builder: &mut Builder<Loc>,
    key: Key,
    meta: &ParseNestedMeta,
) -> syn::Result<()> {
    let key_tokens = meta.path.to_token_stream();
    let value = value(meta)?;
    let loc = Loc {
        value: value.tokens(&key_tokens),
        key: key_tokens,
    };
    match &value {
        Value::Str(lit) => builder.set(key, Some(&lit.value()), loc),
        Value::Bare => builder.set(key, None, loc),
        Value::Empty(_) => builder.set(key, Some(""), loc),
        Value::Bool(_) | Value::Other(_) => {
            cx.error_spanned_by(&loc.value, expected_string(key.as_str()));
        }
    }
    report(cx, builder);
    Ok(())
}

/// A key that takes a boolean: `key`, `key = true`, `key = false`.
fn flag(
    cx: &Ctxt,
    builder: &mut Builder<Loc>,
    key: Key,
    meta: &ParseNestedMeta,
) -> syn::Result<()> {
    let key_tokens = meta.path.to_token_stream();
    let value = value(meta)?;
    let loc = Loc {
        value: value.tokens(&key_tokens),
        key: key_tokens,
    };
    match &value {
        Value::Bare => builder.set(key, None, loc),
        Value::Bool(lit) => builder.set(key, Some(if lit.value { "true" } else { "false" }), loc),
        Value::Empty(_) => builder.set(key, Some(""), loc),
        // A string is not a boolean, even `"true"`: the error shows the quotes.
        Value::Str(_) | Value::Other(_) => {
            let written = loc.value.to_string();
            builder.set(key, Some(&written), loc);
        }
    }
    report(cx, builder);
    Ok(())
}

/// Moves the builder's mistakes into the context, so they keep the order they were written in.
fn report(cx: &Ctxt, builder: &mut Builder<Loc>) {
    for (error, loc) in builder.take_errors() {
        report_one(cx, error, &loc);
    }
}

fn report_one(cx: &Ctxt, error: Error, loc: &Loc) {
    let at = match error {
        Error::UnknownKey { .. } | Error::DuplicateKey(_) => &loc.key,
        _ => &loc.value,
    };
    cx.error_spanned_by(at, error);
}

/// The `serde` or `schemars` keys of a container that rename its fields.
#[derive(Default)]
pub struct RenameAttrs {
    /// `rename_all = "..."`, or its `deserialize = "..."` half.
    pub rename_all: Option<LitStr>,
}

/// The `serde` or `schemars` keys of a field that change or drop its property.
#[derive(Default)]
pub struct FieldAttrs {
    /// `rename = "..."`, or its `deserialize = "..."` half.
    pub rename: Option<LitStr>,
    /// `skip` or `skip_deserializing`: not a property of the deserialized schema.
    pub skip: bool,
    /// `flatten`: its properties are the inner type's, unknown here.
    pub flatten: bool,
}

/// Reads `#[<namespace>(rename_all = ...)]`. Mistakes are left to that derive to report.
pub fn rename_attrs(attrs: &[Attribute], namespace: &str) -> RenameAttrs {
    let mut out = RenameAttrs::default();
    for attr in attrs.iter().filter(|attr| attr.path().is_ident(namespace)) {
        let _theirs_to_report = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("rename_all") {
                out.rename_all = deserialize_name(&meta)?.or(out.rename_all.take());
                Ok(())
            } else {
                skip(&meta)
            }
        });
    }
    out
}

/// Reads `#[<namespace>(rename = ..., skip, flatten)]` on a field. Mistakes are left to that
/// derive to report.
pub fn field_attrs(attrs: &[Attribute], namespace: &str) -> FieldAttrs {
    let mut out = FieldAttrs::default();
    for attr in attrs.iter().filter(|attr| attr.path().is_ident(namespace)) {
        let _theirs_to_report = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("rename") {
                out.rename = deserialize_name(&meta)?.or(out.rename.take());
                Ok(())
            } else if meta.path.is_ident("skip") || meta.path.is_ident("skip_deserializing") {
                out.skip = true;
                skip(&meta)
            } else if meta.path.is_ident("flatten") {
                out.flatten = true;
                skip(&meta)
            } else {
                skip(&meta)
            }
        });
    }
    out
}

/// `key = "x"` or `key(deserialize = "x", serialize = "y")`: the name used when deserializing.
fn deserialize_name(meta: &ParseNestedMeta) -> syn::Result<Option<LitStr>> {
    if meta.input.peek(Token![=]) {
        return Ok(Some(meta.value()?.parse()?));
    }
    let mut name = None;
    if meta.input.peek(syn::token::Paren) {
        meta.parse_nested_meta(|inner| {
            if inner.path.is_ident("deserialize") {
                name = Some(inner.value()?.parse()?);
                Ok(())
            } else {
                skip(&inner)
            }
        })?;
    }
    Ok(name)
}

/// Steps over the value of a key this derive does not read.
fn skip(meta: &ParseNestedMeta) -> syn::Result<()> {
    if meta.input.peek(Token![=]) {
        meta.input.parse::<Token![=]>()?;
    }
    rest_of_entry(meta.input).map(drop)
}
