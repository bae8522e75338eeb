//! The learner's console: one libtest trial per clause, the familiar libtest
//! shape, then a plain `N passed, M failed` line.

use crate::catalog::{t, tr};
use crate::evaluate::StepResult;
use crate::frame::Trial;
use crate::limits::Limits;
use crate::render;
use crate::verdict::ClauseVerdict;

/// How a check prints its trials (see `console::report`).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Console {
    /// Colour or not; `None`: on a terminal unless `NO_COLOR` says no.
    pub colour: Option<bool>,
    /// A dot for each passing trial (libtest's terse format), so that the
    /// first failure comes first.
    pub terse: bool,
}

impl Console {
    /// Colour on the standard output as it is now.
    pub fn colour_wanted() -> bool {
        use std::io::IsTerminal;
        colour_allowed(
            std::env::var_os("NO_COLOR").as_deref(),
            std::io::stdout().is_terminal(),
        )
    }
}

/// Colour on a terminal unless `NO_COLOR` holds a value: an empty
/// `NO_COLOR=` does not turn it off (no-color.org).
fn colour_allowed(no_color: Option<&std::ffi::OsStr>, terminal: bool) -> bool {
    terminal && no_color.is_none_or(|v| v.is_empty())
}

/// The trial name of a clause, e.g. `04 backoff :: rejects attempt above 30`.
pub fn trial_name(step: &str, function: &str, key: &str) -> String {
    format!("{step} {function} :: {}", t(&format!("clause.{key}")))
}

/// The text shown for a failed clause.
pub fn failure_text(result: &StepResult, clause: usize, limits: &Limits) -> Option<String> {
    let suite = &result.suite;
    match &result.verdicts[clause] {
        ClauseVerdict::Passed { .. } => None,
        // Said once per step; its other clauses point back to it.
        ClauseVerdict::NotImplemented
            if result.verdicts[..clause].contains(&ClauseVerdict::NotImplemented) =>
        {
            Some(match result.stub_reached() {
                Some(other) if other != suite.step => tr(
                    "fault.todo_elsewhere_again",
                    &[("step", &suite.step), ("other", &other)],
                ),
                _ => tr("fault.todo_again", &[("step", &suite.step)]),
            })
        }
        ClauseVerdict::NotImplemented => Some(match result.stub_reached() {
            Some(other) if other != suite.step => tr(
                "fault.todo_elsewhere",
                &[
                    ("step", &suite.step),
                    ("function", &suite.function),
                    ("other", &other),
                    ("other_function", &crate::suites::function_of(other)),
                ],
            ),
            _ => tr(
                "fault.todo",
                &[
                    ("step", &suite.step),
                    ("function", &suite.function),
                    ("file", &crate::suites::file_of(suite.step)),
                ],
            ),
        }),
        // Also said once per step.
        v @ (ClauseVerdict::NotAttempted | ClauseVerdict::NotBuilt) => {
            let first = !result.verdicts[..clause].contains(v);
            let key = match (v, first) {
                (ClauseVerdict::NotAttempted, true) => "fault.not_attempted",
                (ClauseVerdict::NotAttempted, false) => "fault.not_attempted_again",
                (_, true) => "fault.not_built",
                (_, false) => "fault.not_built_again",
            };
            Some(tr(key, &[("step", &suite.step)]))
        }
        ClauseVerdict::Failed { faults, total } => {
            let checks = &suite.clauses[clause].checks;
            // One mistake often fails several clauses: the first failing
            // clause of a step is told in full, each later one in a line
            // with its own first difference (one story). In a scripted
            // world the first is told with one input, its timeline being
            // long.
            let lead = result.verdicts[..clause]
                .iter()
                .position(|v| matches!(v, ClauseVerdict::Failed { .. }));
            let lead_fault = lead.and_then(|l| match &result.verdicts[l] {
                ClauseVerdict::Failed { faults, .. } => faults
                    .first()
                    .map(|(i, f)| (l, &suite.clauses[l].checks[*i], f)),
                _ => None,
            });
            if let (Some((lead, lead_check, lead_f)), Some((i, f))) = (lead_fault, faults.first()) {
                let first = t(&format!("clause.{}", suite.clauses[lead].key));
                let brief = render::brief(&checks[*i], f, suite.step, suite.function, limits);
                // An input that reads in one line is named too.
                let input = render::call(suite.step, &checks[*i].call);
                // Only with some evidence is a later failing clause told as
                // "probably the same mistake": the same input failing both,
                // the same difference (the same first differing line of a
                // timeline, or the same wrong answer where the same one was
                // expected), or a known mistake whose answers are these on
                // every table case (looked up last: it hashes them all).
                // Without any, two broken rules are two stories.
                let one_story = checks[*i].call == lead_check.call
                    || brief
                        == render::brief(lead_check, lead_f, suite.step, suite.function, limits)
                    || crate::mistakes::matched(result).is_some();
                if !one_story {
                    // Its own story: told in full below, as a first failure.
                    return Some(failed_in_full(result, clause, faults, *total, limits));
                }
                return Some(if input.lines().count() == 1 {
                    tr(
                        "fail.also_input",
                        &[
                            ("first", &first),
                            ("input", &input),
                            ("brief", &brief),
                            ("count", total),
                        ],
                    )
                } else {
                    tr(
                        "fail.also",
                        &[("first", &first), ("brief", &brief), ("count", total)],
                    )
                });
            }
            Some(failed_in_full(result, clause, faults, *total, limits))
        }
    }
}

