//! Step 12: plays one `sleep_at_least` call in virtual time (the clock
//! moves only inside the sleeper, by the script's rule for that sleep; the
//! cancel flag turns on once the script's number of sleeps have returned),
//! or one `guarded_read` call in step 11's world whose sleeper moves the
//! clock by the script's wakes (see [`guarded`]). Both worlds are
//! `lab_api::advanced::ScriptedWorld`s, the very worlds a failure prints.

mod guarded;

use crate::advanced::sleep_at_least;
use lab_api::advanced::{Cancel, Clock, ScriptedWake, ScriptedWorld, Sleeper};
use lab_harness::Runaway;
use lab_scripts::s12::{Observed, Script, SleepScript, SleepSeen, Slept, Wake};
use lab_wire::{Use, F64};
use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicU64, Ordering};

/// Far more sleeper calls than any script needs (a correct solution makes at
/// most three): the loop is runaway.
const MAX_SLEEPS: u32 = 10_000;
/// Far more clock readings or cancellation polls than any script needs: the
/// loop spins without sleeping.
const MAX_READS: u64 = 1_000_000;

/// The world's clock, its readings counted.
struct Counted<'w> {
    world: &'w ScriptedWorld,
    reads: AtomicU64,
}

impl Clock for Counted<'_> {
    fn now(&self) -> f64 {
        let reads = self.reads.fetch_add(1, Ordering::SeqCst) + 1;
        if reads > MAX_READS {
            std::panic::panic_any(Runaway(
                u32::try_from(reads).unwrap_or(u32::MAX),
                Use::ClockReadings,
            ));
        }
        self.world.now()
    }
}

/// The world's cancel flag, its polls counted.
struct Flag<'w> {
    world: &'w ScriptedWorld,
    polls: Cell<u64>,
}

impl Cancel for Flag<'_> {
    fn is_cancelled(&self) -> bool {
        self.polls.set(self.polls.get() + 1);
        if self.polls.get() > MAX_READS {
            std::panic::panic_any(Runaway(
                u32::try_from(self.polls.get()).unwrap_or(u32::MAX),
                Use::CancelChecks,
            ));
        }
        self.world.is_cancelled()
    }
}

/// The world's sleeper, its calls counted and its non-zero sleeps written
/// down with the clock's reading after each.
struct Watched<'w> {
    world: ScriptedWorld,
    calls: u32,
    slept: &'w RefCell<Vec<Slept>>,
}

impl Sleeper for Watched<'_> {
    fn sleep(&mut self, seconds: f64) {
        self.calls += 1;
        if self.calls > MAX_SLEEPS {
            std::panic::panic_any(Runaway(self.calls, Use::Sleeps));
        }
        if seconds == 0.0 {
            return; // sleeps of zero are ignored
        }
        // A negative or non-finite request (never a correct one) leaves the
        // clock where it is, but is recorded and uses up its wake.
        self.world.sleep(seconds);
        self.slept.borrow_mut().push(Slept {
            asked: F64(seconds),
            after: F64(self.world.now()),
        });
    }
}

/// A script's wake as the world's.
fn wake(w: Wake) -> ScriptedWake {
    match w {
        Wake::Exact => ScriptedWake::Exact,
        Wake::Early { moved } => ScriptedWake::Early { moved: moved.0 },
        Wake::Frozen => ScriptedWake::Frozen,
        Wake::Late { over } => ScriptedWake::Late { over: over.0 },
        Wake::Back { by } => ScriptedWake::Back { by: by.0 },
        Wake::Reads { t } => ScriptedWake::Reads { t: t.0 },
    }
}

pub fn play(script: lab_scripts::s12::Script) -> Result<serde_json::Value, String> {
    let observed = match script {
        Script::SleepAtLeast(s) => Observed::SleepAtLeast(play_sleep(&s)),
        Script::GuardedRead(g) => Observed::GuardedRead(guarded::play(g)),
    };
    lab_scripts::s12::write(&observed)
}

fn play_sleep(script: &SleepScript) -> SleepSeen {
    let world =
        ScriptedWorld::new(script.start.0).wakes(script.wakes.iter().copied().map(wake).collect());
    let world = match script.cancel_after_sleeps {
        Some(k) => world.cancel_after(k),
        None => world,
    };
    let clock = Counted {
        world: &world,
        reads: AtomicU64::new(0),
    };
    let flag = Flag {
        world: &world,
        polls: Cell::new(0),
    };
    let slept = RefCell::new(Vec::new());
    let mut sleeper = Watched {
        world: world.clone(),
        calls: 0,
        slept: &slept,
    };
    let result = sleep_at_least(
        script.wait.0,
        script.deadline.0,
        &clock,
        &mut sleeper,
        &flag,
    );
    SleepSeen {
        start: script.start,
        sleeps: slept.into_inner(),
        result,
    }
}
