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

/// The clause whose rule decides a call (see `Step::domain`): a Retry-After
/// that is not delay-seconds (or none); then delay-seconds of at least 2^53;
/// then delay-seconds written with spaces or tabs around it or with leading
/// zeros; else the general rule, the longer of `local` and the plain
/// delay-seconds.
pub fn domain(call: &Call) -> Option<&'static str> {
    let Call::WaitDelay { retry_after, .. } = call else {
        return None;
    };
    let Some(text) = retry_after.as_deref() else {
        return Some("not-delay-seconds");
    };
    let Some(server) = oracle::delay_seconds(text) else {
        return Some("not-delay-seconds");
    };
    let digits = text.trim_matches([' ', '\t']);
    Some(if server >= oracle::EXACT_LIMIT {
        "huge"
    } else if digits != text || (digits.len() > 1 && digits.starts_with('0')) {
        "trims-spaces-tabs"
    } else {
        "longer-wins"
    })
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
