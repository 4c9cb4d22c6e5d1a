use submit_result::SubmitResult;

#[derive(serde::Deserialize, schemars::JsonSchema, SubmitResult)]
#[submit_result(payload = "analysis!")]
struct Analysis {
    summary: String,
}

fn main() {}
