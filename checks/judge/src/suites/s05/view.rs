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

pub fn expect(call: &Call) -> Option<Expect> {
    match call {
        Call::Jitter { delay, fraction } => {
            Some(Expect::Checked(oracle::jitter(delay.0, fraction.0)))
        }
        _ => None,
    }
}
