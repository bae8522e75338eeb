//! Step 11: plays one `admit` call, or one `execute_admitted` call in a
//! scripted world of virtual time: `lab_api::advanced::ScriptedWorld`, the
//! very world a failure prints for the learner to paste. Time moves only
//! inside a send (by the reply's cost) and inside a non-zero sleep (by its
//! length plus the scripted overrun). The world tells the runner of every
//! close: dropping the response to send k records `close(k)`, so the
//! runner sees when each response was closed relative to the sends and
//! sleeps around it. Step 12's `guarded_read` is played the same way.

use crate::advanced::{admit, execute_admitted};
use lab_api::advanced::{
    Admission, Cancel, Clock, Finish, HttpResponse, InvalidArgument, Policy, RetryAfterError,
    ScriptedReply, ScriptedWake, ScriptedWorld, Sleeper, Stop, Transport,
};
use lab_harness::Runaway;
use lab_wire::scripts::s11::{
    AdmitCall, Decision, Ending, Event, Handed, Observed, Parsed, Reason, Reply, Scenario, Script,
};
use lab_wire::F64;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex, MutexGuard};

/// Far more sends and sleeps than any scenario needs: the loop is runaway.
const MAX_EVENTS: u32 = 10_000;
/// Far more clock readings or cancellation polls than any script needs
/// (counted in `guarded_read`'s world only).
const MAX_READS: u64 = 1_000_000;

pub fn play(input: serde_json::Value) -> Result<serde_json::Value, String> {
    let script = lab_wire::scripts::s11::read(input)?;
    let observed = match script {
        Script::Admit(call) => Observed::Admit {
            decision: play_admit(&call),
        },
        Script::Execute(scenario) => play_execute(scenario),
    };
    lab_wire::scripts::s11::write(&observed)
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

/// The runner's own panic for a scripted sleeper's panic (unwound without
/// the panic hook), so that it is told apart from the learner's.
pub(super) struct SleeperPanic;

/// What the runner sees of one read: the events, in order, and which send's
/// response was handed back.
struct Seen {
    start: f64,
    events: Vec<Event>,
    /// Set once the call has returned: later closes are the runner's own,
    /// not the learner's.
    returned: bool,
    /// The close token of the handed-back response, seen when the runner drops it.
    handed: Option<u32>,
    /// Clock readings, cancellation polls and sleeper calls (counted only
    /// in `guarded_read`'s world).
    reads: u64,
}

/// Never panics on a poisoned lock: closes run while unwinding too.
fn lock(seen: &Mutex<Seen>) -> MutexGuard<'_, Seen> {
    seen.lock().unwrap_or_else(|e| e.into_inner())
}

/// A handle on the scripted world (the learner's own `ScriptedWorld`, so
/// the world a failure prints is the world checked) that writes down every
/// send, close and non-zero sleep, and stops a runaway.
#[derive(Clone)]
struct Watched {
    world: ScriptedWorld,
    seen: Arc<Mutex<Seen>>,
    count_reads: bool,
}

impl Watched {
    fn new(world: ScriptedWorld, start: f64, count_reads: bool) -> Watched {
        let seen = Arc::new(Mutex::new(Seen {
            start,
            events: Vec::new(),
            returned: false,
            handed: None,
            reads: 0,
        }));
        let ear = Arc::clone(&seen);
        let world = world.watch_closes(Box::new(move |k, reading| {
            let mut seen = lock(&ear);
            if seen.returned {
                seen.handed = Some(k);
            } else {
                let at = F64(reading - seen.start);
                // A close never counts towards the guard: it cannot
                // outnumber the sends, and it may run while unwinding.
                seen.events.push(Event::Close { reply: k, at });
            }
        }));
        Watched {
            world,
            seen,
            count_reads,
        }
    }

    fn at(&self) -> F64 {
        F64(self.world.now() - lock(&self.seen).start)
    }

    fn record(&self, event: Event) {
        let mut seen = lock(&self.seen);
        seen.events.push(event);
        let count = seen.events.len() as u32;
        if count > MAX_EVENTS {
            std::panic::panic_any(Runaway(count));
        }
    }

    fn poll(&self) {
        if !self.count_reads {
            return;
        }
        let mut seen = lock(&self.seen);
        seen.reads += 1;
        if seen.reads > MAX_READS {
            std::panic::panic_any(Runaway(u32::try_from(seen.reads).unwrap_or(u32::MAX)));
        }
    }
}

