//! Step 11's generated checks, clause by clause, then random ones: `admit`
//! calls (`admit.rs`), and `execute_admitted` scenarios whose expectations
//! the model gives (`execute.rs`). What both draw from is here.

mod admit;
mod execute;

pub(super) use admit::generated_admit;
pub(super) use execute::generated_execute;

use crate::rng::Gen;

const RETRYABLE: [u16; 2] = [429, 503];
/// Everything but the exact `GET`, replay-safe methods and near misses
/// included.
const UNSAFE: [&str; 20] = [
    "get",
    "Get",
    "HEAD",
    "PUT",
    "DELETE",
    "hEaD",
    "POST",
    "post",
    "PATCH",
    "OPTIONS",
    "TRACE",
    "CONNECT",
    " GET",
    "GET ",
    "G ET",
    "GETS",
    "ＧＥＴ",
    "",
    "DELETE\t",
    "poſt",
];
/// Invalid as a minimum gap or a reserve: not finite, or not above zero.
const BAD: [f64; 8] = [
    f64::NAN,
    f64::INFINITY,
    f64::NEG_INFINITY,
    0.0,
    -0.0,
    -0.015625,
    -1.0,
    -5e-324,
];
/// Retry-After fields a correct step-10 parser rejects, whatever it is.
const MALFORMED: [&[&str]; 12] = [
    &["soon"],
    &["5", "5"],
    &[""],
    &[" "],
    &["-1"],
    &["1.5"],
    &["+3"],
    &["3", ""],
    &["0x10"],
    &["5s"],
    &["2147483648"],
    &["1, 2"],
];

/// The one method retried.
fn safe_method() -> String {
    "GET".to_string()
}

fn final_status(g: &mut Gen) -> u16 {
    loop {
        let s = if g.chance(3, 4) {
            g.int(100, 599) as u16
        } else {
            g.below(65536) as u16
        };
        if !RETRYABLE.contains(&s) {
            return s;
        }
    }
}

fn malformed(g: &mut Gen) -> Vec<&'static str> {
    g.pick(&MALFORMED).to_vec()
}

#[cfg(test)]
mod tests {
    use super::super::model;
    use super::super::view::show_input;
    use super::super::ThisStep;
    use crate::suites::Expect;
    use lab_scripts::s11::{Ending, Event, Observed, Reason, Script};

    const STEP: &str = ThisStep::ID;

    #[test]
    fn generated_scenarios_are_unambiguous_and_end() {
        for seed in 0..20 {
            let suite = crate::suites::build(STEP, seed);
            let checks: usize = suite.clauses.iter().map(|c| c.checks.len()).sum();
            assert!(checks < 700, "{checks} checks");
            for clause in &suite.clauses {
                for check in &clause.checks {
                    let lab_wire::Call::Advanced { input, .. } = &check.call else {
                        panic!("an advanced call");
                    };
                    if let Ok(Script::Execute(s)) = serde_json::from_value::<Script>(input.clone())
                    {
                        let run = model::execute(&s);
                        assert!(!run.ambiguous, "{}", show_input(input));
                        assert!(run.events.len() < 40, "{}", show_input(input));
                        let on_grid = |x: f64| !x.is_finite() || (x * 64.0).fract() == 0.0;
                        assert!(on_grid(s.deadline.0) && on_grid(s.start.0));
                    }
                }
            }
        }
    }

    #[test]
    fn generated_clauses_hit_their_outcomes() {
        // Each execute clause's generated cases reach the outcome it is about
        // at least once for a few seeds.
        for seed in 0..5 {
            let suite = crate::suites::build(STEP, seed);
            let count = |key: &str, want: &dyn Fn(&Observed) -> bool| -> usize {
                let clause = suite
                    .clauses
                    .iter()
                    .find(|c| c.key == format!("{STEP}/{key}"))
                    .unwrap();
                clause
                    .checks
                    .iter()
                    .filter(|c| match &c.expect {
                        Expect::Script(e) => {
                            e.as_any().downcast_ref::<Observed>().is_some_and(want)
                        }
                        _ => false,
                    })
                    .count()
            };
            let stopped = |r: Reason| move |o: &Observed| matches!(o, Observed::Execute { ending: Ending::Stopped { reason, .. }, .. } if *reason == r);
            assert!(count("late-success", &stopped(Reason::DeadlineReached)) > 0);
            assert!(count("cancel-after-response", &stopped(Reason::Cancelled)) > 0);
            assert!(count("malformed-retry-after", &stopped(Reason::InvalidRetryAfter)) > 0);
            let sleeps = |o: &Observed| matches!(o, Observed::Execute { events, .. } if events.iter().any(|e| matches!(e, Event::Sleep { .. })));
            assert!(count("close-before-wait", &sleeps) > 0);
            assert!(count("clock-after-wait", &sleeps) > 0);
        }
    }

    /// A step-11 failure that comes from parsing one of these fields
    /// shows in step 10 on the same value (and the console says so): each
    /// one-field value is a hand case of step 10.
    #[test]
    fn every_malformed_field_is_a_step_10_hand_case() {
        let table: Vec<serde_json::Value> = crate::suites::fixture::table("10");
        let fields: Vec<&str> = table
            .iter()
            .filter_map(|c| c.get("fields")?.as_array())
            .filter(|f| f.len() == 1)
            .filter_map(|f| f[0].as_str())
            .collect();
        for value in super::MALFORMED
            .iter()
            .filter(|m| m.len() == 1)
            .map(|m| m[0])
        {
            assert!(
                fields.contains(&value),
                "{value:?} is not a step 10 hand case"
            );
        }
    }
}
