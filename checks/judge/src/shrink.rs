//! Shrinking: when a random case fails, simpler inputs (from its step's
//! [`crate::suites::Step::shrink`]) are tried in its place (fewer digits, zeros and ones, canonical spellings),
//! and the simplest one that still fails is shown first. "Simpler" means a
//! shorter Rust call, so shrinking always ends; a candidate stays in the
//! domain of the clause that explains the input it started from
//! ([`crate::suites::Step::domain`]).

use crate::render;
use crate::suites::Check;
use lab_wire::Call;

/// How many rounds of candidates are tried at most.
pub const ROUNDS: usize = 12;

/// Candidate calls, each differing from `call` in one argument, shorter
/// first; only calls strictly shorter than `call` as a learner reads it.
pub fn candidates(step: &str, call: &Call) -> Vec<Call> {
    let this = crate::suites::step(step);
    let mut out = this.shrink(call);
    let size = render::call(step, call).len();
    // A shrink stays in the domain of the input it started from.
    let domain = this.domain(call);
    out.retain(|c| render::call(step, c).len() < size && this.domain(c) == domain);
    out.sort_by_key(|c| render::call(step, c).len());
    out
}

/// The candidate checks for one round.
pub fn round(check: &Check) -> Vec<Check> {
    let step = crate::suites::step(check.step);
    candidates(check.step, &check.call)
        .into_iter()
        .filter_map(|c| {
            step.expect(&c).map(|expect| Check {
                step: check.step,
                call: c,
                expect,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suites::Expect;
    use lab_wire::F64;

    #[test]
    fn candidates_are_strictly_shorter_and_simplest_first() {
        let call = Call::Backoff {
            attempt: 29,
            base: F64(15.71875),
            cap: F64(38.359375),
        };
        let cands = candidates("04", &call);
        assert!(!cands.is_empty());
        let size = render::call("04", &call).len();
        let sizes: Vec<usize> = cands.iter().map(|c| render::call("04", c).len()).collect();
        assert!(sizes.iter().all(|s| *s < size));
        assert!(sizes.windows(2).all(|w| w[0] <= w[1]));
    }

    #[test]
    fn wait_delay_locals_stay_finite_and_not_negative() {
        let call = Call::WaitDelay {
            local: F64(3.25),
            retry_after: Some(" 12x".into()),
        };
        for c in candidates("06", &call) {
            let Call::WaitDelay { local, .. } = c else {
                panic!()
            };
            assert!(local.0.is_finite() && local.0 >= 0.0);
        }
    }

    #[test]
    fn expectations_come_from_the_oracle() {
        let call = Call::Jitter {
            delay: F64(2.0),
            fraction: F64(0.25),
        };
        let expect = |step: &str, c: &Call| crate::suites::step(step).expect(c);
        assert_eq!(expect("05", &call), Some(Expect::Checked(Some(0.5))));
        assert_eq!(expect("01", &Call::Retryable { status: 1 }), None);
    }
}
