//! Generates the `SubmitResult` impl from the model; never reads raw attributes.

use std::borrow::Cow;

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use submit_meta::Metadata;
use syn::spanned::Spanned;
use syn::{DeriveInput, Generics};

use crate::ast::Input;
use crate::ctxt::Ctxt;
use crate::valid;

/// Expands the derive: the impl, or every error next to a minimal impl.
pub fn derive(input: &DeriveInput) -> TokenStream {
    let cx = Ctxt::new();
    let model = Input::from_syn(&cx, input);
    valid::check(&cx, &model);
    let crate_path = model.attrs.crate_path.as_ref();
    match cx.check() {
        Ok(()) => wrap(input, crate_path, &metadata(&model.attrs.metadata)),
        // The impl is emitted anyway, so code using the type sees only these errors, not a
        // cascade of "trait not implemented".
        Err(errors) => {
            let errors = errors.into_compile_error();
            let fallback = wrap(
                input,
                crate_path,
                &quote!(_submit::__private::Metadata::EMPTY),
            );
            quote!(#errors #fallback)
        }
    }
}

/// The impl inside `const _`, reaching the runtime through the `_submit` alias.
fn wrap(
    input: &DeriveInput,
    crate_path: Option<&syn::Path>,
    metadata: &TokenStream,
) -> TokenStream {
    let ident = &input.ident;
    let span = ident.span();
    let generics = with_bounds(&input.generics);
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let use_submit = match crate_path {
        // Spanned on the user's literal, so a path that does not resolve is reported there.
        Some(path) => quote_spanned!(path.span()=> use #path as _submit;),
        None => quote!(
            use ::submit_result as _submit;
        ),
    };
    // Spanned on the type's name: a type that is not `Deserialize` or `JsonSchema` gets its
    // error there.
    let trait_path = quote_spanned!(span=> _submit::__private::SubmitResult);
    quote! {
        #[doc(hidden)]
        #[allow(
            non_upper_case_globals,
            unused_attributes,
            unused_qualifications,
            clippy::absolute_paths,
        )]
        const _: () = {
            #use_submit
            #[automatically_derived]
            impl #impl_generics #trait_path for #ident #ty_generics #where_clause {
                fn metadata() -> _submit::__private::Metadata {
                    #metadata
                }
            }
        };
    }
}

/// Generic types implement the trait whenever they are `Deserialize` and `JsonSchema`.
fn with_bounds(generics: &Generics) -> Cow<'_, Generics> {
    if generics.params.is_empty() {
        return Cow::Borrowed(generics);
    }
    let mut generics = generics.clone();
    generics
        .make_where_clause()
        .predicates
        .push(syn::parse_quote! {
            Self: _submit::__private::DeserializeOwned + _submit::__private::JsonSchema
        });
    Cow::Owned(generics)
}

/// The metadata as a constant expression of borrowed string literals.
fn metadata(metadata: &Metadata) -> TokenStream {
    let name = text(metadata.name.as_deref());
    let description = text(metadata.description.as_deref());
    let success = text(metadata.success.as_deref());
    let payload = text(metadata.payload.as_deref());
    let payload_description = text(metadata.payload_description.as_deref());
    let flat = metadata.flat;
    let omit_reasoning = metadata.omit_reasoning;
    quote! {
        _submit::__private::Metadata {
            name: #name,
            description: #description,
            success: #success,
            payload: #payload,
            payload_description: #payload_description,
            flat: #flat,
            omit_reasoning: #omit_reasoning,
        }
    }
}