/// A failed clause told in full: its first failures (one in a scripted
/// world, whose timeline is long), what they printed, and how many more.
fn failed_in_full(
    result: &StepResult,
    clause: usize,
    faults: &[(usize, crate::verdict::Fault)],
    total: usize,
    limits: &Limits,
) -> String {
    let suite = &result.suite;
    let checks = &suite.clauses[clause].checks;
    let scripted = crate::suites::step(suite.step).scripted_world();
    let shown = if scripted { 1 } else { faults.len() };
    let mut parts: Vec<String> = faults
        .iter()
        .take(shown)
        .map(|(i, f)| {
            let mut text = render::failure(&checks[*i], f, suite.step, suite.function, limits);
            let printed = result.run.output.get(clause).and_then(|o| o.get(*i));
            if let Some(Some(printed)) = printed {
                text += &render::printed(printed);
            }
            text
        })
        .collect();
    let faults = &faults[..shown];
    if total > faults.len() {
        parts.push(format!(
            "  {}",
            tr("fail.more", &[("count", &(total - faults.len()))])
        ));
    }
    parts.join("\n\n")
}

/// Prints the trials; returns (passed, failed, steps not started). A step
/// not started is one line after libtest's report, not a trial (libtest
/// would call a run of only those "ok"), and a step that waits for another
/// step's stub is one failed trial, not one per clause, so that a first
/// check on the stubs, or one after a `reset`, fits on a screen.
pub fn report(
    results: &[StepResult],
    limits: &Limits,
    options: Console,
    at: &dyn Fn(&str) -> crate::locate::Locator,
) -> (u64, u64, u64) {
    let mut named: Vec<(String, Option<String>)> = Vec::new();
    // The locator of each trial of `named`: its step's function.
    let mut places: Vec<String> = Vec::new();
    // Which result and clause each trial of `named` tells, if one alone.
    let mut origin: Vec<Option<(usize, usize)>> = Vec::new();
    let mut not_started = Vec::new();
    for (ri, result) in results.iter().enumerate() {
        let (step, function) = (result.suite.step, result.suite.function);
        let place = at(step).to_string();
        if result.not_started() {
            not_started.push(format!("{step} {function} :: {}", t("trial.not_started")));
            continue;
        }
        // Its rules that reach another step's stub are one trial, named
        // after that step; the rules that passed stay as they are.
        let waits_for = result.stub_reached().filter(|other| *other != step);
        let mut told_wait = false;
        // A known mistake is named once, after the step's first failure.
        let lead = result
            .verdicts
            .iter()
            .position(|v| matches!(v, ClauseVerdict::Failed { .. }));
        let known = lead.and(crate::mistakes::matched(result));
        for (i, clause) in result.suite.clauses.iter().enumerate() {
            let waits = matches!(result.verdicts[i], ClauseVerdict::NotImplemented);
            match waits_for {
                Some(other) if waits => {
                    if !told_wait {
                        told_wait = true;
                        let name = format!(
                            "{step} {function} :: {}",
                            tr("trial.waits", &[("other", &other)])
                        );
                        named.push((name, failure_text(result, i, limits)));
                        places.push(place.clone());
                        origin.push(None);
                    }
                }
                _ => {
                    let name = trial_name(step, function, &clause.key);
                    let mut text = failure_text(result, i, limits);
                    if let (Some(text), Some(id)) = (&mut text, known.filter(|_| lead == Some(i))) {
                        *text += &format!("\n\n{}", crate::mistakes::line(id));
                    }
                    named.push((name, text));
                    places.push(place.clone());
                    origin.push(Some((ri, i)));
                }
            }
        }
    }
    earlier_step_notes(results, &origin, &mut named);
    let trials: Vec<Trial> = named
        .into_iter()
        .zip(places)
        .map(|((name, text), at)| Trial {
            name,
            at: Some(crate::visible::line(&at).into_owned()),
            // The learner's message and output may hold controls a
            // terminal would act on: shown as escapes, like every report a
            // person reads.
            failure: text.map(|text| crate::visible::text(&text).into_owned()),
        })
        .collect();
    let colour = options.colour.unwrap_or_else(Console::colour_wanted);
    let (passed, failed) = if trials.is_empty() {
        (0, 0)
    } else {
        crate::frame::print(&trials, options.terse, colour)
    };
    if !not_started.is_empty() {
        crate::say!();
        for line in &not_started {
            crate::say!("{line}");
        }
    }
    let printed: u64 = results.iter().map(|r| r.run.printed).sum();
    if printed > 0 {
        let mib = limits.output_cap >> 20;
        crate::say!(
            "{}",
            tr("run.printed", &[("bytes", &printed), ("mib", &mib)])
        );
    }
    (passed, failed, not_started.len() as u64)
}

