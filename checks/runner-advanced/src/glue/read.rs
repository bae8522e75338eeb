//! One read in step 11's scripted world, shared by step 11's
//! `execute_admitted` and step 12's `guarded_read`: the world of a
//! scenario, a handle on it that writes down every send, close and
//! non-zero sleep, and the ending as it travels.

use lab_api::advanced::{
    Cancel, Clock, Finish, HttpResponse, InvalidArgument, Policy, ScriptedReply, ScriptedWorld,
    Sleeper, Transport,
};
use lab_harness::Runaway;
use lab_scripts::s11::{Ending, Event, Handed, Reply, Scenario};
use lab_wire::{Use, F64};
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex, MutexGuard};

/// Far more sends and sleeps than any scenario needs: the loop is runaway.
const MAX_EVENTS: u32 = 10_000;
/// Far more clock readings or cancellation polls than any script needs
/// (counted in `guarded_read`'s world only).
const MAX_READS: u64 = 1_000_000;

/// `execute_admitted` and `guarded_read`: the learner's functions a read
/// calls, which have the same signature.
pub(super) type ReadFn = fn(
    &str,
    f64,
    Policy,
    &mut dyn Transport,
    &dyn Clock,
    &mut dyn Sleeper,
    &dyn Cancel,
) -> Result<Finish, InvalidArgument>;

/// The runner's own panic for a scripted sleeper's panic (unwound without
/// the panic hook), so that it is told apart from the learner's.
struct SleeperPanic;

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
        let kind = match event {
            Event::Sleep { .. } => Use::Sleeps,
            _ => Use::Sends,
        };
        let mut seen = lock(&self.seen);
        seen.events.push(event);
        let count = seen.events.len() as u32;
        if count > MAX_EVENTS {
            std::panic::panic_any(Runaway(count, kind));
        }
    }

    fn poll(&self, kind: Use) {
        if !self.count_reads {
            return;
        }
        let mut seen = lock(&self.seen);
        seen.reads += 1;
        if seen.reads > MAX_READS {
            std::panic::panic_any(Runaway(u32::try_from(seen.reads).unwrap_or(u32::MAX), kind));
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
        self.poll(Use::ClockReadings);
        self.world.now()
    }
}

impl Sleeper for Watched {
    fn sleep(&mut self, seconds: f64) {
        self.poll(Use::Sleeps);
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
        self.poll(Use::CancelChecks);
        self.world.is_cancelled()
    }
}

/// A scripted reply as the world's.
fn scripted(r: &Reply) -> ScriptedReply {
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

/// Plays one call of `read` (`execute_admitted` or `guarded_read`) with
/// the scenario's arguments in `world`, counting readings, polls and
/// sleeper calls when `count_reads`: the events, and how it ended (a
/// scripted sleeper's panic that escaped the call is `Ending::Panicked`).
pub(super) fn play_read(
    world: ScriptedWorld,
    s: &Scenario,
    count_reads: bool,
    read: ReadFn,
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
    let result = catch_unwind(AssertUnwindSafe(|| {
        read(
            &s.method,
            s.deadline.0,
            policy,
            &mut transport,
            &clock,
            &mut sleeper,
            &cancel,
        )
    }));
    let result = match result {
        Ok(r) => Some(r),
        Err(p) if p.is::<SleeperPanic>() => None,
        Err(payload) => resume_unwind(payload),
    };
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
            reason: stop,
            last: last.map(hand),
        },
    };
    let events = std::mem::take(&mut lock(&watched.seen).events);
    (events, ending)
}
