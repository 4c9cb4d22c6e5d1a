//! The command line: subcommands, common options, and turning them into a submit tool.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::builder::NonEmptyStringValueParser;
use clap::{Args, Parser, Subcommand, ValueEnum};
use submit_core::{BuildError, GeminiSchema, Metadata, Options, Overrides, Provider};

use crate::error::CliError;

/// Build tool definitions and parse or triage calls of a terminal `submit_result` tool whose
/// payload is described by a JSON Schema.
#[derive(Debug, Parser)]
#[command(name = "submit-result", version, max_term_width = 100)]
#[command(subcommand_required = true, arg_required_else_help = false)]
#[command(
    after_help = "Exit status: 0 when the command did its work, a rejected submit \
included (it is a result); 2 for a usage mistake, an unreadable file, a call not in the \
provider's shape or a tool that cannot be built, with one line on standard error."
)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print the tool definition in the provider's wire format.
    Definition(DefinitionArgs),
    /// Read one tool call in the provider's native shape and print its outcome as JSON.
    Parse(ParseArgs),
    /// Read one call a line (JSONL), possibly millions, and print a summary of the outcomes.
    #[command(
        after_help = "The summary counts clean accepts, each recovery, each rejection \
class and cause, with their shares of the calls, and lists the most common declined shapes: \
what followed the payload object when a recovery declined. A whole response, alone or in a \
batch entry, is read with its stop reason: when it stopped at the output-token limit (claude \
max_tokens or model_context_window_exceeded, openai-chat length, openai-responses \
max_output_tokens, gemini MAX_TOKENS), a submit call that is its last tool call may be cut \
off and is counted as rejected with cause truncated_call; bare calls and conversations carry \
no stop reason. A line that is not JSON or not a call in the provider's shape is counted as \
malformed and reported by number; it never stops the triage. A gzip (.gz) or Zstandard (.zst) \
file, or standard input, is read as the JSONL it holds, told by its first bytes; an archive cut \
short or corrupt is reported with the line reached, after the summary of the lines before it \
(exit status 2). The lines are handled on every core (--threads sets how many threads), with \
the same summary and --out as on one. A progress bar is drawn on standard error when it is a \
terminal: the share of the file read (of the archive, when compressed)."
    )]
    Triage(TriageArgs),
    /// Serve the tool to an MCP host: over standard input and output, or streamable HTTP.
    #[command(
        after_help = "The one tool's inputSchema is the parameters object of the definition. \
A call's arguments are read from the message's bytes as written, and parsed as `parse` parses \
the same argument text (a member sent twice is rejected, a JSON string is argument text encoded \
once): a rejected submit is answered with a tool error (isError: true) whose text is the hint \
for the model; only a message that is not a tools/call of the tool gets a JSON-RPC error. The \
first accepted result is written to --out (or, serving HTTP, to standard output) as one line of \
`parse`'s JSON; later submits are refused. Logs go to standard error (RUST_LOG sets the filter). Over standard input and \
output, a line that is not a JSON-RPC message (past 16 MiB, not UTF-8, not JSON) is answered \
with a JSON-RPC error. Serving HTTP, every request needs the bearer token, a browser's request \
needs a loopback or --allow-origin origin, and the limits below hold. The server is the `mcp` \
feature, on by default."
    )]
    Mcp(McpArgs),
}

/// Arguments of `definition`.
#[derive(Debug, Args)]
pub struct DefinitionArgs {
    /// Options shared by every subcommand.
    #[command(flatten)]
    pub common: Common,
}

