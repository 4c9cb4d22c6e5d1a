//! The typed model of a derive input. It borrows the `syn` nodes so later stages can place
//! their errors on the user's tokens.

use syn::{DeriveInput, Ident};

use crate::attr::{self, Attrs, FieldAttrs, RenameAttrs};
use crate::ctxt::Ctxt;

pub struct Input<'a> {
    pub original: &'a DeriveInput,
    pub attrs: Attrs,
    pub data: Data<'a>,
    /// `#[serde(rename_all = ...)]`.
    pub serde: RenameAttrs,
    /// `#[schemars(rename_all = ...)]`, which wins over serde's in the schema.
    pub schemars: RenameAttrs,
}

/// The shape of the type, as far as `flat` cares.
pub enum Data<'a> {
    NamedStruct(Vec<Field<'a>>),
    TupleStruct,
    UnitStruct,
    Enum,
    Union,
}

pub struct Field<'a> {
    pub ident: &'a Ident,
    /// `#[serde(...)]` on the field.
    pub serde: FieldAttrs,
    /// `#[schemars(...)]` on the field, which wins over serde's in the schema.
    pub schemars: FieldAttrs,
}

impl<'a> Input<'a> {
    pub fn from_syn(cx: &Ctxt, input: &'a DeriveInput) -> Self {
        let data = match &input.data {
            syn::Data::Struct(data) => match &data.fields {
                syn::Fields::Named(fields) => Data::NamedStruct(
                    fields
                        .named
                        .iter()
                        .filter_map(|field| {
                            Some(Field {
                                ident: field.ident.as_ref()?,
                                serde: attr::field_attrs(&field.attrs, "serde"),
                                schemars: attr::field_attrs(&field.attrs, "schemars"),
                            })
                        })
                        .collect(),
                ),
                syn::Fields::Unnamed(_) => Data::TupleStruct,
                syn::Fields::Unit => Data::UnitStruct,
            },
            syn::Data::Enum(_) => Data::Enum,
            syn::Data::Union(_) => Data::Union,
        };
        Input {
            original: input,
            attrs: attr::submit_result(cx, &input.attrs),
            data,
            serde: attr::rename_attrs(&input.attrs, "serde"),
            schemars: attr::rename_attrs(&input.attrs, "schemars"),
        }
    }
}
