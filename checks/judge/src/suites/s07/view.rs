//! How step 07 shows its calls to a learner, and how it shrinks a failing one.

use super::super::Expect;
use crate::show::float;
use crate::{oracle, simpler};
use lab_wire::{Call, F64};

pub fn show_call(call: &Call) -> String {
    match call {
        Call::CanAttempt {
            attempts,
            maximum,
            wait,
            budget,
        } => format!(
            "can_attempt({attempts}, {maximum}, {}, {})",
            float(wait.0),
            float(budget.0)
        ),
        other => format!("{other:?}"),
    }
}

pub fn shrink(call: &Call) -> Vec<Call> {
    let mut out = Vec::new();
    if let Call::CanAttempt {
        attempts,
        maximum,
        wait,
        budget,
    } = *call
    {
        let with = |attempts, maximum, wait, budget| Call::CanAttempt {
            attempts,
            maximum,
            wait,
            budget,
        };
        for a in simpler::ints(attempts) {
            out.push(with(a, maximum, wait, budget));
        }
        for m in simpler::ints(maximum) {
            out.push(with(attempts, m, wait, budget));
        }
        for w in simpler::floats(wait.0, false) {
            out.push(with(attempts, maximum, F64(w), budget));
        }
        for b in simpler::floats(budget.0, false) {
            out.push(with(attempts, maximum, wait, F64(b)));
        }
    }
    out
}

pub fn expect(call: &Call) -> Option<Expect> {
    match call {
        Call::CanAttempt {
            attempts,
            maximum,
            wait,
            budget,
        } => Some(Expect::Bool(oracle::can_attempt(
            *attempts, *maximum, wait.0, budget.0,
        ))),
        _ => None,
    }
}
