//! The `submit-result` binary.

fn main() -> std::process::ExitCode {
    submit_cli::main()
}
