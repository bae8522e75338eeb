//! One protocol call → one call of the learner's function, through the
//! pointers the runner's `main` handed over.

use lab_wire::{Call, Observed, Value, F64};

pub fn dispatch(call: Call) -> Observed {
    let f = crate::learner();
    let value = match call {
        Call::Retryable { status } => Value::Bool {
            value: (f.retryable)(status),
        },
        Call::RetryableMany { statuses } => Value::Bools {
            values: statuses.into_iter().map(f.retryable).collect(),
        },
        Call::ReplaySafe { method, key } => Value::Bool {
            value: (f.replay_safe)(&method, key.as_deref()),
        },
        Call::Remaining { deadline, now } => Value::Float {
            value: F64((f.remaining)(deadline.0, now.0)),
        },
        Call::Backoff { attempt, base, cap } => Value::Checked {
            ok: (f.backoff)(attempt, base.0, cap.0).ok().map(F64),
        },
        Call::Jitter { delay, fraction } => Value::Checked {
            ok: (f.jitter)(delay.0, fraction.0).ok().map(F64),
        },
        Call::WaitDelay { local, retry_after } => Value::Float {
            value: F64((f.wait_delay)(local.0, retry_after.as_deref())),
        },
        Call::CanAttempt {
            attempts,
            maximum,
            wait,
            budget,
        } => Value::Bool {
            value: (f.can_attempt)(attempts, maximum, wait.0, budget.0),
        },
        Call::Execute { scenario } => Value::Trace {
            trace: crate::world::run(&scenario),
        },
        Call::Advanced { step, .. } => std::panic::panic_any(lab_harness::KitError(format!(
            "step {step} was sent to the core runner"
        ))),
    };
    Observed::Returned { value }
}
