//! Known mistakes: the kit's own wrong solutions (the mutants in each step's
//! folder, `checks/judge/src/suites/sNN/mutants/`), each told by what it
//! answers on its step's hand-written table cases.
//!
//! A mistake's fingerprint is a hash of its canonical answers on every
//! table case of its step, in the suite's order. An answer is canonical
//! when it depends on nothing a seed draws: a returned value is its JSON
//! with every random id of the case's input (such as a response body,
//! `body-` and 16 hex digits) written as its place among the input's ids,
//! and a panic is only a panic (its message and place are left out). A case
//! that timed out, crashed, flooded, ran away or did not run has no answer,
//! and neither has its step.
//!
//! `fixtures/mistakes.json` holds the fingerprints. The self-test derives
//! them again from the mutants it runs and fails when the file is stale;
//! `lab-dev selftest --write-mistakes` rewrites it. Its words are in the
//! catalogs as `mistake.<id>` (`fixtures/i18n/{en,zh}/mistakes.json`).
//!
//! A learner's failing step whose table answers are exactly a known
//! mistake's is named by that mistake ([`matched`]). Only an exact match on
//! every table case counts: a wrong diagnosis is worse than none. Mistakes
//! of one step that share a fingerprint do the same wrong thing on every
//! table case: they are named by the first of them by id, whose words are
//! written to fit them all.

use crate::evaluate::StepResult;
use crate::hash::fnv1a;
use crate::session::Got;
use crate::suites::fixture_counts;
use lab_wire::Observed;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// The stored fingerprints, embedded at build time.
const DATA: &str = include_str!("../../../fixtures/mistakes.json");

/// Where the stored fingerprints live, from the kit's root.
pub const FILE: &str = "fixtures/mistakes.json";

/// Clauses whose table cases run the learner's code on several threads at
/// once, left out of every fingerprint. `13/gate-threads` plays fixed
/// schedules now (a racy gate fails it every time), but a gate with its
/// own lock is let go after a time-out, so its answers there are still
/// not fixed by the seed alone.
const UNSTEADY: &[&str] = &["13/gate-threads"];

/// How many of a clause's first checks count towards fingerprints: its
/// table cases, none for an [`UNSTEADY`] clause.
fn counted(step: &str, key: &str) -> usize {
    if UNSTEADY.contains(&key) {
        return 0;
    }
    fixture_counts(step).get(key).copied().unwrap_or(0)
}

/// One mutant's fingerprint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Mistake {
    /// The mutant's file stem, e.g. `02-head-forgotten`.
    pub id: String,
    pub step: String,
    /// The clauses whose table cases it fails (`NN/clause`).
    pub clauses: Vec<String>,
    /// [`fnv1a`] of its canonical table answers, 16 hex digits.
    pub answers: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Stored {
    note: String,
    mistakes: Vec<Mistake>,
}

/// Reads a mistakes file.
pub fn parse(text: &str) -> Result<Vec<Mistake>, String> {
    serde_json::from_str::<Stored>(text)
        .map(|s| s.mistakes)
        .map_err(|e| format!("{FILE}: {e}"))
}

/// The stored mistakes, read once.
pub fn known() -> &'static [Mistake] {
    static KNOWN: OnceLock<Vec<Mistake>> = OnceLock::new();
    KNOWN.get_or_init(|| parse(DATA).expect("fixtures/mistakes.json is valid"))
}

/// Per step and fingerprint, the mistake it names: of two or more mistakes
/// of one step that share a fingerprint, the first by id (their words are
/// written to fit them all).
fn index() -> &'static Index {
    static INDEX: OnceLock<Index> = OnceLock::new();
    INDEX.get_or_init(|| index_of(known()))
}

fn index_of(mistakes: &[Mistake]) -> Index {
    let mut map = Index::new();
    for m in mistakes {
        map.entry((m.step.clone(), m.answers.clone()))
            .and_modify(|id| {
                if m.id < *id {
                    id.clone_from(&m.id);
                }
            })
            .or_insert_with(|| m.id.clone());
    }
    map
}

/// The ids that a learner can be told (the first by id of each
/// fingerprint): the ones that need words in the catalogs.
pub fn nameable() -> Vec<String> {
    index().values().cloned().collect()
}

/// The random ids in `text`: runs of exactly 16 lowercase hex digits right
/// after a `-` (what [`crate::rng::Gen::id`] draws after a prefix such as
/// `body-`), in order, each once.
fn ids_in(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    let hex = |b: u8| b.is_ascii_digit() || (b'a'..=b'f').contains(&b);
    let mut out: Vec<&str> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'-' {
            let start = i + 1;
            let mut end = start;
            while end < bytes.len() && hex(bytes[end]) {
                end += 1;
            }
            let bounded = end == bytes.len() || !bytes[end].is_ascii_alphanumeric();
            if end - start == 16 && bounded {
                let id = &text[start..end];
                if !out.contains(&id) {
                    out.push(id);
                }
            }
            i = end.max(i + 1);
        } else {
            i += 1;
        }
    }
    out
}

