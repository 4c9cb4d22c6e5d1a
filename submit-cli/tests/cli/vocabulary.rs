//! The command line's `--help` and the root README name recovery kinds, causes and text formats
//! as the core names them: a name after `cause`, `recovery`, `recorded` or `recorded as` is one
//! of the core's (as serialized, or its Rust variant), and a parenthesized list of text formats
//! lists every format, in order.

use std::path::Path;
use std::process::Command;

use submit_core::{ParameterCause, RecoveryKind, TextFormat};

const BIN: &str = env!("CARGO_BIN_EXE_submit-result");

/// The core's names: kinds and causes as serialized and as Rust variants (`TruncatedCall`),
/// formats as serialized, in order.
struct Vocabulary {
    kinds: Vec<String>,
    causes: Vec<String>,
    formats: Vec<String>,
}

impl Vocabulary {
    fn core() -> Self {
        let kinds = RecoveryKind::ALL.iter();
        let causes = ParameterCause::ALL.iter();
        Vocabulary {
            kinds: kinds
                .flat_map(|kind| [kind.as_str().to_owned(), format!("{kind:?}")])
                .collect(),
            causes: causes
                .flat_map(|cause| [cause.as_str().to_owned(), format!("{cause:?}")])
                .collect(),
            formats: TextFormat::ALL
                .iter()
                .map(|format| format.as_str().to_owned())
                .collect(),
        }
    }
}

/// The words that say what the name after them is: a cause, or a recovery kind.
const CUES: [(&str, Cue); 4] = [
    ("cause ", Cue::Cause),
    ("recovery ", Cue::Kind),
    ("recorded as ", Cue::Kind),
    ("recorded ", Cue::Kind),
];

#[derive(Clone, Copy, Debug, PartialEq)]
enum Cue {
    Cause,
    Kind,
}

/// `text` with every run of whitespace as one space (help text wraps anywhere).
fn flowed(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The name `text` starts with: a span in backticks, or a bare word with an underscore in it
/// (a bare word without one is prose); and the text after it.
fn name_at(text: &str) -> Option<(&str, &str)> {
    if let Some(quoted) = text.strip_prefix('`') {
        let (name, rest) = quoted.split_once('`')?;
        return Some((name, rest));
    }
    let len = text
        .find(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'))
        .unwrap_or(text.len());
    let name = text.get(..len)?;
    name.contains('_')
        .then(|| (name, text.get(len..).unwrap_or_default()))
}

/// The names `text` gives after a cue, each with its cue: the first name after the cue, and
/// those that follow it after `, `, ` and ` or ` or `.
fn cued_names(text: &str) -> Vec<(Cue, String)> {
    let text = flowed(text);
    let mut names = Vec::new();
    for (cue, kind) in CUES {
        for (at, _) in text.match_indices(cue) {
            let before = text.get(..at).unwrap_or_default();
            if before.ends_with(|c: char| c.is_alphanumeric()) {
                continue;
            }
            let mut rest = text.get(at + cue.len()..).unwrap_or_default();
            while let Some((name, after)) = name_at(rest) {
                names.push((kind, name.to_owned()));
                let Some(next) = [", ", " and ", " or "]
                    .iter()
                    .find_map(|joint| after.strip_prefix(joint))
                else {
                    break;
                };
                rest = next;
            }
        }
    }
    names
}

/// The parenthesized lists of three or more bare words in `text`.
fn word_lists(text: &str) -> Vec<Vec<String>> {
    let text = flowed(text);
    text.split('(')
        .skip(1)
        .filter_map(|part| part.split_once(')'))
        .map(|(inside, _)| inside.split(", ").map(str::to_owned).collect::<Vec<_>>())
        .filter(|words| {
            words.len() >= 3
                && words.iter().all(|word| {
                    !word.is_empty()
                        && word
                            .chars()
                            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
                })
        })
        .collect()
}

/// What `text` (named `source`) says that the core does not: a cued name that is no kind or
/// cause, and a list of text formats that is not every format in order.
fn problems(source: &str, text: &str, core: &Vocabulary) -> Vec<String> {
    let mut problems = Vec::new();
    for (cue, name) in cued_names(text) {
        let known = match cue {
            Cue::Cause => &core.causes,
            Cue::Kind => &core.kinds,
        };
        if !known.contains(&name) {
            problems.push(format!("{source}: `{name}` is no {cue:?} of the core"));
        }
    }
    for list in word_lists(text) {
        if list.iter().any(|word| core.formats.contains(word)) && list != core.formats {
            problems.push(format!(
                "{source}: the formats ({}) are not the core's ({})",
                list.join(", "),
                core.formats.join(", ")
            ));
        }
    }
    problems
}

/// The `--help` of the command and of each subcommand, with the arguments that print it.
fn help_pages() -> Vec<(String, String)> {
    let mut commands = vec![vec!["--help"]];
    for subcommand in ["definition", "parse", "triage"] {
        commands.push(vec![subcommand, "--help"]);
    }
    if cfg!(feature = "mcp") {
        commands.push(vec!["mcp", "--help"]);
    }
    commands
        .into_iter()
        .map(|args| {
            let output = Command::new(BIN).args(&args).output().unwrap();
            assert!(output.status.success(), "{args:?}: {output:?}");
            let text = String::from_utf8(output.stdout).unwrap();
            (args.join(" "), text)
        })
        .collect()
}

fn readme() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md");
    std::fs::read_to_string(&path).unwrap()
}

#[test]
fn the_help_and_the_readme_name_kinds_causes_and_formats_as_the_core_does() {
    let core = Vocabulary::core();
    let mut found = Vec::new();
    let mut all_problems = Vec::new();
    for (source, text) in help_pages()
        .into_iter()
        .chain([("README.md".into(), readme())])
    {
        found.extend(cued_names(&text).into_iter().map(|(_, name)| name));
        found.extend(word_lists(&text).into_iter().flatten());
        all_problems.extend(problems(&source, &text, &core));
    }
    assert!(all_problems.is_empty(), "\n{}", all_problems.join("\n"));
    // The texts do name them: the check is not vacuous.
    for name in ["truncated_call", "call_in_text", "enum_case", "pythonic"] {
        assert!(found.iter().any(|found| found == name), "{name}: {found:?}");
    }
}

#[test]
fn a_name_changed_on_one_side_only_is_found() {
    let core = Vocabulary::core();
    let readme = readme();
    // Renamed in the README.
    let renamed = readme.replace("`truncated_call`", "`cut_off_call`");
    assert!(problems("README.md", &renamed, &core)
        .iter()
        .any(|problem| problem.contains("`cut_off_call` is no Cause")));
    // Renamed in the core.
    let mut renamed_core = Vocabulary::core();
    for kind in &mut renamed_core.kinds {
        if kind == "enum_case" {
            *kind = "enum_letter_case".to_owned();
        }
    }
    assert!(problems("README.md", &readme, &renamed_core)
        .iter()
        .any(|problem| problem.contains("`enum_case` is no Kind")));
    // A format missing from a list, or one the core does not have.
    let help = "syntax (hermes, xml_function, glm, mistral, llama_json, deepseek, kimi, harmony)";
    assert_eq!(problems("help", help, &core).len(), 1);
    let help = "syntax (hermes, xml_function, glm, mistral, llama_json, deepseek, kimi, harmony, \
                pythonic, glm5)";
    assert_eq!(problems("help", help, &core).len(), 1);
    let help = "rejected with cause truncated_call whatever";
    assert!(problems("help", help, &core).is_empty());
    let help = "rejected with cause cut_off_call whatever";
    assert_eq!(problems("help", help, &core).len(), 1);
}
