//! The `submit-result` command-line tool: a terminal submit tool driven by a JSON Schema.
//!
//! The binary runs [`main`]; that function is the whole of this library's API. From Rust, use
//! the `submit-result` crate, which this tool is built on.
//!
//! ```text
//! submit-result definition --provider claude --schema schema.json
//! submit-result parse      --provider openai-chat --schema schema.json call.json
//! submit-result parse      --provider claude --schema schema.json --finish-reason max_tokens call.json
//! submit-result triage     --provider gemini --schema schema.json calls.jsonl --json
//! submit-result mcp        --schema schema.json --out result.json
//! ```
//!
//! Usage mistakes, unreadable files, calls not in the provider's shape and construction errors
//! exit with status 2 and one line on standard error. A rejected submit is a result: exit 0.
//! `submit-result <command> --help` describes each command and its options.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod args;
mod error;
#[cfg(feature = "mcp")]
mod mcp;
mod output;
mod shapes;
mod triage;

// Not public API: what the fuzz targets, the benchmarks and the memory test drive directly.
#[doc(hidden)]
pub mod __private {
    pub use crate::args::InputFormat;
    #[cfg(feature = "mcp")]
    pub use crate::mcp::SubmitServer;
    pub use crate::triage::{
        handler, open, reader, run, run_limited, Handled, Input, MAX_LINE_BYTES,
    };
}

use std::fs::File;
use std::io::{BufWriter, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Parser;
use serde::de::IgnoredAny;
use serde_json::Value;
use submit_core::{Incoming, Options, Provider, StopReason, SubmitTool};

use crate::args::{Cli, Command, Common, DefinitionArgs, McpArgs, ParseArgs, TriageArgs};
use crate::error::{clap_one_line, CliError};
use crate::output::OutcomeView;

/// The exit status of every failure.
const FAILURE: u8 = 2;

/// Runs the command line of this process and returns its exit status.
///
/// ```no_run
/// // The whole of the `submit-result` binary.
/// fn main() -> std::process::ExitCode {
///     submit_cli::main()
/// }
/// ```
///
/// Reads the subcommand and its options from the process's arguments, runs it, and prints what
/// it prints to standard output. A failure is one line on standard error and status 2; `--help`
/// and `--version` print and exit 0.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) if !error.use_stderr() => {
            // --help and --version: print as clap renders them, exit 0.
            let _ = error.print();
            return ExitCode::SUCCESS;
        }
        Err(error) => {
            eprintln!("submit-result: {}", clap_one_line(&error));
            return ExitCode::from(FAILURE);
        }
    };
    let result = match cli.command {
        Command::Definition(args) => definition(&args),
        Command::Parse(args) => parse(&args),
        Command::Triage(args) => triage(&args),
        Command::Mcp(args) => mcp(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(CliError::Write { source, .. }) if source.kind() == std::io::ErrorKind::BrokenPipe => {
            // The reader went away (`| head`): nothing left to say to it.
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("submit-result: {}", error.one_line());
            ExitCode::from(FAILURE)
        }
    }
}

/// Reads the schema file and builds the tool from it and the options.
fn build(common: &Common) -> Result<SubmitTool<Value>, CliError> {
    build_with(&common.tool.schema, common.options()?)
}

/// Reads the schema file at `path` and builds the tool from it and `options`.
fn build_with(path: &Path, options: Options) -> Result<SubmitTool<Value>, CliError> {
    SubmitTool::from_json_schema(read_schema(path)?, options).map_err(CliError::Build)
}

/// The JSON of the schema file at `path`.
fn read_schema(path: &Path) -> Result<Value, CliError> {
    let text = std::fs::read(path).map_err(|source| CliError::Read {
        what: "schema file",
        path: Some(path.to_path_buf()),
        source,
    })?;
    serde_json::from_slice(&text).map_err(|source| CliError::NotJson {
        what: "schema file",
        path: Some(path.to_path_buf()),
        source,
    })
}

/// `None` for standard input (`-` or nothing), else the path.
fn file_or_stdin(path: Option<&PathBuf>) -> Option<&Path> {
    path.map(PathBuf::as_path)
        .filter(|path| path.as_os_str() != "-")
}

/// Writes `value` pretty-printed, and a newline, to standard output.
fn print_json<T: serde::Serialize>(value: &T) -> Result<(), CliError> {
    let write_error = |source| CliError::Write {
        what: "output",
        path: None,
        source,
    };
    let mut stdout = BufWriter::new(std::io::stdout().lock());
    serde_json::to_writer_pretty(&mut stdout, value).map_err(|e| write_error(e.into()))?;
    stdout.write_all(b"\n").map_err(write_error)?;
    stdout.flush().map_err(write_error)
}

/// `mcp`: builds the tool, then serves it until the host goes away.
#[cfg(feature = "mcp")]
fn mcp(args: &McpArgs) -> Result<(), CliError> {
    let document = read_schema(&args.tool.schema)?;
    let tool = SubmitTool::from_json_schema(document.clone(), args.tool.options(None, false)?)
        .map_err(CliError::Build)?;
    mcp::serve(tool, &document, args)
}

