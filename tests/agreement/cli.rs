//! The command line: the `submit-result` binary's `parse` (one process a call or a text) and
//! `triage` (one process per group of lines sharing a tool, a provider and what the lines hold).

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Mutex, OnceLock, PoisonError};

use serde_json::Value;
use submit_result::Provider;

/// Said with every disagreement of the binary's entry points: the binary is built apart from
/// this test, so it may predate the library the reference runs.
pub const REBUILD_HINT: &str = "(the submit-result binary is built apart from this test: if it \
                                predates the library, rebuild it with `cargo build -p submit-cli \
                                --features mcp`)";

/// The directory this run writes its schema, input and output files in, in the target
/// directory: removed once the entry points that read it have run (a run of only some of the
/// tests leaves it there).
pub fn workdir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("agreement-{}", std::process::id()))
    })
}

/// Removes [`workdir`].
pub fn remove_workdir() {
    let _ = std::fs::remove_dir_all(workdir());
}

/// The `submit-result` binary beside this test executable (`target/<profile>/`).
pub fn binary() -> Result<PathBuf, String> {
    let exe = std::env::current_exe().map_err(|e| format!("no current executable: {e}"))?;
    let profile = exe
        .parent()
        .and_then(Path::parent)
        .ok_or_else(|| format!("{} is not under target/<profile>/deps", exe.display()))?;
    let binary = profile.join(format!("submit-result{}", std::env::consts::EXE_SUFFIX));
    if binary.is_file() {
        Ok(binary)
    } else {
        Err(format!(
            "the submit-result binary is not at {}: build it with `cargo build -p submit-cli \
             --features mcp` (`cargo test --workspace --all-features` builds it)",
            binary.display()
        ))
    }
}