/// Whether `text` holds 16 hex digits in a row (where an id could be).
fn hex_run(text: &str) -> bool {
    let mut run = 0;
    for b in text.bytes() {
        run = if b.is_ascii_hexdigit() { run + 1 } else { 0 };
        if run == 16 {
            return true;
        }
    }
    false
}

/// One case's answer with nothing a seed draws: see the module's notes.
/// `None` when the case has no answer (a fault, or not run).
pub fn canonical(call: &lab_wire::Call, got: &Got) -> Option<String> {
    match got {
        Got::Observed(Observed::Returned { value }) => {
            let mut text = serde_json::to_string(value).ok()?;
            // No id can be in an answer without 16 hex digits in a row:
            // most answers need no look at their input.
            if !hex_run(&text) {
                return Some(text);
            }
            let input = serde_json::to_string(call).ok()?;
            for (k, id) in ids_in(&input).into_iter().enumerate() {
                text = text.replace(id, &format!("#{k}"));
            }
            Some(text)
        }
        Got::Observed(Observed::Panicked { todo: true, .. }) => Some("todo".into()),
        Got::Observed(Observed::Panicked { todo: false, .. }) => Some("panicked".into()),
        Got::Observed(Observed::Runaway { .. })
        | Got::TimedOut(_)
        | Got::CutShort
        | Got::Crashed { .. }
        | Got::Flooded
        | Got::Forged(_)
        | Got::Skipped
        | Got::NotRun => None,
    }
}

/// The canonical answers on the step's table cases (but those of
/// [`UNSTEADY`] clauses), in the suite's order (`clause`, index in the
/// clause, answer); `None` when one has no answer.
pub fn table_answers(result: &StepResult) -> Option<Vec<(String, usize, String)>> {
    let mut out = Vec::new();
    for (c, clause) in result.suite.clauses.iter().enumerate() {
        let n = counted(result.suite.step, &clause.key);
        let got = result.run.got.get(c)?;
        for i in 0..n {
            let answer = canonical(&clause.checks.get(i)?.call, got.get(i)?)?;
            out.push((clause.key.clone(), i, answer));
        }
    }
    Some(out)
}

/// The fingerprint of `answers`: FNV-1a 64 of one line per case.
pub fn fingerprint(answers: &[(String, usize, String)]) -> String {
    let mut text = String::new();
    for (clause, i, answer) in answers {
        text += &format!("{clause}\t{i}\t{answer}\n");
    }
    format!("{:016x}", fnv1a(text.as_bytes()))
}

/// The clauses whose table cases the step's answers fail, in order (but
/// the [`UNSTEADY`] ones).
pub fn table_failures(result: &StepResult) -> Vec<String> {
    result
        .suite
        .clauses
        .iter()
        .enumerate()
        .filter(|(c, clause)| {
            let n = counted(result.suite.step, &clause.key);
            let got = result.run.got.get(*c);
            clause.checks.iter().take(n).enumerate().any(|(i, check)| {
                got.and_then(|g| g.get(i))
                    .is_none_or(|g| crate::verdict::judge(check, g).is_some())
            })
        })
        .map(|(_, clause)| clause.key.clone())
        .collect()
}

/// A mutant's fingerprint from its step's result: `None` when a table case
/// has no answer, or when it fails no table case (it is caught only by
/// generated cases, and its table answers tell it from no correct one).
pub fn derive(id: &str, result: &StepResult) -> Option<Mistake> {
    let answers = table_answers(result)?;
    let clauses = table_failures(result);
    if clauses.is_empty() {
        return None;
    }
    Some(Mistake {
        id: id.to_string(),
        step: result.suite.step.to_string(),
        clauses,
        answers: fingerprint(&answers),
    })
}

/// The known mistake whose fingerprint `result`'s table answers have, if
/// one alone has it, whatever the step's verdicts.
pub fn lookup(result: &StepResult) -> Option<&'static str> {
    lookup_in(index(), result)
}

type Index = BTreeMap<(String, String), String>;

fn lookup_in<'a>(index: &'a Index, result: &StepResult) -> Option<&'a str> {
    let answers = table_answers(result)?;
    let key = (result.suite.step.to_string(), fingerprint(&answers));
    index.get(&key).map(String::as_str)
}

/// The known mistake a failing step shows: `None` for a step that passes,
/// was not started or could not run, and for answers that are no known
/// mistake's on every table case.
pub fn matched(result: &StepResult) -> Option<&'static str> {
    matched_in(index(), result)
}

fn matched_in<'a>(index: &'a Index, result: &StepResult) -> Option<&'a str> {
    let failed = !result
        .verdicts
        .iter()
        .all(crate::verdict::ClauseVerdict::is_pass);
    if !failed || result.not_started() || result.could_not_run() {
        return None;
    }
    lookup_in(index, result)
}

/// The line `check` adds after a step's first failure when it matched.
pub fn line(id: &str) -> String {
    crate::catalog::tr(
        "mistake.known",
        &[("description", &crate::catalog::t(&format!("mistake.{id}")))],
    )
}

#[cfg(test)]
mod tests;