/// Arguments of `parse`.
#[derive(Debug, Args)]
pub struct ParseArgs {
    /// Options shared by every subcommand.
    #[command(flatten)]
    pub common: Common,
    /// The file holding the call; `-` or nothing reads standard input. A call named
    /// multi_tool_use.parallel (a wrapper models invent) is read for its one entry of the tool,
    /// handled as that call; with none, the output is {"accepted": false, "found": false}.
    #[arg(value_name = "CALL_FILE|-")]
    pub call: Option<PathBuf>,
    /// The stop reason of the model turn that carried the call, in the provider's own spelling
    /// (max_tokens, length, max_output_tokens, MAX_TOKENS, stop, end_turn, …). The call is taken
    /// as the turn's last: under the provider's output-token limit (claude max_tokens or
    /// model_context_window_exceeded, openai-chat length, openai-responses max_output_tokens,
    /// gemini MAX_TOKENS) it may be cut off, so it is rejected with cause truncated_call
    /// whatever its arguments parse to; any other value handles it as usual.
    #[arg(long, value_name = "VALUE")]
    pub finish_reason: Option<String>,
    /// Read the input as the model's visible text turn (plain UTF-8, not JSON) for a call of the
    /// tool the model wrote as text, in a chat template's own syntax (hermes, xml_function,
    /// glm, mistral, llama_json, deepseek, kimi, harmony, pythonic). With no such call the
    /// output is {"accepted": false, "found": false}.
    #[arg(long)]
    pub text: bool,
}

/// Arguments of `triage`.
#[derive(Debug, Args)]
pub struct TriageArgs {
    /// Options shared by every subcommand.
    #[command(flatten)]
    pub common: Common,
    /// The JSONL file, one call, batch result, response or conversation a line, or a gzip or
    /// Zstandard archive of it (told by its first bytes); `-` or nothing reads standard input.
    #[arg(value_name = "CALLS.jsonl|-")]
    pub calls: Option<PathBuf>,
    /// What each line holds; `auto` tells it from each line's shape.
    #[arg(long, value_enum, value_name = "FORMAT", default_value = "auto")]
    pub input: InputFormat,
    /// Print the summary as one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Write every outcome to this file, one JSON object a line (the shapes `parse` prints),
    /// each with a leading `line` member: the number of the input line it came from, and
    /// `custom_id` (a batch entry's) and `message` (the index in a conversation) when known.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Also write the summary as a static HTML page, with a chart of outcomes per kind and cause.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// How many of the most common declined shapes to list.
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub top: usize,
    /// How many threads handle the lines, from 1 to 256 (default: one a core). The summary,
    /// --out and --html are the same whatever the number.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=crate::triage::MAX_THREADS as i64))]
    pub threads: Option<u16>,
}

/// Arguments of `mcp`.
#[derive(Debug, Args)]
pub struct McpArgs {
    /// The schema and the tool's metadata and options.
    #[command(flatten)]
    pub tool: ToolArgs,
    /// Serve streamable HTTP on this address (`127.0.0.1:8000`; port 0 picks one) instead of
    /// standard input and output; the address is logged when listening.
    #[arg(long, value_name = "ADDR")]
    pub listen: Option<SocketAddr>,
    /// Write the first accepted result to this file, one JSON line (created when the server
    /// starts); without it, serving HTTP writes the line to standard output, and serving
    /// standard input and output writes it nowhere.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Run this shell command on each accepted payload before it commits: the payload as JSON
    /// on its standard input, a JSON array of findings on its standard output (`[]` passes); a
    /// finding rejects the submit back to the model, a failing command fails the call.
    #[arg(long, value_name = "CMD", value_parser = NonEmptyStringValueParser::new())]
    pub validate: Option<String>,
    /// Seconds the `--validate` command may run on one payload; past it, the command is
    /// killed and the call fails, naming the limit.
    #[arg(long, value_name = "SECONDS", default_value_t = 60, requires = "validate",
          value_parser = clap::value_parser!(u64).range(1..))]
    pub validate_timeout: u64,
    /// Access and limits of the HTTP server.
    #[command(flatten)]
    pub http: HttpArgs,
}

