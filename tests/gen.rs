//! The generated impl uses full paths only: prelude names and the runtime's own names are
//! shadowed here by unrelated items.

#![deny(warnings)]
#![allow(dead_code, reason = "the shadowing items exist only to be in scope")]
#![allow(non_camel_case_types, reason = "shadows the generated alias `_submit`")]

struct Result;
struct Ok;
struct Err;
struct Option;
struct Some;
struct None;
struct String;
struct Vec;
struct Box;
struct Default;
struct Clone;
struct Into;
struct From;
struct Cow;
struct Metadata;
struct DeserializeOwned;
struct JsonSchema;
struct _submit;
mod __private {}

#[derive(serde::Deserialize, schemars::JsonSchema, submit_result::SubmitResult)]
#[submit_result(name = "submit_shadowed", description = "Shadowed.", flat)]
#[submit_result("payload=shadowed,payloadDescription=All names shadowed.,success=Done.")]
struct Shadowed {
    summary: std::string::String,
}

#[derive(serde::Deserialize, schemars::JsonSchema, submit_result::SubmitResult)]
struct Generic<T> {
    items: std::vec::Vec<T>,
}

#[test]
fn derive_survives_shadowed_prelude_names() {
    let metadata = <Shadowed as submit_result::SubmitResult>::metadata();
    assert_eq!(
        metadata.name.as_deref(),
        core::option::Option::Some("submit_shadowed")
    );
    assert_eq!(
        metadata.success.as_deref(),
        core::option::Option::Some("Done.")
    );
    assert!(metadata.flat);
    assert_eq!(
        <Generic<u8> as submit_result::SubmitResult>::metadata(),
        submit_result::Metadata::EMPTY
    );
}
