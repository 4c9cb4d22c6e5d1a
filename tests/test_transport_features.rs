//! Which builds hold the HTTP stack: none without a transport feature, and each provider
//! feature pulls it in on its own. Read from `cargo tree`, offline, over the lockfile.

use std::collections::BTreeSet;
use std::process::Command;

const HTTP_STACK: [&str; 5] = ["reqwest", "hyper", "tokio", "rustls", "h2"];

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
