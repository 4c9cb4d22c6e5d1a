use submit_result::SubmitResult;

#[derive(serde::Deserialize, schemars::JsonSchema, SubmitResult)]
#[submit_result(omit_reasoning = 1)]
struct Analysis {
    summary: String,
}

fn main() {}
