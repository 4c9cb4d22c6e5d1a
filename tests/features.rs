//! Which builds hold which stacks, read from `cargo tree` (offline, over the lockfile, with
//! normal, dev and build edges, so a plain `cargo test` is covered too): the default build
//! holds no HTTP and no MCP stack; each provider feature pulls the HTTP stack alone; the `mcp`
//! features of `submit-agent` and `submit-cli` pull the MCP stack alone.

use std::collections::BTreeSet;
use std::process::Command;

/// What only a provider transport brings in.
const HTTP_STACK: [&str; 5] = ["reqwest", "hyper", "tokio", "rustls", "h2"];

/// What only MCP tools in the loop bring in.
const MCP_STACK: [&str; 4] = ["rmcp", "process-wrap", "sse-stream", "tokio"];

/// What only the command line's MCP server brings in.
const MCP_SERVER_STACK: [&str; 4] = ["rmcp", "tokio", "hyper", "tracing-subscriber"];

/// What the command line's MCP server must not bring in: an HTTP client, TLS.
const HTTP_CLIENT_STACK: [&str; 3] = ["reqwest", "rustls", "h2"];

/// The crate names of a `cargo tree` run with normal and build edges: what a crate that
/// depends on this one with these features builds. (Dev-dependencies, such as the small MCP
/// servers the examples and tests start, reach no dependent.)
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
            "normal,build",
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
fn default_build_has_no_http_stack() {
    for args in [
        &["-p", "submit-result"][..],
        &["-p", "submit-agent"][..],
        &["-p", "submit-result", "--no-default-features"][..],
    ] {
        let found = crates(args);
        assert!(found.contains("submit-agent"), "{args:?}: {found:?}");
        for name in HTTP_STACK {
            assert!(!found.contains(name), "{args:?} pulls {name}");
        }
    }
}

#[test]
fn each_provider_feature_pulls_the_http_stack_alone() {
    for feature in ["claude", "gemini", "openai-chat", "openai-responses"] {
        let found = crates(&[
            "-p",
            "submit-agent",
            "--no-default-features",
            "--features",
            feature,
        ]);
        for name in ["reqwest", "tokio", "rustls"] {
            assert!(found.contains(name), "feature {feature} lacks {name}");
        }
        // The facade's feature of the same name turns it on.
        let facade = crates(&[
            "-p",
            "submit-result",
            "--no-default-features",
            "--features",
            feature,
        ]);
        assert!(
            facade.contains("reqwest"),
            "facade feature {feature} lacks reqwest"
        );
    }
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

#[test]
fn cli_without_default_features_has_no_mcp_server_stack() {
    let found = crates(&["-p", "submit-cli", "--no-default-features"]);
    assert!(found.contains("submit-core"), "{found:?}");
    for name in MCP_SERVER_STACK.iter().chain(&HTTP_CLIENT_STACK) {
        assert!(!found.contains(*name), "the build without mcp pulls {name}");
    }
}

#[test]
fn default_cli_build_has_the_mcp_server_and_no_http_client() {
    // `cargo install submit-cli` builds this: the server is in it, no client and no TLS.
    let found = crates(&["-p", "submit-cli"]);
    for name in MCP_SERVER_STACK {
        assert!(found.contains(name), "the default build lacks {name}");
    }
    for name in HTTP_CLIENT_STACK {
        assert!(!found.contains(name), "the default build pulls {name}");
    }
}

#[test]
fn default_build_has_no_async_openai() {
    for args in [&["-p", "submit-result"][..], &["-p", "submit-cli"][..]] {
        let found = crates(args);
        assert!(
            !found.contains("async-openai"),
            "{args:?} pulls async-openai"
        );
    }
}

#[test]
fn async_openai_feature_pulls_its_types_and_no_http_stack() {
    let found = crates(&[
        "-p",
        "submit-result",
        "--no-default-features",
        "--features",
        "async-openai",
    ]);
    assert!(found.contains("async-openai"), "{found:?}");
    for name in HTTP_STACK.iter().chain(&MCP_STACK) {
        assert!(!found.contains(*name), "feature async-openai pulls {name}");
    }
}

/// What only the `rig` feature brings in (its scripted HTTP client, `rig-http`, is a
/// dev-dependency of the rig tests and example, and holds no HTTP stack).
const RIG_STACK: [&str; 2] = ["rig-core", "rig-agent"];

#[test]
fn default_build_has_no_rig() {
    for args in [&["-p", "submit-result"][..], &["-p", "submit-cli"][..]] {
        let found = crates(args);
        for name in RIG_STACK {
            assert!(!found.contains(name), "{args:?} pulls {name}");
        }
    }
}

#[test]
fn rig_feature_pulls_rig_and_no_http_stack() {
    let found = crates(&[
        "-p",
        "submit-result",
        "--no-default-features",
        "--features",
        "rig",
    ]);
    for name in RIG_STACK {
        assert!(found.contains(name), "feature rig lacks {name}: {found:?}");
    }
    for name in HTTP_STACK.iter().chain(&MCP_STACK) {
        assert!(!found.contains(*name), "feature rig pulls {name}");
    }
}