/// Access and limits of `mcp --listen`. Each limit is answered with its HTTP status and a
/// message naming the option that sets it.
#[derive(Debug, Args)]
#[command(next_help_heading = "Serving HTTP (--listen)")]
pub struct HttpArgs {
    /// Write the bearer token to this file (mode 0600) for the host to read. The token is
    /// SUBMIT_RESULT_MCP_TOKEN when set, else one generated at start and printed once on
    /// standard error; every request must carry it as `Authorization: Bearer <token>` (401
    /// without it).
    #[arg(long, value_name = "FILE", requires = "listen")]
    pub token_file: Option<PathBuf>,
    /// Serve without a token. Only on a loopback address: anyone who can reach the port could
    /// commit the run's result.
    #[arg(long, requires = "listen", conflicts_with = "token_file")]
    pub no_auth: bool,
    /// A browser origin allowed besides loopback ones (`https://app.example.com`; repeatable).
    /// A request with any other `Origin` header, `null` included, gets 403; one without an
    /// `Origin` header (not from a browser) is served.
    #[arg(long = "allow-origin", value_name = "ORIGIN", requires = "listen",
          value_parser = NonEmptyStringValueParser::new())]
    pub allow_origins: Vec<String>,
    /// Seconds a connection has to send a whole request head, from its opening or from the
    /// end of its previous response (so an idle kept-alive connection is closed after it too),
    /// and as many again for the request's body (408 past it).
    #[arg(long, value_name = "SECONDS", default_value_t = 10,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub read_timeout: u64,
    /// Connections held open at once. A new one past it takes the place of the oldest one
    /// that is serving no request; when every one is serving, it gets 503 with Retry-After,
    /// and its request is read to its end before it is closed.
    #[arg(long, value_name = "N", default_value_t = 64,
          value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub max_connections: u64,
    /// Live MCP sessions at once; an `initialize` past it gets 503 until a session ends (a
    /// host's DELETE, or the idle expiry).
    #[arg(long, value_name = "N", default_value_t = 16,
          value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub max_sessions: u64,
    /// Seconds a session may go without a request before it expires (its next request then
    /// gets 404, and the host starts a new session).
    #[arg(long, value_name = "SECONDS", default_value_t = 120,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub session_timeout: u64,
    /// Bytes a request body may hold (413 past it).
    #[arg(long, value_name = "BYTES", default_value_t = 4 * 1024 * 1024,
          value_parser = clap::value_parser!(u64).range(1..=1 << 30))]
    pub max_body: u64,
}

/// What each line of a `triage` input holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum InputFormat {
    /// Each line's shape decides: a batch entry, a response, a conversation, else a call.
    #[value(name = "auto")]
    Auto,
    /// One call in the `--provider` shape (what `parse` reads).
    #[value(name = "call")]
    Call,
    /// OpenAI Batch API output: `{"custom_id", "response": {"status_code", "body"}}`.
    #[value(name = "openai-batch")]
    OpenaiBatch,
    /// Anthropic Message Batches results: `{"custom_id", "result": {"type", "message"}}`.
    #[value(name = "anthropic-batch")]
    AnthropicBatch,
    /// Gemini Batch API output: `{"key", "response": <answer>}` or `{"key", "error"}`.
    #[value(name = "gemini-batch")]
    GeminiBatch,
    /// A whole response of any of the four providers.
    #[value(name = "response")]
    Response,
    /// A conversation: a JSON array of messages, or a request body holding one.
    #[value(name = "conversation")]
    Conversation,
}

/// The wire format, as spelled on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ProviderArg {
    /// Anthropic Messages.
    #[value(name = "claude")]
    Claude,
    /// Gemini function declarations.
    #[value(name = "gemini")]
    Gemini,
    /// OpenAI Chat Completions.
    #[value(name = "openai-chat")]
    OpenAiChat,
    /// OpenAI Responses.
    #[value(name = "openai-responses")]
    OpenAiResponses,
}

impl From<ProviderArg> for Provider {
    fn from(arg: ProviderArg) -> Provider {
        match arg {
            ProviderArg::Claude => Provider::Claude,
            ProviderArg::Gemini => Provider::Gemini,
            ProviderArg::OpenAiChat => Provider::OpenAiChat,
            ProviderArg::OpenAiResponses => Provider::OpenAiResponses,
        }
    }
}

/// Options shared by every subcommand that speaks a provider's wire format.
#[derive(Debug, Args)]
pub struct Common {
    /// The wire format.
    #[arg(long, value_enum, value_name = "PROVIDER")]
    pub provider: ProviderArg,
    /// The schema and the tool's metadata and options.
    #[command(flatten)]
    pub tool: ToolArgs,
    /// Emit Gemini's `parametersJsonSchema` (plain JSON Schema) instead of its legacy subset.
    #[arg(long)]
    pub gemini_json_schema: bool,
}

