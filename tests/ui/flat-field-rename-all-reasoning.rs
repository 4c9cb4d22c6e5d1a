use submit_result::SubmitResult;

#[derive(serde::Deserialize, schemars::JsonSchema, SubmitResult)]
#[submit_result(flat)]
#[serde(rename_all = "camelCase")]
struct Analysis {
    summary: String,
    reasoning_: String,
}

fn main() {}
