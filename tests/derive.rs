//! What `#[derive(SubmitResult)]` records, in each spelling of `#[submit_result(...)]`.

use std::borrow::Cow;

use submit_result::{Metadata, Options, SubmitResult, SubmitTool};

#[test]
fn attribute_spelling_sets_every_key() {
    #[derive(serde::Deserialize, schemars::JsonSchema, SubmitResult)]
    #[submit_result(
        name = "submit_analysis",
        description = "Submit the analysis.",
        payload = "analysis",
        payload_description = "The analysis.",
        success = "Analysis recorded.",
        flat,
        omit_reasoning
    )]
    struct Analysis {
        _summary: String,
    }

    assert_eq!(
        Analysis::metadata(),
        Metadata {
            name: Some("submit_analysis".into()),
            description: Some("Submit the analysis.".into()),
            success: Some("Analysis recorded.".into()),
            payload: Some("analysis".into()),
            payload_description: Some("The analysis.".into()),
            flat: true,
            omit_reasoning: true,
        }
    );
}

#[test]
fn tag_spelling_sets_every_key() {
    #[derive(serde::Deserialize, schemars::JsonSchema, SubmitResult)]
    #[submit_result(
        "name=submit_decision,description=Submit the decision.,payload=decision,\
         payloadDescription=The decision.,success=Decision recorded.,flat,omitReasoning"
    )]
    struct Decision {
        _verdict: String,
    }

    assert_eq!(
        Decision::metadata(),
        Metadata {
            name: Some("submit_decision".into()),
            description: Some("Submit the decision.".into()),
            success: Some("Decision recorded.".into()),
            payload: Some("decision".into()),
            payload_description: Some("The decision.".into()),
            flat: true,
            omit_reasoning: true,
        }
    );
}

#[test]
fn tag_spelling_matches_the_run_time_grammar() {
    const TAG: &str = " NAME = submit_plan , payload_description=Steps\\, in order ,, \
                       OMIT_REASONING=TRUE,Flat=false,success=a=b";

    #[derive(serde::Deserialize, schemars::JsonSchema, SubmitResult)]
    #[submit_result(
        " NAME = submit_plan , payload_description=Steps\\, in order ,, \
         OMIT_REASONING=TRUE,Flat=false,success=a=b"
    )]
    struct Plan {
        _steps: Vec<String>,
    }

    let at_run_time = Metadata::from_tag(TAG).unwrap();
    assert_eq!(Plan::metadata(), at_run_time);
    assert_eq!(
        at_run_time.payload_description.as_deref(),
        Some("Steps, in order")
    );
    assert_eq!(at_run_time.success.as_deref(), Some("a=b"));
    assert!(at_run_time.omit_reasoning);
    assert!(!at_run_time.flat);
}

#[test]
fn spellings_mix_over_several_attributes() {
    #[derive(serde::Deserialize, schemars::JsonSchema, SubmitResult)]
    #[submit_result(name = "submit_review")]
    #[submit_result("payload=review,flat")]
    #[submit_result(success = "Review recorded.")]
    #[submit_result("payloadDescription=The review.")]
    struct Review {
        _score: u8,
    }

    let metadata = Review::metadata();
    assert_eq!(metadata.name.as_deref(), Some("submit_review"));
    assert_eq!(metadata.payload.as_deref(), Some("review"));
    assert_eq!(metadata.success.as_deref(), Some("Review recorded."));
    assert_eq!(metadata.payload_description.as_deref(), Some("The review."));
    assert_eq!(metadata.description, None);
    assert!(metadata.flat);
    assert!(!metadata.omit_reasoning);
}