/// The schema and the tool's metadata and options: every subcommand's options but the
/// provider's.
#[derive(Debug, Args)]
pub struct ToolArgs {
    /// The payload's JSON Schema.
    #[arg(long, value_name = "FILE")]
    pub schema: PathBuf,
    /// Tool name [default: submit_result].
    #[arg(long, value_name = "NAME", value_parser = NonEmptyStringValueParser::new())]
    pub name: Option<String>,
    /// Tool description [default: a text saying the call is terminal and final].
    #[arg(long, value_name = "TEXT", value_parser = NonEmptyStringValueParser::new())]
    pub description: Option<String>,
    /// Payload parameter name [default: result].
    #[arg(long, value_name = "FIELD", value_parser = NonEmptyStringValueParser::new())]
    pub payload: Option<String>,
    /// Payload parameter description [default: "Structured result payload."].
    #[arg(long, value_name = "TEXT", value_parser = NonEmptyStringValueParser::new())]
    pub payload_description: Option<String>,
    /// The success tool result's message [default: "Result submitted successfully."].
    #[arg(long, value_name = "TEXT", value_parser = NonEmptyStringValueParser::new())]
    pub success: Option<String>,
    /// Metadata in the tag grammar ("name=x,payloadDescription=a\, b,flat"); the flags above
    /// and below override its values.
    #[arg(long, value_name = "TAG", value_parser = NonEmptyStringValueParser::new())]
    pub tag: Option<String>,
    /// Advertise each payload property as its own parameter.
    #[arg(long)]
    pub flat: bool,
    /// Drop the reasoning parameter.
    #[arg(long)]
    pub omit_reasoning: bool,
    /// Withhold a top-level payload property from the advertised schema (repeatable).
    #[arg(long = "omit-field", value_name = "NAME", value_parser = NonEmptyStringValueParser::new())]
    pub omit_fields: Vec<String>,
    /// Ask for strict schema adherence (OpenAI, Anthropic; not Gemini).
    #[arg(long)]
    pub strict: bool,
}

impl Common {
    /// The provider chosen.
    pub fn provider(&self) -> Provider {
        self.provider.into()
    }

    /// The tool's options for the provider chosen (see [`ToolArgs::options`]).
    pub fn options(&self) -> Result<Options, CliError> {
        self.tool
            .options(Some(self.provider()), self.gemini_json_schema)
    }
}

impl ToolArgs {
    /// The metadata a tag sets. A tag naming its payload `reasoning` is refused unless
    /// `--omit-reasoning` or `--payload` overrides what makes it a mistake; construction checks
    /// the final combination again.
    fn tag_metadata(&self, tag: &str) -> Result<Metadata, CliError> {
        let mut builder = submit_meta::Builder::default();
        for part in submit_meta::split_tag(tag) {
            builder.tag_part(&part, ());
        }
        let (metadata, errors) = builder.finish_located();
        let overridden = self.omit_reasoning || self.payload.is_some();
        let errors: Vec<submit_meta::Error> = errors
            .into_iter()
            .map(|(error, ())| error)
            .filter(|error| !(overridden && *error == submit_meta::Error::PayloadNamedReasoning))
            .collect();
        if errors.is_empty() {
            Ok(metadata)
        } else {
            Err(CliError::Tag(BuildError::Metadata(submit_meta::Errors(
                errors,
            ))))
        }
    }

