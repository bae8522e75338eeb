//! The learner's console: one libtest trial per clause, the familiar libtest
//! shape, then a plain `N passed, M failed` line.

use crate::catalog::{t, tr};
use crate::evaluate::StepResult;
use crate::limits::Limits;
use crate::render;
use crate::verdict::ClauseVerdict;
use libtest_mimic::{Arguments, Failed, Trial};
use std::io::IsTerminal;

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
            // In a scripted world one mistake fails many clauses: the first
            // failing clause is told in full (one input), each later one in
            // a line with its own first difference.
            let story = crate::suites::step(suite.step).scripted_world();
            let lead = result.verdicts[..clause]
                .iter()
                .position(|v| matches!(v, ClauseVerdict::Failed { .. }));
            if let (true, Some(lead), Some((i, f))) = (story, lead, faults.first()) {
                let first = t(&format!("clause.{}", suite.clauses[lead].key));
                let brief = render::brief(&checks[*i], f, suite.step, suite.function, limits);
                return Some(tr(
                    "fail.also",
                    &[("first", &first), ("brief", &brief), ("count", total)],
                ));
            }
            let shown = if story { 1 } else { faults.len() };
            let mut parts: Vec<String> = faults
                .iter()
                .take(shown)
                .map(|(i, f)| {
                    let mut text =
                        render::failure(&checks[*i], f, suite.step, suite.function, limits);
                    let printed = result.run.output.get(clause).and_then(|o| o.get(*i));
                    if let Some(Some(printed)) = printed {
                        text += &render::printed(printed);
                    }
                    text
                })
                .collect();
            let faults = &faults[..shown];
            if *total > faults.len() {
                parts.push(format!(
                    "  {}",
                    tr("fail.more", &[("count", &(total - faults.len()))])
                ));
            }
            Some(parts.join("\n\n"))
        }
    }
}

fn colour_wanted() -> bool {
    colour_allowed(
        std::env::var_os("NO_COLOR").as_deref(),
        std::io::stdout().is_terminal(),
    )
}

/// Colour on a terminal unless `NO_COLOR` holds a value: an empty
/// `NO_COLOR=` does not turn it off (no-color.org).
fn colour_allowed(no_color: Option<&std::ffi::OsStr>, terminal: bool) -> bool {
    terminal && no_color.is_none_or(|v| v.is_empty())
}

/// Prints the trials; returns (passed, failed, steps not started). A step
/// not started is one `ignored` trial, not one failure per clause, so that
/// a first check on the stubs fits on a screen.
pub fn report(results: &[StepResult], limits: &Limits) -> (u64, u64, u64) {
    let mut trials = Vec::new();
    let mut not_started = 0;
    for result in results {
        if result.not_started() {
            not_started += 1;
            let name = format!(
                "{} {} :: {}",
                result.suite.step,
                result.suite.function,
                t("trial.not_started")
            );
            trials.push(Trial::test(name, || Ok(())).with_ignored_flag(true));
            continue;
        }
        for (i, clause) in result.suite.clauses.iter().enumerate() {
            let name = trial_name(result.suite.step, result.suite.function, &clause.key);
            let text = failure_text(result, i, limits);
            trials.push(Trial::test(name, move || match text {
                None => Ok(()),
                Some(text) => Err(Failed::from(text)),
            }));
        }
    }
    let args = Arguments {
        test_threads: Some(1),
        color: Some(if colour_wanted() {
            libtest_mimic::ColorSetting::Always
        } else {
            libtest_mimic::ColorSetting::Never
        }),
        ..Arguments::default()
    };
    let conclusion = libtest_mimic::run(&args, trials);
    let printed: u64 = results.iter().map(|r| r.run.printed).sum();
    if printed > 0 {
        let mib = limits.output_cap >> 20;
        println!(
            "{}",
            tr("run.printed", &[("bytes", &printed), ("mib", &mib)])
        );
    }
    (conclusion.num_passed, conclusion.num_failed, not_started)
}

#[cfg(test)]
mod tests {
    use super::colour_allowed;
    use std::ffi::OsStr;

    #[test]
    fn only_a_non_empty_no_color_turns_colour_off() {
        assert!(colour_allowed(None, true));
        assert!(colour_allowed(Some(OsStr::new("")), true));
        assert!(!colour_allowed(Some(OsStr::new("1")), true));
        assert!(!colour_allowed(None, false));
    }
}
