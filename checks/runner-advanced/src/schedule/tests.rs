//! Unit tests of `schedule`: step 13's threads played in every order of
//! their steps on a gate's `Tally`.

use super::*;
use lab_api::advanced::Tally;

/// Gates written the ways a learner might.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    FetchUpdate,
    CompareExchangeLoop,
    AddThenUndo,
    CheckThenAct,
    DropStoresLoadMinusOne,
    StdAtomic,
    LockAroundTally,
}

struct TestGate {
    kind: Kind,
    capacity: u32,
    used: Tally,
    plain: AtomicU32,
    lock: Mutex<()>,
}

struct TestPass<'g>(&'g TestGate);

impl TestGate {
    fn new(kind: Kind, capacity: u32) -> TestGate {
        TestGate {
            kind,
            capacity,
            used: Tally::new(0),
            plain: AtomicU32::new(0),
            lock: Mutex::new(()),
        }
    }

    fn try_acquire(&self) -> Option<TestPass<'_>> {
        let c = self.capacity;
        let got = match self.kind {
            Kind::FetchUpdate | Kind::DropStoresLoadMinusOne => {
                self.used.fetch_update(|n| (n < c).then_some(n + 1)).is_ok()
            }
            Kind::CompareExchangeLoop => {
                let mut n = self.used.load();
                loop {
                    if n >= c {
                        break false;
                    }
                    match self.used.compare_exchange(n, n + 1) {
                        Ok(_) => break true,
                        Err(seen) => n = seen,
                    }
                }
            }
            Kind::AddThenUndo => {
                if self.used.fetch_add(1) >= c {
                    self.used.fetch_sub(1);
                    false
                } else {
                    true
                }
            }
            Kind::CheckThenAct => {
                if self.used.load() < c {
                    self.used.fetch_add(1);
                    true
                } else {
                    false
                }
            }
            Kind::StdAtomic => self
                .plain
                .fetch_update(SeqCst, SeqCst, |n| (n < c).then_some(n + 1))
                .is_ok(),
            Kind::LockAroundTally => {
                let _held = self.lock.lock().unwrap();
                if self.used.load() < c {
                    self.used.fetch_add(1);
                    true
                } else {
                    false
                }
            }
        };
        // `then`, not `then_some`: a pass built and dropped gives a place back.
        got.then(|| TestPass(self))
    }

    fn in_use(&self) -> u32 {
        match self.kind {
            Kind::StdAtomic => self.plain.load(SeqCst),
            _ => self.used.load(),
        }
    }
}

impl Drop for TestPass<'_> {
    fn drop(&mut self) {
        let g = self.0;
        match g.kind {
            Kind::DropStoresLoadMinusOne => g.used.store(g.used.load() - 1),
            Kind::StdAtomic => {
                g.plain.fetch_sub(1, SeqCst);
            }
            Kind::LockAroundTally => {
                let _held = g.lock.lock().unwrap();
                g.used.fetch_sub(1);
            }
            _ => {
                g.used.fetch_sub(1);
            }
        }
    }
}

fn explore_gate(kind: Kind, capacity: u32, held: u32, threads: u32) -> Findings {
    let gate = TestGate::new(kind, capacity);
    let passes: Vec<_> = (0..held).map(|_| gate.try_acquire().unwrap()).collect();
    let found = explore(capacity, threads, &|| gate.try_acquire(), &|| gate.in_use());
    if found == CLEAN || !found.granted_any {
        assert_eq!(gate.in_use(), held, "the schedules gave everything back");
    }
    std::mem::forget(passes);
    found
}

const CLEAN: Findings = Findings {
    over_capacity: false,
    in_use_off: false,
    untallied: false,
    waited: false,
    granted_any: true,
};

