//! The eight contract suites. A suite is a list of clauses (one trial each);
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

use crate::rng::Gen;
use lab_api::wire::{Call, Ending, Event};

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

    fn finish(self, function: &'static str) -> Suite {
        Suite {
            step: self.step,
            function,
            clauses: self.clauses,
        }
    }
}

/// Normalises a step argument: "4", "04" → "04".
pub fn parse_step(text: &str) -> Option<&'static str> {
    let n: u8 = text.parse().ok()?;
    STEPS
        .iter()
        .map(|(s, _)| *s)
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
        other => unreachable!("step {other} was validated by the caller"),
    };
    b.finish(function)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_suite_builds_and_every_clause_has_checks() {
        for (step, _) in STEPS {
            let suite = build(step, 42);
            for clause in &suite.clauses {
                assert!(!clause.checks.is_empty(), "{} has no checks", clause.key);
            }
        }
    }

    #[test]
    fn the_same_seed_builds_the_same_suites() {
        for (step, _) in STEPS {
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
        assert_eq!(parse_step("9"), None);
        assert_eq!(parse_step("x"), None);
    }
}
