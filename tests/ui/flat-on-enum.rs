use submit_result::SubmitResult;

#[derive(serde::Deserialize, schemars::JsonSchema, SubmitResult)]
#[submit_result(flat)]
enum Verdict {
    Approve,
    Block,
}

fn main() {}
