//! The judge's own model of a correct `sleep_at_least`, played in a
//! script's world; it also tells which scripts are never to be sent.

use crate::suites::s11::model::{execute_in, World};
use lab_api::advanced::{SleepFault, SLEEP_LIMIT};
use lab_scripts::s11::{self, Event, Reason};
use lab_scripts::s12::{Ending, Guarded, GuardedSeen, SleepScript, SleepSeen, Slept};
use lab_wire::F64;

pub(super) const LIMIT: usize = SLEEP_LIMIT as usize;

/// What the model expects, and whether the script is one the checker must
/// not send (two conditions hold whose order the contract leaves open).
pub struct Modelled {
    pub observed: SleepSeen,
    pub ambiguous: bool,
}

/// The judge's own model of a correct `sleep_at_least`, played in the
/// script's world.
pub fn model(s: &SleepScript) -> Modelled {
    let (wait, deadline, t0) = (s.wait.0, s.deadline.0, s.start.0);
    let mut sleeps: Vec<Slept> = Vec::new();
    let done = |sleeps: Vec<Slept>, result: Ending, ambiguous: bool| Modelled {
        observed: SleepSeen {
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
        return done(sleeps, Err(SleepFault::InvalidArgument), ambiguous);
    }
    if !t0.is_finite() {
        return done(sleeps, Err(SleepFault::NonFiniteReading), s.cancelled(0));
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
            Some(Err(SleepFault::NonFiniteReading))
        } else if backwards {
            Some(Err(SleepFault::ClockWentBackwards))
        } else if cancelled {
            Some(Err(SleepFault::Cancelled))
        } else if unrepresentable {
            Some(Err(SleepFault::UnrepresentableWait))
        } else if late {
            Some(Err(SleepFault::DeadlineReached))
        } else if reached {
            Some(Ok(()))
        } else if frozen {
            Some(Err(SleepFault::NoProgress))
        } else if n == LIMIT {
            Some(Err(SleepFault::TooManyWakeUps))
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

/// What the model expects of one `guarded_read` script, and whether it is
/// one the checker must not send.
pub struct GuardedRun {
    pub seen: GuardedSeen,
    pub ambiguous: bool,
}

/// `guarded_read` as the composition it is: step 11's model of
/// `execute_admitted` (`execute_in`) in a world whose readings pass one
/// checked clock and whose waits are this step's model of `sleep_at_least`.
/// After the first fault every reading is `+inf`, so the executor's model
/// stops before any further send and closes what it holds; the fault then
/// replaces its reason.
pub fn guarded(g: &Guarded) -> GuardedRun {
    let mut world = Guard {
        g,
        now: g.read.start.0,
        last: None,
        fault: None,
        sleeps: 0,
        done: 0,
        panicked: false,
        ambiguous: false,
    };
    let run = execute_in(&g.read, &mut world);
    let ending = if world.panicked {
        s11::Ending::Panicked
    } else if let Some(fault) = world.fault {
        s11::Ending::Stopped {
            reason: stop(fault),
            last: None,
        }
    } else {
        run.ending
    };
    GuardedRun {
        seen: GuardedSeen {
            events: run.events,
            ending,
        },
        ambiguous: run.ambiguous || world.ambiguous,
    }
}

/// A fault as the reason the read stops.
fn stop(fault: SleepFault) -> Reason {
    match fault {
        SleepFault::Cancelled => Reason::Cancelled,
        fault => Reason::Guard(fault),
    }
}

/// The world of a guarded read: the clock's state, the checked clock's
/// last good reading, and the first fault.
struct Guard<'g> {
    g: &'g Guarded,
    now: f64,
    last: Option<f64>,
    fault: Option<SleepFault>,
    /// Non-zero sleeps made so far, over the whole read.
    sleeps: usize,
    /// Sends and non-zero sleeps that have returned.
    done: u32,
    panicked: bool,
    ambiguous: bool,
}

impl World for Guard<'_> {
    fn read(&mut self) -> f64 {
        if self.fault.is_some() || self.panicked {
            return f64::INFINITY;
        }
        let now = self.now;
        if !now.is_finite() {
            self.fault = Some(SleepFault::NonFiniteReading);
        } else if self.last.is_some_and(|last| now < last) {
            self.fault = Some(SleepFault::ClockWentBackwards);
        } else {
            self.last = Some(now);
            return now;
        }
        f64::INFINITY
    }

    fn clock(&self) -> f64 {
        self.now
    }

    fn cancelled(&self) -> bool {
        self.g.read.cancel_after.is_some_and(|n| self.done >= n)
    }

    fn sent(&mut self, cost: f64) {
        self.now += cost;
        self.done += 1;
    }

    fn closed(&mut self, reply: u32) {
        self.now += self.g.closing(reply);
    }

    fn wait(&mut self, wait: f64, events: &mut Vec<Event>) -> Option<Reason> {
        // The wait's first reading is a reading of the same checked clock:
        // a close that stepped the clock back shows here. (Cancellation
        // cannot have changed since the executor's last check.)
        let t0 = self.read();
        if let Some(fault) = self.fault {
            return Some(stop(fault));
        }
        let done = self.done;
        let script = SleepScript {
            wait: F64(wait),
            deadline: self.g.read.deadline,
            start: F64(t0),
            wakes: (self.sleeps + 1..=self.sleeps + LIMIT)
                .map(|n| self.g.wake(n))
                .collect(),
            cancel_after_sleeps: self.g.read.cancel_after.map(|n| n.saturating_sub(done)),
        };
        let m = model(&script);
        self.ambiguous |= m.ambiguous;
        let start = self.g.read.start.0;
        let mut before = t0;
        for slept in &m.observed.sleeps {
            events.push(Event::Sleep {
                seconds: slept.asked,
                at: F64(before - start),
            });
            self.sleeps += 1;
            if self.g.sleeper_panics == Some(self.sleeps as u32) {
                self.panicked = true;
                return Some(Reason::Cancelled); // replaced by the panic
            }
            self.done += 1;
            self.now = slept.after.0;
            before = slept.after.0;
        }
        match m.observed.result {
            Ok(()) => {
                self.last = Some(self.now);
                None
            }
            Err(fault) => {
                self.fault = Some(fault);
                Some(stop(fault))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::generate::script;
    use super::*;
    use crate::suites::Observable;
    use lab_scripts::s12::Wake;

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
        let restart = SleepSeen {
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
            result: Ok(()),
        };
        assert!(!expect.same(&restart));
        assert!(expect.same(&expect));
    }

    #[test]
    fn an_oversleep_past_the_deadline_is_not_ok() {
        let s = script(1.0, 13.0, 10.0, vec![Wake::Late { over: F64(5.0) }], None);
        let m = model(&s);
        assert_eq!(m.observed.result, Err(SleepFault::DeadlineReached));
        let mut ok = m.observed.clone();
        ok.result = Ok(());
        assert!(!m.observed.same(&ok));
    }
}
