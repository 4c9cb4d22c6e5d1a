//! Implementation detail of the `submit-result` crate: `#[derive(SubmitResult)]`.

use proc_macro::TokenStream;

/// Derives `SubmitResult` from `#[submit_result(...)]`; documented in the `submit-result` crate.
#[proc_macro_derive(SubmitResult, attributes(submit_result))]
pub fn derive_submit_result(input: TokenStream) -> TokenStream {
    let _ = input;
    TokenStream::new()
}
