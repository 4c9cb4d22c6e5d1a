use submit_result::SubmitResult;

#[derive(schemars::JsonSchema, SubmitResult)]
struct Analysis {
    summary: String,
}

fn main() {}
