//! Shrinking: when a random case of steps 02–08 fails, simpler inputs are
//! tried in its place (fewer digits, zeros and ones, canonical spellings),
//! and the simplest one that still fails is shown first. "Simpler" means a
//! shorter Rust call, so shrinking always ends.

use crate::oracle;
use crate::render;
use crate::suites::{Check, Expect};
use lab_wire::{Call, Scenario, F64};

/// How many rounds of candidates are tried at most.
pub const ROUNDS: usize = 12;

fn simpler_floats(x: f64, non_negative: bool) -> Vec<f64> {
    let mut out = vec![
        0.0,
        1.0,
        0.5,
        x.trunc(),
        x.round(),
        (x * 32.0).round() / 64.0,
        x.abs(),
    ];
    if !non_negative {
        out.push(-1.0);
    }
    out.retain(|c| c.to_bits() != x.to_bits() && (!non_negative || (c.is_finite() && *c >= 0.0)));
    out
}

fn simpler_ints(n: u32) -> Vec<u32> {
    let mut out = vec![0, 1, 2, n / 2, n.saturating_sub(1)];
    out.retain(|c| *c != n);
    out
}

fn simpler_texts(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = vec![text.trim().to_string(), text.to_ascii_uppercase()];
    for i in 0..chars.len().min(48) {
        let mut shorter = chars.clone();
        shorter.remove(i);
        out.push(shorter.into_iter().collect());
    }
    out.retain(|c| c != text);
    out
}

/// Simpler worlds for a failing scenario: fewer replies, no oversleep, no
/// gap, round times and fractions, a smaller attempt limit. Every one is
/// still a world in which a correct `execute` ends (replies run out into the
/// final 200).
fn simpler_scenarios(s: &Scenario) -> Vec<Scenario> {
    let mut out = Vec::new();
    let mut with = |change: &dyn Fn(&mut Scenario)| {
        let mut t = s.clone();
        change(&mut t);
        if t != *s {
            out.push(t);
        }
    };
    with(&|t| {
        t.replies.pop();
    });
    with(&|t| t.oversleep.iter_mut().for_each(|x| *x = F64(0.0)));
    with(&|t| t.gap = F64(0.0));
    with(&|t| t.start = F64(0.0));
    with(&|t| t.timeout = F64(t.timeout.0.ceil()));
    with(&|t| t.maximum = t.maximum.min(t.replies.len() as u32 + 1).max(1));
    for k in 0..s.replies.len() {
        with(&|t| t.replies[k].cost = F64((t.replies[k].cost.0 * 4.0).round() / 4.0));
        with(&|t| t.replies[k].retry_after = None);
    }
    for k in 0..s.fractions.len() {
        for f in [0.0, 1.0, 0.5] {
            with(&|t| t.fractions[k] = F64(f));
        }
    }
    with(&|t| t.fallback.cost = F64(0.25));
    out
}

