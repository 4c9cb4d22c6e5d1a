use submit_result::SubmitResult;

#[derive(serde::Deserialize, schemars::JsonSchema, SubmitResult)]
#[submit_result(crate = "submit_result_renamed")]
struct Analysis {
    summary: String,
}

fn main() {}
