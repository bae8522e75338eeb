//! Telling a case that reaches its time limit at once, on stderr.

use crate::limits::Limits;

/// Whether a case that reaches its time limit is told at once, on stderr
/// (a learner's `check`: a loop that never ends should not look like a kit
/// that hangs), and how many each step has had so far.
static TELL_TIME_OUTS: std::sync::Mutex<Option<Vec<(&'static str, usize)>>> =
    std::sync::Mutex::new(None);

/// From now on, every case that reaches its time limit is told on stderr
/// as it happens.
pub fn tell_time_outs() {
    let mut told = TELL_TIME_OUTS.lock().unwrap_or_else(|e| e.into_inner());
    told.get_or_insert_with(Vec::new);
}

/// Tells that a case of `step` reached the case limit: the first in full,
/// then a count (`cut`: this one had the shorter limit of a case after a
/// hang).
pub(super) fn time_out_now(step: &'static str, limits: &Limits, cut: bool) {
    let mut told = TELL_TIME_OUTS.lock().unwrap_or_else(|e| e.into_inner());
    let Some(told) = told.as_mut() else {
        return;
    };
    let count = match told.iter_mut().find(|(s, _)| *s == step) {
        Some((_, n)) => {
            *n += 1;
            *n
        }
        None => {
            told.push((step, 1));
            1
        }
    };
    let seconds = limits.case.as_secs_f64();
    let line = if count == 1 {
        crate::catalog::tr(
            "run.timed_out_now",
            &[("step", &step), ("seconds", &seconds)],
        )
    } else if cut {
        crate::catalog::tr(
            "run.cut_short_again",
            &[("step", &step), ("seconds", &seconds), ("count", &count)],
        )
    } else {
        crate::catalog::tr(
            "run.timed_out_again",
            &[("step", &step), ("seconds", &seconds), ("count", &count)],
        )
    };
    eprintln!("lab: {line}");
}