/// `mcp` in a build without the server: says which feature has it.
#[cfg(not(feature = "mcp"))]
fn mcp(_: &McpArgs) -> Result<(), CliError> {
    Err(CliError::McpNotBuilt)
}

fn definition(args: &DefinitionArgs) -> Result<(), CliError> {
    let provider = args.common.provider();
    let tool = build(&args.common)?;
    print_json(&tool.definition(provider))
}

fn parse(args: &ParseArgs) -> Result<(), CliError> {
    let provider = args.common.provider();
    let tool = build(&args.common)?;
    let path = file_or_stdin(args.call.as_ref());
    let read_error = |source| CliError::Read {
        what: "call",
        path: path.map(Path::to_path_buf),
        source,
    };
    let mut text = Vec::new();
    match path {
        Some(path) => File::open(path)
            .and_then(|mut file| file.read_to_end(&mut text))
            .map_err(read_error)?,
        None => std::io::stdin()
            .lock()
            .read_to_end(&mut text)
            .map_err(read_error)?,
    };
    let end = |provider: Provider| {
        args.finish_reason
            .as_deref()
            .map_or(StopReason::Complete, |reason| provider.stop_reason(reason))
    };
    if args.text {
        let text = String::from_utf8(text).map_err(|e| CliError::NotText {
            path: path.map(Path::to_path_buf),
            at: e.utf8_error().valid_up_to(),
        })?;
        return match tool.handle_text(&text, end(provider)) {
            Some(outcome) => print_json(&OutcomeView::new(&outcome, None)),
            None => print_json(&serde_json::json!({"accepted": false, "found": false})),
        };
    }
    serde_json::from_slice::<IgnoredAny>(&text).map_err(|source| CliError::NotJson {
        what: "call",
        path: path.map(Path::to_path_buf),
        source,
    })?;
    // The call's own bytes: an `input`/`args` object is read as the text it arrived as.
    let incoming = Incoming::call_json(provider, &text).stop(end(provider));
    match tool.receive(incoming).map_err(CliError::CallShape)? {
        Some(outcome) => print_json(&OutcomeView::new(&outcome, None)),
        // A `multi_tool_use.parallel` call with no entry of the tool.
        None => print_json(&serde_json::json!({"accepted": false, "found": false})),
    }
}

fn triage(args: &TriageArgs) -> Result<(), CliError> {
    let provider = args.common.provider();
    let tool = build(&args.common)?;
    let path = file_or_stdin(args.calls.as_ref());
    let read_error = |source| CliError::Read {
        what: "calls",
        path: path.map(Path::to_path_buf),
        source,
    };
    let (raw, size): (Box<dyn Read>, Option<u64>) = match path {
        Some(path) => {
            let file = File::open(path).map_err(read_error)?;
            let size = file.metadata().ok().map(|m| m.len());
            (Box::new(file), size)
        }
        None => (Box::new(std::io::stdin()), None),
    };
    let source = triage::open(raw).map_err(|error| match error {
        triage::OpenError::Read(source) => read_error(source),
        triage::OpenError::NotBuilt(format) => CliError::CompressionNotBuilt {
            what: "calls",
            path: path.map(Path::to_path_buf),
            format,
        },
    })?;
    let write_error = |source| CliError::Write {
        what: "outcomes file",
        path: args.out.clone(),
        source,
    };
    let mut out = match &args.out {
        Some(path) => Some(BufWriter::with_capacity(
            256 * 1024,
            File::create(path).map_err(write_error)?,
        )),
        None => None,
    };
    let threads = args.threads.map_or_else(
        || std::thread::available_parallelism().map_or(1, usize::from),
        usize::from,
    );
    let input = triage::Input::from_source(source, size)
        .progress(std::io::stderr().is_terminal())
        .threads(threads);
    let triaged = triage::run(
        input,
        out.as_mut().map(|out| out as &mut dyn Write),
        triage::reader(&tool, provider, args.input),
    );
    // A read that failed part way still reports the lines read before it, then the failure.
    let (summary, cut) = match triaged {
        Ok(summary) => (summary, None),
        Err(triage::StreamError::Read {
            error,
            line,
            summary,
        }) => {
            let cut = CliError::ReadCut {
                what: "calls",
                path: path.map(Path::to_path_buf),
                line,
                source: error,
            };
            if let Some(out) = out.as_mut() {
                out.flush().map_err(write_error)?;
            }
            (*summary, Some(cut))
        }
        Err(triage::StreamError::Write(source)) => return Err(write_error(source)),
    };
    let report = summary.report(args.top);
    if let Some(path) = &args.html {
        std::fs::write(path, triage::html(&report)).map_err(|source| CliError::Write {
            what: "HTML report",
            path: Some(path.clone()),
            source,
        })?;
    }
    let write_error = |source| CliError::Write {
        what: "output",
        path: None,
        source,
    };
    let mut stdout = std::io::stdout().lock();
    if args.json {
        serde_json::to_writer(&mut stdout, &report).map_err(|e| write_error(e.into()))?;
        stdout.write_all(b"\n").map_err(write_error)?;
    } else {
        stdout
            .write_all(report.table().as_bytes())
            .map_err(write_error)?;
    }
    stdout.flush().map_err(write_error)?;
    cut.map_or(Ok(()), Err)
}
