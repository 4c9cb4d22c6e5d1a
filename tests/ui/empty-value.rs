use submit_result::SubmitResult;

#[derive(serde::Deserialize, schemars::JsonSchema, SubmitResult)]
#[submit_result(description = "")]
struct Analysis {
    summary: String,
}

fn main() {}
