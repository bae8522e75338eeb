//! The judge's own reading of step 11's contract: `admit` as a pure
//! function, and `execute_admitted` replayed in the runner's world. It
//! never calls the reference solution.

use lab_scripts::s11::{AdmitCall, Decision, Ending, Event, Handed, Parsed, Reason, Scenario};
use lab_wire::F64;

/// A minimum gap or a reserve: finite and above zero (`-0.0` is zero).
fn valid_policy(x: f64) -> bool {
    x.is_finite() && x > 0.0
}

/// The only statuses retried.
fn retryable(status: u16) -> bool {
    status == 429 || status == 503
}

/// Clauses A1–A4 of `admit`.
pub fn admit(c: &AdmitCall) -> Decision {
    let (left, gap, reserve) = (c.left.0, c.min_gap.0, c.reserve.0);
    if c.limit == 0
        || c.attempts > c.limit
        || !left.is_finite()
        || !valid_policy(gap)
        || !valid_policy(reserve)
    {
        return Decision::InvalidArgument;
    }
    let refuse = |reason| Decision::Refuse { reason };
    if c.method != "GET" {
        refuse(Reason::MethodNotAllowed)
    } else if !retryable(c.status) {
        refuse(Reason::StatusNotAllowed)
    } else if c.attempts >= c.limit {
        refuse(Reason::AttemptLimit)
    } else {
        match c.retry_after {
            Parsed::Ok { delay } => {
                let wait = f64::from(delay).max(gap);
                if wait + reserve <= left {
                    Decision::Retry { wait: F64(wait) }
                } else {
                    refuse(Reason::InsufficientBudget)
                }
            }
            Parsed::None | Parsed::Err { .. } => refuse(Reason::InvalidRetryAfter),
        }
    }
}

/// The predicted run of one `execute_admitted` scenario.
pub struct Run {
    pub events: Vec<Event>,
    pub ending: Ending,
    /// Cancellation became visible at a check where the deadline or the
    /// reserve stops the call too: the contract names no precedence, so
    /// the checker never sends such a scenario.
    pub ambiguous: bool,
}

/// The world `execute_admitted` runs in, as the model sees it: step 11's
/// (the clock moves only inside sends and sleeps, by their scripted amounts)
/// or `guarded_read`'s (step 12), which checks every reading and makes every
/// wait a not-before wait.
pub(crate) trait World {
    /// One clock reading.
    fn read(&mut self) -> f64;
    /// The clock as it stands, for the times shown with events (not a reading).
    fn clock(&self) -> f64;
    /// Whether cancellation is visible now.
    fn cancelled(&self) -> bool;
    /// A send that took `cost` seconds has returned.
    fn sent(&mut self, cost: f64);
    /// The response to send `reply` was closed.
    fn closed(&mut self, reply: u32);
    /// An admitted wait of `wait` seconds: the events it makes, or the
    /// reason the run ends there (with no response held).
    fn wait(&mut self, wait: f64, events: &mut Vec<Event>) -> Option<Reason>;
}

/// Step 11's own world.
struct Plain<'s> {
    s: &'s Scenario,
    now: f64,
    sleeps: usize,
    /// Sends and non-zero sleeps that have returned.
    done: u32,
}

impl World for Plain<'_> {
    fn read(&mut self) -> f64 {
        self.now
    }
    fn clock(&self) -> f64 {
        self.now
    }
    fn cancelled(&self) -> bool {
        self.s.cancel_after.is_some_and(|n| self.done >= n)
    }
    fn sent(&mut self, cost: f64) {
        self.now += cost;
        self.done += 1;
    }
    fn closed(&mut self, _reply: u32) {}
    fn wait(&mut self, wait: f64, events: &mut Vec<Event>) -> Option<Reason> {
        if wait != 0.0 {
            events.push(Event::Sleep {
                seconds: F64(wait),
                at: F64(self.now - self.s.start.0),
            });
            self.now += wait + self.s.overrun.get(self.sleeps).map_or(0.0, |x| x.0);
            self.sleeps += 1;
            self.done += 1;
        }
        None
    }
}

/// Clauses E1–E7, in the runner's world.
pub fn execute(s: &Scenario) -> Run {
    let mut world = Plain {
        s,
        now: s.start.0,
        sleeps: 0,
        done: 0,
    };
    execute_in(s, &mut world)
}

