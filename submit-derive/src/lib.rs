//! Implementation detail of the `submit-result` crate: `#[derive(SubmitResult)]`.
//!
//! The derive is documented where it is used, on `submit_result::SubmitResult`.

#![forbid(unsafe_code)]

mod ast;
mod attr;
mod ctxt;
mod expand;
mod valid;

use proc_macro::TokenStream;
use syn::{parse_macro_input, DeriveInput};

// Its documentation is on the re-export, `submit_result::SubmitResult`, where rustdoc shows it.
#[proc_macro_derive(SubmitResult, attributes(submit_result))]
pub fn derive_submit_result(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand::derive(&input).into()
}
