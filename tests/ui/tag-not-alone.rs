use submit_result::SubmitResult;

#[derive(serde::Deserialize, schemars::JsonSchema, SubmitResult)]
#[submit_result("flat", name = "submit_analysis")]
struct Analysis {
    summary: String,
}

fn main() {}
