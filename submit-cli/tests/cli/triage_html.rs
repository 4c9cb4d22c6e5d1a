//! `triage --html`: the page opened in a real headless Chromium, which must render it without
//! a script error, with the table, the chart and the input's hostile text escaped.
//!
//! Chromium comes from the system packages (`.ci/run` installs it). Without it the test says
//! so and passes, except under `CI=true`, where it fails.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;

const BIN: &str = env!("CARGO_BIN_EXE_submit-result");

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("html-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn chromium() -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .flat_map(|name| {
            std::env::split_paths(&path)
                .chain([PathBuf::from("/usr/bin")])
                .map(move |dir| dir.join(name))
        })
        .find(|candidate| candidate.is_file())
}

/// The DOM Chromium built from `page`, after its scripts ran.
fn dump_dom(browser: &Path, page: &Path, profile: &Path) -> String {
    let mut child = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("--dump-dom")
        .arg(format!("file://{}", page.display()))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(90) {
            let _ = child.kill();
            panic!("chromium did not finish within 90 s");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let output = child.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "chromium failed: {:?}",
        output.status
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Chromium, or `None` (the test then passes) when it is missing outside CI.
fn chromium_or_skip() -> Option<PathBuf> {
    let browser = chromium();
    if browser.is_none() {
        assert_ne!(
            std::env::var("CI").as_deref(),
            Ok("true"),
            "no Chromium found: install the `chromium` package to run this test"
        );
        eprintln!("no Chromium found: skipping the HTML rendering test");
    }
    browser
}

#[test]
fn html_report_renders_in_headless_chromium() {
    let Some(browser) = chromium_or_skip() else {
        return;
    };
    let dir = scratch("chromium");
    let schema = dir.join("schema.json");
    std::fs::write(
        &schema,
        json!({"type": "object", "properties": {"summary": {"type": "string"}}, "required": ["summary"]})
            .to_string(),
    )
    .unwrap();
    let call = |arguments: serde_json::Value| {
        json!({"type": "tool_use", "id": "t", "name": "submit_result", "input": arguments})
            .to_string()
    };
    let hostile = "</script><script>alert(1)</script>";
    let lines = [
        call(json!({"reasoning": "r", "result": {"summary": "clean"}})),
        call(json!({"reasoning": "r", "result": "{\"summary\": \"s\"}</invoke>"})),
        call(json!({"reasoning": "r", "result": format!("{{\"summary\": \"s\"}} {hostile}")})),
        call(json!({"reasoning": "r"})),
        json!({"custom_id": "x", "result": {"type": "expired"}}).to_string(),
        format!("not json {hostile}"),
    ];
    let calls = dir.join("calls.jsonl");
    std::fs::write(&calls, lines.join("\n") + "\n").unwrap();
    let page = dir.join("report.html");
    let output = Command::new(BIN)
        .args(["triage", "--provider", "claude", "--schema"])
        .arg(&schema)
        .arg("--html")
        .arg(&page)
        .arg(&calls)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );

    let dom = dump_dom(&browser, &page, &dir.join("profile"));
    assert!(
        dom.contains("data-rendered=\"ok\""),
        "the page's script did not run: {dom}"
    );
    assert!(
        !dom.contains("id=\"script-error\""),
        "a script error: {dom}"
    );
    assert!(dom.contains("<svg id=\"chart\""), "{dom}");
    // clean, stringified, absent_or_mistyped, stringified_declined.
    assert_eq!(dom.matches("<g class=\"bar").count(), 4, "{dom}");
    assert!(
        dom.contains("<td>calls</td><td class=\"n\">4</td>"),
        "{dom}"
    );
    assert!(dom.contains("anthropic batch: expired"), "{dom}");
    assert!(
        !dom.contains("<script>alert"),
        "hostile text live in the page: {dom}"
    );
    assert!(
        dom.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
        "{dom}"
    );
}

#[test]
fn html_report_shows_truncated_calls_in_their_row_and_bar() {
    let Some(browser) = chromium_or_skip() else {
        return;
    };
    let dir = scratch("truncated");
    let schema = dir.join("schema.json");
    std::fs::write(
        &schema,
        json!({"type": "object", "properties": {"summary": {"type": "string"}}, "required": ["summary"]})
            .to_string(),
    )
    .unwrap();
    // Whole responses written from the providers' documented shapes (see the formats README):
    // lines 1 to 4 end with a submit call cut at the output-token limit.
    let calls = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/formats/output_limit.jsonl");
    let page = dir.join("report.html");
    let output = Command::new(BIN)
        .args(["triage", "--provider", "claude", "--schema"])
        .arg(&schema)
        .arg("--html")
        .arg(&page)
        .arg(&calls)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );

    let dom = dump_dom(&browser, &page, &dir.join("profile"));
    assert!(
        dom.contains("data-rendered=\"ok\""),
        "the page's script did not run: {dom}"
    );
    assert!(
        !dom.contains("id=\"script-error\""),
        "a script error: {dom}"
    );
    // 11 calls: 9 truncated, 2 accepted clean.
    assert!(
        dom.contains(
            "<tr class=\"depth-2\"><td>truncated_call</td><td class=\"n\">9</td>\
             <td class=\"n\">81.82%</td></tr>"
        ),
        "{dom}"
    );
    let bars: Vec<&str> = dom
        .split("<g class=\"bar")
        .skip(1)
        .map(|bar| bar.split("</g>").next().unwrap_or_default())
        .collect();
    assert_eq!(bars.len(), 2, "clean, truncated_call: {dom}");
    assert!(bars[0].contains(">clean<"), "{dom}");
    assert!(
        bars[1].starts_with(" rejected") && bars[1].contains(">truncated_call<"),
        "{dom}"
    );
    assert!(bars[1].contains(">9 (81.82%)<"), "{dom}");
}

