//! `lab-dev selftest`: proves the checker against known answers, through
//! the same slot path a learner's submission takes. The reference solution
//! must pass every step under many seeds, the pristine stubs must fail every
//! step as "not implemented", every alternative must pass, and every mutant
//! must be caught by the clause its header names. A core mutant replaces
//! one or more functions of the reference `solutions/src/lib.rs` (see
//! [`splice_items`]). The advanced steps' reference is
//! `solutions/advanced.rs`; their mutants and alternatives replace one step's
//! section of it (see [`splice`]).
//!
//! `subjects.rs` lists the subjects and what each must come to,
//! `examine.rs` checks one, `class.rs` grades the sample class,
//! `scores.rs` prints the mutation score and measures first failures and
//! `editor.rs` asks rust-analyzer whether it sees both learner files.

mod class;
mod editor;
mod examine;
mod fingerprints;
mod scores;
mod subjects;

pub use subjects::caught_by;

pub use lab_judge::cli::SelftestArgs;

use class::grade_sample_class;
use examine::examine;
use fingerprints as mistakes;
use fingerprints::Mistake;
use lab_judge::status;
use scores::{first_failure_findings, print_scores};
use std::path::Path;
use subjects::{subjects, Expectation, Subject};

/// What one subject (or one graded sample submission) came to.
struct Finding {
    kind: &'static str,
    name: String,
    /// For a mutant, the clause its header names.
    caught_by: Option<String>,
    /// For a mutant, the first failure a learner is shown (`NN/clause`).
    first: Option<String>,
    ok: bool,
    detail: String,
    /// For a mutant, its id and its fingerprint as a known mistake, if it
    /// has one.
    mistake: Option<(String, Option<Mistake>)>,
}

impl Finding {
    fn of(
        subject: Subject,
        ((ok, detail, first), derived): (Examined, Option<Option<Mistake>>),
    ) -> Finding {
        let mistake = derived.map(|d| (examine::mistake_id(&subject).to_string(), d));
        let caught_by = match subject.expect {
            Expectation::Caught { clause } => Some(clause),
            Expectation::PassAll(..) | Expectation::NotStarted(_) => None,
        };
        Finding {
            kind: subject.kind,
            name: subject.name,
            caught_by,
            first,
            ok,
            detail,
            mistake,
        }
    }
}

/// Whether a subject met its expectation, what to print, and for a mutant
/// the first failure shown.
type Examined = (bool, String, Option<String>);

pub fn run(root: &Path, args: &SelftestArgs) -> u8 {
    let seed = args.seed.unwrap_or_else(lab_judge::rng::fresh_seed);
    let rerun = format!("./lab.sh selftest --seed {seed}");
    println!("selftest seed {seed} — rerun exactly with: {rerun}");
    let problems = crate::audit::problems(root);
    for problem in &problems {
        println!("registry check: {problem}");
    }
    if !problems.is_empty() {
        println!("{} passed, {} failed", 0, problems.len());
        return status::FAILED;
    }
    println!("registry check: every registered step has its files, and no file is stray");
    let subjects = subjects(root, args, seed);
    let total = subjects.len();
    let mut findings = Vec::new();
    let work = |j: usize, subject: Subject| {
        examine(root, &format!("selftest-{j}"), &subject, seed)
            .map(|examined| Finding::of(subject, examined))
    };
    // The sample class holds hostile submissions whose verdicts are the
    // jail's (a fork refused, say): it is graded on the Linux layer only.
    let with_class = args.only.as_deref().is_none_or(|o| "class".starts_with(o))
        && lab_judge::platform::layer() == lab_judge::platform::Layer::Linux;
    // The sample class is graded beside the subjects, in slots of its own:
    // several of its submissions wait out a time limit, and the subjects
    // use the processors meanwhile. Its findings are printed after theirs.
    // rust-analyzer is asked once, on the Linux layer's run, beside the
    // subjects (what it reads does not depend on the layer).
    let with_editor = args.only.as_deref().is_none_or(|o| "editor".starts_with(o))
        && lab_judge::platform::layer() == lab_judge::platform::Layer::Linux;
    let (pooled, class, editor) = std::thread::scope(|scope| {
        let class = with_class.then(|| scope.spawn(|| grade_sample_class(root, seed)));
        let editor = with_editor.then(|| scope.spawn(|| editor::check(root)));
        let pooled = lab_judge::pool::run("selftest", args.jobs, subjects, work, |result| {
            let f = result?;
            print_finding(&f);
            findings.push(f);
            Ok(())
        });
        let class = class.map(|h| {
            h.join()
                .unwrap_or_else(|_| Err("grading the sample class panicked".to_string()))
        });
        let editor = editor.map(|h| {
            h.join()
                .unwrap_or_else(|_| (false, "asking rust-analyzer panicked".to_string()))
        });
        (pooled, class, editor)
    });
    if let Err(e) = pooled {
        eprintln!("lab: the kit itself failed: {e}");
        return status::KIT_ERROR;
    }
    let examined: Vec<(String, Option<Mistake>)> =
        findings.iter().filter_map(|f| f.mistake.clone()).collect();
    if !examined.is_empty() {
        let every = subjects::mutant_ids(root);
        let complete = every.iter().all(|id| examined.iter().any(|(e, _)| e == id));
        let f = known_mistakes(root, &examined, complete, args.write_mistakes);
        print_finding(&f);
        findings.push(f);
    }
    if let Some(class) = class {
        match class {
            Ok(class) => {
                for f in class {
                    print_finding(&f);
                    findings.push(f);
                }
            }
            Err(e) => {
                eprintln!("lab: the kit itself failed: {e}");
                return status::KIT_ERROR;
            }
        }
    }
    if let Some((ok, detail)) = editor {
        let f = Finding {
            kind: "editor",
            name: "rust-analyzer".into(),
            caught_by: None,
            first: None,
            ok,
            detail,
            mistake: None,
        };
        print_finding(&f);
        findings.push(f);
    }
    // Measured on whole tracks only: a selection would skew the share.
    if args.only.is_none() {
        for f in first_failure_findings(root, &findings) {
            print_finding(&f);
            findings.push(f);
        }
    }
    print_scores(&findings);
    let passed = findings.iter().filter(|f| f.ok).count();
    let failed = findings.len() - passed;
    println!("selftest seed {seed} — rerun exactly with: {rerun}");
    println!("{passed} passed, {failed} failed");
    if failed == 0 && findings.len() >= total {
        status::PASSED
    } else {
        status::FAILED
    }
}

