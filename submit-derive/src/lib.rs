//! Implementation detail of the `submit-result` crate: `#[derive(SubmitResult)]`.
//!
//! The derive is documented where it is used, on `submit_result::SubmitResult`.
//!
//! # Stages
//!
//! One file a stage, in the order a derive runs them:
//!
//! - `attr.rs` reads `#[submit_result(...)]` in both spellings, and the `serde` attributes the
//!   derive must know.
//! - `ast.rs` is the typed model of the input, borrowing its `syn` nodes for spans.
//! - `valid.rs` checks the rules across the metadata and the shape of the type.
//! - `expand.rs` generates the `SubmitResult` impl from the model alone.
//! - `ctxt.rs` collects every error of one derive, so all are reported at once.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod ast;
mod attr;
mod ctxt;
mod expand;
mod valid;

use proc_macro::TokenStream;
use syn::{parse_macro_input, DeriveInput};

/// Every mistake in the attributes is reported at once, each on the token at fault.
#[proc_macro_derive(SubmitResult, attributes(submit_result))]
pub fn derive_submit_result(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand::derive(&input).into()
}