    /// The tool's options: the tag (if any) as the base, then every explicit flag over it.
    ///
    /// `provider` is the wire format the tool is built for, `None` for MCP (which takes the
    /// parameters object as it is). Gemini has no strict mode, so `--strict` with `--provider
    /// gemini` is an error. Unless the provider is Gemini the Gemini definition is never
    /// printed, so it is built in its plain JSON Schema form, which any schema the other
    /// providers accept can take.
    pub fn options(
        &self,
        provider: Option<Provider>,
        gemini_json_schema: bool,
    ) -> Result<Options, CliError> {
        let mut options = match &self.tag {
            Some(tag) => Options::from_metadata(&self.tag_metadata(tag)?),
            None => Options::new(),
        };
        for value in [
            &self.name,
            &self.description,
            &self.payload,
            &self.payload_description,
            &self.success,
        ]
        .into_iter()
        .flatten()
        {
            // clap's parser refuses empty values already; this guards hand-built structs.
            if value.is_empty() {
                return Err(CliError::EmptyValue);
            }
        }
        // A flag not given leaves the tag's option; a switch given sets it.
        options = options.with_overrides(Overrides {
            name: self.name.clone(),
            description: self.description.clone(),
            payload: self.payload.clone(),
            payload_description: self.payload_description.clone(),
            success: self.success.clone(),
            flat: self.flat.then_some(true),
            omit_reasoning: self.omit_reasoning.then_some(true),
            omit_fields: (!self.omit_fields.is_empty()).then(|| self.omit_fields.clone()),
            strict: None,
        });
        if self.strict {
            if provider == Some(Provider::Gemini) {
                return Err(CliError::GeminiStrict);
            }
            options = options.strict(true);
        }
        if gemini_json_schema || provider != Some(Provider::Gemini) {
            options = options.gemini_schema(GeminiSchema::JsonSchema);
        }
        Ok(options)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    /// The tool the options build, for what it answers of them.
    fn built(options: Options) -> submit_core::SubmitTool<serde_json::Value> {
        let schema = serde_json::json!({"type": "object", "properties": {"x": {}}});
        submit_core::SubmitTool::from_json_schema(schema, options).unwrap()
    }

    fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
        Cli::try_parse_from(std::iter::once("submit-result").chain(args.iter().copied()))
    }

    fn common(cli: Cli) -> Common {
        match cli.command {
            Command::Definition(a) => a.common,
            Command::Parse(a) => a.common,
            Command::Triage(a) => a.common,
            Command::Mcp(_) => panic!("mcp has no provider"),
        }
    }

    #[test]
    fn command_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn provider_names_map_to_providers() {
        for (name, provider) in [
            ("claude", Provider::Claude),
            ("gemini", Provider::Gemini),
            ("openai-chat", Provider::OpenAiChat),
            ("openai-responses", Provider::OpenAiResponses),
        ] {
            let cli = parse(&["definition", "--provider", name, "--schema", "s.json"]).unwrap();
            assert_eq!(common(cli).provider(), provider);
        }
    }

    #[test]
    fn triage_threads_run_from_1_to_256() {
        let threads = |n: &str| {
            parse(&[
                "triage",
                "--provider",
                "claude",
                "--schema",
                "s",
                "--threads",
                n,
            ])
            .map(|cli| match cli.command {
                Command::Triage(args) => args.threads,
                _ => None,
            })
        };
        assert_eq!(threads("1").ok(), Some(Some(1)));
        assert_eq!(threads("256").ok(), Some(Some(256)));
        for out_of_range in ["0", "257", "many"] {
            let error = threads(out_of_range).err().map(|e| e.kind());
            assert!(
                matches!(
                    error,
                    Some(
                        clap::error::ErrorKind::ValueValidation
                            | clap::error::ErrorKind::InvalidValue
                    )
                ),
                "{out_of_range}: {error:?}"
            );
        }
        let cli = parse(&["triage", "--provider", "claude", "--schema", "s"]).unwrap();
        let Command::Triage(args) = cli.command else {
            panic!("not triage")
        };
        assert_eq!(args.threads, None, "the default is decided by the cores");
    }

    #[test]
    fn unknown_provider_is_a_usage_error() {
        let error = parse(&["definition", "--provider", "openai", "--schema", "s"]).unwrap_err();
        assert_eq!(error.kind(), clap::error::ErrorKind::InvalidValue);
    }

    #[test]
    fn provider_and_schema_are_required() {
        let error = parse(&["definition", "--schema", "s"]).unwrap_err();
        assert_eq!(
            error.kind(),
            clap::error::ErrorKind::MissingRequiredArgument
        );
        let error = parse(&["parse", "--provider", "claude"]).unwrap_err();
        assert_eq!(
            error.kind(),
            clap::error::ErrorKind::MissingRequiredArgument
        );
    }