/// The stored fingerprints against the ones just derived (or, with
/// `write`, rewritten from them).
fn known_mistakes(
    root: &Path,
    examined: &[(String, Option<Mistake>)],
    complete: bool,
    write: bool,
) -> Finding {
    let path = root.join(mistakes::FILE);
    let stored = std::fs::read_to_string(&path)
        .map_err(|e| format!("{}: {e}", path.display()))
        .and_then(|text| mistakes::parse(&text));
    let (ok, detail) = match stored {
        Err(e) if !write => (false, e),
        stored if write => {
            let kept = if complete {
                Vec::new()
            } else {
                stored.unwrap_or_default()
            };
            let text = mistakes::render(&mistakes::updated(&kept, examined));
            match std::fs::write(&path, text) {
                Ok(()) => (
                    true,
                    format!("rewrote {} from {} mutants", mistakes::FILE, examined.len()),
                ),
                Err(e) => (false, format!("{}: {e}", path.display())),
            }
        }
        stored => {
            let stale = mistakes::stale(&stored.unwrap_or_default(), examined, complete);
            if stale.is_empty() {
                let with = examined.iter().filter(|(_, m)| m.is_some()).count();
                (
                    true,
                    format!(
                        "{with} of {} mutants have their fingerprints in {}",
                        examined.len(),
                        mistakes::FILE
                    ),
                )
            } else {
                (
                    false,
                    format!(
                        "{} is stale (rewrite it with: {}):\n  {}",
                        mistakes::FILE,
                        mistakes::REWRITE,
                        stale.join("\n  ")
                    ),
                )
            }
        }
    };
    Finding {
        kind: "mistakes",
        name: mistakes::FILE.to_string(),
        caught_by: None,
        first: None,
        ok,
        detail,
        mistake: None,
    }
}

fn print_finding(f: &Finding) {
    let mark = if f.ok { "ok  " } else { "FAIL" };
    println!("{mark} {:<12} {:<44} {}", f.kind, f.name, f.detail);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mistake(answers: &str) -> Mistake {
        Mistake {
            id: "02-head-forgotten".into(),
            step: "02".into(),
            clauses: vec!["02/safe-methods".into()],
            answers: answers.into(),
        }
    }

    #[test]
    fn an_edited_mistakes_file_is_stale_until_rewritten() {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(root.path().join("fixtures")).unwrap();
        let path = root.path().join(mistakes::FILE);
        let derived = mistake("00f446e41d3124fc");
        let examined = vec![(derived.id.clone(), Some(derived.clone()))];
        std::fs::write(&path, mistakes::render(std::slice::from_ref(&derived))).unwrap();
        let fresh = known_mistakes(root.path(), &examined, false, false);
        assert!(fresh.ok, "{}", fresh.detail);
        // A hand edit of one hash.
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, text.replace("00f446e41d3124fc", "00f446e41d3124fd")).unwrap();
        let edited = known_mistakes(root.path(), &examined, false, false);
        assert!(!edited.ok);
        assert!(
            edited.detail.contains(mistakes::REWRITE),
            "{}",
            edited.detail
        );
        assert!(
            edited.detail.contains("02-head-forgotten"),
            "{}",
            edited.detail
        );
        // A line for a mutant that is gone, once every mutant ran.
        let mut extra = derived.clone();
        extra.id = "02-gone".into();
        std::fs::write(&path, mistakes::render(&[derived, extra])).unwrap();
        assert!(known_mistakes(root.path(), &examined, false, false).ok);
        let complete = known_mistakes(root.path(), &examined, true, false);
        assert!(complete.detail.contains("02-gone"), "{}", complete.detail);
        // The maintainers' command writes it back.
        let rewritten = known_mistakes(root.path(), &examined, true, true);
        assert!(rewritten.ok, "{}", rewritten.detail);
        assert!(known_mistakes(root.path(), &examined, true, false).ok);
    }
}
