//! Which builds hold the MCP stack: none without the `mcp` feature, all of it with. Read from
//! `cargo tree`, offline, over the lockfile, with normal, dev and build edges, so that a plain
//! `cargo test` is covered too.

use std::collections::BTreeSet;
use std::process::Command;

/// Crates only the MCP server brings in.
const MCP_STACK: [&str; 5] = ["rmcp", "tokio", "hyper", "reqwest", "tracing-subscriber"];

/// The crate names of `submit-cli`'s dependency tree with `args` added.
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
            "-p",
            "submit-cli",
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
    let found = crates(&[]);
    assert!(found.contains("submit-core"), "{found:?}");
    for name in MCP_STACK {
        assert!(!found.contains(name), "the default build pulls {name}");
    }
}

#[test]
fn mcp_feature_pulls_the_mcp_stack() {
    let found = crates(&["--features", "mcp"]);
    for name in MCP_STACK {
        assert!(found.contains(name), "feature mcp lacks {name}");
    }
}
