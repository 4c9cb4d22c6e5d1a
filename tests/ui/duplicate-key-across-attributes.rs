use submit_result::SubmitResult;

#[derive(serde::Deserialize, schemars::JsonSchema, SubmitResult)]
#[submit_result(flat)]
#[submit_result(flat = false)]
struct Analysis {
    summary: String,
}

fn main() {}
