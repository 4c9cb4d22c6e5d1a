use submit_result::SubmitResult;

#[derive(serde::Deserialize, schemars::JsonSchema, SubmitResult)]
#[submit_result(payload_description = "The analysis.")]
#[submit_result("payloadDescription=The review.")]
struct Analysis {
    summary: String,
}

fn main() {}
