use submit_result::SubmitResult;

#[derive(serde::Deserialize, schemars::JsonSchema, SubmitResult)]
#[submit_result("flat=yes")]
struct Analysis {
    summary: String,
}

fn main() {}