/// The file holding `schema`, written once per distinct schema.
pub fn schema_file(schema: &Value) -> Result<PathBuf, String> {
    static FILES: Mutex<Option<HashMap<String, PathBuf>>> = Mutex::new(None);
    let text = schema.to_string();
    let mut files = FILES.lock().unwrap_or_else(PoisonError::into_inner);
    let files = files.get_or_insert_with(HashMap::new);
    if let Some(path) = files.get(&text) {
        return Ok(path.clone());
    }
    let dir = workdir();
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let path = dir.join(format!("schema-{}.json", files.len()));
    std::fs::write(&path, &text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    files.insert(text, path.clone());
    Ok(path)
}

/// What `parse` did with one call.
pub enum Parsed {
    /// It printed an outcome.
    Outcome(Value),
    /// It refused the call: exit status 2 and one line on standard error.
    Refused(String),
}

/// What `parse` reads.
pub enum ParseInput<'a> {
    /// A call in the provider's shape (JSON).
    Call(&'a Value),
    /// A model's visible text turn (`--text`).
    Text(&'a str),
}

/// Runs `submit-result parse --provider P --schema FILE <flags> [--text] [--finish-reason R]
/// -` on `input`; `finish_reason` is the stop reason of the turn that carried it, in the
/// provider's spelling.
pub fn parse(
    provider: Provider,
    schema: &Path,
    flags: &[String],
    input: ParseInput<'_>,
    finish_reason: Option<&str>,
) -> Result<Parsed, String> {
    let bytes = match input {
        ParseInput::Call(call) => call.to_string().into_bytes(),
        ParseInput::Text(text) => text.as_bytes().to_vec(),
    };
    let mut command = Command::new(binary()?);
    command
        .args(["parse", "--provider", provider.as_str(), "--schema"])
        .arg(schema)
        .args(flags);
    if matches!(input, ParseInput::Text(_)) {
        command.arg("--text");
    }
    if let Some(reason) = finish_reason {
        command.args(["--finish-reason", reason]);
    }
    let mut child = command
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start submit-result parse: {e}"))?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(&bytes)
            .map_err(|e| format!("cannot write the input to submit-result parse: {e}"))?;
    }
    let output = child
        .wait_with_output()
        .map_err(|e| format!("submit-result parse did not finish: {e}"))?;
    let stderr = String::from_utf8_lossy(&output.stderr).trim().to_owned();
    match output.status.code() {
        Some(0) => serde_json::from_slice(&output.stdout)
            .map(Parsed::Outcome)
            .map_err(|e| format!("submit-result parse printed no JSON ({e}); stderr: {stderr}")),
        Some(2) => Ok(Parsed::Refused(stderr)),
        _ => Err(format!(
            "submit-result parse ended with {}; stderr: {stderr}",
            output.status
        )),
    }
}

/// Lines that one `triage` process reads, and what it wrote.
pub struct TriageBatch {
    /// The provider given with `--provider`.
    pub provider: Provider,
    /// The schema file.
    pub schema: PathBuf,
    /// The tool's flags.
    pub flags: Vec<String>,
    /// What every line holds, given with `--input`: `call` (a bare call in the provider's
    /// shape) or `response` (a whole response of the provider).
    pub input: &'static str,
    /// The lines, line 1 first.
    pub lines: Vec<Value>,
    /// What the process wrote, read once.
    result: OnceLock<Result<Triaged, String>>,
}

/// What `triage` reported of its lines.
pub struct Triaged {
    /// The outcome of each line that held a call, by line number, without its `line` member.
    pub outcomes: HashMap<u64, Value>,
    /// The malformed lines the summary lists, by line number, with their reasons.
    pub malformed: HashMap<u64, String>,
    /// How many lines were malformed in all (the summary lists the first few).
    pub malformed_count: u64,
    /// How many lines held no submit call (the summary's `without_call`).
    pub without_call: u64,
    /// How many lines were read.
    pub lines: u64,
}

impl TriageBatch {
    /// A batch with no lines yet, each to hold what `input` names.
    pub fn new(
        provider: Provider,
        schema: PathBuf,
        flags: Vec<String>,
        input: &'static str,
    ) -> Self {
        TriageBatch {
            provider,
            schema,
            flags,
            input,
            lines: Vec::new(),
            result: OnceLock::new(),
        }
    }

    /// What the process reported, running it the first time.
    pub fn result(&self) -> Result<&Triaged, String> {
        self.result
            .get_or_init(|| self.run())
            .as_ref()
            .map_err(Clone::clone)
    }

    /// Runs `submit-result triage --provider P --schema FILE <flags> --input I --out OUT
    /// --json IN` over every line. `--input call` reads every line as a bare call in the
    /// provider's shape, as `parse` reads its call: left to tell each line's shape (`auto`),
    /// triage reads a line that is also another shape as that one (a JSON array of objects as
    /// a conversation, `{"type": "message", "content": []}` as an Anthropic message), which
    /// holds no call. `--input response` reads every line as a whole response.
    fn run(&self) -> Result<Triaged, String> {
        let dir = workdir();
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let input = dir.join(format!("triage-{n}.jsonl"));
        let out = dir.join(format!("triage-{n}-out.jsonl"));
        let mut text = String::new();
        for line in &self.lines {
            text.push_str(&line.to_string());
            text.push('\n');
        }
        std::fs::write(&input, text)
            .map_err(|e| format!("cannot write {}: {e}", input.display()))?;
        let output = Command::new(binary()?)
            .args(["triage", "--provider", self.provider.as_str(), "--schema"])
            .arg(&self.schema)
            .args(&self.flags)
            .args(["--input", self.input, "--out"])
            .arg(&out)
            .arg("--json")
            .arg(&input)
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("cannot run submit-result triage: {e}"))?;
        let stderr = String::from_utf8_lossy(&output.stderr).trim().to_owned();
        if !output.status.success() {
            return Err(format!(
                "submit-result triage ended with {}; stderr: {stderr}",
                output.status
            ));
        }
        let summary: Value = serde_json::from_slice(&output.stdout)
            .map_err(|e| format!("submit-result triage --json printed no JSON: {e}"))?;
        let written = std::fs::read_to_string(&out)
            .map_err(|e| format!("cannot read {}: {e}", out.display()))?;
        let mut outcomes = HashMap::new();
        for line in written.lines() {
            let mut outcome: Value = serde_json::from_str(line)
                .map_err(|e| format!("an --out line is not JSON ({e}): {line}"))?;
            let number = outcome
                .as_object_mut()
                .and_then(|o| o.remove("line"))
                .and_then(|n| n.as_u64())
                .ok_or_else(|| format!("an --out line has no line number: {line}"))?;
            if outcomes.insert(number, outcome).is_some() {
                return Err(format!("line {number} has two outcomes in --out"));
            }
        }
        let malformed = summary["malformed"]["first"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|m| Some((m["line"].as_u64()?, m["reason"].as_str()?.to_owned())))
            .collect();
        Ok(Triaged {
            outcomes,
            malformed,
            malformed_count: summary["malformed"]["count"].as_u64().unwrap_or(0),
            without_call: summary["without_call"].as_u64().unwrap_or(0),
            lines: summary["lines"].as_u64().unwrap_or(0),
        })
    }
}
