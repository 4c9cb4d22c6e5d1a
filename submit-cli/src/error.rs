//! Why a command failed. Every failure exits with status 2 and one line on standard error.

use std::path::PathBuf;

use submit_core::{BuildError, CallShapeError};

/// A failure of the command (a rejected submit is a result, not one of these).
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// An option given an empty value.
    #[error("an option was given an empty value: give it a value or leave it out")]
    EmptyValue,
    /// The `--tag` string has mistakes.
    #[error("--tag: {0}")]
    Tag(BuildError),
    /// `--strict` with `--provider gemini`.
    #[error("gemini has no strict mode: drop --strict or pick another provider")]
    GeminiStrict,
    /// A file (or standard input) that could not be read.
    #[error("cannot read {what} {}: {source}", show(path, "from standard input"))]
    Read {
        /// What the file holds (`schema file`, `call`, `calls`).
        what: &'static str,
        /// The file; `None` for standard input.
        path: Option<PathBuf>,
        /// Why.
        source: std::io::Error,
    },
    /// A file (or standard input) whose reading failed part way: the summary printed counts
    /// the lines before `line`.
    #[error(
        "cannot read {what} {} at line {line}: {source}; the summary counts the {} lines \
         before it: check that the file is whole (an archive cut short ends early)",
        show(path, "from standard input"),
        line.saturating_sub(1)
    )]
    ReadCut {
        /// What the file holds (`calls`).
        what: &'static str,
        /// The file; `None` for standard input.
        path: Option<PathBuf>,
        /// The line being read when reading failed.
        line: u64,
        /// Why.
        source: std::io::Error,
    },
    /// A compressed input, in a build that reads none.
    #[error(
        "{what} {} is a {format} archive, and this submit-result was built without compressed \
         input (its default feature `compression` was turned off): decompress it first (zcat, \
         zstdcat) or install submit-result with its default features (cargo install submit-cli)",
        show(path, "from standard input")
    )]
    CompressionNotBuilt {
        /// What the file holds (`calls`).
        what: &'static str,
        /// The file; `None` for standard input.
        path: Option<PathBuf>,
        /// How it is compressed.
        format: crate::triage::Compression,
    },
    /// A file that is not the JSON it should hold.
    #[error("{what} {} is not JSON: {source}", show(path, "from standard input"))]
    NotJson {
        /// What the file holds.
        what: &'static str,
        /// The file; `None` for standard input.
        path: Option<PathBuf>,
        /// What the decoder said.
        source: serde_json::Error,
    },
    /// A text turn (`parse --text`) that is not UTF-8.
    #[error(
        "text {} is not UTF-8 (from byte {at}): pass the model's text as it arrived, in UTF-8",
        show(path, "from standard input")
    )]
    NotText {
        /// The file; `None` for standard input.
        path: Option<PathBuf>,
        /// The length of the valid UTF-8 before the first invalid byte.
        at: usize,
    },
    /// The call is not in the provider's shape.
    #[error("{0}: pass the call object exactly as the provider returned it")]
    CallShape(CallShapeError),
    /// The tool could not be built from the schema and options.
    #[error("{}", build_message(.0))]
    Build(BuildError),
    /// `mcp` in a build without the `mcp` feature.
    #[cfg(not(feature = "mcp"))]
    #[error(
        "this submit-result was built without the MCP server (its default feature `mcp` was \
         turned off): install it with its default features (cargo install submit-cli)"
    )]
    McpNotBuilt,
    /// The async runtime the MCP server runs on could not start.
    #[cfg(feature = "mcp")]
    #[error("cannot start the MCP server's runtime: {0}")]
    Runtime(std::io::Error),
    /// `--listen` could not bind its address.
    #[cfg(feature = "mcp")]
    #[error("cannot listen on {addr}: {source}: pick another address or port")]
    Listen {
        /// The address asked for.
        addr: std::net::SocketAddr,
        /// Why.
        source: std::io::Error,
    },
    /// `--no-auth` on an address other machines can reach.
    #[cfg(feature = "mcp")]
    #[error(
        "--no-auth on {0}, which is not a loopback address: anyone who can reach it could \
         commit the run's result; drop --no-auth (a token is then required) or listen on \
         127.0.0.1 or [::1]"
    )]
    NoAuthNotLoopback(std::net::SocketAddr),
    /// An `--allow-origin` value that is not an origin.
    #[cfg(feature = "mcp")]
    #[error(
        "--allow-origin `{origin}` is not an origin ({reason}): give scheme://host[:port], \
         such as https://app.example.com"
    )]
    AllowOrigin {
        /// The value given.
        origin: String,
        /// What is wrong with it.
        reason: String,
    },
    /// `SUBMIT_RESULT_MCP_TOKEN` holds no token a header can carry.
    #[cfg(feature = "mcp")]
    #[error(
        "SUBMIT_RESULT_MCP_TOKEN {0}: set it to visible ASCII characters (no spaces), or unset \
         it to have a token generated"
    )]
    BadToken(&'static str),
    /// No token could be generated.
    #[cfg(feature = "mcp")]
    #[error("cannot generate a bearer token: {0}: set SUBMIT_RESULT_MCP_TOKEN instead")]
    NoRandom(String),
    /// The MCP session over standard input and output could not start or failed.
    #[cfg(feature = "mcp")]
    #[error("mcp: {0}")]
    Mcp(String),
    /// A file that could not be created or written.
    #[error("cannot write {what} {}: {source}", show(path, "to standard output"))]
    Write {
        /// What the file is for.
        what: &'static str,
        /// The file; `None` for standard output.
        path: Option<PathBuf>,
        /// Why.
        source: std::io::Error,
    },
}

