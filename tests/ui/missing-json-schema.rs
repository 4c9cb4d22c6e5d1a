use submit_result::SubmitResult;

#[derive(serde::Deserialize, SubmitResult)]
struct Analysis {
    summary: String,
}

fn main() {}
