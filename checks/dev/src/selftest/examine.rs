//! One subject checked: built in a slot, run, and its verdicts compared
//! with what it must come to.

use super::subjects::{Expectation, SourceFile, Subject};
use super::Examined;
use lab_judge::compile;
use lab_judge::evaluate::StepResult;
use lab_judge::limits::Limits;
use lab_judge::mistakes::Mistake;
use lab_judge::sections::{splice, splice_items};
use lab_judge::suites::{is_advanced, span};
use std::path::Path;

fn failed_clauses(results: &[StepResult]) -> Vec<String> {
    results
        .iter()
        .flat_map(|r| {
            r.suite
                .clauses
                .iter()
                .zip(&r.verdicts)
                .filter(|(_, v)| !v.is_pass())
                .map(|(c, _)| c.key.clone())
        })
        .collect()
}

/// A subject's files, read (a mutant or alternative spliced into the
/// reference).
fn sources(root: &Path, subject: &Subject) -> Result<compile::Sources, String> {
    type Rule = fn(&str, &str) -> Result<String, String>;
    let read = |p: &Path| std::fs::read(p).map_err(|e| format!("{}: {e}", p.display()));
    let text = |p: &Path| std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()));
    let load = |file: &SourceFile, reference: &str, rule: Rule| match file {
        SourceFile::Whole(path) => read(path),
        SourceFile::Spliced(part) => rule(&text(&root.join(reference))?, &text(part)?)
            .map(String::into_bytes)
            .map_err(|e| format!("{}: {e}", part.display())),
    };
    Ok(compile::Sources {
        lib: load(&subject.lib, "solutions/src/lib.rs", splice_items)?,
        advanced: subject
            .advanced
            .as_ref()
            .map(|file| load(file, "solutions/advanced.rs", splice))
            .transpose()?,
    })
}

/// The first line of `check --message-format json`'s events for these
/// results that breaks `docs/events.schema.json`, if any: the selftest's
/// mutant pass proves the stream well-formed on every mutant (and on the
/// stubs) of every step.
fn events_problem(
    results: &[StepResult],
    limits: &Limits,
    sources: &compile::Sources,
) -> Option<String> {
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    let lib = text(&sources.lib);
    let advanced = sources.advanced.as_deref().map(text).unwrap_or_default();
    for r in results {
        let (file, source) = if is_advanced(r.suite.step) {
            ("student/src/advanced.rs", &advanced)
        } else {
            ("student/src/lib.rs", &lib)
        };
        let items = lab_judge::suites::function_of(r.suite.step);
        let at = lab_judge::locate::locate(file, source, items);
        for line in lab_judge::events::step_lines(r, limits, &at) {
            if let Err(e) = lab_judge::events::validate::line(&line) {
                return Some(format!(
                    "its --message-format json events break docs/events.schema.json: {e}"
                ));
            }
        }
    }
    None
}

/// A subject checked; for a mutant, also its fingerprint as a known
/// mistake (`Some(None)`: it has none, see [`super::fingerprints::derive`]).
pub(super) fn examine(
    root: &Path,
    slot: &str,
    subject: &Subject,
    seed: u64,
) -> Result<(Examined, Option<Option<Mistake>>), String> {
    let mut derived = None;
    let examined = examine_into(root, slot, subject, seed, &mut derived)?;
    Ok((examined, derived))
}

/// The mutant's id as a known mistake: its file stem.
pub(super) fn mistake_id(subject: &Subject) -> &str {
    subject.name.rsplit('/').next().unwrap_or(&subject.name)
}

