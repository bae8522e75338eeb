//! The contract suites: eight core steps and five advanced ones. A suite is a list of clauses (one trial each);
//! a clause is a list of checks: the hand-written table's cases first, then
//! the generated ones, so the smallest failing input is shown first.

mod fixture;
mod s01;
mod s02;
mod s03;
mod s04;
mod s05;
mod s06;
mod s07;
mod s08;
mod s09;
mod s10;
mod s11;
mod s12;
mod s13;

use crate::rng::Gen;
use lab_wire::{Call, Ending, Event};

/// The steps, in order, with the learner function each one checks.
pub const STEPS: [(&str, &str); 8] = [
    ("01", "retryable"),
    ("02", "replay_safe"),
    ("03", "remaining"),
    ("04", "backoff"),
    ("05", "jitter"),
    ("06", "wait_delay"),
    ("07", "can_attempt"),
    ("08", "execute"),
];

/// The advanced (bonus) steps, with the learner items each one checks.
/// They are checked only when the learner has a `student/src/advanced.rs`.
pub const ADVANCED: [(&str, &str); 5] = [
    ("09", "Deadline"),
    ("10", "parse_retry_after"),
    ("11", "admit, execute_admitted"),
    ("12", "sleep_at_least"),
    ("13", "Gate, fan_out"),
];

pub fn is_advanced(step: &str) -> bool {
    ADVANCED.iter().any(|(s, _)| *s == step)
}

/// Every step, core then advanced.
pub fn all_steps() -> impl Iterator<Item = (&'static str, &'static str)> {
    STEPS.iter().chain(ADVANCED.iter()).copied()
}

/// The learner items a step checks, as shown in trial names.
pub fn function_of(step: &str) -> &'static str {
    all_steps()
        .find(|(s, _)| *s == step)
        .map_or("?", |(_, f)| f)
}

/// The learner's file a step lives in.
pub fn file_of(step: &str) -> &'static str {
    if is_advanced(step) {
        "student/src/advanced.rs"
    } else {
        "student/src/lib.rs"
    }
}

/// How the judge reads one advanced step's JSON: each advanced suite module
/// provides these, next to its `build`.
pub struct View {
    /// Whether an observed value is the expected one.
    pub same: fn(expected: &serde_json::Value, got: &serde_json::Value) -> bool,
    /// A script or call, as the learner reads it (Rust-like, may be several lines).
    pub input: fn(&serde_json::Value) -> String,
    /// An expected or observed value, as the learner reads it.
    pub value: fn(&serde_json::Value) -> String,
}

/// The view of an advanced step; `None` for a core step.
pub fn view(step: &str) -> Option<View> {
    let view = |same, input, value| View { same, input, value };
    Some(match step {
        "09" => view(s09::same, s09::show_input, s09::show_value),
        "10" => view(s10::same, s10::show_input, s10::show_value),
        "11" => view(s11::same, s11::show_input, s11::show_value),
        "12" => view(s12::same, s12::show_input, s12::show_value),
        "13" => view(s13::same, s13::show_input, s13::show_value),
        _ => return None,
    })
}

/// The protocol call of one advanced script.
pub fn advanced_call(step: &str, input: serde_json::Value) -> Call {
    Call::Advanced {
        step: step.to_string(),
        input,
    }
}

/// What the judge expects of one call.
#[derive(Debug, Clone, PartialEq)]
pub enum Expect {
    Bool(bool),
    /// Compared with `==`: -0.0 equals 0.0, NaN equals nothing.
    Float(f64),
    /// Any value at least 2^53 (a huge Retry-After).
    Huge,
    /// `Ok(x)` or, for `None`, `Err(InvalidArgument)`.
    Checked(Option<f64>),
    Trace {
        events: Vec<Event>,
        ending: Ending,
    },
    /// What an advanced step's script must observe, judged by the step's
    /// [`View::same`].
    Json {
        step: &'static str,
        value: serde_json::Value,
    },
}

#[derive(Debug, Clone)]
pub struct Check {
    pub call: Call,
    pub expect: Expect,
}

#[derive(Debug, Clone)]
pub struct Clause {
    /// Stable key such as `04/attempt-above-30`; its words live in the catalog.
    pub key: String,
    pub checks: Vec<Check>,
}

