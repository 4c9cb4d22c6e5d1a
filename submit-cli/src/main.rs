//! The `submit-result` command-line tool.

fn main() {}
