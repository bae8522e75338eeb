//! Step 12 `guarded_read`: step 11's world of replies, with a clock that is
//! state. It moves inside a send (by the reply's cost, which may be negative
//! or land on NaN or an infinity), inside a close (by the script's step for
//! that response) and inside a non-zero sleep (by the script's wake); a
//! reading never moves it, so reading more or less often changes nothing.
//! The n-th sleep may panic: the runner sees whether that panic escapes.

use super::super::s11::reason;
use crate::advanced::guarded_read;
use lab_api::advanced::{Cancel, Clock, Finish, HttpResponse, Policy, Sleeper, Transport};
use lab_harness::Runaway;
use lab_wire::scripts::s11::{Ending, Event, Handed};
use lab_wire::scripts::s12::{Guarded, GuardedSeen};
use lab_wire::F64;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex, MutexGuard};

/// Far more sends and sleeps than any script needs: the loop is runaway.
const MAX_EVENTS: u32 = 10_000;
/// Far more clock readings or cancellation polls than any script needs.
const MAX_READS: u64 = 1_000_000;

/// The scripted sleeper's panic (unwound without the panic hook).
struct SleeperPanic;

struct World {
    script: Guarded,
    now: f64,
    sends: u32,
    sleeps: usize,
    /// Sends and non-zero sleeps that have returned (for `cancel_after`).
    done: u32,
    reads: u64,
    events: Vec<Event>,
    /// Set once `guarded_read` has returned: later closes are the runner's.
    returned: bool,
    /// The close token of the handed-back response, seen when the runner drops it.
    handed: Option<u32>,
}

impl World {
    fn at(&self) -> F64 {
        F64(self.now - self.script.read.start.0)
    }

    fn record(&mut self, event: Event) {
        self.events.push(event);
        let count = self.events.len() as u32;
        if count > MAX_EVENTS {
            std::panic::panic_any(Runaway(count));
        }
    }

    fn poll(&mut self) {
        self.reads += 1;
        if self.reads > MAX_READS {
            std::panic::panic_any(Runaway(u32::try_from(self.reads).unwrap_or(u32::MAX)));
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
            .script
            .read
            .replies
            .get(k as usize)
            .unwrap_or(&w.script.read.fallback)
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
                    w.events.push(Event::Close { reply: k, at });
                    w.now += w.script.closing(k);
                }
            }),
        )
    }
}

impl Clock for Shared {
    fn now(&self) -> f64 {
        let mut w = self.lock();
        w.poll();
        w.now
    }
}

impl Sleeper for Shared {
    fn sleep(&mut self, seconds: f64) {
        let mut w = self.lock();
        w.poll();
        if seconds == 0.0 {
            return; // sleeping for nothing may be skipped, so it is not observed
        }
        let at = w.at();
        w.record(Event::Sleep {
            seconds: F64(seconds),
            at,
        });
        w.sleeps += 1;
        let n = w.sleeps;
        if w.script.sleeper_panics == Some(n as u32) {
            drop(w);
            resume_unwind(Box::new(SleeperPanic));
        }
        // A negative or non-finite request (never a correct one) leaves the
        // clock where it is, but uses up its wake.
        if seconds > 0.0 && seconds.is_finite() {
            w.now = w.script.wake(n).after(w.now, seconds);
        }
        w.done += 1;
    }
}

impl Cancel for Shared {
    fn is_cancelled(&self) -> bool {
        let mut w = self.lock();
        w.poll();
        w.script.read.cancel_after.is_some_and(|n| w.done >= n)
    }
}

pub(super) fn play(script: Guarded) -> GuardedSeen {
    let s = &script.read;
    let policy = Policy {
        limit: s.limit,
        min_gap: s.min_gap.0,
        reserve: s.reserve.0,
    };
    let (method, deadline) = (s.method.clone(), s.deadline.0);
    let shared = Shared(Arc::new(Mutex::new(World {
        now: s.start.0,
        script,
        sends: 0,
        sleeps: 0,
        done: 0,
        reads: 0,
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
    let result = catch_unwind(AssertUnwindSafe(|| {
        guarded_read(
            &method,
            deadline,
            policy,
            &mut transport,
            &clock,
            &mut sleeper,
            &cancel,
        )
    }));
    shared.lock().returned = true;
    let result = match result {
        Ok(r) => Some(r),
        Err(p) if p.is::<SleeperPanic>() => None,
        Err(payload) => resume_unwind(payload),
    };
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
        None => Ending::Panicked,
        Some(Err(_)) => Ending::InvalidArgument,
        Some(Ok(Finish::Answer(r))) => Ending::Answer { response: hand(r) },
        Some(Ok(Finish::Stopped { reason: stop, last })) => Ending::Stopped {
            reason: reason(stop),
            last: last.map(hand),
        },
    };
    let events = std::mem::take(&mut shared.lock().events);
    GuardedSeen { events, ending }
}
