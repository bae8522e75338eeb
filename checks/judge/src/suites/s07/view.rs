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

/// The smallest step of the kit's time grid: a budget at most this far
/// above the wait lies on the budget's boundary.
const STEP: f64 = 1.0 / 64.0;

/// The clause whose rule decides a call (see `Step::domain`): a NaN wait or
/// budget (false whatever else holds); then a spent attempt count; then a
/// negative wait; then a budget not above the wait; then a wait of 0 or
/// -0.0; then a budget on the boundary (at most one 1/64 step above the
/// wait) or an infinite budget or wait; else the attempt count decides (a
/// wait above 0 and a budget well above it).
pub fn domain(call: &Call) -> Option<&'static str> {
    let Call::CanAttempt {
        attempts,
        maximum,
        wait,
        budget,
    } = *call
    else {
        return None;
    };
    let (w, b) = (wait.0, budget.0);
    Some(if w.is_nan() || b.is_nan() {
        "nan"
    } else if attempts >= maximum {
        "attempt-limit"
    } else if w < 0.0 {
        "negative-wait"
    } else if b <= w {
        "budget-exceeds-wait"
    } else if w == 0.0 {
        "negative-wait"
    } else if b - w <= STEP || b.is_infinite() || w.is_infinite() {
        "budget-exceeds-wait"
    } else {
        "attempt-limit"
    })
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