impl Transport for Watched {
    fn send(&mut self, method: &str, timeout: f64) -> HttpResponse {
        let at = self.at();
        self.record(Event::Send {
            method: method.to_string(),
            timeout: F64(timeout),
            at,
        });
        self.world.send(method, timeout)
    }
}

impl Clock for Watched {
    fn now(&self) -> f64 {
        self.poll();
        self.world.now()
    }
}

impl Sleeper for Watched {
    fn sleep(&mut self, seconds: f64) {
        self.poll();
        if seconds == 0.0 {
            return; // sleeping for nothing may be skipped, so it is not observed
        }
        let at = self.at();
        self.record(Event::Sleep {
            seconds: F64(seconds),
            at,
        });
        let world = &mut self.world;
        if catch_unwind(AssertUnwindSafe(|| world.sleep(seconds))).is_err() {
            // The world's scripted panic (its message is not the learner's).
            let _ = lab_harness::take_last_panic();
            resume_unwind(Box::new(SleeperPanic));
        }
    }
}

impl Cancel for Watched {
    fn is_cancelled(&self) -> bool {
        self.poll();
        self.world.is_cancelled()
    }
}

/// A scripted reply as the world's.
pub(super) fn scripted(r: &Reply) -> ScriptedReply {
    ScriptedReply {
        status: r.status,
        retry_after: r.retry_after.clone(),
        received_at: r.received_at,
        body: r.body.clone(),
        takes: r.cost.0,
    }
}

/// A scenario's world without its sleeps: the start, the replies and when
/// cancellation shows.
pub(super) fn world(s: &Scenario) -> ScriptedWorld {
    let world = ScriptedWorld::new(s.start.0)
        .replies(s.replies.iter().map(scripted).collect())
        .later(scripted(&s.fallback));
    match s.cancel_after {
        Some(n) => world.cancel_after(n),
        None => world,
    }
}

/// Plays one call with `execute_admitted`'s arguments in `world` (counting
/// readings, polls and sleeper calls when `count_reads`): the events, and
/// how it ended (`None`: the call gave no result, see `call`).
pub(super) fn play_read(
    world: ScriptedWorld,
    s: &Scenario,
    count_reads: bool,
    call: impl FnOnce(
        Policy,
        &mut dyn Transport,
        &dyn Clock,
        &mut dyn Sleeper,
        &dyn Cancel,
    ) -> Option<Result<Finish, InvalidArgument>>,
) -> (Vec<Event>, Ending) {
    let policy = Policy {
        limit: s.limit,
        min_gap: s.min_gap.0,
        reserve: s.reserve.0,
    };
    let watched = Watched::new(world, s.start.0, count_reads);
    let (mut transport, clock, mut sleeper, cancel) = (
        watched.clone(),
        watched.clone(),
        watched.clone(),
        watched.clone(),
    );
    let result = call(policy, &mut transport, &clock, &mut sleeper, &cancel);
    lock(&watched.seen).returned = true;
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
        h.reply = lock(&watched.seen).handed.take();
        h
    };
    let ending = match result {
        None => Ending::Panicked,
        Some(Err(_)) => Ending::InvalidArgument,
        Some(Ok(Finish::Answer(r))) => Ending::Answer { response: hand(r) },
        Some(Ok(Finish::Stopped { reason: stop, last })) => Ending::Stopped {
            reason: reason(stop),
            last: last.map(hand),
        },
    };
    let events = std::mem::take(&mut lock(&watched.seen).events);
    (events, ending)
}

/// Step 11's world: each non-zero sleep overruns by its scripted overrun.
fn play_execute(scenario: Scenario) -> Observed {
    let wakes = scenario
        .overrun
        .iter()
        .map(|x| {
            if x.0 == 0.0 {
                ScriptedWake::Exact
            } else {
                ScriptedWake::Late { over: x.0 }
            }
        })
        .collect();
    let world = world(&scenario).wakes(wakes);
    let method = scenario.method.clone();
    let deadline = scenario.deadline.0;
    let (events, ending) = play_read(
        world,
        &scenario,
        false,
        |policy, transport, clock, sleeper, cancel| {
            Some(execute_admitted(
                &method, deadline, policy, transport, clock, sleeper, cancel,
            ))
        },
    );
    Observed::Execute { events, ending }
}
