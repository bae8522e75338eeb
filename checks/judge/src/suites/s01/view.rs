//! How step 01 shows its calls to a learner, and how it shrinks a failing one.

use lab_wire::Call;

pub fn show_call(call: &Call) -> String {
    match call {
        Call::Retryable { status } => format!("retryable({status})"),
        Call::RetryableMany { statuses } => format!("retryable(s) for s in {statuses:?}"),
        other => format!("{other:?}"),
    }
}
