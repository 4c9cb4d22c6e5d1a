use submit_result::SubmitResult;

#[derive(serde::Deserialize, schemars::JsonSchema, SubmitResult)]
#[submit_result("name=,flat")]
struct Analysis {
    summary: String,
}

fn main() {}
