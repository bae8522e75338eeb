//! How step 05 shows its calls to a learner, and how it shrinks a failing one.

use super::super::Expect;
use crate::show::float;
use crate::{oracle, simpler};
use lab_wire::{Call, F64};

pub fn show_call(call: &Call) -> String {
    match call {
        Call::Jitter { delay, fraction } => {
            format!("jitter({}, {})", float(delay.0), float(fraction.0))
        }
        other => format!("{other:?}"),
    }
}

pub fn shrink(call: &Call) -> Vec<Call> {
    let mut out = Vec::new();
    if let Call::Jitter { delay, fraction } = call {
        for d in simpler::floats(delay.0, false) {
            out.push(Call::Jitter {
                delay: F64(d),
                fraction: *fraction,
            });
        }
        for f in simpler::floats(fraction.0, false) {
            out.push(Call::Jitter {
                delay: *delay,
                fraction: F64(f),
            });
        }
    }
    out
}

/// The clause whose rule decides a call (see `Step::domain`): a negative,
/// NaN or infinite delay; then a fraction outside [0, 1] or NaN; then a
/// boundary of a valid range (a delay of 0, -0.0 or `f64::MAX`, a fraction
/// of 0, -0.0 or 1); else the general rule, `delay * fraction`.
pub fn domain(call: &Call) -> Option<&'static str> {
    let Call::Jitter { delay, fraction } = *call else {
        return None;
    };
    let (d, f) = (delay.0, fraction.0);
    Some(if !(d.is_finite() && d >= 0.0) {
        "bad-delay"
    } else if !(0.0..=1.0).contains(&f) {
        "bad-fraction"
    } else if d == 0.0 || d == f64::MAX || f == 0.0 || f == 1.0 {
        "boundaries"
    } else {
        "scales"
    })
}

pub fn expect(call: &Call) -> Option<Expect> {
    match call {
        Call::Jitter { delay, fraction } => {
            Some(Expect::Checked(oracle::jitter(delay.0, fraction.0)))
        }
        _ => None,
    }
}
