//! Generates the `SubmitResult` impl from the model; never reads raw attributes.

use std::borrow::Cow;

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use submit_meta::Metadata;
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
        Some(path) => quote!(use #path as _submit;),
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
