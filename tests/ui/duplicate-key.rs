use submit_result::SubmitResult;

#[derive(serde::Deserialize, schemars::JsonSchema, SubmitResult)]
#[submit_result(name = "submit_analysis", name = "submit_review")]
struct Analysis {
    summary: String,
}

fn main() {}