/// Clauses E1–E7 in `world`: every reading, send, close and wait goes
/// through it.
pub(crate) fn execute_in(s: &Scenario, world: &mut dyn World) -> Run {
    let mut run = Run {
        events: Vec::new(),
        ending: Ending::InvalidArgument,
        ambiguous: false,
    };
    let (deadline, gap, reserve) = (s.deadline.0, s.min_gap.0, s.reserve.0);
    if !deadline.is_finite() || s.limit == 0 || !valid_policy(gap) || !valid_policy(reserve) {
        return run;
    }
    let at = |now: f64| F64(now - s.start.0);
    let mut sends = 0u32;
    let stop = |reason| Ending::Stopped { reason, last: None };
    loop {
        // E2: before every send.
        let now = world.read();
        let late = now >= deadline;
        let short = deadline - now < reserve;
        if world.cancelled() {
            run.ambiguous |= late || short;
            run.ending = stop(Reason::Cancelled);
            return run;
        }
        if late {
            run.ending = stop(Reason::DeadlineReached);
            return run;
        }
        if short {
            run.ending = stop(Reason::InsufficientBudget);
            return run;
        }
        run.events.push(Event::Send {
            method: s.method.clone(),
            timeout: F64(deadline - now),
            at: at(world.clock()),
        });
        let k = sends;
        let reply = s.replies.get(k as usize).unwrap_or(&s.fallback);
        sends += 1;
        world.sent(reply.cost.0);
        let now = world.read();
        let close = |world: &dyn World| Event::Close {
            reply: k,
            at: at(world.clock()),
        };
        // E3: after every response.
        let late = now >= deadline;
        if world.cancelled() {
            run.ambiguous |= late;
            run.events.push(close(world));
            world.closed(k);
            run.ending = stop(Reason::Cancelled);
            return run;
        }
        if late {
            run.events.push(close(world));
            world.closed(k);
            run.ending = stop(Reason::DeadlineReached);
            return run;
        }
        let response = Handed {
            reply: Some(k),
            status: reply.status,
            retry_after: reply.retry_after.clone(),
            received_at: reply.received_at,
            body: reply.body.clone(),
        };
        // E4: any other status is the answer.
        if !retryable(reply.status) {
            run.ending = Ending::Answer { response };
            return run;
        }
        // E5: step 10's result on all the fields (none is `Missing`), from
        // the judge's own model of step 10, before any decision.
        let delay = match crate::suites::s10::expected(&reply.retry_after, reply.received_at) {
            Ok(delay) => delay,
            Err(_) => {
                run.ending = Ending::Stopped {
                    reason: Reason::InvalidRetryAfter,
                    last: Some(response),
                };
                return run;
            }
        };
        // E6.
        let decision = admit(&AdmitCall {
            method: s.method.clone(),
            status: reply.status,
            attempts: sends,
            limit: s.limit,
            left: F64(deadline - now),
            retry_after: Parsed::Ok { delay },
            min_gap: s.min_gap,
            reserve: s.reserve,
        });
        match decision {
            Decision::Refuse { reason } => {
                run.ending = Ending::Stopped {
                    reason,
                    last: Some(response),
                };
                return run;
            }
            Decision::InvalidArgument => unreachable!("E6's inputs are valid"),
            Decision::Retry { wait } => {
                // E7: close, then wait, then back to E2.
                run.events.push(close(world));
                world.closed(k);
                if let Some(reason) = world.wait(wait.0, &mut run.events) {
                    run.ending = stop(reason);
                    return run;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suites::Observable;
    use lab_scripts::s11::Observed;

    #[test]
    fn a_wait_that_fits_exactly_is_admitted_and_told_apart() {
        let call = AdmitCall {
            method: "GET".into(),
            status: 503,
            attempts: 1,
            limit: 3,
            left: F64(2.0),
            retry_after: Parsed::Ok { delay: 1 },
            min_gap: F64(0.25),
            reserve: F64(1.0),
        };
        // 1 + 1 <= 2: equality admits.
        assert_eq!(admit(&call), Decision::Retry { wait: F64(1.0) });
        let e = Observed::Admit {
            decision: admit(&call),
        };
        let wrong = Observed::Admit {
            decision: Decision::Refuse {
                reason: Reason::InsufficientBudget,
            },
        };
        assert!(!e.same(&wrong));
    }
}