#[test]
fn correct_gates_pass_every_schedule() {
    for kind in [
        Kind::FetchUpdate,
        Kind::CompareExchangeLoop,
        Kind::AddThenUndo,
    ] {
        for (capacity, held) in [(1, 0), (2, 0), (3, 1), (70, 0)] {
            for threads in [2, 3] {
                assert_eq!(
                    explore_gate(kind, capacity, held, threads),
                    CLEAN,
                    "capacity {capacity}, held {held}, {threads} threads"
                );
            }
        }
    }
}

#[test]
fn a_full_gate_grants_nothing_and_breaks_nothing() {
    let found = explore_gate(Kind::FetchUpdate, 2, 2, 3);
    assert_eq!(
        found,
        Findings {
            granted_any: false,
            ..CLEAN
        }
    );
}

/// Played many times: the verdict never changes.
#[test]
fn check_then_act_is_over_capacity_every_time() {
    for run in 0..50 {
        for (capacity, held) in [(1, 0), (3, 0), (3, 2)] {
            let found = explore_gate(Kind::CheckThenAct, capacity, held, 2);
            assert!(found.over_capacity, "run {run}, capacity {capacity}");
            assert!(!found.untallied);
        }
    }
}

/// The first breach ends the schedules; the passes of the schedule
/// that broke the gate are not given back (its count is wrong).
#[test]
fn the_first_breach_ends_the_schedules() {
    let gate = TestGate::new(Kind::CheckThenAct, 1);
    let calls = AtomicU32::new(0);
    let acquire = || {
        calls.fetch_add(1, SeqCst);
        gate.try_acquire()
    };
    let found = explore(1, 3, &acquire, &|| gate.in_use());
    assert!(found.over_capacity);
    // A stopped before its load, B before its load (both refused
    // nothing yet): A k=1, B j=1, A, B: no breach; then B j=2 (B has
    // loaded 0), A takes the place, B adds: two passes. Two schedules
    // of two acquisitions each.
    assert_eq!(calls.load(SeqCst), 4);
    assert_eq!(gate.in_use(), 2, "the two passes were kept");
}

#[test]
fn a_drop_that_stores_what_it_loaded_minus_one_loses_a_count_every_time() {
    for run in 0..50 {
        let found = explore_gate(Kind::DropStoresLoadMinusOne, 2, 0, 2);
        assert!(found.in_use_off, "run {run}: {found:?}");
        assert!(!found.over_capacity, "run {run}: {found:?}");
    }
}

#[test]
fn a_gate_that_counts_elsewhere_is_untallied() {
    let found = explore_gate(Kind::StdAtomic, 2, 0, 2);
    assert!(found.untallied, "{found:?}");
    assert!(!found.over_capacity && !found.in_use_off, "{found:?}");
}

/// A thread stopped inside its lock holds the other one up, again when
/// the schedule is played more patiently: the gate waits for something
/// beside its Tally. Nothing hangs, and it is found once.
#[test]
fn a_lock_around_the_tally_is_found_waiting_and_nothing_hangs() {
    let start = std::time::Instant::now();
    let found = explore_gate(Kind::LockAroundTally, 1, 0, 3);
    assert!(found.waited, "{found:?}");
    assert!(!found.over_capacity && !found.in_use_off, "{found:?}");
    let took = start.elapsed();
    let both = BLOCKED_AFTER * (1 + AGAIN_PATIENCE);
    assert!(took >= both, "{took:?}: not held up twice");
    assert!(
        took < both + BLOCKED_AFTER * 2,
        "{took:?}: waited more often"
    );
}

#[test]
fn a_panic_in_a_call_reaches_the_caller() {
    let gate = TestGate::new(Kind::FetchUpdate, 2);
    let calls = AtomicU32::new(0);
    let acquire = || {
        if calls.fetch_add(1, SeqCst) == 3 {
            std::panic::resume_unwind(Box::new("the learner's panic"));
        }
        gate.try_acquire()
    };
    let caught = catch_unwind(AssertUnwindSafe(|| {
        explore(2, 2, &acquire, &|| gate.in_use())
    }))
    .unwrap_err();
    assert_eq!(caught.downcast_ref::<&str>(), Some(&"the learner's panic"));
}
