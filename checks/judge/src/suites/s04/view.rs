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

pub fn expect(call: &Call) -> Option<Expect> {
    match call {
        Call::Backoff { attempt, base, cap } => {
            Some(Expect::Checked(oracle::backoff(*attempt, base.0, cap.0)))
        }
        _ => None,
    }
}
