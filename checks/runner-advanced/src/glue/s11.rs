//! Step 11: plays one `admit` call, or one `execute_admitted` call in a
//! scripted world of virtual time. Time moves only inside a send (by the
//! reply's cost) and inside a non-zero sleep (by its length plus the
//! scripted overrun). Every response carries a close token: dropping it
//! records `close(k)`, so the runner sees when each response was closed
//! relative to the sends and sleeps around it.

use crate::advanced::{admit, execute_admitted};
use lab_api::advanced::{
    Admission, Cancel, Clock, Finish, HttpResponse, Policy, RetryAfterError, Sleeper, Stop,
    Transport,
};
use lab_harness::Runaway;
use lab_wire::scripts::s11::{
    AdmitCall, Decision, Ending, Event, Handed, Observed, Parsed, Reason, Scenario, Script,
};
use lab_wire::F64;
use std::sync::{Arc, Mutex, MutexGuard};

/// Far more sends and sleeps than any scenario needs: the loop is runaway.
const MAX_EVENTS: u32 = 10_000;

pub fn play(input: serde_json::Value) -> Result<serde_json::Value, String> {
    let script: Script = serde_json::from_value(input).map_err(|e| e.to_string())?;
    let observed = match script {
        Script::Admit(call) => Observed::Admit {
            decision: play_admit(&call),
        },
        Script::Execute(scenario) => play_execute(scenario),
    };
    serde_json::to_value(observed).map_err(|e| e.to_string())
}

pub(super) fn reason(stop: Stop) -> Reason {
    match stop {
        Stop::StatusNotAllowed => Reason::StatusNotAllowed,
        Stop::MethodNotAllowed => Reason::MethodNotAllowed,
        Stop::AttemptLimit => Reason::AttemptLimit,
        Stop::InvalidRetryAfter => Reason::InvalidRetryAfter,
        Stop::InsufficientBudget => Reason::InsufficientBudget,
        Stop::Cancelled => Reason::Cancelled,
        Stop::DeadlineReached => Reason::DeadlineReached,
        Stop::Guard(fault) => Reason::Guard {
            fault: super::s12::ending(Err(fault)),
        },
    }
}

fn play_admit(c: &AdmitCall) -> Decision {
    let retry_after = match c.retry_after {
        Parsed::None => None,
        Parsed::Ok { delay } => Some(Ok(delay)),
        Parsed::Err { error } => Some(Err(RetryAfterError::from(error))),
    };
    match admit(
        &c.method,
        c.status,
        c.attempts,
        c.limit,
        c.left.0,
        retry_after,
        c.min_gap.0,
        c.reserve.0,
    ) {
        Ok(Admission::Retry { wait }) => Decision::Retry { wait: F64(wait) },
        Ok(Admission::Refuse(stop)) => Decision::Refuse {
            reason: reason(stop),
        },
        Err(_) => Decision::InvalidArgument,
    }
}

struct World {
    scenario: Scenario,
    now: f64,
    sends: u32,
    sleeps: usize,
    /// Sends and non-zero sleeps that have returned (for `cancel_after`).
    done: u32,
    events: Vec<Event>,
    /// Set once `execute_admitted` has returned: later closes are the
    /// runner's own, not the learner's.
    returned: bool,
    /// The close token of the handed-back response, seen when the runner drops it.
    handed: Option<u32>,
}

impl World {
    fn at(&self) -> F64 {
        F64(self.now - self.scenario.start.0)
    }

    fn record(&mut self, event: Event) {
        self.events.push(event);
        let count = self.events.len() as u32;
        if count > MAX_EVENTS {
            std::panic::panic_any(Runaway(count));
        }
    }
}

#[derive(Clone)]
struct Shared(Arc<Mutex<World>>);

impl Shared {
    /// Never panics on a poisoned lock: closes run while unwinding too.
    fn lock(&self) -> MutexGuard<'_, World> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Transport for Shared {
    fn send(&mut self, method: &str, timeout: f64) -> HttpResponse {
        let mut w = self.lock();
        let at = w.at();
        w.record(Event::Send {
            method: method.to_string(),
            timeout: F64(timeout),
            at,
        });
        let k = w.sends;
        let reply = w
            .scenario
            .replies
            .get(k as usize)
            .unwrap_or(&w.scenario.fallback)
            .clone();
        w.sends += 1;
        w.now += reply.cost.0;
        w.done += 1;
        drop(w);
        let world = self.clone();
        HttpResponse::watched(
            reply.status,
            reply.retry_after,
            reply.received_at,
            reply.body,
            Box::new(move || {
                let mut w = world.lock();
                if w.returned {
                    w.handed = Some(k);
                } else {
                    let at = w.at();
                    // A close never counts towards the guard: it cannot
                    // outnumber the sends, and it may run while unwinding.
                    w.events.push(Event::Close { reply: k, at });
                }
            }),
        )
    }
}

impl Clock for Shared {
    fn now(&self) -> f64 {
        self.lock().now
    }
}

impl Sleeper for Shared {
    fn sleep(&mut self, seconds: f64) {
        if seconds == 0.0 {
            return; // sleeping for nothing may be skipped, so it is not observed
        }
        let mut w = self.lock();
        let at = w.at();
        w.record(Event::Sleep {
            seconds: F64(seconds),
            at,
        });
        let extra = w.scenario.overrun.get(w.sleeps).map_or(0.0, |x| x.0);
        w.sleeps += 1;
        if seconds.is_finite() && seconds > 0.0 {
            w.now += seconds + extra;
        }
        w.done += 1;
    }
}

impl Cancel for Shared {
    fn is_cancelled(&self) -> bool {
        let w = self.lock();
        w.scenario.cancel_after.is_some_and(|n| w.done >= n)
    }
}

fn play_execute(scenario: Scenario) -> Observed {
    let policy = Policy {
        limit: scenario.limit,
        min_gap: scenario.min_gap.0,
        reserve: scenario.reserve.0,
    };
    let (method, deadline) = (scenario.method.clone(), scenario.deadline.0);
    let shared = Shared(Arc::new(Mutex::new(World {
        now: scenario.start.0,
        scenario,
        sends: 0,
        sleeps: 0,
        done: 0,
        events: Vec::new(),
        returned: false,
        handed: None,
    })));
    let (mut transport, clock, mut sleeper, cancel) = (
        shared.clone(),
        shared.clone(),
        shared.clone(),
        shared.clone(),
    );
    let result = execute_admitted(
        &method,
        deadline,
        policy,
        &mut transport,
        &clock,
        &mut sleeper,
        &cancel,
    );
    shared.lock().returned = true;
    // Reads a handed-back response, then drops it to learn its token.
    let hand = |r: HttpResponse| -> Handed {
        let mut h = Handed {
            reply: None,
            status: r.status,
            retry_after: r.retry_after.clone(),
            received_at: r.received_at,
            body: r.body.clone(),
        };
        drop(r);
        h.reply = shared.lock().handed.take();
        h
    };
    let ending = match result {
        Err(_) => Ending::InvalidArgument,
        Ok(Finish::Answer(r)) => Ending::Answer { response: hand(r) },
        Ok(Finish::Stopped { reason: stop, last }) => Ending::Stopped {
            reason: reason(stop),
            last: last.map(hand),
        },
    };
    let events = std::mem::take(&mut shared.lock().events);
    Observed::Execute { events, ending }
}
