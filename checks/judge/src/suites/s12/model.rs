//! The judge's own model of a correct `sleep_at_least`, played in a
//! script's world; it also tells which scripts are never to be sent.

use lab_api::advanced::SLEEP_LIMIT;
use lab_wire::scripts::s12::{Ending, Observed, Script, Slept};
use lab_wire::F64;

pub(super) const LIMIT: usize = SLEEP_LIMIT as usize;

/// What the model expects, and whether the script is one the checker must
/// not send (two conditions hold whose order the contract leaves open).
pub struct Modelled {
    pub observed: Observed,
    pub ambiguous: bool,
}

/// The judge's own model of a correct `sleep_at_least`, played in the
/// script's world.
pub fn model(s: &Script) -> Modelled {
    let (wait, deadline, t0) = (s.wait.0, s.deadline.0, s.start.0);
    let mut sleeps: Vec<Slept> = Vec::new();
    let done = |sleeps: Vec<Slept>, result: Ending, ambiguous: bool| Modelled {
        observed: Observed {
            start: s.start,
            sleeps,
            result,
        },
        ambiguous,
    };
    if !wait.is_finite() || wait < 0.0 || !deadline.is_finite() {
        // Unordered: validation against a non-finite first reading or a
        // cancellation visible from the start.
        let ambiguous = !t0.is_finite() || s.cancelled(0);
        return done(sleeps, Ending::InvalidArgument, ambiguous);
    }
    if !t0.is_finite() {
        return done(sleeps, Ending::NonFiniteReading, s.cancelled(0));
    }
    let target = t0 + wait;
    let mut now = t0;
    let mut previous: Option<f64> = None;
    loop {
        let n = sleeps.len();
        let cancelled = s.cancelled(n);
        let non_finite = previous.is_some() && !now.is_finite();
        let backwards = previous.is_some_and(|p| now < p);
        let frozen = previous == Some(now);
        // Only at the first reading: a target that t0 + wait does not move
        // past t0 (a zero wait, or one too small for t0), or that overflows.
        let unrepresentable = n == 0 && (target <= t0 || !target.is_finite());
        let late = now >= deadline || target >= deadline;
        let reached = now >= target;
        let limit = n == LIMIT && !reached;
        let broken = non_finite || backwards || frozen;
        // Unordered pairs: cancellation against every other fault, and the
        // wake-up limit against a broken reading.
        let ambiguous = (cancelled && (broken || late || limit)) || (limit && broken);
        let end = if non_finite {
            Some(Ending::NonFiniteReading)
        } else if backwards {
            Some(Ending::ClockWentBackwards)
        } else if cancelled {
            Some(Ending::Cancelled)
        } else if unrepresentable {
            Some(Ending::UnrepresentableWait)
        } else if late {
            Some(Ending::DeadlineReached)
        } else if reached {
            Some(Ending::Ok)
        } else if frozen {
            Some(Ending::NoProgress)
        } else if n == LIMIT {
            Some(Ending::TooManyWakeUps)
        } else {
            None
        };
        if let Some(result) = end {
            return done(sleeps, result, ambiguous);
        }
        let asked = target - now;
        let after = s.wake(n + 1).after(now, asked);
        sleeps.push(Slept {
            asked: F64(asked),
            after: F64(after),
        });
        previous = Some(now);
        now = after;
    }
}

#[cfg(test)]
mod tests {
    use super::super::generate::script;
    use super::*;
    use crate::suites::Observable;
    use lab_wire::scripts::s12::Wake;

    #[test]
    fn restarting_from_the_full_wait_is_told_apart() {
        let s = script(
            1.0,
            20.0,
            10.0,
            vec![
                Wake::Early { moved: F64(0.5) },
                Wake::Early { moved: F64(0.25) },
            ],
            None,
        );
        let expect = model(&s).observed;
        let restart = Observed {
            start: F64(10.0),
            sleeps: vec![
                Slept {
                    asked: F64(1.0),
                    after: F64(10.5),
                },
                Slept {
                    asked: F64(1.0),
                    after: F64(10.75),
                },
            ],
            result: Ending::Ok,
        };
        assert!(!expect.same(&restart));
        assert!(expect.same(&expect));
    }

    #[test]
    fn an_oversleep_past_the_deadline_is_not_ok() {
        let s = script(1.0, 13.0, 10.0, vec![Wake::Late { over: F64(5.0) }], None);
        let m = model(&s);
        assert_eq!(m.observed.result, Ending::DeadlineReached);
        let mut ok = m.observed.clone();
        ok.result = Ending::Ok;
        assert!(!m.observed.same(&ok));
    }
}