#[test]
fn escaped_commas_in_the_tag_are_literal() {
    #[derive(serde::Deserialize, schemars::JsonSchema, SubmitResult)]
    #[submit_result("payloadDescription=Escalate\\, block\\, or approve.,flat")]
    struct Decision {
        _verdict: String,
    }

    #[derive(serde::Deserialize, schemars::JsonSchema, SubmitResult)]
    #[submit_result(r"description=One\, two\\three,success=trailing\,")]
    struct Raw {
        _verdict: String,
    }

    let metadata = Decision::metadata();
    assert_eq!(
        metadata.payload_description.as_deref(),
        Some("Escalate, block, or approve.")
    );
    assert!(metadata.flat);
    let raw = Raw::metadata();
    // Only `\,` is an escape: the two backslashes before `three` stay.
    assert_eq!(raw.description.as_deref(), Some(r"One, two\\three"));
    assert_eq!(raw.success.as_deref(), Some("trailing,"));
}

#[test]
fn absent_keys_leave_the_defaults() {
    #[derive(serde::Deserialize, schemars::JsonSchema, SubmitResult)]
    struct Plain {
        _summary: String,
    }

    #[derive(serde::Deserialize, schemars::JsonSchema, SubmitResult)]
    #[submit_result()]
    #[submit_result("")]
    struct Empty {
        _summary: String,
    }

    assert_eq!(Plain::metadata(), Metadata::EMPTY);
    assert_eq!(Empty::metadata(), Metadata::EMPTY);
    let tool = SubmitTool::<Plain>::new(Options::for_response::<Plain>()).unwrap();
    assert_eq!(tool.name(), "submit_result");
    assert_eq!(tool.payload_field(), "result");
    assert_eq!(tool.payload_description(), "Structured result payload.");
}

#[test]
fn flags_take_true_and_false() {
    #[derive(serde::Deserialize, schemars::JsonSchema, SubmitResult)]
    #[submit_result(flat = true, omit_reasoning = false)]
    struct Attribute {
        _summary: String,
    }

    #[derive(serde::Deserialize, schemars::JsonSchema, SubmitResult)]
    #[submit_result("flat=False,omitReasoning=true")]
    struct Tag {
        _summary: String,
    }

    let attribute = Attribute::metadata();
    assert!(attribute.flat);
    assert!(!attribute.omit_reasoning);
    let tag = Tag::metadata();
    assert!(!tag.flat);
    assert!(tag.omit_reasoning);
}

#[test]
fn omit_reasoning_false_keeps_the_reasoning_parameter() {
    #[derive(serde::Deserialize, schemars::JsonSchema, SubmitResult)]
    #[submit_result(payload = "analysis", omit_reasoning = false)]
    struct Analysis {
        _summary: String,
    }

    let metadata = Analysis::metadata();
    assert!(!metadata.omit_reasoning);
    assert_eq!(metadata.payload.as_deref(), Some("analysis"));
}

#[test]
fn strings_are_borrowed_literals() {
    #[derive(serde::Deserialize, schemars::JsonSchema, SubmitResult)]
    #[submit_result(name = "submit_analysis")]
    #[submit_result("description=Described.")]
    struct Analysis {
        _summary: String,
    }

    let metadata = Analysis::metadata();
    assert!(matches!(
        metadata.name,
        Some(Cow::Borrowed("submit_analysis"))
    ));
    assert!(matches!(
        metadata.description,
        Some(Cow::Borrowed("Described."))
    ));
}

#[test]
fn generic_types_derive() {
    #[derive(serde::Deserialize, schemars::JsonSchema, SubmitResult)]
    #[submit_result(name = "submit_page", payload = "page")]
    struct Page<T, const N: usize>
    where
        T: Clone,
    {
        items: Vec<T>,
    }

    #[derive(serde::Deserialize, schemars::JsonSchema, SubmitResult)]
    #[serde(bound = "")]
    #[submit_result(name = "submit_borrowed")]
    struct Labelled<'a, T: Default> {
        #[serde(skip)]
        _label: std::marker::PhantomData<&'a T>,
        _count: u32,
    }

    fn tool_name<R: SubmitResult>() -> Option<Cow<'static, str>> {
        R::metadata().name
    }

    assert_eq!(
        tool_name::<Page<String, 3>>().as_deref(),
        Some("submit_page")
    );
    assert_eq!(Page::<u8, 1>::metadata().payload.as_deref(), Some("page"));
    assert_eq!(
        tool_name::<Labelled<'static, u8>>().as_deref(),
        Some("submit_borrowed")
    );
    let page: Page<u8, 2> = serde_json::from_str(r#"{"items":[1,2]}"#).unwrap();
    assert_eq!(page.items, [1, 2]);
}