/// Steps that hand values to an earlier step's function: (step, the
/// earlier step, the key of the earlier step's inputs that holds those
/// values, the key of this step's inputs that holds them).
const HANDED_ON: &[(&str, &str, &str, &str)] = &[("11", "10", "fields", "retry_after")];

/// Every string in arrays under `key`, anywhere in `value`.
fn strings_under(value: &serde_json::Value, key: &str, out: &mut Vec<String>) {
    match value {
        serde_json::Value::Object(map) => {
            for (k, v) in map {
                if k == key {
                    if let serde_json::Value::Array(items) = v {
                        out.extend(items.iter().filter_map(|i| i.as_str().map(str::to_string)));
                    }
                }
                strings_under(v, key, out);
            }
        }
        serde_json::Value::Array(items) => {
            for item in items {
                strings_under(item, key, out);
            }
        }
        _ => {}
    }
}

/// The inputs of a step's failed checks, per clause.
fn failed_inputs(result: &StepResult, clause: usize) -> Vec<&serde_json::Value> {
    let ClauseVerdict::Failed { faults, .. } = &result.verdicts[clause] else {
        return Vec::new();
    };
    faults
        .iter()
        .filter_map(|(k, _)| result.suite.clauses[clause].checks.get(*k))
        .filter_map(|c| match &c.call {
            lab_wire::Call::Advanced { input, .. } => Some(input),
            _ => None,
        })
        .collect()
}