fn text(value: Option<&str>) -> TokenStream {
    match value {
        Some(value) => quote! {
            ::core::option::Option::Some(_submit::__private::Cow::Borrowed(#value))
        },
        None => quote!(::core::option::Option::None),
    }
}

#[cfg(test)]
mod tests {
    use syn::parse_quote;

    use super::*;

    /// Reads and validates `input` as the derive does, returning the model's metadata or
    /// every error message.
    fn model(input: &DeriveInput) -> Result<Metadata, Vec<String>> {
        let cx = Ctxt::new();
        let model = Input::from_syn(&cx, input);
        valid::check(&cx, &model);
        match cx.check() {
            Ok(()) => Ok(model.attrs.metadata),
            Err(errors) => Err(errors.into_iter().map(|e| e.to_string()).collect()),
        }
    }

    fn errors(input: &DeriveInput) -> Vec<String> {
        model(input).err().unwrap_or_default()
    }

    #[test]
    fn every_mistake_of_one_derive_is_reported() {
        let input = parse_quote! {
            #[submit_result(nmae = "x", description = "", flat = "yes", payload = 7)]
            #[submit_result("payload=reasoning,successs=Done.,name=has space,flat=maybe")]
            #[submit_result(description = "Again.", omit_reasoning = 1, crate = 5)]
            enum Verdict { Approve }
        };
        let errors = errors(&input);
        assert_eq!(errors.len(), 11, "{errors:#?}");
    }

    #[test]
    fn flat_rules_add_to_attribute_errors() {
        let input = parse_quote! {
            #[submit_result(flat, name = "bad name")]
            struct Review {
                reasoning: String,
                #[schemars(rename = "reasoning")]
                why: String,
            }
        };
        let errors = errors(&input);
        assert_eq!(errors.len(), 3, "{errors:#?}");
        assert!(errors[0].starts_with("invalid tool name `bad name`"));
        assert!(errors[1].starts_with("field `reasoning` collides"));
        assert!(errors[2].starts_with("field `why` is renamed to `reasoning`"));
    }

    #[test]
    fn duplicates_are_found_across_attributes_and_spellings() {
        let input = parse_quote! {
            #[submit_result(payload_description = "a")]
            #[submit_result("PAYLOADDESCRIPTION=b")]
            #[submit_result(omit_reasoning = false)]
            #[submit_result("omitReasoning")]
            #[submit_result(crate = "a", crate = "b")]
            struct Analysis { summary: String }
        };
        assert_eq!(
            errors(&input),
            [
                "duplicate submit_result attribute `payload_description`",
                "duplicate submit_result attribute `omit_reasoning`",
                "duplicate submit_result attribute `crate`",
            ]
        );
    }

    #[test]
    fn attributes_of_other_derives_are_skipped() {
        let input = parse_quote! {
            /// Documented.
            #[serde(deny_unknown_fields, rename_all = "camelCase")]
            #[schemars(nmae = "not ours")]
            #[other(nmae)]
            #[submit_result(name = "submit_analysis")]
            struct Analysis { summary: String }
        };
        let metadata = model(&input).unwrap();
        assert_eq!(metadata.name.as_deref(), Some("submit_analysis"));
    }

    #[test]
    fn both_spellings_build_one_metadata() {
        let input = parse_quote! {
            #[submit_result(name = "submit_plan", flat = true)]
            #[submit_result("payload=plan,payloadDescription=Steps\\, in order,omitReasoning=FALSE",)]
            struct Plan { steps: Vec<String> }
        };
        let metadata = model(&input).unwrap();
        assert_eq!(metadata.name.as_deref(), Some("submit_plan"));
        assert_eq!(metadata.payload.as_deref(), Some("plan"));
        assert_eq!(
            metadata.payload_description.as_deref(),
            Some("Steps, in order")
        );
        assert!(metadata.flat);
        assert!(!metadata.omit_reasoning);
    }

    #[test]
    fn flat_ignores_fields_that_are_not_advertised_as_reasoning() {
        let input = parse_quote! {
            #[submit_result(flat)]
            #[serde(rename_all = "UPPERCASE")]
            struct Analysis {
                reasoning: String,
                #[serde(skip)]
                r#reasoning2: String,
                #[serde(rename(serialize = "reasoning", deserialize = "why"))]
                why: String,
                #[serde(flatten)]
                rest: Rest,
            }
        };
        assert_eq!(errors(&input), Vec::<String>::new());
    }

    #[test]
    fn flat_sees_raw_idents_and_deserialize_renames() {
        let input = parse_quote! {
            #[submit_result(flat)]
            #[serde(rename_all(serialize = "UPPERCASE", deserialize = "camelCase"))]
            struct Analysis {
                r#reasoning_: String,
            }
        };
        let errors = errors(&input);
        assert_eq!(errors.len(), 1, "{errors:#?}");
        assert!(errors[0].contains("under `rename_all = \"camelCase\"`"));
    }

    #[test]
    fn flat_on_each_shape_that_is_not_a_named_struct_is_an_error() {
        let inputs: [DeriveInput; 4] = [
            parse_quote!(
                #[submit_result(flat)]
                enum A {
                    B,
                }
            ),
            parse_quote!(
                #[submit_result(flat)]
                struct A(u8);
            ),
            parse_quote!(
                #[submit_result(flat)]
                struct A;
            ),
            parse_quote!(#[submit_result(flat)] union A { b: u8 }),
        ];
        for input in &inputs {
            let errors = errors(input);
            assert_eq!(errors.len(), 1, "{errors:#?}");
            assert!(errors[0].starts_with("`flat` needs a struct with named fields"));
        }
        let off: DeriveInput = parse_quote!(
            #[submit_result(flat = false)]
            enum A {
                B,
            }
        );
        assert!(model(&off).is_ok());
    }

    #[test]
    fn malformed_attributes_are_errors_not_panics() {
        let inputs: [DeriveInput; 6] = [
            parse_quote!(
                #[submit_result]
                struct A;
            ),
            parse_quote!(
                #[submit_result = "x"]
                struct A;
            ),
            parse_quote!(
                #[submit_result(name("x"))]
                struct A;
            ),
            parse_quote!(
                #[submit_result(name =)]
                struct A;
            ),
            parse_quote!(
                #[submit_result("a", "b")]
                struct A;
            ),
            parse_quote!(
                #[submit_result(b"name=x")]
                struct A;
            ),
        ];
        for input in &inputs {
            assert_eq!(errors(input).len(), 1, "{:#?}", errors(input));
        }
    }
}
