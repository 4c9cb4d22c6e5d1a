//! The rule pages and the code speak one vocabulary. Every recovery kind is a heading of the
//! recoveries page and a row of its table, every parameter cause a heading and a row of the
//! rejections page, every error class a row there, and every text format a row of the calls in
//! text page; each of those headings and rows names one of them. Every step the code names
//! (`step *Name*`, in comments, docs and messages) is a step of the parsing page, every step of
//! the page is named somewhere in the code, and the code numbers no step and letters no rule.
//!
//! Each check is a function of the texts it compares, so the tests at the end also show that a
//! name changed on one side only is found.

use std::path::{Path, PathBuf};

use crate::{ErrorClass, ParameterCause, RecoveryKind, TextFormat};

const PARSING: &str = include_str!("../../docs/parsing.md");
const RECOVERIES: &str = include_str!("../../docs/recoveries.md");
const REJECTIONS: &str = include_str!("../../docs/rejections.md");
const CALLS_IN_TEXT: &str = include_str!("../../docs/calls_in_text.md");

/// This file: it quotes numbered steps and step names to test the checks, so it is not read as
/// code that names them.
const THIS_FILE: &str = "rules/vocabulary.rs";

fn kinds() -> Vec<&'static str> {
    RecoveryKind::ALL.iter().map(|kind| kind.as_str()).collect()
}

fn causes() -> Vec<&'static str> {
    ParameterCause::ALL
        .iter()
        .map(|cause| cause.as_str())
        .collect()
}

fn classes() -> Vec<&'static str> {
    // Every class, by an exhaustive match: a class added fails to build here until listed.
    let class = |class: ErrorClass| match class {
        ErrorClass::Parameter | ErrorClass::Payload => class.as_str(),
    };
    vec![class(ErrorClass::Parameter), class(ErrorClass::Payload)]
}

fn formats() -> Vec<&'static str> {
    TextFormat::ALL
        .iter()
        .map(|format| format.as_str())
        .collect()
}

/// The spans in backticks in `text`.
fn code_spans(text: &str) -> Vec<&str> {
    text.split('`').skip(1).step_by(2).collect()
}

/// The names in backticks on the headings of a page.
fn heading_names(page: &str) -> Vec<&str> {
    page.lines()
        .filter(|line| line.starts_with('#'))
        .flat_map(code_spans)
        .collect()
}

/// The first cells, without their backticks, of the rows of the page's tables whose first
/// header cell is `header` (backticks aside).
fn table_names<'p>(page: &'p str, header: &str) -> Vec<&'p str> {
    let mut names = Vec::new();
    let mut in_table = false;
    for line in page.lines() {
        let Some(row) = line.strip_prefix('|') else {
            in_table = false;
            continue;
        };
        let first = row.split('|').next().unwrap_or_default().trim();
        if first.starts_with("---") {
            continue;
        }
        if first.trim_matches('`') == header {
            in_table = true;
        } else if in_table {
            names.push(first.trim_matches('`'));
        }
    }
    names
}

/// What differs between the names the code has and the names a page lists as `what`: each name
/// the page lacks, and each listed name the code lacks.
fn differences(what: &str, code: &[&str], page: &[&str]) -> Vec<String> {
    let missing = code
        .iter()
        .filter(|name| !page.contains(name))
        .map(|name| format!("{what}: `{name}` is not on the page"));
    let unknown = page
        .iter()
        .filter(|name| !code.contains(name))
        .map(|name| format!("{what}: the page lists `{name}`, which the code does not have"));
    missing.chain(unknown).collect()
}

/// The steps of the parsing page: the bold names of the numbered list under `## The steps`,
/// each with its number; the numbers must run from 0 in order.
fn page_steps(page: &str) -> Result<Vec<String>, String> {
    let section = page
        .split("\n## ")
        .find(|section| section.starts_with("The steps"))
        .ok_or("the page has no section `## The steps`")?;
    let mut steps = Vec::new();
    for line in section.lines() {
        let Some((number, rest)) = line.split_once(". **") else {
            continue;
        };
        let Ok(number) = number.parse::<usize>() else {
            continue;
        };
        if number != steps.len() {
            return Err(format!("step {number} follows step {}", steps.len()));
        }
        let name = rest.split("**").next().unwrap_or_default();
        steps.push(name.trim_end_matches('.').to_owned());
    }
    Ok(steps)
}