/// Candidate calls, each differing from `call` in one argument.
pub fn candidates(call: &Call) -> Vec<Call> {
    let mut out = Vec::new();
    match call {
        Call::ReplaySafe { method, key } => {
            for m in simpler_texts(method) {
                out.push(Call::ReplaySafe {
                    method: m,
                    key: key.clone(),
                });
            }
            let mut keys = vec![None, Some("k".to_string())];
            if let Some(k) = key {
                keys.extend(simpler_texts(k).into_iter().map(Some));
            }
            for k in keys.into_iter().filter(|k| k != key) {
                out.push(Call::ReplaySafe {
                    method: method.clone(),
                    key: k,
                });
            }
        }
        Call::Remaining { deadline, now } => {
            for d in simpler_floats(deadline.0, false) {
                out.push(Call::Remaining {
                    deadline: F64(d),
                    now: *now,
                });
            }
            for n in simpler_floats(now.0, false) {
                out.push(Call::Remaining {
                    deadline: *deadline,
                    now: F64(n),
                });
            }
        }
        Call::Backoff { attempt, base, cap } => {
            for a in simpler_ints(*attempt) {
                out.push(Call::Backoff {
                    attempt: a,
                    base: *base,
                    cap: *cap,
                });
            }
            for b in simpler_floats(base.0, false) {
                out.push(Call::Backoff {
                    attempt: *attempt,
                    base: F64(b),
                    cap: *cap,
                });
            }
            for c in simpler_floats(cap.0, false) {
                out.push(Call::Backoff {
                    attempt: *attempt,
                    base: *base,
                    cap: F64(c),
                });
            }
        }
        Call::Jitter { delay, fraction } => {
            for d in simpler_floats(delay.0, false) {
                out.push(Call::Jitter {
                    delay: F64(d),
                    fraction: *fraction,
                });
            }
            for f in simpler_floats(fraction.0, false) {
                out.push(Call::Jitter {
                    delay: *delay,
                    fraction: F64(f),
                });
            }
        }
        Call::WaitDelay { local, retry_after } => {
            for l in simpler_floats(local.0, true) {
                out.push(Call::WaitDelay {
                    local: F64(l),
                    retry_after: retry_after.clone(),
                });
            }
            if let Some(text) = retry_after {
                out.push(Call::WaitDelay {
                    local: *local,
                    retry_after: None,
                });
                for t in simpler_texts(text) {
                    out.push(Call::WaitDelay {
                        local: *local,
                        retry_after: Some(t),
                    });
                }
            }
        }
        Call::CanAttempt {
            attempts,
            maximum,
            wait,
            budget,
        } => {
            for a in simpler_ints(*attempts) {
                out.push(Call::CanAttempt {
                    attempts: a,
                    maximum: *maximum,
                    wait: *wait,
                    budget: *budget,
                });
            }
            for m in simpler_ints(*maximum) {
                out.push(Call::CanAttempt {
                    attempts: *attempts,
                    maximum: m,
                    wait: *wait,
                    budget: *budget,
                });
            }
            for w in simpler_floats(wait.0, false) {
                out.push(Call::CanAttempt {
                    attempts: *attempts,
                    maximum: *maximum,
                    wait: F64(w),
                    budget: *budget,
                });
            }
            for b in simpler_floats(budget.0, false) {
                out.push(Call::CanAttempt {
                    attempts: *attempts,
                    maximum: *maximum,
                    wait: *wait,
                    budget: F64(b),
                });
            }
        }
        Call::Execute { scenario } => {
            for s in simpler_scenarios(scenario) {
                out.push(Call::Execute { scenario: s });
            }
        }
        // Statuses are already minimal; advanced scripts are shown as
        // generated (their random clauses draw small scripts to begin with).
        Call::Retryable { .. } | Call::RetryableMany { .. } | Call::Advanced { .. } => {}
    }
    let size = render::call(call).len();
    out.retain(|c| render::call(c).len() < size);
    out.sort_by_key(|c| render::call(c).len());
    out
}

/// What the oracle expects of a call of steps 02–07.
pub fn expect(call: &Call) -> Option<Expect> {
    Some(match call {
        Call::ReplaySafe { method, key } => {
            Expect::Bool(oracle::replay_safe(method, key.as_deref()))
        }
        Call::Remaining { deadline, now } => Expect::Float(oracle::remaining(deadline.0, now.0)),
        Call::Backoff { attempt, base, cap } => {
            Expect::Checked(oracle::backoff(*attempt, base.0, cap.0))
        }
        Call::Jitter { delay, fraction } => Expect::Checked(oracle::jitter(delay.0, fraction.0)),
        Call::WaitDelay { local, retry_after } => {
            let v = oracle::wait_delay(local.0, retry_after.as_deref());
            if v > oracle::EXACT_LIMIT {
                Expect::Huge
            } else {
                Expect::Float(v)
            }
        }
        Call::CanAttempt {
            attempts,
            maximum,
            wait,
            budget,
        } => Expect::Bool(oracle::can_attempt(*attempts, *maximum, wait.0, budget.0)),
        Call::Execute { scenario } => {
            let (events, ending) = oracle::execute(scenario);
            Expect::Trace { events, ending }
        }
        Call::Retryable { .. } | Call::RetryableMany { .. } | Call::Advanced { .. } => return None,
    })
}

/// The candidate checks for one round.
pub fn round(call: &Call) -> Vec<Check> {
    candidates(call)
        .into_iter()
        .filter_map(|c| expect(&c).map(|expect| Check { call: c, expect }))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_are_strictly_shorter_and_simplest_first() {
        let call = Call::Backoff {
            attempt: 29,
            base: F64(15.71875),
            cap: F64(38.359375),
        };
        let cands = candidates(&call);
        assert!(!cands.is_empty());
        let size = render::call(&call).len();
        let sizes: Vec<usize> = cands.iter().map(|c| render::call(c).len()).collect();
        assert!(sizes.iter().all(|s| *s < size));
        assert!(sizes.windows(2).all(|w| w[0] <= w[1]));
    }

    #[test]
    fn wait_delay_locals_stay_finite_and_not_negative() {
        let call = Call::WaitDelay {
            local: F64(3.25),
            retry_after: Some(" 12x".into()),
        };
        for c in candidates(&call) {
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
        assert_eq!(expect(&call), Some(Expect::Checked(Some(0.5))));
        assert_eq!(expect(&Call::Retryable { status: 1 }), None);
    }
}