#[derive(Debug, Clone)]
pub struct Suite {
    pub step: &'static str,
    pub function: &'static str,
    pub clauses: Vec<Clause>,
}

/// Collects checks under their clause keys, keeping the declared order.
pub struct Builder {
    step: &'static str,
    clauses: Vec<Clause>,
}

impl Builder {
    pub fn new(step: &'static str, keys: &[&str]) -> Builder {
        let clauses = keys
            .iter()
            .map(|k| Clause {
                key: format!("{step}/{k}"),
                checks: Vec::new(),
            })
            .collect();
        Builder { step, clauses }
    }

    /// Adds a check to a clause; an unknown key is a kit bug, caught by tests.
    pub fn add(&mut self, key: &str, call: Call, expect: Expect) {
        let full = format!("{}/{key}", self.step);
        match self.clauses.iter_mut().find(|c| c.key == full) {
            Some(clause) => clause.checks.push(Check { call, expect }),
            None => panic!("clause {full} is not declared"),
        }
    }

    /// Adds a check of an advanced step: its script and what the script
    /// must observe, both serialised as the step's JSON.
    pub fn add_script(
        &mut self,
        key: &str,
        script: &impl serde::Serialize,
        expected: &impl serde::Serialize,
    ) {
        let input = serde_json::to_value(script).expect("scripts serialise");
        let value = serde_json::to_value(expected).expect("observations serialise");
        let call = advanced_call(self.step, input);
        self.add(
            key,
            call,
            Expect::Json {
                step: self.step,
                value,
            },
        );
    }

    fn finish(self, function: &'static str) -> Suite {
        Suite {
            step: self.step,
            function,
            clauses: self.clauses,
        }
    }
}

/// Normalises a step argument: "4", "04" → "04"; "9" … "13" are advanced.
pub fn parse_step(text: &str) -> Option<&'static str> {
    let n: u8 = text.parse().ok()?;
    all_steps()
        .map(|(s, _)| s)
        .find(|s| s.parse::<u8>().ok() == Some(n))
}

/// Builds one step's suite for a run's seed.
pub fn build(step: &str, seed: u64) -> Suite {
    let mut g = Gen::fork(seed, step);
    let (b, function) = match step {
        "01" => (s01::build(&mut g), "retryable"),
        "02" => (s02::build(&mut g), "replay_safe"),
        "03" => (s03::build(&mut g), "remaining"),
        "04" => (s04::build(&mut g), "backoff"),
        "05" => (s05::build(&mut g), "jitter"),
        "06" => (s06::build(&mut g), "wait_delay"),
        "07" => (s07::build(&mut g), "can_attempt"),
        "08" => (s08::build(&mut g), "execute"),
        "09" => (s09::build(&mut g), function_of("09")),
        "10" => (s10::build(&mut g), function_of("10")),
        "11" => (s11::build(&mut g), function_of("11")),
        "12" => (s12::build(&mut g), function_of("12")),
        "13" => (s13::build(&mut g), function_of("13")),
        other => unreachable!("step {other} was validated by the caller"),
    };
    b.finish(function)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_suite_builds_and_every_clause_has_checks() {
        for (step, _) in all_steps() {
            let suite = build(step, 42);
            for clause in &suite.clauses {
                assert!(!clause.checks.is_empty(), "{} has no checks", clause.key);
            }
        }
    }

    #[test]
    fn the_same_seed_builds_the_same_suites() {
        for (step, _) in all_steps() {
            let (a, b) = (build(step, 9), build(step, 9));
            let calls = |s: &Suite| -> Vec<Call> {
                s.clauses
                    .iter()
                    .flat_map(|c| c.checks.iter().map(|k| k.call.clone()))
                    .collect()
            };
            assert_eq!(calls(&a), calls(&b), "step {step}");
        }
    }

    #[test]
    fn step_arguments_are_normalised() {
        assert_eq!(parse_step("4"), Some("04"));
        assert_eq!(parse_step("08"), Some("08"));
        assert_eq!(parse_step("9"), Some("09"));
        assert_eq!(parse_step("13"), Some("13"));
        assert_eq!(parse_step("14"), None);
        assert_eq!(parse_step("0"), None);
        assert_eq!(parse_step("x"), None);
    }
}