/// Source text as prose: each line without its indentation and comment marker, the lines joined
/// by spaces, so that a name broken across comment lines reads whole.
fn prose(source: &str) -> String {
    source
        .lines()
        .map(|line| {
            let line = line.trim_start();
            ["//!", "///", "//"]
                .iter()
                .find_map(|marker| line.strip_prefix(marker))
                .map_or(line, str::trim_start)
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The steps `text` names in the written convention `step *Name*` (or `Step *Name*`): the name
/// between the asterisks, which starts with a capital letter.
fn named_steps(text: &str) -> Vec<String> {
    let text = prose(text);
    let mut names = Vec::new();
    for (at, _) in text.match_indices("tep *") {
        let before = text.get(..at).unwrap_or_default();
        let Some(word) = before.strip_suffix(['S', 's']) else {
            continue;
        };
        if word.ends_with(|c: char| c.is_alphanumeric()) {
            continue;
        }
        let rest = text.get(at + "tep *".len()..).unwrap_or_default();
        let Some((name, _)) = rest.split_once('*') else {
            continue;
        };
        if name.starts_with(|c: char| c.is_ascii_uppercase()) {
            names.push(name.split_whitespace().collect::<Vec<_>>().join(" "));
        }
    }
    names
}

/// The lines of `text` that name a step by a number (`step`, `steps` or `step-` then a digit,
/// or `Step` and a digit run together) or a rule by a letter from a to e (after `rule` or
/// `rules`, bare or in parentheses; or in parentheses opening a comment).
fn numbered(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for line in text.lines() {
        let lower = line.to_ascii_lowercase();
        for (at, _) in lower.match_indices("step") {
            if lower[..at].ends_with(|c: char| c.is_alphanumeric()) {
                continue;
            }
            let rest = lower[at + "step".len()..].trim_start_matches('s');
            let rest = rest.strip_prefix([' ', '-']).unwrap_or(rest);
            if rest.starts_with(|c: char| c.is_ascii_digit()) {
                found.push(line.trim().to_owned());
            }
        }
        for (at, _) in lower.match_indices("rule") {
            if lower[..at].ends_with(|c: char| c.is_alphanumeric()) {
                continue;
            }
            let rest = lower[at + "rule".len()..].trim_start_matches('s');
            let Some(rest) = rest.strip_prefix(' ') else {
                continue;
            };
            let lettered = rest.strip_prefix('(').unwrap_or(rest);
            let mut chars = lettered.chars();
            let letter = chars.next().is_some_and(|c| ('a'..='e').contains(&c));
            let after = chars.next();
            if letter && after.is_none_or(|c| !c.is_alphanumeric() && c != '\'') {
                found.push(line.trim().to_owned());
            }
        }
        let comment = prose(line);
        let mut chars = comment.chars();
        if chars.next() == Some('(')
            && chars.next().is_some_and(|c| ('a'..='e').contains(&c))
            && chars.next() == Some(')')
            && line.trim_start().starts_with("//")
        {
            found.push(line.trim().to_owned());
        }
    }
    found
}

/// Every `.rs` file under `dir`, with its path from `dir`, in a stable order.
fn sources(dir: &Path) -> Vec<(String, String)> {
    let mut pending = vec![dir.to_path_buf()];
    let mut files: Vec<PathBuf> = Vec::new();
    while let Some(next) = pending.pop() {
        let entries = std::fs::read_dir(&next).expect("the source directory is readable");
        for entry in entries {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|ext| ext == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
        .into_iter()
        .map(|path| {
            let name = path
                .strip_prefix(dir)
                .unwrap_or(&path)
                .to_string_lossy()
                .replace('\\', "/");
            let text = std::fs::read_to_string(&path).expect("a source file is UTF-8");
            (name, text)
        })
        .filter(|(name, _)| name != THIS_FILE)
        .collect()
}

/// The crate's own sources.
fn crate_sources() -> Vec<(String, String)> {
    sources(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"))
}

/// The steps the code names that are no step of the page, with where.
fn unknown_steps(page: &[String], code: &[(String, String)]) -> Vec<String> {
    code.iter()
        .flat_map(|(file, text)| {
            named_steps(text)
                .into_iter()
                .filter(|name| !page.contains(name))
                .map(move |name| format!("{file}: step *{name}* is no step of parsing.md"))
        })
        .collect()
}

/// The steps of the page that the code names nowhere.
fn unnamed_steps(page: &[String], code: &[(String, String)]) -> Vec<String> {
    let named: Vec<String> = code
        .iter()
        .flat_map(|(_, text)| named_steps(text))
        .collect();
    page.iter()
        .filter(|step| !named.contains(step))
        .map(|step| format!("step *{step}* of parsing.md is named nowhere in the code"))
        .collect()
}

fn assert_none(problems: Vec<String>) {
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

#[test]
fn every_recovery_kind_is_a_heading_of_the_recoveries_page() {
    let kinds = kinds();
    let mut problems = differences("heading", &kinds, &heading_names(RECOVERIES));
    problems.extend(differences(
        "table row",
        &kinds,
        &table_names(RECOVERIES, "kind"),
    ));
    assert_none(problems);
}

#[test]
fn every_parameter_cause_is_a_heading_of_the_rejections_page() {
    let causes = causes();
    let mut problems = differences("heading", &causes, &heading_names(REJECTIONS));
    problems.extend(differences(
        "cause row",
        &causes,
        &table_names(REJECTIONS, "cause"),
    ));
    problems.extend(differences(
        "class row",
        &classes(),
        &table_names(REJECTIONS, "class"),
    ));
    assert_none(problems);
}

#[test]
fn every_text_format_is_in_the_calls_in_text_page() {
    assert_none(differences(
        "format row",
        &formats(),
        &table_names(CALLS_IN_TEXT, "format"),
    ));
}

#[test]
fn every_step_the_code_names_is_a_step_of_the_parsing_page() {
    let page = page_steps(PARSING).expect("parsing.md lists its steps");
    assert!(page.len() > 1, "{page:?}");
    let code = crate_sources();
    assert!(
        code.iter().any(|(file, _)| file == "parse/mod.rs"),
        "the sources were read"
    );
    assert_none(unknown_steps(&page, &code));
}

#[test]
fn every_step_of_the_parsing_page_is_named_in_the_code() {
    let page = page_steps(PARSING).expect("parsing.md lists its steps");
    assert_none(unnamed_steps(&page, &crate_sources()));
}

#[test]
fn the_code_numbers_no_step_and_letters_no_rule() {
    let problems = crate_sources()
        .iter()
        .flat_map(|(file, text)| {
            numbered(text)
                .into_iter()
                .map(move |line| format!("{file}: {line}"))
        })
        .collect();
    assert_none(problems);
}

// The checks find a name changed on one side only.

#[test]
fn a_kind_or_cause_renamed_on_one_side_only_is_found() {
    // A heading renamed on the page.
    let page = RECOVERIES.replace("## `trailing_closers`", "## `closers_after`");
    let problems = differences("heading", &kinds(), &heading_names(&page));
    assert_eq!(
        problems,
        [
            "heading: `trailing_closers` is not on the page",
            "heading: the page lists `closers_after`, which the code does not have"
        ]
    );
    // A cause renamed in the code: the page's heading and row no longer name one.
    let renamed: Vec<&str> = causes()
        .into_iter()
        .map(|cause| match cause {
            "truncated_call" => "cut_off_call",
            other => other,
        })
        .collect();
    let problems = differences("cause row", &renamed, &table_names(REJECTIONS, "cause"));
    assert_eq!(
        problems,
        [
            "cause row: `cut_off_call` is not on the page",
            "cause row: the page lists `truncated_call`, which the code does not have"
        ]
    );
    // A format row renamed.
    let page = CALLS_IN_TEXT.replace("| `glm` |", "| `glm4` |");
    assert_eq!(
        differences("format row", &formats(), &table_names(&page, "format")).len(),
        2
    );
}

#[test]
fn a_step_renamed_on_one_side_only_is_found() {
    let code = vec![(
        "parse/decode.rs".to_owned(),
        "//! Step *Strict mode only* and step *Decode* of the\n//! parsing rules; then step\n\
         /// *The arguments as a whole* again.\nlet x = step * 2;"
            .to_owned(),
    )];
    assert_eq!(
        named_steps(&code[0].1),
        ["Strict mode only", "Decode", "The arguments as a whole"]
    );
    // Renamed on the page: the code's name is no step of it, and the page's is named nowhere.
    let page = page_steps(&PARSING.replace("**Decode.**", "**Decoding.**")).unwrap();
    assert_eq!(
        unknown_steps(&page, &code),
        ["parse/decode.rs: step *Decode* is no step of parsing.md"]
    );
    assert!(unnamed_steps(&page, &code)
        .contains(&"step *Decoding* of parsing.md is named nowhere in the code".to_owned()));
    // Renamed in the code.
    let page = page_steps(PARSING).unwrap();
    let code = vec![("a.rs".to_owned(), "// step *Decoding*".to_owned())];
    assert_eq!(
        unknown_steps(&page, &code),
        ["a.rs: step *Decoding* is no step of parsing.md"]
    );
    // The page's steps out of order.
    let swapped = PARSING.replace("8. **Decode.**", "7. **Decode.**");
    assert!(page_steps(&swapped).is_err());
}

#[test]
fn numbered_steps_and_lettered_rules_are_found() {
    // Written with `#` for the number or letter, so that a search of the sources for numbered
    // steps finds none here.
    for (line, fill) in [
        (
            "//! A call's arguments, and step # of the parsing rules.",
            "1",
        ),
        ("/// Steps # to 6 for the payload parameter.", "4"),
        ("/// The step-# message says so.", "4"),
        ("pub(crate) enum Step#<'a, R> {", "1"),
        ("/// Rules (#)–(d) on argument text.", "a"),
        ("//! a later step (rule #: one extra wrapper member)", "e"),
        ("/// What rule (#) needs of the tool.", "e"),
        ("    // (#) Arguments encoded twice.", "c"),
    ] {
        let line = line.replace('#', fill);
        assert_eq!(numbered(&line), [line.trim()], "{line}");
    }
    for line in [
        "/// every rule that a call's arguments go through",
        "/// step *Decode*, then the rule applies",
        "let (a) = b;",
        "/// the rules apply in order",
        "fn stepwise(steps: usize) {}",
    ] {
        assert_eq!(numbered(line), Vec::<String>::new(), "{line}");
    }
}
