//! How step 06 shows its calls to a learner, and how it shrinks a failing one.

use super::super::Expect;
use crate::show::{float, opt_str};
use crate::{oracle, simpler};
use lab_wire::{Call, F64};

pub fn show_call(call: &Call) -> String {
    match call {
        Call::WaitDelay { local, retry_after } => {
            format!("wait_delay({}, {})", float(local.0), opt_str(retry_after))
        }
        other => format!("{other:?}"),
    }
}

pub fn shrink(call: &Call) -> Vec<Call> {
    let mut out = Vec::new();
    if let Call::WaitDelay { local, retry_after } = call {
        for l in simpler::floats(local.0, true) {
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
            for t in simpler::texts(text) {
                out.push(Call::WaitDelay {
                    local: *local,
                    retry_after: Some(t),
                });
            }
        }
    }
    out
}

pub fn expect(call: &Call) -> Option<Expect> {
    match call {
        Call::WaitDelay { local, retry_after } => {
            let v = oracle::wait_delay(local.0, retry_after.as_deref());
            Some(if v > oracle::EXACT_LIMIT {
                Expect::Huge
            } else {
                Expect::Float(v)
            })
        }
        _ => None,
    }
}
