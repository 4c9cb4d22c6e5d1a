use submit_result::SubmitResult;

#[derive(serde::Deserialize, schemars::JsonSchema, SubmitResult)]
#[submit_result(flat)]
struct Analysis {
    summary: String,
    reasoning: String,
}

fn main() {}
