//! The example GitHub Actions workflow never carries a folder that learner
//! code could have written from one job or run to the next.

use std::path::Path;

fn workflow() -> String {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/github-actions/grade.yml");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The `path:` entries of every `actions/cache` step.
fn cached_paths(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_cache = false;
    let mut in_path = false;
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with("- name:") || trimmed.starts_with("- uses:") {
            in_cache = false;
            in_path = false;
        }
        if trimmed.starts_with("uses: actions/cache")
            || trimmed.starts_with("- uses: actions/cache")
        {
            in_cache = true;
        }
        if in_cache && trimmed.starts_with("path:") {
            in_path = true;
            let rest = trimmed.trim_start_matches("path:").trim();
            if !rest.is_empty() && rest != "|" {
                out.push(rest.to_string());
                in_path = false;
            }
            continue;
        }
        if in_path {
            if trimmed.contains(':') || trimmed.is_empty() {
                in_path = false;
            } else {
                out.push(trimmed.to_string());
            }
        }
    }
    out
}

#[test]
fn the_workflow_caches_only_the_crate_registry() {
    let paths = cached_paths(&workflow());
    assert!(
        !paths.is_empty(),
        "no cache step found: the test reads the file wrongly"
    );
    for p in &paths {
        assert!(
            p.starts_with("~/.cargo/registry") || p.starts_with("~/.cargo/git"),
            "the workflow caches {p:?}, which learner code or its builds could have written"
        );
    }
}

#[test]
fn the_reader_of_cache_paths_sees_a_cached_target() {
    let text = "      - name: c\n        uses: actions/cache@v4\n        with:\n          path: |\n            ~/.cargo/registry\n            target\n          key: k\n";
    assert_eq!(cached_paths(text), vec!["~/.cargo/registry", "target"]);
}

#[test]
fn a_shard_that_needs_review_still_uploads_and_merges() {
    let text = workflow();
    assert!(
        text.contains("\"$status\" -eq 5"),
        "exit status 5 must not fail the shard"
    );
}
