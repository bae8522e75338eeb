//! The example workflows under examples/: the grading workflow never caches
//! what learner code could have written, saves its cache before any learner
//! code is on the runner, merges whatever shards arrived, and uses no action
//! that runs on Node 20; the GitHub Classroom workflow grades each core step
//! with the points of fixtures/weights.json. (actionlint checks both files
//! too: tests/actionlint.rs.)

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn read(rel: &str) -> String {
    let path = root().join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn grade_workflow() -> String {
    read("examples/github-actions/grade.yml")
}

fn classroom_workflow() -> String {
    read("examples/github-classroom/classroom.yml")
}

/// One step of a job: its lines, trimmed, the leading `- ` removed.
#[derive(Debug)]
struct Step {
    lines: Vec<String>,
}

impl Step {
    /// The value of the first `key:` line of the step (in `with:` too),
    /// without quotes.
    fn value(&self, key: &str) -> Option<String> {
        let prefix = format!("{key}:");
        self.lines.iter().find_map(|l| {
            l.strip_prefix(&prefix)
                .map(|v| v.trim().trim_matches('"').trim_matches('\'').to_string())
        })
    }

    fn uses(&self) -> String {
        self.value("uses").unwrap_or_default()
    }

    fn text(&self) -> String {
        self.lines.join("\n")
    }
}

/// A job: its own keys (`needs`, `if`, …) and its steps, in order.
#[derive(Debug, Default)]
struct Job {
    keys: BTreeMap<String, String>,
    steps: Vec<Step>,
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// The jobs of a workflow written in the layout of the examples: job ids at
/// two spaces, their keys at four, steps at six (`- `).
fn jobs(text: &str) -> BTreeMap<String, Job> {
    let mut out: BTreeMap<String, Job> = BTreeMap::new();
    let mut in_jobs = false;
    let mut current: Option<String> = None;
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        if indent(line) == 0 {
            in_jobs = trimmed == "jobs:";
            current = None;
            continue;
        }
        if !in_jobs {
            continue;
        }
        if indent(line) == 2 && trimmed.ends_with(':') {
            let id = trimmed.trim_end_matches(':').to_string();
            out.insert(id.clone(), Job::default());
            current = Some(id);
            continue;
        }
        let Some(job) = current.as_ref().and_then(|id| out.get_mut(id)) else {
            continue;
        };
        if indent(line) == 4 {
            if let Some((k, v)) = trimmed.split_once(':') {
                job.keys.insert(k.to_string(), v.trim().to_string());
            }
        } else if indent(line) == 6 && trimmed.starts_with("- ") {
            job.steps.push(Step {
                lines: vec![trimmed[2..].to_string()],
            });
        } else if indent(line) > 6 {
            if let Some(step) = job.steps.last_mut() {
                step.lines.push(trimmed.to_string());
            }
        }
    }
    out
}

/// The `path:` entries of every cache step (`actions/cache`, its `restore`
/// and `save` parts).
fn cached_paths(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for job in jobs(text).values() {
        for step in job
            .steps
            .iter()
            .filter(|s| s.uses().starts_with("actions/cache"))
        {
            let mut in_path = false;
            for line in &step.lines {
                if let Some(rest) = line.strip_prefix("path:") {
                    let rest = rest.trim();
                    if rest == "|" {
                        in_path = true;
                    } else if !rest.is_empty() {
                        out.push(rest.to_string());
                    }
                } else if in_path {
                    if line.contains(": ") || line.ends_with(':') {
                        in_path = false;
                    } else {
                        out.push(line.to_string());
                    }
                }
            }
        }
    }
    out
}

/// Steps that put learner code on the runner or run it: checking out the
/// submissions, and grading (a merge only reads reports).
fn learner_code(step: &Step) -> bool {
    let text = step.text();
    step.value("path").as_deref() == Some("submissions")
        || (text.contains("lab.sh grade") && !text.contains("--merge"))
}

/// Where a cache is saved after learner code came onto the runner: the
/// `actions/cache` action itself (it saves when the job ends), or a
/// `actions/cache/save` step after a learner-code step. One line each.
fn late_cache_saves(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (id, job) in jobs(text) {
        let first_learner = job.steps.iter().position(learner_code);
        for (i, step) in job.steps.iter().enumerate() {
            let uses = step.uses();
            if uses.starts_with("actions/cache@") {
                out.push(format!("{id}: {uses} saves when the job ends"));
            }
            if uses.starts_with("actions/cache/save@") && first_learner.is_some_and(|f| f < i) {
                out.push(format!("{id}: step {i} saves after learner code ran"));
            }
        }
    }
    out
}

#[test]
fn the_workflow_caches_only_the_toolchain_and_the_crate_registry() {
    let paths = cached_paths(&grade_workflow());
    assert!(
        !paths.is_empty(),
        "no cache step found: the test reads the file wrongly"
    );
    for p in &paths {
        assert!(
            [
                "~/.cargo/registry",
                "~/.cargo/git",
                "~/.rustup/toolchains",
                "~/.rustup/update-hashes"
            ]
            .iter()
            .any(|base| p == base || p.starts_with(&format!("{base}/"))),
            "the workflow caches {p:?}, which learner code or its builds could have written"
        );
    }
}

#[test]
fn the_cache_is_saved_before_any_learner_code_is_on_the_runner() {
    let text = grade_workflow();
    assert_eq!(late_cache_saves(&text), Vec::<String>::new());
    let grade = &jobs(&text)["grade"];
    assert!(
        grade
            .steps
            .iter()
            .any(|s| s.uses().starts_with("actions/cache/save@")),
        "the grading job saves the cache it restores"
    );
    assert!(
        grade.steps.iter().any(learner_code),
        "no grading step found: the test reads the file wrongly"
    );
}

#[test]
fn the_reader_of_cache_steps_sees_a_cached_target_and_a_late_save() {
    let text = "\
jobs:
  grade:
    runs-on: ubuntu-latest
    steps:
      - name: c
        uses: actions/cache@v6
        with:
          path: |
            ~/.cargo/registry
            target
          key: k
      - name: Grade
        run: ./lab.sh grade --out g submissions/*/
      - name: s
        uses: actions/cache/save@v6
        with:
          path: ~/.cargo/git
          key: k
";
    assert_eq!(
        cached_paths(text),
        vec!["~/.cargo/registry", "target", "~/.cargo/git"]
    );
    assert_eq!(
        late_cache_saves(text),
        vec![
            "grade: actions/cache@v6 saves when the job ends",
            "grade: step 2 saves after learner code ran",
        ]
    );
}

#[test]
fn the_merge_runs_whenever_grading_ran() {
    let all = jobs(&grade_workflow());
    let merge = all.get("merge").expect("a merge job");
    assert_eq!(merge.keys.get("needs").map(String::as_str), Some("grade"));
    let condition = merge.keys.get("if").cloned().unwrap_or_default();
    assert!(
        condition.contains("!cancelled()") || condition.contains("always()"),
        "a failed shard must not skip the merge: if: {condition:?}"
    );
    // It merges all four shards and so names the missing ones.
    let merging = merge
        .steps
        .iter()
        .find(|s| s.text().contains("--merge"))
        .expect("a merge step");
    for i in 1..=4 {
        assert!(merging.text().contains(&format!("grades/shard-{i}")), "{i}");
    }
}

#[test]
fn a_shard_that_needs_review_still_uploads_and_merges() {
    let text = grade_workflow();
    assert!(
        text.contains("\"$status\" -eq 5"),
        "exit status 5 must not fail the shard"
    );
}

/// Majors of GitHub's own actions that still run on Node 20, from each
/// action's release notes: checkout moved to Node 24 in v5, cache in v5,
/// upload-artifact in v6 and download-artifact in v7.
fn runs_on_node20(uses: &str) -> bool {
    let Some((action, version)) = uses.split_once('@') else {
        return false;
    };
    let major: u32 = version
        .trim_start_matches('v')
        .split('.')
        .next()
        .and_then(|m| m.parse().ok())
        .unwrap_or(u32::MAX);
    let first_node24 = match action {
        "actions/checkout" => 5,
        "actions/cache" | "actions/cache/restore" | "actions/cache/save" => 5,
        "actions/upload-artifact" => 6,
        "actions/download-artifact" => 7,
        _ => return false,
    };
    major < first_node24
}

#[test]
fn no_action_of_the_examples_runs_on_node_20() {
    assert!(runs_on_node20("actions/checkout@v4") && !runs_on_node20("actions/checkout@v7"));
    for text in [grade_workflow(), classroom_workflow()] {
        let uses: Vec<String> = jobs(&text)
            .values()
            .flat_map(|j| j.steps.iter().map(Step::uses))
            .filter(|u| !u.is_empty())
            .collect();
        assert!(
            !uses.is_empty(),
            "no action found: the test reads the file wrongly"
        );
        for u in uses {
            assert!(!runs_on_node20(&u), "{u} runs on Node 20");
        }
    }
}

/// Points per core step from fixtures/weights.json, 1 for a step the file
/// leaves out (as the grader reads it).
fn core_weights() -> BTreeMap<String, u64> {
    let given: BTreeMap<String, u64> =
        serde_json::from_str(&read("fixtures/weights.json")).expect("weights.json");
    lab_judge::suites::core_ids()
        .into_iter()
        .map(|step| (step.to_string(), given.get(step).copied().unwrap_or(1)))
        .collect()
}

/// The graded tests of the classroom workflow: step number → (step id,
/// max-score), read from each `autograding-command-grader` step.
fn classroom_tests(text: &str) -> BTreeMap<String, (String, u64)> {
    let all = jobs(text);
    let job = all
        .get("run-autograding-tests")
        .expect("GitHub Classroom reads the job run-autograding-tests");
    let mut out = BTreeMap::new();
    for step in job.steps.iter().filter(|s| {
        s.uses()
            .starts_with("classroom-resources/autograding-command-grader@")
    }) {
        let command = step.value("command").unwrap_or_default();
        let step_no = command
            .strip_prefix("bash checks/")
            .and_then(|c| c.strip_suffix("-contract.sh"))
            .unwrap_or_else(|| panic!("a test that runs no step's check: {command:?}"))
            .to_string();
        let id = step.value("id").expect("each test has an id");
        let points: u64 = step
            .value("max-score")
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("step {step_no}: no max-score"));
        assert!(
            out.insert(step_no.clone(), (id, points)).is_none(),
            "step {step_no} is graded twice"
        );
    }
    out
}

#[test]
fn the_classroom_points_are_the_weights_of_the_core_steps() {
    let tests = classroom_tests(&classroom_workflow());
    let points: BTreeMap<String, u64> = tests.into_iter().map(|(k, (_, p))| (k, p)).collect();
    assert_eq!(points, core_weights());
}

#[test]
fn the_classroom_check_sees_a_changed_weight() {
    let text = classroom_workflow();
    let changed = text.replacen("max-score: ", "max-score: 7", 1);
    let points: BTreeMap<String, u64> = classroom_tests(&changed)
        .into_iter()
        .map(|(k, (_, p))| (k, p))
        .collect();
    assert_ne!(points, core_weights());
}

#[test]
fn the_classroom_reporter_adds_up_every_test() {
    let text = classroom_workflow();
    assert!(
        text.lines().any(|l| l == "name: Autograding Tests"),
        "GitHub Classroom reads the workflow named Autograding Tests"
    );
    assert_eq!(jobs(&text).len(), 1, "GitHub Classroom reads one job");
    let ids: Vec<String> = classroom_tests(&text)
        .into_values()
        .map(|(id, _)| id)
        .collect();
    let all = jobs(&text);
    let reporter = all["run-autograding-tests"]
        .steps
        .iter()
        .find(|s| {
            s.uses()
                .starts_with("classroom-resources/autograding-grading-reporter@")
        })
        .expect("a reporter step");
    let runners: Vec<String> = reporter
        .value("runners")
        .unwrap_or_default()
        .split(',')
        .map(|r| r.trim().to_string())
        .collect();
    assert_eq!(runners, ids);
    for id in &ids {
        let env = format!("{}_RESULTS", id.to_uppercase());
        assert_eq!(
            reporter.value(&env),
            Some(format!("${{{{ steps.{id}.outputs.result }}}}")),
            "{env}"
        );
    }
}
