//! Implementation detail of the `submit-result` crate: `#[derive(SubmitResult)]`.
//!
//! The derive is documented where it is used, on `submit_result::SubmitResult`.
//!
//! # Stages
//!
//! One file a stage, read bottom to top: each uses only the ones listed before it.
//!
//! 1. `ctxt.rs`: collects every error of one derive, so all are reported at once.
//! 2. `attr.rs`: reads `#[submit_result(...)]` in both spellings, and the `serde` attributes
//!    the derive must know.
//! 3. `ast.rs`: the typed model of the input, borrowing its `syn` nodes for spans.
//! 4. `valid.rs`: the rules across the metadata and the shape of the type.
//! 5. `expand.rs`: the `SubmitResult` impl, generated from the model alone.
//! 6. `lib.rs`: the entry point, input to output.

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
