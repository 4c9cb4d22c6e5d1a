//! The whole flow on built-in data.

fn main() {}
