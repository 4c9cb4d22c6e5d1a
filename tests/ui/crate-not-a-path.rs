use submit_result::SubmitResult;

#[derive(serde::Deserialize, schemars::JsonSchema, SubmitResult)]
#[submit_result(crate = "not a path")]
struct Analysis {
    summary: String,
}

fn main() {}
