//! Which builds hold the MCP stack: none without the `mcp` feature, and the feature pulls it in
//! on its own. Read from `cargo tree`, offline, over the lockfile.

use std::collections::BTreeSet;
use std::process::Command;

const MCP_STACK: [&str; 4] = ["rmcp", "process-wrap", "sse-stream", "tokio"];

/// The crate names of a `cargo tree` run with normal, dev and build edges.
fn crates(args: &[&str]) -> BTreeSet<String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "tree",
            "--offline",
            "--prefix",
            "none",
            "-e",
            "normal,dev,build",
        ])
        .args(args)
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo tree {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_owned)
        .collect()
}

#[test]
fn default_build_has_no_mcp_stack() {
    for args in [
        &["-p", "submit-result"][..],
        &["-p", "submit-agent"][..],
        &["-p", "submit-result", "--no-default-features"][..],
    ] {
        let found = crates(args);
        assert!(found.contains("submit-agent"), "{args:?}: {found:?}");
        for name in MCP_STACK {
            assert!(!found.contains(name), "{args:?} pulls {name}");
        }
    }
}

#[test]
fn provider_features_pull_no_mcp_stack() {
    for feature in ["claude", "gemini", "openai-chat", "openai-responses"] {
        let found = crates(&[
            "-p",
            "submit-agent",
            "--no-default-features",
            "--features",
            feature,
        ]);
        assert!(!found.contains("rmcp"), "feature {feature} pulls rmcp");
    }
}

#[test]
fn mcp_feature_pulls_the_mcp_stack_alone() {
    let found = crates(&[
        "-p",
        "submit-agent",
        "--no-default-features",
        "--features",
        "mcp",
    ]);
    for name in MCP_STACK {
        assert!(found.contains(name), "feature mcp lacks {name}");
    }
    // The facade's feature of the same name turns it on.
    let facade = crates(&[
        "-p",
        "submit-result",
        "--no-default-features",
        "--features",
        "mcp",
    ]);
    assert!(facade.contains("rmcp"), "facade feature mcp lacks rmcp");
}