#[test]
fn types_other_than_named_structs_derive_without_flat() {
    #[derive(serde::Deserialize, schemars::JsonSchema, SubmitResult)]
    #[submit_result(name = "submit_verdict")]
    enum Verdict {
        _Approve,
        _Block,
    }

    #[derive(serde::Deserialize, schemars::JsonSchema, SubmitResult)]
    #[submit_result(flat = false, payload = "score")]
    struct Score(u8);

    assert_eq!(Verdict::metadata().name.as_deref(), Some("submit_verdict"));
    assert_eq!(Score::metadata().payload.as_deref(), Some("score"));
    assert!(!Score::metadata().flat);
    let Score(score) = serde_json::from_str("7").unwrap();
    assert_eq!(score, 7);
}

#[test]
fn flat_allows_a_reasoning_field_when_reasoning_is_omitted() {
    #[derive(serde::Deserialize, schemars::JsonSchema, SubmitResult)]
    #[submit_result(flat, omit_reasoning)]
    struct Own {
        _reasoning: String,
        reasoning: String,
    }

    #[derive(serde::Deserialize, schemars::JsonSchema, SubmitResult)]
    #[submit_result(flat)]
    #[serde(rename_all = "PascalCase")]
    struct Renamed {
        // Advertised as `Reasoning`, which does not collide.
        reasoning: String,
        #[serde(rename = "why")]
        _because: String,
        #[serde(skip)]
        _skipped: String,
    }

    assert!(Own::metadata().omit_reasoning);
    assert!(Renamed::metadata().flat);
    let own: Own = serde_json::from_str(r#"{"_reasoning":"a","reasoning":"b"}"#).unwrap();
    assert_eq!(own.reasoning, "b");
    let renamed: Renamed = serde_json::from_str(r#"{"Reasoning":"r","why":"w"}"#).unwrap();
    assert_eq!(renamed.reasoning, "r");
}

/// A module that re-exports the facade, as a crate wrapping `submit-result` would.
mod facade {
    pub use submit_result::*;
}

#[test]
fn crate_path_overrides_the_runtime_path() {
    #[derive(serde::Deserialize, schemars::JsonSchema, facade::SubmitResult)]
    #[submit_result(crate = "facade", name = "submit_wrapped")]
    struct Wrapped {
        _summary: String,
    }

    #[derive(serde::Deserialize, schemars::JsonSchema, facade::SubmitResult)]
    #[submit_result(crate = "crate::derive::facade")]
    #[submit_result("payload=wrapped")]
    struct Absolute {
        _summary: String,
    }

    assert_eq!(Wrapped::metadata().name.as_deref(), Some("submit_wrapped"));
    assert_eq!(Absolute::metadata().payload.as_deref(), Some("wrapped"));
}

#[test]
fn options_for_response_read_the_derived_metadata() {
    #[derive(serde::Deserialize, schemars::JsonSchema, SubmitResult)]
    #[submit_result(name = "submit_triage", payload = "triage")]
    #[submit_result("payloadDescription=Severity\\, owner and next step.")]
    struct Triage {
        _severity: u8,
    }

    let tool = SubmitTool::<Triage>::new(Options::for_response::<Triage>()).unwrap();
    assert_eq!(tool.name(), "submit_triage");
    assert_eq!(tool.payload_field(), "triage");
    assert_eq!(tool.payload_description(), "Severity, owner and next step.");
}
