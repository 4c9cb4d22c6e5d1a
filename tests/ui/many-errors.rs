use submit_result::SubmitResult;

#[derive(serde::Deserialize, schemars::JsonSchema, SubmitResult)]
#[submit_result(nmae = "submit_analysis", description = "", flat = "yes")]
#[submit_result("payload=reasoning,successs=Done.,name=has space")]
#[submit_result(description = "Submit the analysis.", omit_reasoning = 1)]
struct Analysis {
    summary: String,
}

#[derive(serde::Deserialize, schemars::JsonSchema, SubmitResult)]
#[submit_result(flat, payload = 7)]
enum Verdict {
    Approve,
    Block,
}

#[derive(serde::Deserialize, schemars::JsonSchema, SubmitResult)]
#[submit_result(flat, name = "submit review")]
struct Review {
    #[serde(rename = "reasoning")]
    why: String,
    summary: String,
}

fn main() {
    // The failed derives still implement the trait: no cascade of "not implemented" here.
    let _ = (Analysis::metadata(), Verdict::metadata(), Review::metadata());
}
