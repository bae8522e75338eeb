//! How step 09 reads for a learner: a script as the Rust that replays it,
//! the answers as a list, and the `Observable` comparison of answers.

use super::super::Observable;
use crate::show::float;
use lab_scripts::s09::{Answer, Observed, Op, Script};
use serde_json::Value;

fn same_answer(e: &Answer, g: &Answer) -> bool {
    match (e, g) {
        (Answer::Remaining { value: a }, Answer::Remaining { value: b }) => a.0 == b.0,
        (Answer::TimeoutFor { ok: a }, Answer::TimeoutFor { ok: b }) => match (a, b) {
            (Some(a), Some(b)) => a.0 == b.0,
            (None, None) => true,
            (Some(_), None) | (None, Some(_)) => false,
        },
        (Answer::Expired { value: a }, Answer::Expired { value: b }) => a == b,
        (Answer::Remaining { .. } | Answer::TimeoutFor { .. } | Answer::Expired { .. }, _) => false,
    }
}

impl Observable for Observed {
    /// Floats with `==` (NaN never matches, -0.0 equals 0.0).
    fn same(&self, got: &Self) -> bool {
        match (&self.answers, &got.answers) {
            (None, None) => true,
            (Some(a), Some(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same_answer(x, y))
            }
            (Some(_), None) | (None, Some(_)) => false,
        }
    }

    /// The answers in order, as a list.
    fn show(&self) -> String {
        match &self.answers {
            None => "Deadline::new → Err(InvalidArgument)".into(),
            Some(answers) => {
                let items: Vec<String> = answers
                    .iter()
                    .map(|a| match a {
                        Answer::Remaining { value } => float(value.0),
                        Answer::TimeoutFor { ok: Some(x) } => format!("Ok({})", float(x.0)),
                        Answer::TimeoutFor { ok: None } => "Err(InvalidArgument)".into(),
                        Answer::Expired { value } => value.to_string(),
                    })
                    .collect();
                format!("Deadline::new → Ok; answers: [{}]", items.join(", "))
            }
        }
    }
}

/// The script as the Rust a learner would write to replay it, which
/// compiles pasted into a `#[test]` of the learner's (each answer printed
/// with `dbg!`). A budget `new` must reject is shown as that one call.
pub fn show_input(input: &Value) -> String {
    let Some(s) = super::super::read::<Script>(input) else {
        return input.to_string();
    };
    let clock = format!(
        "let clock = std::sync::Arc::new(ManualClock::new({}));",
        float(s.start.0)
    );
    let budget = s.seconds.0;
    if budget.is_nan() || budget.is_infinite() || budget < 0.0 {
        return format!(
            "{clock}\ndbg!(Deadline::new({}, clock.clone()).is_err());",
            float(budget)
        );
    }
    let mut lines = vec![
        clock,
        format!(
            "let d = Deadline::new({}, clock.clone()).unwrap();",
            float(budget)
        ),
    ];
    for op in &s.ops {
        lines.push(match op {
            Op::At { t } => format!("clock.set({});", float(t.0)),
            Op::Remaining => "dbg!(d.remaining());".into(),
            Op::TimeoutFor { cap } => format!("dbg!(d.timeout_for({}));", float(cap.0)),
            Op::Expired => "dbg!(d.expired());".into(),
        });
    }
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::super::model::{model, script};
    use super::*;
    use lab_wire::F64;

    #[test]
    fn a_tolerance_in_expired_is_told_apart() {
        let s = script(0.0, 5e-324, vec![Op::Expired]);
        let tolerant = Observed {
            answers: Some(vec![Answer::Expired { value: true }]),
        };
        assert!(!model(&s).same(&tolerant));
    }

    #[test]
    fn a_lazy_start_is_told_apart() {
        let s = script(10.0, 5.0, vec![Op::At { t: F64(13.0) }, Op::Remaining]);
        let lazy = Observed {
            answers: Some(vec![Answer::Remaining { value: F64(5.0) }]),
        };
        assert!(!model(&s).same(&lazy));
    }
}