    #[test]
    fn empty_metadata_values_are_usage_errors() {
        for flag in [
            "--name",
            "--description",
            "--payload",
            "--payload-description",
            "--success",
            "--tag",
            "--omit-field",
        ] {
            let error = parse(&[
                "definition",
                "--provider",
                "claude",
                "--schema",
                "s",
                flag,
                "",
            ])
            .unwrap_err();
            assert_eq!(error.kind(), clap::error::ErrorKind::InvalidValue, "{flag}");
        }
    }

    #[test]
    fn omit_field_is_repeatable() {
        let cli = parse(&[
            "definition",
            "--provider",
            "claude",
            "--schema",
            "s",
            "--omit-field",
            "a",
            "--omit-field",
            "b",
        ])
        .unwrap();
        assert_eq!(common(cli).tool.omit_fields, ["a", "b"]);
    }

    #[test]
    fn flags_override_the_tag() {
        let cli = parse(&[
            "definition",
            "--provider",
            "claude",
            "--schema",
            "s",
            "--tag",
            "name=from_tag,payload=analysis,payloadDescription=a\\, b",
            "--name",
            "from_flag",
            "--omit-reasoning",
        ])
        .unwrap();
        let tool = built(common(cli).options().unwrap());
        assert_eq!(tool.name(), "from_flag");
        assert_eq!(tool.payload_field(), "analysis");
        assert_eq!(tool.payload_description(), "a, b");
    }

    #[test]
    fn tag_mistakes_are_errors() {
        let cli = parse(&[
            "definition",
            "--provider",
            "claude",
            "--schema",
            "s",
            "--tag",
            "nmae=x",
        ])
        .unwrap();
        let error = common(cli).options().unwrap_err();
        assert!(matches!(error, CliError::Tag(_)));
        assert!(error.to_string().contains("nmae"), "{error}");
    }

    #[test]
    fn tag_flags_are_overridden_by_flags() {
        let cli = parse(&[
            "definition",
            "--provider",
            "claude",
            "--schema",
            "s",
            "--tag",
            "flat=false,omitReasoning=false",
            "--flat",
            "--omit-reasoning",
        ])
        .unwrap();
        let common = common(cli);
        let metadata = common
            .tool
            .tag_metadata(common.tool.tag.as_deref().unwrap())
            .unwrap();
        assert!(!metadata.flat && !metadata.omit_reasoning);
        // The flags win over the tag's `false`.
        let tool = built(common.options().unwrap());
        assert!(tool.omits_reasoning());
        assert!(tool.is_flat());
    }

    #[test]
    fn tag_payload_reasoning_is_fine_with_omit_reasoning_flag() {
        let args = |extra: &[&'static str]| {
            let mut args = vec![
                "definition",
                "--provider",
                "claude",
                "--schema",
                "s",
                "--tag",
                "payload=reasoning",
            ];
            args.extend_from_slice(extra);
            common(parse(&args).unwrap())
        };
        let error = args(&[]).options().unwrap_err();
        assert!(error.to_string().contains("`reasoning`"), "{error}");
        let tool = built(args(&["--omit-reasoning"]).options().unwrap());
        assert_eq!(tool.payload_field(), "reasoning");
        let tool = built(args(&["--payload", "answer"]).options().unwrap());
        assert_eq!(tool.payload_field(), "answer");
    }

    #[test]
    fn tag_mistakes_are_all_reported() {
        let cli = parse(&[
            "definition",
            "--provider",
            "claude",
            "--schema",
            "s",
            "--tag",
            "nmae=x,flat=maybe,name=a,name=b",
        ])
        .unwrap();
        let message = common(cli).options().unwrap_err().to_string();
        assert!(message.contains("`nmae`"), "{message}");
        assert!(message.contains("got `maybe`"), "{message}");
        assert!(message.contains("duplicate"), "{message}");
    }

    #[test]
    fn strict_with_gemini_is_an_error() {
        let cli = parse(&[
            "definition",
            "--provider",
            "gemini",
            "--schema",
            "s",
            "--strict",
        ])
        .unwrap();
        assert!(matches!(
            common(cli).options().unwrap_err(),
            CliError::GeminiStrict
        ));
    }
}
