use submit_result::SubmitResult;

#[derive(serde::Deserialize, schemars::JsonSchema, SubmitResult)]
#[submit_result(nmae = "submit_analysis")]
struct Analysis {
    summary: String,
}

fn main() {}
