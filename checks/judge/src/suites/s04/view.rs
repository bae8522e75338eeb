//! How step 04 shows its calls to a learner, and how it shrinks a failing one.

use super::super::Expect;
use crate::show::float;
use crate::{oracle, simpler};
use lab_wire::{Call, F64};

pub fn show_call(call: &Call) -> String {
    match call {
        Call::Backoff { attempt, base, cap } => {
            format!("backoff({attempt}, {}, {})", float(base.0), float(cap.0))
        }
        other => format!("{other:?}"),
    }
}

pub fn shrink(call: &Call) -> Vec<Call> {
    let mut out = Vec::new();
    if let Call::Backoff { attempt, base, cap } = call {
        for a in simpler::ints(*attempt) {
            out.push(Call::Backoff {
                attempt: a,
                base: *base,
                cap: *cap,
            });
        }
        for b in simpler::floats(base.0, false) {
            out.push(Call::Backoff {
                attempt: *attempt,
                base: F64(b),
                cap: *cap,
            });
        }
        for c in simpler::floats(cap.0, false) {
            out.push(Call::Backoff {
                attempt: *attempt,
                base: *base,
                cap: F64(c),
            });
        }
    }
    out
}

/// The clause whose rule decides a call (see `Step::domain`): an attempt
/// above 30; then a NaN, infinite or negative base or cap; then a base or
/// cap of -0.0; else the general rule, `min(cap, base * 2^attempt)`.
pub fn domain(call: &Call) -> Option<&'static str> {
    let Call::Backoff { attempt, base, cap } = *call else {
        return None;
    };
    let valid = |x: f64| x.is_finite() && x >= 0.0;
    let negative_zero = |x: f64| x == 0.0 && x.is_sign_negative();
    Some(if attempt > 30 {
        "attempt-above-30"
    } else if !valid(base.0) || !valid(cap.0) {
        "bad-base-or-cap"
    } else if negative_zero(base.0) || negative_zero(cap.0) {
        "negative-zero"
    } else {
        "doubles-to-cap"
    })
}

pub fn expect(call: &Call) -> Option<Expect> {
    match call {
        Call::Backoff { attempt, base, cap } => {
            Some(Expect::Checked(oracle::backoff(*attempt, base.0, cap.0)))
        }
        _ => None,
    }
}
