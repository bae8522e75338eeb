//! The judge's own model of a correct `Deadline`: it answers a script from
//! `deadline = start + seconds`, fixed once.

use lab_scripts::s09::{Answer, Observed, Op, Script};
use lab_wire::F64;

/// The judge's own model of a correct `Deadline`.
pub fn model(script: &Script) -> Observed {
    let s = script.seconds.0;
    if !s.is_finite() || s < 0.0 {
        return Observed { answers: None };
    }
    let deadline = script.start.0 + s;
    let mut now = script.start.0;
    let left = |now: f64| {
        if deadline - now > 0.0 {
            deadline - now
        } else {
            0.0
        }
    };
    let mut answers = Vec::new();
    for op in &script.ops {
        match op {
            Op::At { t } => now = t.0,
            Op::Remaining => answers.push(Answer::Remaining {
                value: F64(left(now)),
            }),
            Op::TimeoutFor { cap } => answers.push(Answer::TimeoutFor {
                ok: (cap.0.is_finite() && cap.0 >= 0.0).then(|| F64(cap.0.min(left(now)))),
            }),
            Op::Expired => answers.push(Answer::Expired {
                value: now >= deadline,
            }),
        }
    }
    Observed {
        answers: Some(answers),
    }
}

pub(super) fn script(start: f64, seconds: f64, ops: Vec<Op>) -> Script {
    Script {
        start: F64(start),
        seconds: F64(seconds),
        ops,
    }
}

#[cfg(test)]
mod tests {
    use super::super::{table::from_table, ThisStep};
    use super::*;
    use crate::suites::{fixture, Observable};

    const STEP: &str = ThisStep::ID;

    #[test]
    fn the_model_agrees_with_every_table_case() {
        for case in fixture::table(STEP) {
            let (s, expect) = from_table(&case);
            assert!(expect.same(&model(&s)), "{case}");
        }
    }
}