fn examine_into(
    root: &Path,
    slot: &str,
    subject: &Subject,
    seed: u64,
    derived: &mut Option<Option<Mistake>>,
) -> Result<Examined, String> {
    let steps: Vec<&'static str> = match &subject.expect {
        Expectation::PassAll(_, steps) | Expectation::NotStarted(steps) => steps.clone(),
        Expectation::Caught { clause } => {
            match lab_judge::suites::parse_step(clause.split('/').next().unwrap_or("")) {
                Some(step) => vec![step],
                None => {
                    return Ok((
                        false,
                        "header has no valid `// caught-by: NN/clause` line".into(),
                        None,
                    ))
                }
            }
        }
    };
    let sources = sources(root, subject)?;
    let core = steps.iter().any(|s| !is_advanced(s));
    let advanced = steps.iter().any(|s| is_advanced(s));
    let limits = Limits::default();
    let runners = compile::runners(root, &limits, Some((slot, &sources)), core, advanced)?;
    let core_runner = match &runners.core {
        Some(Err(e)) => return Ok((false, format!("does not compile:\n{e}"), None)),
        Some(Ok(path)) => Some(path.as_path()),
        None => None,
    };
    match &runners.advanced {
        compile::Advanced::DoesNotCompile(e) => {
            return Ok((false, format!("advanced.rs does not compile:\n{e}"), None))
        }
        compile::Advanced::Absent if advanced => {
            return Ok((false, "has no advanced.rs".into(), None));
        }
        _ => {}
    }
    let run = |steps: &[&'static str], seed: u64| {
        let prepared = lab_judge::evaluate::prepare(steps, seed);
        lab_judge::evaluate::run_with(core_runner, &runners.advanced, prepared, limits, 1)
            .map_err(|e| e.to_string())
    };
    match &subject.expect {
        Expectation::PassAll(seeds, _) => {
            for &s in seeds {
                let results = run(&steps, s)?;
                // No correct answer may read as a known mistake.
                if let Some((step, id)) = results
                    .iter()
                    .find_map(|r| lab_judge::mistakes::lookup(r).map(|id| (r.suite.step, id)))
                {
                    return Ok((
                        false,
                        format!("step {step} reads as the known mistake {id} under seed {s}"),
                        None,
                    ));
                }
                let failed = failed_clauses(&results);
                if !failed.is_empty() {
                    return Ok((
                        false,
                        format!("rejected under seed {s}: {}", failed.join(", ")),
                        None,
                    ));
                }
            }
            Ok((
                true,
                format!("passes steps {} under {} seeds", span(&steps), seeds.len()),
                None,
            ))
        }
        Expectation::NotStarted(_) => {
            let results = run(&steps, seed)?;
            if let Some(problem) = events_problem(&results, &limits, &sources) {
                return Ok((false, problem, None));
            }
            let started: Vec<&str> = results
                .iter()
                .filter(|r| !r.not_started())
                .map(|r| r.suite.step)
                .collect();
            if started.is_empty() {
                Ok((
                    true,
                    format!("steps {} fail as not implemented yet", span(&steps)),
                    None,
                ))
            } else {
                Ok((
                    false,
                    format!(
                        "steps {} do not read as not implemented",
                        started.join(", ")
                    ),
                    None,
                ))
            }
        }
        Expectation::Caught { clause } => {
            let step = steps[0];
            let results = run(&steps, seed)?;
            if let Some(problem) = events_problem(&results, &limits, &sources) {
                return Ok((false, problem, None));
            }
            let id = mistake_id(subject);
            let part = match (&subject.lib, &subject.advanced) {
                (SourceFile::Spliced(p), _) | (_, Some(SourceFile::Spliced(p))) => {
                    std::fs::read_to_string(p).unwrap_or_default()
                }
                _ => String::new(),
            };
            *derived = Some(
                if super::fingerprints::hostile(id, &part) || super::fingerprints::unsteady(&part) {
                    None
                } else {
                    results
                        .iter()
                        .find(|r| r.suite.step == step)
                        .and_then(|r| super::fingerprints::derive(id, r))
                },
            );
            let failed = failed_clauses(&results);
            let first = failed.first().cloned();
            if failed.is_empty() {
                Ok((false, format!("SURVIVED step {step}"), None))
            } else if failed.contains(clause) {
                let others = failed.len() - 1;
                Ok((
                    true,
                    format!(
                        "caught by {clause}{}",
                        if others > 0 {
                            format!(" (+{others} more)")
                        } else {
                            String::new()
                        }
                    ) + &match &first {
                        Some(f) if f != clause => format!("; first shown under {f}"),
                        _ => String::new(),
                    },
                    first.clone(),
                ))
            } else {
                Ok((
                    false,
                    format!("caught, but not by {clause}: {}", failed.join(", ")),
                    first,
                ))
            }
        }
    }
}
