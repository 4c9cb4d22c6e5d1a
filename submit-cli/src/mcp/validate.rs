//! The `--validate` command: the server's result validator, run on each
//! accepted payload with the payload's JSON on its standard input and its findings read from
//! its standard output.

use std::process::Stdio;
use std::time::Duration;

use serde_json::Value;
use submit_agent::executor::Finding;
use tokio::io::AsyncWriteExt;

/// The identifier of a finding the validator gave as a bare string.
const VALIDATE_IDENTIFIER: &str = "validate";

/// Why the `--validate` command gave no findings to act on.
#[derive(Debug, thiserror::Error)]
pub enum ValidatorError {
    /// The command could not be started.
    #[error("cannot run `{command}`: {source}")]
    Spawn {
        /// The command.
        command: String,
        /// Why.
        source: std::io::Error,
    },
    /// Its output could not be read.
    #[error("cannot read the output of `{command}`: {source}")]
    Read {
        /// The command.
        command: String,
        /// Why.
        source: std::io::Error,
    },
    /// It exited with a failure status.
    #[error("`{command}` exited with {status}: fix the validator or its environment")]
    Failed {
        /// The command.
        command: String,
        /// Its exit status.
        status: std::process::ExitStatus,
    },
    /// It ran past its time limit and was killed.
    #[error(
        "`{command}` ran past {seconds} s and was killed: make it faster or raise --validate-timeout"
    )]
    TimedOut {
        /// The command.
        command: String,
        /// The limit, in seconds.
        seconds: u64,
    },
    /// Its standard output was not a JSON array of findings.
    #[error("`{command}` printed no JSON array of findings: {reason}")]
    NotFindings {
        /// The command.
        command: String,
        /// What is wrong with what it printed.
        reason: String,
    },
}

/// Runs `command` through the shell with `payload` as JSON on its standard input, and reads
/// its findings from its standard output. Its standard error is this process's.
/// A command still running after `limit` is killed (the child is dropped with
/// `kill_on_drop`) and reported as [`ValidatorError::TimedOut`].
pub async fn run_validator(
    command: &str,
    payload: &Value,
    limit: Duration,
) -> Result<Vec<Finding>, ValidatorError> {
    let mut shell = shell(command);
    shell
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true);
    let mut child = shell.spawn().map_err(|source| ValidatorError::Spawn {
        command: command.to_owned(),
        source,
    })?;
    let input = serde_json::to_vec(payload).unwrap_or_default();
    let writer = child.stdin.take().map(|mut stdin| {
        tokio::spawn(async move {
            // A validator that does not read its input closes the pipe: that is its business.
            let _ = stdin.write_all(&input).await;
            let _ = stdin.shutdown().await;
        })
    });
    let output = tokio::time::timeout(limit, child.wait_with_output())
        .await
        .map_err(|_elapsed| ValidatorError::TimedOut {
            command: command.to_owned(),
            seconds: limit.as_secs(),
        })?
        .map_err(|source| ValidatorError::Read {
            command: command.to_owned(),
            source,
        })?;
    if let Some(writer) = writer {
        let _ = writer.await;
    }
    if !output.status.success() {
        return Err(ValidatorError::Failed {
            command: command.to_owned(),
            status: output.status,
        });
    }
    parse_findings(&output.stdout).map_err(|reason| ValidatorError::NotFindings {
        command: command.to_owned(),
        reason,
    })
}

/// The platform's shell running `command`.
fn shell(command: &str) -> tokio::process::Command {
    #[cfg(windows)]
    {
        let mut shell = tokio::process::Command::new("cmd");
        shell.arg("/C").arg(command);
        shell
    }
    #[cfg(not(windows))]
    {
        let mut shell = tokio::process::Command::new("sh");
        shell.arg("-c").arg(command);
        shell
    }
}

/// Reads a validator's output: a JSON array whose items are strings (the finding's details)
/// or objects with a `details` string and optionally `identifier`, `name` and `details_url`
/// (other members are ignored).
pub fn parse_findings(stdout: &[u8]) -> Result<Vec<Finding>, String> {
    let items: Vec<Value> = serde_json::from_slice(stdout).map_err(|error| error.to_string())?;
    items
        .into_iter()
        .enumerate()
        .map(|(index, item)| {
            let finding = match item {
                Value::String(details) => Ok(Finding::new(VALIDATE_IDENTIFIER, details)),
                item => serde_json::from_value::<Reported>(item).map(Finding::from),
            };
            finding.map_err(|why| format!("finding {index}: {why}"))
        })
        .collect()
}

/// A finding a validator wrote as an object.
#[derive(serde::Deserialize)]
#[serde(expecting = "a string (the finding's details) or an object with a `details` string")]
struct Reported {
    details: String,
    #[serde(default = "validate_identifier")]
    identifier: String,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    details_url: Option<String>,
}

fn validate_identifier() -> String {
    VALIDATE_IDENTIFIER.to_owned()
}

impl From<Reported> for Finding {
    fn from(reported: Reported) -> Self {
        let mut finding = Finding::new(reported.identifier, reported.details);
        finding.name = reported.name;
        finding.details_url = reported.details_url.filter(|url| !url.is_empty());
        finding
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn findings_may_be_strings_or_objects() {
        let findings = parse_findings(
            br#"["too short", {"details": "no source", "identifier": "sources", "kind": "review"}]"#,
        )
        .unwrap();
        assert_eq!(findings[0], Finding::new("validate", "too short"));
        assert_eq!(findings[1].identifier, "sources");
        assert_eq!(findings[1].details, "no source");
        assert!(parse_findings(b" [] \n").unwrap().is_empty());
    }

    #[test]
    fn findings_that_are_not_findings_are_named() {
        let error = |text: &[u8]| parse_findings(text).unwrap_err();
        assert!(error(br#"{"ok": true}"#).starts_with("invalid type: map, expected a sequence"));
        assert_eq!(
            error(br#"["a", 3]"#),
            "finding 1: invalid type: integer `3`, expected a string (the finding's details) \
             or an object with a `details` string"
        );
        assert_eq!(
            error(br#"[{"identifier": "x"}]"#),
            "finding 0: missing field `details`"
        );
        assert!(error(b"").starts_with("EOF while parsing"));
    }
}