#[test]
fn html_report_shows_calls_in_text_in_their_row_with_a_row_per_format() {
    let Some(browser) = chromium_or_skip() else {
        return;
    };
    let dir = scratch("text-calls");
    let schema = dir.join("schema.json");
    std::fs::write(
        &schema,
        json!({"type": "object", "properties": {"summary": {"type": "string"}}, "required": ["summary"]})
            .to_string(),
    )
    .unwrap();
    // Whole responses written from the providers' documented shapes (see the formats README):
    // 9 calls written as text, 7 in the hermes format, 1 in Gemini's malformed-call message
    // (pythonic), 1 cut at the output-token limit.
    let calls = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/formats/text_calls.jsonl");
    let page = dir.join("report.html");
    let output = Command::new(BIN)
        .args(["triage", "--provider", "claude", "--schema"])
        .arg(&schema)
        .arg("--html")
        .arg(&page)
        .arg(&calls)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );

    let dom = dump_dom(&browser, &page, &dir.join("profile"));
    assert!(
        dom.contains("data-rendered=\"ok\""),
        "the page's script did not run: {dom}"
    );
    assert!(
        !dom.contains("id=\"script-error\""),
        "a script error: {dom}"
    );
    for (depth, label, count, share) in [
        (1, "call_in_text", 8, "88.89%"),
        (2, "call_in_text (hermes)", 7, "77.78%"),
        (2, "call_in_text (pythonic)", 1, "11.11%"),
    ] {
        let row = format!(
            "<tr class=\"depth-{depth}\"><td>{label}</td><td class=\"n\">{count}</td>\
             <td class=\"n\">{share}</td></tr>"
        );
        assert!(dom.contains(&row), "{row}: {dom}");
    }
    assert!(
        dom.contains("<td>lines without submit call</td><td class=\"n\">6</td>"),
        "{dom}"
    );
    // The formats are parts of call_in_text, in the table only: one bar for the kind.
    let bars: Vec<&str> = dom
        .split("<g class=\"bar")
        .skip(1)
        .map(|bar| bar.split("</g>").next().unwrap_or_default())
        .collect();
    assert_eq!(bars.len(), 2, "call_in_text, truncated_call: {dom}");
    assert!(
        bars[0].starts_with(" recovered") && bars[0].contains(">call_in_text<"),
        "{dom}"
    );
    assert!(bars[0].contains(">8 (88.89%)<"), "{dom}");
    assert!(bars[1].contains(">truncated_call<"), "{dom}");
}