/// A construction error, its advice given in command-line terms where the library's names a
/// Rust remedy.
fn build_message(error: &BuildError) -> String {
    match error {
        BuildError::OmitRequiredField(field) => format!(
            "cannot omit payload field `{field}`: the schema requires it, so every submit would \
             fail to validate; drop --omit-field {field} or remove it from the schema's `required`"
        ),
        BuildError::FlatNotAnObject(what) => format!(
            "--flat needs a payload schema that is an object with properties, but it is {what}: \
             drop --flat"
        ),
        BuildError::GeminiLegacy(reason) => format!(
            "cannot express the payload schema in Gemini's legacy schema subset: {reason}; pass \
             --gemini-json-schema"
        ),
        other => other.to_string(),
    }
}

/// The file in backquotes, or `stdio` when there is none.
fn show(path: &Option<PathBuf>, stdio: &str) -> String {
    match path {
        Some(path) => format!("`{}`", path.display()),
        None => stdio.to_owned(),
    }
}

impl CliError {
    /// The message as one line: any line breaks inside (from wrapped errors) become spaces.
    pub fn one_line(&self) -> String {
        one_line(&self.to_string())
    }
}

/// Joins the non-empty lines of `text` with single spaces.
pub fn one_line(text: &str) -> String {
    text.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Renders a clap error as one line: everything before its `Usage:` block, joined, without
/// the pointer to `--help`.
pub fn clap_one_line(error: &clap::Error) -> String {
    let rendered = error.render().to_string();
    let head: Vec<&str> = rendered
        .lines()
        .map(str::trim)
        .take_while(|line| !line.starts_with("Usage:"))
        .filter(|line| !line.is_empty() && !line.starts_with("For more information"))
        .collect();
    let line = head.join(" ");
    line.strip_prefix("error: ").unwrap_or(&line).to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn construction_errors_give_command_line_advice() {
        let error = CliError::Build(BuildError::OmitRequiredField("summary".to_owned()));
        assert_eq!(
            error.one_line(),
            "cannot omit payload field `summary`: the schema requires it, so every submit would \
             fail to validate; drop --omit-field summary or remove it from the schema's `required`"
        );
        let error = CliError::Build(BuildError::GeminiLegacy("recursive at /x".to_owned()));
        assert!(error.one_line().ends_with("pass --gemini-json-schema"));
        let error = CliError::Build(BuildError::OmitUnknownField("nope".to_owned()));
        assert_eq!(
            error.one_line(),
            BuildError::OmitUnknownField("nope".to_owned()).to_string()
        );
    }

    #[test]
    fn standard_input_is_named_when_there_is_no_file() {
        let source = serde_json::from_str::<serde_json::Value>("{").unwrap_err();
        let error = CliError::NotJson {
            what: "call",
            path: None,
            source,
        };
        assert_eq!(
            error.one_line(),
            "call from standard input is not JSON: EOF while parsing an object at line 1 column 1"
        );
    }

    #[test]
    fn one_line_joins_lines() {
        assert_eq!(one_line("a\n  b\n\nc\n"), "a b c");
    }

    #[test]
    fn read_error_names_the_file() {
        let error = CliError::Read {
            what: "schema file",
            path: Some(PathBuf::from("missing.json")),
            source: std::io::Error::new(std::io::ErrorKind::NotFound, "no such file"),
        };
        assert_eq!(
            error.one_line(),
            "cannot read schema file `missing.json`: no such file"
        );
    }

    #[test]
    fn clap_errors_become_one_line_naming_the_option() {
        use clap::Parser;
        let error =
            crate::args::Cli::try_parse_from(["submit-result", "definition", "--schema", "s"])
                .unwrap_err();
        let line = clap_one_line(&error);
        assert!(!line.contains('\n'));
        assert_eq!(
            line,
            "the following required arguments were not provided: --provider <PROVIDER>"
        );
    }
}
