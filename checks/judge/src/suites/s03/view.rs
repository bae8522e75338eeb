//! How step 03 shows its calls to a learner, and how it shrinks a failing one.

use super::super::Expect;
use crate::show::float;
use crate::{oracle, simpler};
use lab_wire::{Call, F64};

pub fn show_call(call: &Call) -> String {
    match call {
        Call::Remaining { deadline, now } => {
            format!("remaining({}, {})", float(deadline.0), float(now.0))
        }
        other => format!("{other:?}"),
    }
}

pub fn shrink(call: &Call) -> Vec<Call> {
    let mut out = Vec::new();
    if let Call::Remaining { deadline, now } = call {
        for d in simpler::floats(deadline.0, false) {
            out.push(Call::Remaining {
                deadline: F64(d),
                now: *now,
            });
        }
        for n in simpler::floats(now.0, false) {
            out.push(Call::Remaining {
                deadline: *deadline,
                now: F64(n),
            });
        }
    }
    out
}

/// The clause whose rule decides a call (see `Step::domain`), by the
/// difference `deadline - now`: NaN, infinite (either sign), greater than 0,
/// else zero or negative.
pub fn domain(call: &Call) -> Option<&'static str> {
    let Call::Remaining { deadline, now } = call else {
        return None;
    };
    let d = deadline.0 - now.0;
    Some(if d.is_nan() {
        "nan"
    } else if d.is_infinite() {
        "infinite"
    } else if d > 0.0 {
        "positive"
    } else {
        "not-positive"
    })
}

pub fn expect(call: &Call) -> Option<Expect> {
    match call {
        Call::Remaining { deadline, now } => {
            Some(Expect::Float(oracle::remaining(deadline.0, now.0)))
        }
        _ => None,
    }
}