/// Under the first failed clause of a step whose failing check hands a
/// value to an earlier step's function, when that earlier step fails its
/// own checks on the same value in this run: a line that says so, so the
/// learner mends the earlier function first.
fn earlier_step_notes(
    results: &[StepResult],
    origin: &[Option<(usize, usize)>],
    named: &mut [(String, Option<String>)],
) {
    for (ri, result) in results.iter().enumerate() {
        let Some(&(_, earlier, theirs, ours)) =
            HANDED_ON.iter().find(|(s, ..)| *s == result.suite.step)
        else {
            continue;
        };
        let Some(before) = results.iter().find(|r| r.suite.step == earlier) else {
            continue;
        };
        let mut bad = Vec::new();
        for c in 0..before.suite.clauses.len() {
            for input in failed_inputs(before, c) {
                strings_under(input, theirs, &mut bad);
            }
        }
        if bad.is_empty() || result.not_started() || result.stub_reached().is_some() {
            continue;
        }
        for c in 0..result.suite.clauses.len() {
            let mut handed = Vec::new();
            for input in failed_inputs(result, c) {
                strings_under(input, ours, &mut handed);
            }
            let Some(value) = handed.iter().find(|v| bad.contains(v)) else {
                continue;
            };
            let at = origin.iter().position(|o| *o == Some((ri, c)));
            if let Some((_, Some(text))) = at.and_then(|k| named.get_mut(k)) {
                *text += &format!(
                    "\n\n{}",
                    tr(
                        "run.earlier_step_same_value",
                        &[
                            ("value", &format!("{value:?}")),
                            ("earlier", &earlier),
                            ("function", &crate::suites::function_of(earlier)),
                        ],
                    )
                );
            }
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_non_empty_no_color_turns_colour_off() {
        use std::ffi::OsStr;
        assert!(colour_allowed(None, true));
        assert!(colour_allowed(Some(OsStr::new("")), true));
        assert!(!colour_allowed(Some(OsStr::new("1")), true));
        assert!(!colour_allowed(None, false));
    }

    #[test]
    fn a_later_failing_clause_without_evidence_of_one_mistake_is_its_own_story() {
        let mut result = StepResult::unavailable("04", 1, ClauseVerdict::NotAttempted);
        result.suite = std::sync::Arc::new(crate::suites::build("04", 1));
        for v in result.verdicts.iter_mut() {
            *v = ClauseVerdict::Passed { checks: 1 };
        }
        // Two wrong answers where different ones were expected, on two
        // different inputs: nothing says they are one mistake.
        let (first, later) = (0, result.verdicts.len() - 1);
        result.verdicts[first] = ClauseVerdict::Failed {
            faults: vec![(
                0,
                crate::verdict::Fault::Wrong(lab_wire::Value::Checked { ok: None }),
            )],
            total: 1,
        };
        result.verdicts[later] = ClauseVerdict::Failed {
            faults: vec![(
                0,
                crate::verdict::Fault::Wrong(lab_wire::Value::Float {
                    value: lab_wire::F64(-7.5),
                }),
            )],
            total: 1,
        };
        let limits = Limits::default();
        let also = crate::catalog::scoped(crate::catalog::Lang::En, || {
            failure_text(&result, later, &limits).unwrap()
        });
        assert!(!also.contains("probably"), "{also}");
        assert!(
            also.contains("expected:") && also.contains("-7.5"),
            "{also}"
        );
    }

    #[test]
    fn a_later_failing_clause_of_any_step_is_told_as_part_of_the_first_ones_story() {
        // Step 04 is a pure function, not a scripted world. The later
        // clause fails on the very input that fails the first: evidence.
        let mut result = StepResult::unavailable("04", 1, ClauseVerdict::NotAttempted);
        let mut suite = crate::suites::build("04", 1);
        let last = suite.clauses.len() - 1;
        suite.clauses[last].checks[0] = suite.clauses[0].checks[0].clone();
        result.suite = std::sync::Arc::new(suite);
        for v in result.verdicts.iter_mut() {
            *v = ClauseVerdict::Passed { checks: 1 };
        }
        let wrong = ClauseVerdict::Failed {
            faults: vec![(
                0,
                crate::verdict::Fault::Wrong(lab_wire::Value::Checked { ok: None }),
            )],
            total: 2,
        };
        let (first, later) = (0, result.verdicts.len() - 1);
        result.verdicts[first] = wrong.clone();
        result.verdicts[later] = wrong;
        let limits = Limits::default();
        let (lead, also, name) = crate::catalog::scoped(crate::catalog::Lang::En, || {
            (
                failure_text(&result, first, &limits).unwrap(),
                failure_text(&result, later, &limits).unwrap(),
                t(&format!("clause.{}", result.suite.clauses[first].key)),
            )
        });
        assert!(!lead.contains("probably"), "{lead}");
        assert!(also.contains("probably by the same mistake"), "{also}");
        assert!(also.contains(&name), "{also}");
        assert!(also.contains("backoff("), "the input is named: {also}");
        assert_eq!(also.lines().count(), 1, "{also}");
    }
}
